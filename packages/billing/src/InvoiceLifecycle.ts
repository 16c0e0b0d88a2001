/**
 * Invoice state transitions (spec section 3, decisions.md section 5) as pure functions: each takes the current
 * invoice, the command and the time, and returns the new invoice with the events of the change, or a refusal.
 * The caller loads and persists; nothing here does I/O.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import {
  ExternalReferenceAlreadyUsed,
  type FieldIssue,
  FieldsInvalid,
  InvoiceStatusInvalid
} from "./BillingRefusal.js"
import type { InvoiceRecord, PaymentReferenceType } from "./Invoice.js"
import { invoiceEvent } from "./internal/events.js"

/**
 * The result of an accepted invoice transition: the invoice as it now is, and the events to write with it
 * (outbox, decisions.md section 9).
 *
 * @since 0.1.0
 */
export interface Transition {
  readonly invoice: InvoiceRecord
  readonly events: ReadonlyArray<BillingEvent>
}

/**
 * Body of report-failed (spec section 4.1): `reason`, 1 to 1000 characters (checked by the contract, see
 * `ReasonText.ts`), shown to an operator.
 *
 * @since 0.1.0
 */
export interface ReportFailedCommand {
  readonly reason: string
}

/**
 * Approve an invoice: `created` → `approved`, so it enters the send queue (decisions.md section 5). Sets
 * `approvedAt` and `updatedAt` to `now`; emits `billing.invoice.approved`.
 *
 * Refuses from any other status with `InvoiceStatusInvalid` (`BILLING_INVOICE_STATUS_INVALID`, 400,
 * action `approve`).
 *
 * @since 0.1.0
 */
export const approve = (invoice: InvoiceRecord, now: Date): Either.Either<Transition, InvoiceStatusInvalid> => {
  if (invoice.status !== "created") {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "approve" }))
  }
  const approved: InvoiceRecord = { ...invoice, status: "approved", approvedAt: now, updatedAt: now }
  return Either.right({ invoice: approved, events: [invoiceEvent("billing.invoice.approved", approved, now)] })
}

/**
 * Report an approved invoice that cannot be sent (spec sections 3 and 4.1,
 * `POST /v1/billing/invoices/{invoiceId}/report-failed`): `approved` → `failed`, terminal. Sets `failedAt`,
 * `failureReason` (the command's `reason`) and `updatedAt`; emits `billing.invoice.failed`.
 *
 * Refuses from any other status, including `failed` (a repeated report), with `InvoiceStatusInvalid`
 * (`BILLING_INVOICE_STATUS_INVALID`, 400, action `report-failed`).
 *
 * @since 0.1.0
 */
export const reportFailed = (
  invoice: InvoiceRecord,
  command: ReportFailedCommand,
  now: Date
): Either.Either<Transition, InvoiceStatusInvalid> => {
  if (invoice.status !== "approved") {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "report-failed" }))
  }
  const failed: InvoiceRecord = {
    ...invoice,
    status: "failed",
    failedAt: now,
    failureReason: command.reason,
    updatedAt: now
  }
  return Either.right({ invoice: failed, events: [invoiceEvent("billing.invoice.failed", failed, now)] })
}

/**
 * Body of report-sent (decisions.md section 5), checked for shape by the contract:
 * - `issuedInvoiceNumber`: the ERP's legal number (text);
 * - `issuedInvoiceDate`, `dueDate`: `YYYY-MM-DD`; `dueDate` is required on an invoice and optional on a credit
 *   note (as `requestedDueDate` is);
 * - `issuedTotalGrossMinorUnits`: the total as issued, integer minor units; payments are measured against it;
 * - `externalReference`: the caller's own id for the invoice (1 to 200 characters), when not attached yet;
 * - `paymentReference` with its `type` (`ocr`, `kid` or `reference`; check digits verified by the contract);
 * - `documentUrl`: an https address of the issued document.
 *
 * `externalReferenceTaken` is whether another invoice of the organization already carries `externalReference`,
 * read in the transaction that persists the result (a unique key stays the last guard).
 *
 * @since 0.1.0
 */
export interface ReportSentCommand {
  readonly issuedInvoiceNumber: string
  readonly issuedInvoiceDate: string
  readonly dueDate?: string
  readonly issuedTotalGrossMinorUnits: number
  readonly externalReference?: string
  readonly paymentReference?: { readonly type: PaymentReferenceType; readonly value: string }
  readonly documentUrl?: string
  readonly externalReferenceTaken: boolean
}

/** Issues of a report-sent body that only the invoice it names can decide. */
const reportSentIssues = (invoice: InvoiceRecord, command: ReportSentCommand): ReadonlyArray<FieldIssue> => {
  const issues: Array<FieldIssue> = []
  if (command.dueDate === undefined && invoice.documentKind === "invoice") {
    issues.push({ path: "/dueDate", message: "dueDate is required on an invoice." })
  }
  if (command.dueDate !== undefined && command.dueDate < command.issuedInvoiceDate) {
    issues.push({ path: "/dueDate", message: "dueDate is not before issuedInvoiceDate." })
  }
  const total = command.issuedTotalGrossMinorUnits
  if (invoice.documentKind === "invoice" ? total <= 0 : total >= 0) {
    issues.push({
      path: "/issuedTotalGrossMinorUnits",
      message:
        invoice.documentKind === "invoice"
          ? "An invoice's issued total is greater than zero."
          : "A credit note's issued total is less than zero."
    })
  }
  if (
    command.externalReference !== undefined &&
    invoice.externalReference !== undefined &&
    command.externalReference !== invoice.externalReference
  ) {
    issues.push({
      path: "/externalReference",
      message: "The invoice already carries another externalReference; omit it or send the same one."
    })
  }
  return issues
}

/**
 * Report an invoice sent (`POST /v1/billing/invoices/{invoiceId}/report-sent`; decisions.md sections 4 and 5):
 * `approved` → `sent`. Checks, in this order:
 * 1. the fields the invoice decides, else `FieldsInvalid` (`VALIDATION_FAILED`, 400) with one issue per field:
 *    `/dueDate` missing on an invoice, or before `issuedInvoiceDate`; `/issuedTotalGrossMinorUnits` zero or not
 *    the document's sign (an invoice's is positive, a credit note's negative); `/externalReference` other than
 *    the one the invoice already carries;
 * 2. the status is `approved`, else `InvoiceStatusInvalid` (`BILLING_INVOICE_STATUS_INVALID`, 400, action
 *    `report-sent`): a repeated report is refused;
 * 3. a newly attached `externalReference` is not used by another invoice, else `ExternalReferenceAlreadyUsed`
 *    (`BILLING_EXTERNAL_REFERENCE_ALREADY_USED`, 409).
 *
 * On success: status `sent`; `issuedInvoiceNumber`, `issuedInvoiceDate`, `dueDate` (when given),
 * `issuedTotalGrossMinorUnits`, `externalReference`, `paymentReference` and `paymentReferenceType`,
 * `documentUrl` as reported; `balanceMinorUnits` = the issued total; `sentAt` = `updatedAt` = `now`. Event
 * `billing.invoice.sent`. An issued total of the document's sign is never settled, so a sent document starts
 * `sent`.
 *
 * @since 0.1.0
 */
export const reportSent = (
  invoice: InvoiceRecord,
  command: ReportSentCommand,
  now: Date
): Either.Either<Transition, FieldsInvalid | InvoiceStatusInvalid | ExternalReferenceAlreadyUsed> => {
  const issues = reportSentIssues(invoice, command)
  if (issues.length > 0) {
    return Either.left(new FieldsInvalid({ issues, detail: "The report does not fit the invoice." }))
  }
  if (invoice.status !== "approved") {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "report-sent" }))
  }
  const attaching = command.externalReference !== undefined && invoice.externalReference === undefined
  if (attaching && command.externalReferenceTaken) {
    return Either.left(new ExternalReferenceAlreadyUsed({ externalReference: command.externalReference ?? "" }))
  }
  const externalReference = command.externalReference ?? invoice.externalReference
  const sent: InvoiceRecord = {
    ...invoice,
    status: "sent",
    ...(externalReference !== undefined ? { externalReference } : {}),
    issuedInvoiceNumber: command.issuedInvoiceNumber,
    issuedInvoiceDate: command.issuedInvoiceDate,
    ...(command.dueDate !== undefined ? { dueDate: command.dueDate } : {}),
    issuedTotalGrossMinorUnits: command.issuedTotalGrossMinorUnits,
    ...(command.paymentReference !== undefined
      ? { paymentReference: command.paymentReference.value, paymentReferenceType: command.paymentReference.type }
      : {}),
    ...(command.documentUrl !== undefined ? { documentUrl: command.documentUrl } : {}),
    balanceMinorUnits: command.issuedTotalGrossMinorUnits,
    sentAt: now,
    updatedAt: now
  }
  return Either.right({ invoice: sent, events: [invoiceEvent("billing.invoice.sent", sent, now)] })
}
