/**
 * Invoice state transitions (spec section 3, decisions.md section 5) as pure functions: each takes the current
 * invoice, the command and the time, and returns the new invoice with the events of the change, or a refusal.
 * The caller loads and persists; nothing here does I/O.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import { InvoiceStatusInvalid } from "./BillingRefusal.js"
import type { InvoiceRecord } from "./Invoice.js"
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
