/**
 * Invoice runs as an operator drives them (decisions.md section 5: invoices are approved "by an operator, or an
 * invoice run is approved"): create a run for a billing period from the organization's contracts, continue it
 * with contracts not yet billed in it, and approve it, which approves every invoice it created.
 *
 * A run is `draft` until approved, then `approved`; only a draft run is continued or approved. When the billing
 * integration declared the verification gate, a run's documents are proposals for the caller to pass or reject
 * instead of invoices; the drafting is the same ({@link documentFromDraft}, {@link proposalFromDraft}).
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import { FieldsInvalid, InvoiceRunNotContinuable } from "./BillingRefusal.js"
import type { InvoiceRecord } from "./Invoice.js"
import * as InvoiceLifecycle from "./InvoiceLifecycle.js"
import type { InvoiceProposalRecord } from "./InvoiceProposal.js"
import {
  type ContractMaterial,
  DateInvalid,
  draftDocuments,
  type DraftInvoice,
  PeriodInvalid,
  type PaymentTermsInvalid
} from "./InvoiceRun.js"
import { invoiceEvent, proposalEvent, runEvent } from "./internal/events.js"
import type { AmountOutOfRange, VatRateInvalid } from "./Money.js"

/**
 * Every invoice run status.
 *
 * @since 0.1.0
 */
export const INVOICE_RUN_STATUSES = ["draft", "approved"] as const

/**
 * `draft` (documents are being drafted into it) or `approved` (its invoices were approved; closed).
 *
 * @since 0.1.0
 */
export type InvoiceRunStatus = (typeof INVOICE_RUN_STATUSES)[number]

/**
 * An invoice run: the billed period (`YYYY-MM-DD`, both inclusive, whole calendar months), its status and times.
 *
 * @since 0.1.0
 */
export interface InvoiceRunRecord {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly periodStart: string
  readonly periodEnd: string
  readonly status: InvoiceRunStatus
  readonly approvedAt?: Date
  readonly createdAt: Date
  readonly updatedAt: Date
}

/**
 * Create command: the new run's id, organization and context, the period, the invoice date its documents are
 * requested with, and the contracts to bill (those not billed for the period yet; the caller selects them).
 *
 * @since 0.1.0
 */
export interface CreateRunCommand {
  readonly runId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly periodStart: string
  readonly periodEnd: string
  readonly invoiceDate: string
  readonly contracts: ReadonlyArray<ContractMaterial>
}

/**
 * Continue command: the invoice date and the contracts not yet billed in the run.
 *
 * @since 0.1.0
 */
export interface ContinueRunCommand {
  readonly invoiceDate: string
  readonly contracts: ReadonlyArray<ContractMaterial>
}

/**
 * A run with documents drafted into it: the run as it now is, one draft per contract that has lines (a contract
 * without lines bills nothing), and the run's event.
 *
 * @since 0.1.0
 */
export interface RunDrafting {
  readonly run: InvoiceRunRecord
  readonly drafts: ReadonlyArray<DraftInvoice>
  readonly events: ReadonlyArray<BillingEvent>
}

/**
 * Errors of the contract material itself (the organization's own data, not the operator's request): a contract's
 * payment terms, or a line's amount or VAT rate out of bounds.
 *
 * @since 0.1.0
 */
export type MaterialInvalid = PaymentTermsInvalid | AmountOutOfRange | VatRateInvalid

const requestIssues = (error: DateInvalid | PeriodInvalid): FieldsInvalid =>
  new FieldsInvalid({
    issues: [
      error._tag === "DateInvalid"
        ? { path: `/${error.field === "date" ? "invoiceDate" : error.field}`, message: error.message }
        : { path: "/periodStart", message: error.message }
    ],
    detail: "The invoice run's period or date is not valid."
  })

const draft = (
  period: { readonly periodStart: string; readonly periodEnd: string },
  command: ContinueRunCommand
): Either.Either<ReadonlyArray<DraftInvoice>, FieldsInvalid | MaterialInvalid> =>
  draftDocuments({ ...period, invoiceDate: command.invoiceDate, contracts: command.contracts }).pipe(
    Either.map((drafts) => drafts.filter((document) => document.lines.length > 0)),
    Either.mapLeft((error) =>
      error instanceof DateInvalid || error instanceof PeriodInvalid ? requestIssues(error) : error
    )
  )

/**
 * Create an invoice run (an operator's action): a `draft` run for the period, with one draft document per
 * contract that has lines (`InvoiceRun.draftDocuments`: monthly lines × months, VAT per line). Event
 * `billing.invoice_run.created`.
 *
 * @returns `FieldsInvalid` (`VALIDATION_FAILED`, 400) for a period that is not whole calendar months or a bad
 *   date (path `/periodStart`, `/periodEnd` or `/invoiceDate`); a {@link MaterialInvalid} for a contract's bad
 *   terms or lines.
 * @since 0.1.0
 */
export const createRun = (
  command: CreateRunCommand,
  now: Date
): Either.Either<RunDrafting, FieldsInvalid | MaterialInvalid> =>
  Either.map(draft(command, command), (drafts) => {
    const run: InvoiceRunRecord = {
      id: command.runId,
      organizationId: command.organizationId,
      operationalContextId: command.operationalContextId,
      periodStart: command.periodStart,
      periodEnd: command.periodEnd,
      status: "draft",
      createdAt: now,
      updatedAt: now
    }
    return { run, drafts, events: [runEvent("billing.invoice_run.created", run, now)] }
  })

/**
 * Continue a run (an operator's action): draft documents for contracts not yet billed in it (a contract signed
 * after the run was created). The run must be `draft`, else `InvoiceRunNotContinuable`
 * (`BILLING_INVOICE_RUN_NOT_CONTINUABLE`, 400, action `continue`). `updatedAt` = `now`; event
 * `billing.invoice_run.continued`. Drafting errors as {@link createRun}.
 *
 * @since 0.1.0
 */
export const continueRun = (
  run: InvoiceRunRecord,
  command: ContinueRunCommand,
  now: Date
): Either.Either<RunDrafting, InvoiceRunNotContinuable | FieldsInvalid | MaterialInvalid> => {
  if (run.status !== "draft") return Either.left(notContinuable(run, "continue"))
  return Either.map(draft(run, command), (drafts) => {
    const continued: InvoiceRunRecord = { ...run, updatedAt: now }
    return { run: continued, drafts, events: [runEvent("billing.invoice_run.continued", continued, now)] }
  })
}

const notContinuable = (run: InvoiceRunRecord, action: "continue" | "approve") =>
  new InvoiceRunNotContinuable({
    runStatus: run.status,
    action,
    detail: `The invoice run is ${run.status}; ${action} is only allowed on a draft run.`
  })

/**
 * Approve a run (an operator's action): the run becomes `approved` (`approvedAt` = `updatedAt` = `now`) and each
 * of its `created` invoices becomes `approved` (it enters the send queue); invoices in other statuses are left
 * as they are. The run must be `draft`, else `InvoiceRunNotContinuable` (`BILLING_INVOICE_RUN_NOT_CONTINUABLE`,
 * 400, action `approve`). Events: `billing.invoice_run.approved`, then `billing.invoice.approved` per invoice.
 *
 * @param invoices the run's invoices.
 * @returns the run, the invoices it approved (as they now are) and the events.
 * @since 0.1.0
 */
export const approveRun = (
  run: InvoiceRunRecord,
  invoices: ReadonlyArray<InvoiceRecord>,
  now: Date
): Either.Either<
  {
    readonly run: InvoiceRunRecord
    readonly invoices: ReadonlyArray<InvoiceRecord>
    readonly events: ReadonlyArray<BillingEvent>
  },
  InvoiceRunNotContinuable
> => {
  if (run.status !== "draft") return Either.left(notContinuable(run, "approve"))
  const approvedRun: InvoiceRunRecord = { ...run, status: "approved", approvedAt: now, updatedAt: now }
  const approved: Array<InvoiceRecord> = []
  const events: Array<BillingEvent> = [runEvent("billing.invoice_run.approved", approvedRun, now)]
  for (const invoice of invoices) {
    const transition = InvoiceLifecycle.approve(invoice, now)
    if (Either.isRight(transition)) {
      approved.push(transition.right.invoice)
      events.push(...transition.right.events)
    }
  }
  return Either.right({ run: approvedRun, invoices: approved, events })
}

/**
 * The ids and facts a drafted document needs to become a record: its id, the run, organization and context,
 * the recipient and billing account of its contract, and its invoice number (the organization's next).
 *
 * @since 0.1.0
 */
export interface DocumentFields {
  readonly id: string
  readonly invoiceRunId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly recipientAgentId: string
  readonly billingAccountId: string
  readonly invoiceNumber: number
}

/** The material an invoice and a proposal both take from a draft (spec 2.1, 2.2). */
const draftMaterial = (document: DraftInvoice) => ({
  contractId: document.contractId,
  recipientAgentName: document.recipientAgentName,
  documentKind: document.documentKind,
  billingStream: document.billingStream,
  requestedInvoiceDate: document.requestedInvoiceDate,
  requestedDueDate: document.requestedDueDate,
  paymentTermsDays: document.paymentTermsDays,
  currency: document.currency,
  totalNetMinorUnits: document.totals.net,
  totalVatMinorUnits: document.totals.vat,
  totalGrossMinorUnits: document.totals.gross
})

/**
 * A drafted document as an invoice: status `created`, the draft's contract, recipient name, stream, currency,
 * requested dates, payment terms and totals; `createdAt` = `updatedAt` = `now`. Event `billing.invoice.created`.
 *
 * @since 0.1.0
 */
export const documentFromDraft = (
  document: DraftInvoice,
  fields: DocumentFields,
  now: Date
): { readonly invoice: InvoiceRecord; readonly events: ReadonlyArray<BillingEvent> } => {
  const invoice: InvoiceRecord = { ...fields, ...draftMaterial(document), status: "created", createdAt: now, updatedAt: now }
  return { invoice, events: [invoiceEvent("billing.invoice.created", invoice, now)] }
}

/**
 * A drafted document as a proposal (the integration declared the verification gate): status `proposed`, the
 * same material as {@link documentFromDraft}. Event `billing.invoice_proposal.created`.
 *
 * @since 0.1.0
 */
export const proposalFromDraft = (
  document: DraftInvoice,
  fields: DocumentFields,
  now: Date
): { readonly proposal: InvoiceProposalRecord; readonly events: ReadonlyArray<BillingEvent> } => {
  const proposal: InvoiceProposalRecord = {
    ...fields,
    ...draftMaterial(document),
    status: "proposed",
    createdAt: now,
    updatedAt: now
  }
  return { proposal, events: [proposalEvent("billing.invoice_proposal.created", proposal, now)] }
}
