/**
 * HTTP handlers of the billing group: decode (done by the contract's schemas), check the role, call
 * {@link BillingService}, write the records as the contract's Invoice / InvoiceProposal (spec 2.1, 2.2) with the
 * contract's compiled encoders (`@propline/contract/JsonEncoder`): the same JSON the endpoint's Schema would write,
 * without re-validating our own records.
 */
import { HttpApiBuilder } from "@effect/platform"
import { isOverdue, type InvoiceRecord } from "@propline/billing/Invoice"
import type { BillingRefusal } from "@propline/billing/BillingRefusal"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import { InvoicePage, PassProposalResponse, ProposalPage } from "@propline/contract/Billing"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { problem } from "@propline/contract/Problem"
import { Clock, Effect } from "effect"
import * as Cursor from "../http/Cursor.js"
import { encodedJson } from "../http/JsonResponse.js"
import { fromRefusal } from "../http/Problems.js"
import type { InvoiceRow } from "./BillingRepository.js"
import { BillingService, type RecordNotFound } from "./BillingService.js"

const todayIn = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString().slice(0, 10))

// Compiled once from the contract's schemas; each writes what the Schema path writes (test/JsonEncoder.test.ts).
const encodeInvoicePage = JsonEncoder.make(InvoicePage)
const encodeProposalPage = JsonEncoder.make(ProposalPage)
const encodePassResponse = JsonEncoder.make(PassProposalResponse)
const encodeInvoice = JsonEncoder.make(Invoice)
const encodeProposal = JsonEncoder.make(InvoiceProposal)

/** A stored invoice (record or row) as the contract's Invoice: with `overdue` for `today` (spec 2.1). */
const withOverdue = <A extends InvoiceRecord | InvoiceRow>(invoice: A, today: string) => ({
  ...invoice,
  overdue: isOverdue(invoice, today)
})

/** 404 for a missing or invisible record, else the refusal's own problem. */
const toProblem = (error: RecordNotFound | BillingRefusal) =>
  error._tag === "RecordNotFound"
    ? problem.notFound(
        error.kind === "proposal"
          ? "No such invoice proposal, or the token cannot see it."
          : "No such invoice, or the token cannot see it."
      )
    : fromRefusal(error)

export const BillingHandlers = HttpApiBuilder.group(IntegrationApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const billing = yield* BillingService
    return handlers
      .handle("getVerificationQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const limit = urlParams.limit ?? DEFAULT_LIMIT
          const after = yield* Cursor.decode("verification-queue", urlParams.cursor)
          const rows = yield* billing.verificationQueue(principal, after, limit).pipe(Effect.mapError(fromRefusal))
          const page = Cursor.page("verification-queue", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
          return encodedJson(encodeProposalPage(page))
        })
      )
      .handle("getSendQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const limit = urlParams.limit ?? DEFAULT_LIMIT
          const after = yield* Cursor.decode("send-queue", urlParams.cursor)
          const rows = yield* billing.sendQueue(principal, after, limit).pipe(Effect.mapError(fromRefusal))
          const today = yield* todayIn
          const page = Cursor.page("send-queue", rows, limit, (row) => ({ at: row.approvedAt ?? row.createdAt, id: row.id }))
          return encodedJson(
            encodeInvoicePage({ items: page.items.map((row) => withOverdue(row, today)), nextCursor: page.nextCursor })
          )
        })
      )
      .handle("passProposal", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const result = yield* billing.passProposal(principal, path.proposalId, payload.externalReference).pipe(Effect.mapError(toProblem))
          const today = yield* todayIn
          return encodedJson(
            encodePassResponse({ proposal: result.proposal, invoice: withOverdue(result.invoice, today) }),
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
          return encodedJson(encodeInvoice(withOverdue(invoice, yield* todayIn)), 201)
        })
      )
  })
)
