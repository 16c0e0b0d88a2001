/**
 * Billing as operators see it (spec 2.1, 2.2, 3; decisions 5): invoice runs (create for a period, continue,
 * approve), invoices (approve, delete, credit in full or by lines, with their payments and balance), proposals
 * (cancel), the send queue, the withdrawal queue, and an overview. The actions are the billing operator service's
 * (`BillingOperatorService`); the console never decides a transition itself. Refusals carry the spec's codes:
 * BILLING_INVOICE_STATUS_INVALID, BILLING_PROPOSAL_STATUS_INVALID, BILLING_INVOICE_RUN_NOT_CONTINUABLE,
 * BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE, BILLING_CREDIT_EXCEEDS_LINE, BILLING_CREDIT_EXCEEDS_INVOICE,
 * BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN (400) and BILLING_CREDIT_ACT_REPLAY_MISMATCH (409).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Conflict, NotFound } from "./Problem.js"
import { BoundedText, CalendarDate, Currency, DocumentKind, InvoiceStatus, ProposalStatus } from "./Values.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class InvoiceRunSummary extends Schema.Class<InvoiceRunSummary>("InvoiceRunSummary")({
  id: Schema.UUID,
  operationalContextId: Schema.UUID,
  operationalContextName: Schema.String,
  periodStart: Schema.String,
  periodEnd: Schema.String,
  status: Schema.String,
  approvedAt: Schema.NullOr(Schema.Date),
  invoiceCount: Schema.Int,
  proposalCount: Schema.Int,
  /**
   * Other runs of the same operational context whose periods overlap this one's: above 0, a duplicate run (the
   * console warns; billing allows it, since a later run drafts only what the earlier ones left).
   */
  samePeriodRunCount: Schema.Int,
  createdAt: Schema.Date
}) {}

/** How many of a run's documents are in one status. */
export class StatusCount extends Schema.Class<StatusCount>("StatusCount")({
  status: Schema.String,
  count: Schema.Int
}) {}

/**
 * An invoice run's page: the run as the list shows it, its invoices (not deleted) and proposals counted per status,
 * and the other runs of its operational context whose periods overlap its own, oldest first (at most 50).
 */
export class InvoiceRunDetail extends Schema.Class<InvoiceRunDetail>("InvoiceRunDetail")({
  run: InvoiceRunSummary,
  invoicesByStatus: Schema.Array(StatusCount),
  proposalsByStatus: Schema.Array(StatusCount),
  samePeriodRuns: Schema.Array(InvoiceRunSummary)
}) {}

export class InvoiceSummary extends Schema.Class<InvoiceSummary>("InvoiceSummary")({
  id: Schema.UUID,
  invoiceRunId: Schema.UUID,
  invoiceNumber: Schema.Int,
  documentKind: DocumentKind,
  status: InvoiceStatus,
  recipientAgentId: Schema.UUID,
  recipientAgentName: Schema.String,
  contractId: Schema.UUID,
  currency: Currency,
  totalNetMinorUnits: Schema.Int,
  totalVatMinorUnits: Schema.Int,
  totalGrossMinorUnits: Schema.Int,
  balanceMinorUnits: Schema.NullOr(Schema.Int),
  requestedInvoiceDate: Schema.String,
  requestedDueDate: Schema.NullOr(Schema.String),
  externalReference: Schema.NullOr(Schema.String),
  issuedInvoiceNumber: Schema.NullOr(Schema.String),
  approvedAt: Schema.NullOr(Schema.Date),
  sentAt: Schema.NullOr(Schema.Date),
  failedAt: Schema.NullOr(Schema.Date),
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date
}) {}

export class ProposalSummary extends Schema.Class<ProposalSummary>("ProposalSummary")({
  id: Schema.UUID,
  invoiceRunId: Schema.UUID,
  invoiceNumber: Schema.NullOr(Schema.Int),
  documentKind: DocumentKind,
  status: ProposalStatus,
  recipientAgentId: Schema.UUID,
  recipientAgentName: Schema.String,
  contractId: Schema.UUID,
  currency: Currency,
  totalGrossMinorUnits: Schema.Int,
  requestedInvoiceDate: Schema.String,
  externalReference: Schema.NullOr(Schema.String),
  rejectionReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  passedAt: Schema.NullOr(Schema.Date),
  rejectedAt: Schema.NullOr(Schema.Date),
  cancelledAt: Schema.NullOr(Schema.Date)
}) {}

export class DocumentLineView extends Schema.Class<DocumentLineView>("DocumentLineView")({
  id: Schema.UUID,
  position: Schema.Int,
  description: Schema.String,
  netMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int,
  vatMinorUnits: Schema.Int,
  grossMinorUnits: Schema.Int,
  /** Net already credited from this line by credit notes (≤ 0), minor units. */
  creditedNetMinorUnits: Schema.Int
}) {}

/** A payment the ERP reported, and its reversal when it was taken back. */
export class PaymentView extends Schema.Class<PaymentView>("PaymentView")({
  paymentId: Schema.String,
  amountMinorUnits: Schema.Int,
  paidOn: Schema.String,
  reversedOn: Schema.NullOr(Schema.String),
  reversalReason: Schema.NullOr(Schema.String)
}) {}

export class WriteOffView extends Schema.Class<WriteOffView>("WriteOffView")({
  writeOffId: Schema.String,
  amountMinorUnits: Schema.Int,
  writtenOffOn: Schema.String,
  reason: Schema.NullOr(Schema.String)
}) {}

export class InvoiceDetail extends Schema.Class<InvoiceDetail>("InvoiceDetail")({
  invoice: InvoiceSummary,
  lines: Schema.Array(DocumentLineView),
  payments: Schema.Array(PaymentView),
  writeOffs: Schema.Array(WriteOffView),
  /** Credit notes of this invoice. */
  creditNotes: Schema.Array(InvoiceSummary)
}) {}

/** A deleted invoice the ERP may still hold, until it reports it discarded (decisions 5). */
export class WithdrawalView extends Schema.Class<WithdrawalView>("WithdrawalView")({
  invoiceId: Schema.UUID,
  invoiceNumber: Schema.Int,
  documentKind: DocumentKind,
  currency: Currency,
  totalGrossMinorUnits: Schema.Int,
  externalReference: Schema.NullOr(Schema.String),
  invoiceStatus: InvoiceStatus,
  status: Schema.Literal("pending", "discarded"),
  deletedAt: Schema.Date,
  discardedAt: Schema.NullOr(Schema.Date)
}) {}

/**
 * What a run action did. `invoiceCount` and `proposalCount` are the run's documents after the action (invoices
 * not deleted, proposals in any status: what its page lists); `changedCount` is how many documents this action
 * drafted (create, continue) or invoices it approved (approve: those still `created`; the others were approved one
 * by one before); `samePeriodRunCount` as in {@link InvoiceRunSummary}.
 */
export class RunOutcome extends Schema.Class<RunOutcome>("RunOutcome")({
  run: Schema.Struct({
    id: Schema.UUID,
    status: Schema.String,
    periodStart: Schema.String,
    periodEnd: Schema.String
  }),
  invoiceCount: Schema.Int,
  proposalCount: Schema.Int,
  changedCount: Schema.Int,
  samePeriodRunCount: Schema.Int
}) {}

/** Create an invoice run for whole calendar months in an operational context (and the contexts below it). */
export class CreateInvoiceRunRequest extends Schema.Class<CreateInvoiceRunRequest>("CreateInvoiceRunRequest")(
  Schema.Struct({
    operationalContextId: Schema.UUID,
    periodStart: CalendarDate,
    periodEnd: CalendarDate,
    invoiceDate: CalendarDate
  }).annotations({ parseOptions: { errors: "all" } })
) {}

export class ContinueInvoiceRunRequest extends Schema.Class<ContinueInvoiceRunRequest>("ContinueInvoiceRunRequest")({
  invoiceDate: CalendarDate
}) {}

const PositiveMinorUnits = Schema.Int.pipe(
  Schema.between(1, Number.MAX_SAFE_INTEGER, { message: () => "must be a whole number of minor units above 0" })
)

/**
 * Credit an invoice: everything not yet credited (`full`), or chosen lines (net amounts to credit) and manual lines.
 * `creditActId` makes it idempotent: the same act again answers its credit note; other content is 409.
 */
export class CreditInvoiceRequest extends Schema.Class<CreditInvoiceRequest>("CreditInvoiceRequest")(
  Schema.Struct({
    creditActId: Schema.UUID,
    reason: BoundedText(1, 1000),
    invoiceDate: CalendarDate,
    scope: Schema.Union(
      Schema.Struct({ kind: Schema.Literal("full") }),
      Schema.Struct({
        kind: Schema.Literal("lines"),
        lines: Schema.Array(Schema.Struct({ lineId: Schema.UUID, netMinorUnits: PositiveMinorUnits })).pipe(Schema.maxItems(200)),
        manualLines: Schema.Array(
          Schema.Struct({
            description: BoundedText(1, 200),
            netMinorUnits: PositiveMinorUnits,
            vatRateBasisPoints: Schema.Int.pipe(Schema.between(0, 10_000))
          })
        ).pipe(Schema.maxItems(50))
      })
    )
  }).annotations({ parseOptions: { errors: "all" } })
) {}

export class DeletedInvoice extends Schema.Class<DeletedInvoice>("DeletedInvoice")({
  invoiceId: Schema.UUID,
  /** It had been in the send queue, so it is on the withdrawal queue until the ERP reports it discarded. */
  withdrawn: Schema.Boolean
}) {}

/** One bar of the overview: the documents of one status in one currency. */
export class OverviewBucket extends Schema.Class<OverviewBucket>("OverviewBucket")({
  status: InvoiceStatus,
  currency: Currency,
  count: Schema.Int,
  /** Sum of the documents' gross totals (credit notes negative), minor units. */
  grossMinorUnits: Schema.Int,
  /** Sum of the balances of the sent ones (absent until sent), minor units. */
  balanceMinorUnits: Schema.Int
}) {}

/** Invoices and credit notes counted and summed per status and currency. */
export class BillingOverview extends Schema.Class<BillingOverview>("BillingOverview")({
  buckets: Schema.Array(OverviewBucket),
  proposalsAwaitingVerification: Schema.Int
}) {}

export const InvoiceRunPage = Page(InvoiceRunSummary, "InvoiceRunPage")
export const WithdrawalPage = Page(WithdrawalView, "WithdrawalPage")
export const InvoiceSummaryPage = Page(InvoiceSummary, "InvoiceSummaryPage")
export const ProposalSummaryPage = Page(ProposalSummary, "ProposalSummaryPage")

const InvoicePath = Schema.Struct({ invoiceId: Schema.UUID })
const RunPath = Schema.Struct({ invoiceRunId: Schema.UUID })
const ProposalPath = Schema.Struct({ proposalId: Schema.UUID })

const documentFilters = {
  ...PageQuery,
  q: Filter(200),
  currency: Choice("SEK", "NOK", "DKK", "EUR", "USD", "GBP"),
  invoiceRunId: Schema.optional(Schema.UUID)
}

export class BillingGroup extends HttpApiGroup.make("billing")
  .add(HttpApiEndpoint.get("overview", "/api/billing/overview").addSuccess(BillingOverview))
  .add(
    HttpApiEndpoint.get("listInvoiceRuns", "/api/billing/invoice-runs")
      .setUrlParams(Schema.Struct({ ...PageQuery, status: Filter(40) }))
      .addSuccess(InvoiceRunPage)
  )
  .add(
    HttpApiEndpoint.get("getInvoiceRun", "/api/billing/invoice-runs/:invoiceRunId")
      .setPath(RunPath)
      .addSuccess(InvoiceRunDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listInvoices", "/api/billing/invoices")
      .setUrlParams(
        Schema.Struct({
          ...documentFilters,
          status: Choice("created", "approved", "sent", "paid", "written-off", "failed"),
          documentKind: Choice("invoice", "credit-note")
        })
      )
      .addSuccess(InvoiceSummaryPage)
  )
  .add(
    HttpApiEndpoint.get("getInvoice", "/api/billing/invoices/:invoiceId")
      .setPath(InvoicePath)
      .addSuccess(InvoiceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listProposals", "/api/billing/invoice-proposals")
      .setUrlParams(Schema.Struct({ ...documentFilters, status: Choice("proposed", "passed", "rejected", "cancelled") }))
      .addSuccess(ProposalSummaryPage)
  )
  .add(
    HttpApiEndpoint.get("getProposal", "/api/billing/invoice-proposals/:proposalId")
      .setPath(ProposalPath)
      .addSuccess(ProposalSummary)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("sendQueue", "/api/billing/send-queue")
      .setUrlParams(Schema.Struct(documentFilters))
      .addSuccess(InvoiceSummaryPage)
  )
  .add(
    HttpApiEndpoint.get("withdrawalQueue", "/api/billing/withdrawal-queue")
      .setUrlParams(Schema.Struct(PageQuery))
      .addSuccess(WithdrawalPage)
  )
  .add(
    HttpApiEndpoint.post("createInvoiceRun", "/api/billing/invoice-runs")
      .setPayload(body(CreateInvoiceRunRequest))
      .addSuccess(RunOutcome, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("continueInvoiceRun", "/api/billing/invoice-runs/:invoiceRunId/continue")
      .setPath(RunPath)
      .setPayload(body(ContinueInvoiceRunRequest))
      .addSuccess(RunOutcome)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("approveInvoiceRun", "/api/billing/invoice-runs/:invoiceRunId/approve")
      .setPath(RunPath)
      .addSuccess(RunOutcome)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("approveInvoice", "/api/billing/invoices/:invoiceId/approve")
      .setPath(InvoicePath)
      .addSuccess(InvoiceSummary)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("deleteInvoice", "/api/billing/invoices/:invoiceId")
      .setPath(InvoicePath)
      .addSuccess(DeletedInvoice)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("creditInvoice", "/api/billing/invoices/:invoiceId/credit")
      .setPath(InvoicePath)
      .setPayload(body(CreditInvoiceRequest))
      .addSuccess(InvoiceSummary, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("cancelProposal", "/api/billing/invoice-proposals/:proposalId/cancel")
      .setPath(ProposalPath)
      .addSuccess(ProposalSummary)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
