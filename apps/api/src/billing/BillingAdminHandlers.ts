/**
 * Billing in the console: read views of the operator's organization (invoice runs, invoices with their payments,
 * proposals, the send and withdrawal queues, the overview) and the operator's actions, each one call of the billing
 * operator service — which locks, asks the billing rules, persists, writes events and the audit entry in one
 * transaction — with the operator as actor. Its refusals and 404s become problems with the spec's codes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import {
  BillingOverview,
  type CreditInvoiceRequest,
  DeletedInvoice,
  DocumentLineView,
  InvoiceDetail,
  InvoiceRunDetail,
  InvoiceRunSummary,
  InvoiceSummary,
  OverviewBucket,
  PaymentView,
  ProposalSummary,
  RunOutcome,
  StatusCount,
  WithdrawalView,
  WriteOffView
} from "@propline/contract/BillingAdmin"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import { CreditExceedsLine } from "@propline/billing/BillingRefusal"
import { Effect } from "effect"
import { BillingOperatorService, type RunResult } from "./BillingOperatorService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { BillingReadRepository } from "./BillingReadRepository.js"

type InvoiceRow = Effect.Effect.Success<ReturnType<BillingReadRepository["invoice"]>>["invoice"]
type ProposalRow = Effect.Effect.Success<ReturnType<BillingReadRepository["proposal"]>>

const toInvoice = (row: InvoiceRow) =>
  new InvoiceSummary({ ...row, currency: row.currency as InvoiceSummary["currency"] })

const toProposal = (row: ProposalRow) =>
  new ProposalSummary({ ...row, currency: row.currency as ProposalSummary["currency"] })

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

/**
 * BILLING_CREDIT_EXCEEDS_LINE names its line by id; the console's form shows it beside that line's amount, so the
 * problem also carries the issue at the body's path of that line (`/scope/lines/{i}/netMinorUnits`). Other
 * refusals: undefined.
 */
const overLineLimit = (
  error: { readonly _tag: string },
  scope: CreditInvoiceRequest["scope"]
): ReturnType<typeof problem.badRequest> | undefined => {
  if (!(error instanceof CreditExceedsLine) || scope.kind !== "lines") return undefined
  const index = scope.lines.findIndex((line) => line.lineId === error.lineId)
  if (index < 0) return undefined
  return problem.badRequest(error.code, error.detail, [
    { path: `/scope/lines/${index}/netMinorUnits`, message: "is more than what is left on the line" }
  ])
}

type RunRow = Effect.Effect.Success<ReturnType<BillingReadRepository["invoiceRun"]>>["run"]

const toRun = (row: RunRow) =>
  new InvoiceRunSummary({
    ...row,
    invoiceCount: Number(row.invoiceCount),
    proposalCount: Number(row.proposalCount),
    samePeriodRunCount: Number(row.samePeriodRunCount)
  })

export const BillingAdminHandlers = HttpApiBuilder.group(AdminApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const views = yield* BillingReadRepository
    const operations = yield* BillingOperatorService
    /**
     * What a run action did, counted where the run's page counts (issue 25: an approval said "0 invoices, 0
     * proposals" of a run of 23, counting only what the action itself changed): the run's documents after it.
     */
    const toOutcome = (organizationId: string, result: RunResult, changedCount: number) =>
      views.invoiceRun(organizationId, result.run.id).pipe(
        Effect.orDie,
        Effect.map(
          ({ run }) =>
            new RunOutcome({
              run: { id: result.run.id, status: result.run.status, periodStart: result.run.periodStart, periodEnd: result.run.periodEnd },
              invoiceCount: Number(run.invoiceCount),
              proposalCount: Number(run.proposalCount),
              changedCount,
              samePeriodRunCount: Number(run.samePeriodRunCount)
            })
        )
      )
    /** Reads the record again after an action, as the lists show it. */
    const invoiceView = (organizationId: string, invoiceId: string) =>
      views.invoice(organizationId, invoiceId).pipe(
        Effect.map((found) => toInvoice(found.invoice)),
        Effect.orDie
      )
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
            items: page.items.map(toRun),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("getInvoiceRun", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.invoiceRun(organizationId, path.invoiceRunId).pipe(Effect.mapError(toProblem))
          return new InvoiceRunDetail({
            run: toRun(found.run),
            invoicesByStatus: found.invoicesByStatus.map((row) => new StatusCount({ status: row.status, count: Number(row.count) })),
            proposalsByStatus: found.proposalsByStatus.map((row) => new StatusCount({ status: row.status, count: Number(row.count) })),
            samePeriodRuns: found.samePeriodRuns.map(toRun)
          })
        })
      )
      .handle("getProposal", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          return toProposal(yield* views.proposal(organizationId, path.proposalId).pipe(Effect.mapError(toProblem)))
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
          return new InvoiceDetail({
            invoice: toInvoice(found.invoice),
            lines: found.lines.map((line) => new DocumentLineView({ ...line, creditedNetMinorUnits: Number(line.creditedNetMinorUnits) })),
            payments: found.payments.map((payment) => new PaymentView(payment)),
            writeOffs: found.writeOffs.map((writeOff) => new WriteOffView(writeOff)),
            creditNotes: found.creditNotes.map(toInvoice)
          })
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
          return { items: page.items.map(toProposal), nextCursor: page.nextCursor }
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
      .handle("withdrawalQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-withdrawals", urlParams.cursor)
          const page = yield* views.withdrawalQueue(organizationId, after, limitOf(urlParams.limit))
          return {
            items: page.items.map(
              ({ id, ...row }) => new WithdrawalView({ ...row, invoiceId: id, currency: row.currency as WithdrawalView["currency"] })
            ),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("createInvoiceRun", ({ payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const result = yield* operations
            .createInvoiceRun(operator.organizationId, actorOf(operator), {
              operationalContextId: payload.operationalContextId,
              periodStart: payload.periodStart,
              periodEnd: payload.periodEnd,
              invoiceDate: payload.invoiceDate
            })
            .pipe(Effect.mapError(toProblem))
          return yield* toOutcome(operator.organizationId, result, result.invoices.length + result.proposals.length)
        })
      )
      .handle("continueInvoiceRun", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const result = yield* operations
            .continueInvoiceRun(operator.organizationId, actorOf(operator), path.invoiceRunId, { invoiceDate: payload.invoiceDate })
            .pipe(Effect.mapError(toProblem))
          return yield* toOutcome(operator.organizationId, result, result.invoices.length + result.proposals.length)
        })
      )
      .handle("approveInvoiceRun", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const result = yield* operations
            .approveInvoiceRun(operator.organizationId, actorOf(operator), path.invoiceRunId)
            .pipe(Effect.mapError(toProblem))
          return yield* toOutcome(operator.organizationId, result, result.invoices.length)
        })
      )
      .handle("approveInvoice", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations.approveInvoice(operator.organizationId, actorOf(operator), path.invoiceId).pipe(Effect.mapError(toProblem))
          return yield* invoiceView(operator.organizationId, path.invoiceId)
        })
      )
      .handle("deleteInvoice", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const deletion = yield* operations
            .deleteInvoice(operator.organizationId, actorOf(operator), path.invoiceId)
            .pipe(Effect.mapError(toProblem))
          return new DeletedInvoice({ invoiceId: path.invoiceId, withdrawn: deletion.withdrawal !== undefined })
        })
      )
      .handle("creditInvoice", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const note = yield* operations
            .creditInvoice(operator.organizationId, actorOf(operator), {
              creditActId: payload.creditActId,
              invoiceId: path.invoiceId,
              reason: payload.reason,
              invoiceDate: payload.invoiceDate,
              scope: payload.scope
            })
            .pipe(Effect.mapError((error) => overLineLimit(error, payload.scope) ?? toProblem(error)))
          return yield* invoiceView(operator.organizationId, note.id)
        })
      )
      .handle("cancelProposal", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations.cancelProposal(operator.organizationId, actorOf(operator), path.proposalId).pipe(Effect.mapError(toProblem))
          return toProposal(yield* views.proposal(operator.organizationId, path.proposalId).pipe(Effect.orDie))
        })
      )
  })
)
