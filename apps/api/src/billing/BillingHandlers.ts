/**
 * HTTP handlers of the billing group: decoding is the contract's schemas (the role and body checks its
 * middleware), each handler calls {@link BillingService} and encodes domain records as the contract's Invoice /
 * InvoiceProposal (spec 2.1, 2.2). The hot paths (the queues, pass, reject and the reports on an invoice) write
 * their records and queue rows with the contract's compiled encoders (`@propline/contract/JsonEncoder`): the JSON the endpoint's
 * Schema would write, without re-validating our own records or building the Schema's classes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { isOverdue, withOverdue, type InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { BillingRefusal } from "@propline/billing/BillingRefusal"
import type { WithdrawalRecord } from "@propline/billing/InvoiceWithdrawal"
import type * as Settlement from "@propline/billing/Settlement"
import type { PrincipalShape } from "@propline/contract/Authentication"
import {
  InvoicePage,
  PassProposalResponse,
  ProposalPage,
  type ReportPaymentRequest,
  type ReportPaymentReversedRequest
} from "@propline/contract/Billing"
import { InvoiceWithdrawal } from "@propline/contract/InvoiceWithdrawal"
import type * as Db from "@propline/db/Db"
import type { InvoiceId, OperationalContextId, OrganizationId, ProposalId } from "@propline/contract/Ids"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Clock, Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { encodedJson } from "../platform/JsonResponse.js"
import { toProblem } from "../platform/Problems.js"
import type { RecordNotFound } from "../platform/RecordNotFound.js"
import { BillingService, type InvoiceTarget } from "./BillingService.js"

const todayIn = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString().slice(0, 10))

// Compiled once from the contract's schemas; each writes what the Schema path writes (contract's JsonEncoder test).
const encodeInvoicePage = JsonEncoder.makeBytes(InvoicePage)
const encodeProposalPage = JsonEncoder.makeBytes(ProposalPage)
const encodePassResponse = JsonEncoder.makeBytes(PassProposalResponse)
const encodeInvoice = JsonEncoder.makeBytes(Invoice)
const encodeProposal = JsonEncoder.makeBytes(InvoiceProposal)

/** A stored invoice (record or queue row) as the encoders take it: with `overdue` for `today` (spec 2.1). */
const overdueFor = <A extends Parameters<typeof isOverdue>[0]>(invoice: A, today: string) => ({
  ...invoice,
  overdue: isOverdue(invoice, today)
})

/**
 * A page's rows with `overdue` for `today` (spec 2.1) set on the rows themselves: they came from this request's page
 * statement and nothing else holds them, and a copy of each 40-column row ({@link overdueFor}) was the largest
 * allocation of a queue page (~90 KB of 50 rows, most of what the next young-generation collection had to copy).
 */
const setOverdue = <A extends Parameters<typeof isOverdue>[0]>(rows: ReadonlyArray<A>, today: string) => {
  for (const row of rows) (row as A & { overdue?: boolean }).overdue = isOverdue(row, today)
  return rows as ReadonlyArray<A & { readonly overdue: boolean }>
}

/** Domain record → contract class. Our own data, already valid: constructed without re-validation. */
export const toInvoice = (record: InvoiceRecord, today: string): Invoice =>
  new Invoice(
    {
      ...withOverdue(record, today),
      id: record.id as InvoiceId,
      organizationId: record.organizationId as OrganizationId,
      operationalContextId: record.operationalContextId as OperationalContextId
    },
    true
  )

export const toProposal = (record: InvoiceProposalRecord): InvoiceProposal =>
  new InvoiceProposal(
    {
      ...record,
      id: record.id as ProposalId,
      organizationId: record.organizationId as OrganizationId,
      operationalContextId: record.operationalContextId as OperationalContextId
    },
    true
  )

export const BillingHandlers = HttpApiBuilder.group(IntegrationApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const billing = yield* BillingService
    return handlers
      .handle("getVerificationQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("verification-queue", urlParams.cursor)
          const page = yield* billing
            .verificationQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
            .pipe(Effect.mapError(toProblem))
          return encodedJson(encodeProposalPage(page))
        })
      )
      .handle("getSendQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("send-queue", urlParams.cursor)
          const page = yield* billing.sendQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT).pipe(Effect.mapError(toProblem))
          const today = yield* todayIn
          return encodedJson(
            encodeInvoicePage({ items: setOverdue(page.items, today), nextCursor: page.nextCursor })
          )
        })
      )
      .handle("passProposal", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const result = yield* billing.passProposal(principal, path.proposalId, payload.externalReference).pipe(Effect.mapError(toProblem))
          const today = yield* todayIn
          return encodedJson(
            encodePassResponse({ proposal: result.proposal, invoice: overdueFor(result.invoice, today) }),
            201
          )
        })
      )
      .handle("rejectProposal", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const proposal = yield* billing.rejectProposal(principal, path.proposalId, payload.reason).pipe(Effect.mapError(toProblem))
          return encodedJson(encodeProposal(proposal), 201)
        })
      )
      .handle("reportFailed", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const invoice = yield* billing.reportFailed(principal, path.invoiceId, payload.reason).pipe(Effect.mapError(toProblem))
          return encodedJson(encodeInvoice(overdueFor(invoice, yield* todayIn)), 201)
        })
      )
      .handle("reportSent", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const invoice = yield* billing.reportSent(principal, path.invoiceId, payload).pipe(Effect.mapError(toProblem))
          return encodedJson(encodeInvoice(overdueFor(invoice, yield* todayIn)), 201)
        })
      )
      .handle("reportPayment", ({ path, payload }) =>
        answerInvoice(billing.reportPayment, { invoiceId: path.invoiceId }, paymentCommand(payload))
      )
      .handle("reportPaymentByExternalReference", ({ path, payload }) =>
        answerInvoice(billing.reportPayment, { externalReference: path.externalReference }, paymentCommand(payload))
      )
      .handle("reportPaymentReversed", ({ path, payload }) =>
        answerInvoice(billing.reportPaymentReversed, { invoiceId: path.invoiceId }, reversalCommand(payload))
      )
      .handle("reportPaymentReversedByExternalReference", ({ path, payload }) =>
        answerInvoice(billing.reportPaymentReversed, { externalReference: path.externalReference }, reversalCommand(payload))
      )
      .handle("reportWriteOff", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const invoice = yield* billing
            .reportWriteOff(principal, path.invoiceId, {
              writeOffId: payload.writeOffId,
              amountMinorUnits: payload.amountMinorUnits,
              writtenOffOn: payload.writtenOffOn,
              ...(payload.reason !== undefined ? { reason: payload.reason } : {})
            })
            .pipe(Effect.mapError(toProblem))
          return encodedJson(encodeInvoice(overdueFor(invoice, yield* todayIn)))
        })
      )
      .handle("getWithdrawalQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("withdrawal-queue", urlParams.cursor)
          const page = yield* billing
            .withdrawalQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
            .pipe(Effect.mapError(toProblem))
          return { items: page.items.map(toWithdrawal), nextCursor: page.nextCursor }
        })
      )
      .handle("reportDiscarded", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const withdrawal = yield* billing.reportDiscarded(principal, path.invoiceId).pipe(Effect.mapError(toProblem))
          return toWithdrawal(withdrawal)
        })
      )

    /** A money report's answer: the invoice as it now is (200, a replay included). */
    function answerInvoice<C>(
      report: (
        principal: PrincipalShape,
        target: InvoiceTarget,
        command: C
      ) => Effect.Effect<InvoiceRecord, BillingRefusal | RecordNotFound, Db.Db>,
      target: InvoiceTarget,
      command: C
    ) {
      return Effect.gen(function* () {
        const principal = yield* Principal
        const invoice = yield* report(principal, target, command).pipe(Effect.mapError(toProblem))
        return encodedJson(encodeInvoice(overdueFor(invoice, yield* todayIn)))
      })
    }
  })
)

const paymentCommand = (payload: ReportPaymentRequest): Settlement.ReportPaymentCommand => ({
  paymentId: payload.paymentId,
  amountMinorUnits: payload.amountMinorUnits,
  paidOn: payload.paidOn,
  ...(payload.currency !== undefined ? { currency: payload.currency } : {})
})

const reversalCommand = (payload: ReportPaymentReversedRequest): Settlement.ReportPaymentReversedCommand => ({
  paymentId: payload.paymentId,
  reversedOn: payload.reversedOn,
  ...(payload.reason !== undefined ? { reason: payload.reason } : {})
})

export const toWithdrawal = (record: WithdrawalRecord): InvoiceWithdrawal =>
  new InvoiceWithdrawal(
    {
      ...record,
      invoiceId: record.invoiceId as InvoiceId,
      organizationId: record.organizationId as OrganizationId,
      operationalContextId: record.operationalContextId as OperationalContextId
    },
    true
  )
