/**
 * Billing as operators see it (spec 2.1, 2.2, 3; decisions 5): invoice runs, invoices, proposals and the send
 * queue, read only here. The operator actions (approve a run, cancel a proposal, delete, credit) are added by the
 * billing operator services' endpoints as they land; the console never decides a transition itself.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NotFound } from "@propline/contract/Problem"
import { Currency, DocumentKind, InvoiceStatus, ProposalStatus } from "@propline/contract/Values"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./Session.js"

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
  createdAt: Schema.Date
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
  position: Schema.Int,
  description: Schema.String,
  netMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int,
  vatMinorUnits: Schema.Int,
  grossMinorUnits: Schema.Int
}) {}

export class InvoiceDetail extends Schema.Class<InvoiceDetail>("InvoiceDetail")({
  invoice: InvoiceSummary,
  lines: Schema.Array(DocumentLineView)
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
export const InvoiceSummaryPage = Page(InvoiceSummary, "InvoiceSummaryPage")
export const ProposalSummaryPage = Page(ProposalSummary, "ProposalSummaryPage")

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
      .setPath(Schema.Struct({ invoiceId: Schema.UUID }))
      .addSuccess(InvoiceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listProposals", "/api/billing/invoice-proposals")
      .setUrlParams(Schema.Struct({ ...documentFilters, status: Choice("proposed", "passed", "rejected", "cancelled") }))
      .addSuccess(ProposalSummaryPage)
  )
  .add(
    HttpApiEndpoint.get("sendQueue", "/api/billing/send-queue")
      .setUrlParams(Schema.Struct(documentFilters))
      .addSuccess(InvoiceSummaryPage)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
