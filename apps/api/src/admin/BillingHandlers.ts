/** Billing read views of the operator's organization: invoice runs, invoices, proposals, the send queue. */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import {
  BillingOverview,
  DocumentLineView,
  InvoiceDetail,
  InvoiceRunSummary,
  InvoiceSummary,
  OverviewBucket,
  ProposalSummary
} from "@propline/admin/Billing"
import { CurrentOperator } from "@propline/admin/Session"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "./AdminListing.js"
import { BillingViews } from "./BillingViews.js"

type InvoiceRow = Effect.Effect.Success<ReturnType<BillingViews["invoice"]>>["invoice"]

const toInvoice = (row: InvoiceRow) =>
  new InvoiceSummary({ ...row, currency: row.currency as InvoiceSummary["currency"] })

export const BillingHandlers = HttpApiBuilder.group(AdminApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const views = yield* BillingViews
    return handlers
      .handle("overview", () =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const overview = yield* views.overview(organizationId)
          return new BillingOverview({
            buckets: overview.buckets.map(
              (bucket) => new OverviewBucket({ ...bucket, currency: bucket.currency as OverviewBucket["currency"] })
            ),
            proposalsAwaitingVerification: overview.proposalsAwaitingVerification
          })
        })
      )
      .handle("listInvoiceRuns", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-invoice-runs", urlParams.cursor)
          const page = yield* views.invoiceRuns(organizationId, { status: given(urlParams.status) }, after, limitOf(urlParams.limit))
          return {
            items: page.items.map(
              (row) =>
                new InvoiceRunSummary({ ...row, invoiceCount: Number(row.invoiceCount), proposalCount: Number(row.proposalCount) })
            ),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("listInvoices", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-invoices", urlParams.cursor)
          const filter = {
            q: given(urlParams.q),
            currency: given(urlParams.currency),
            invoiceRunId: urlParams.invoiceRunId,
            status: given(urlParams.status),
            documentKind: given(urlParams.documentKind)
          }
          const page = yield* views.invoices(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toInvoice), nextCursor: page.nextCursor }
        })
      )
      .handle("getInvoice", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.invoice(organizationId, path.invoiceId).pipe(Effect.mapError(toProblem))
          return new InvoiceDetail({ invoice: toInvoice(found.invoice), lines: found.lines.map((line) => new DocumentLineView(line)) })
        })
      )
      .handle("listProposals", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-proposals", urlParams.cursor)
          const filter = {
            q: given(urlParams.q),
            currency: given(urlParams.currency),
            invoiceRunId: urlParams.invoiceRunId,
            status: given(urlParams.status)
          }
          const page = yield* views.proposals(organizationId, filter, after, limitOf(urlParams.limit))
          return {
            items: page.items.map((row) => new ProposalSummary({ ...row, currency: row.currency as ProposalSummary["currency"] })),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("sendQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-send-queue", urlParams.cursor)
          const filter = { q: given(urlParams.q), currency: given(urlParams.currency), invoiceRunId: urlParams.invoiceRunId }
          const page = yield* views.sendQueue(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toInvoice), nextCursor: page.nextCursor }
        })
      )
  })
)
