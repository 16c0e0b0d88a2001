/** Billing read views of the operator's organization: invoice runs, invoices, proposals, the send queue. */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import {
  DocumentLineView,
  InvoiceDetail,
  InvoiceRunSummary,
  InvoiceSummary,
  ProposalSummary
} from "@propline/admin/Billing"
import { CurrentOperator } from "@propline/admin/Session"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { decodeCursor, given, limitOf, page } from "./AdminListing.js"
import * as Queries from "./BillingQueries.js"

type InvoiceRow = NonNullable<Effect.Effect.Success<ReturnType<typeof Queries.invoice>>>

const toInvoice = (row: InvoiceRow) => new InvoiceSummary(row as ConstructorParameters<typeof InvoiceSummary>[0])

export const BillingHandlers = HttpApiBuilder.group(AdminApi, "billing", (handlers) =>
  handlers
    .handle("listInvoiceRuns", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-invoice-runs", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.invoiceRuns(operator.organizationId, { status: given(urlParams.status) }, after, limit)
        const result = page("admin-invoice-runs", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return {
          items: result.items.map(
            (row) =>
              new InvoiceRunSummary({
                ...row,
                invoiceCount: Number(row.invoiceCount),
                proposalCount: Number(row.proposalCount)
              })
          ),
          nextCursor: result.nextCursor
        }
      })
    )
    .handle("listInvoices", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-invoices", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.invoices(
          operator.organizationId,
          {
            q: given(urlParams.q),
            currency: given(urlParams.currency),
            invoiceRunId: urlParams.invoiceRunId,
            status: given(urlParams.status),
            documentKind: given(urlParams.documentKind)
          },
          after,
          limit
        )
        const result = page("admin-invoices", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return { items: result.items.map(toInvoice), nextCursor: result.nextCursor }
      })
    )
    .handle("getInvoice", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const row = yield* Queries.invoice(operator.organizationId, path.invoiceId)
        if (row === undefined) return yield* Effect.fail(problem.notFound("There is no such invoice."))
        const lines = yield* Queries.invoiceLines(row.id)
        return new InvoiceDetail({ invoice: toInvoice(row), lines: lines.map((line) => new DocumentLineView(line)) })
      })
    )
    .handle("listProposals", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-proposals", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.proposals(
          operator.organizationId,
          {
            q: given(urlParams.q),
            currency: given(urlParams.currency),
            invoiceRunId: urlParams.invoiceRunId,
            status: given(urlParams.status)
          },
          after,
          limit
        )
        const result = page("admin-proposals", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return {
          items: result.items.map((row) => new ProposalSummary(row as ConstructorParameters<typeof ProposalSummary>[0])),
          nextCursor: result.nextCursor
        }
      })
    )
    .handle("sendQueue", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-send-queue", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.sendQueue(
          operator.organizationId,
          { q: given(urlParams.q), currency: given(urlParams.currency), invoiceRunId: urlParams.invoiceRunId },
          after,
          limit
        )
        const result = page("admin-send-queue", rows, limit, (row) => ({ at: row.approvedAt ?? row.createdAt, id: row.id }))
        return { items: result.items.map(toInvoice), nextCursor: result.nextCursor }
      })
    )
)
