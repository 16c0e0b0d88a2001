/**
 * HTTP handlers of the billing group: decoding is the contract's schemas (the role and body checks its
 * middleware), each handler calls {@link BillingService} and writes domain records and queue rows as the
 * contract's Invoice / InvoiceProposal (spec 2.1, 2.2) with the contract's compiled encoders
 * (`@propline/contract/JsonEncoder`): the JSON the endpoint's Schema would write, without re-validating our own
 * records or building the Schema's classes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { isOverdue } from "@propline/billing/Invoice"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import { InvoicePage, PassProposalResponse, ProposalPage } from "@propline/contract/Billing"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Clock, Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { encodedJson } from "../platform/JsonResponse.js"
import { toProblem } from "../platform/Problems.js"
import { BillingService } from "./BillingService.js"

const todayIn = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString().slice(0, 10))

// Compiled once from the contract's schemas; each writes what the Schema path writes (contract's JsonEncoder test).
const encodeInvoicePage = JsonEncoder.make(InvoicePage)
const encodeProposalPage = JsonEncoder.make(ProposalPage)
const encodePassResponse = JsonEncoder.make(PassProposalResponse)
const encodeInvoice = JsonEncoder.make(Invoice)
const encodeProposal = JsonEncoder.make(InvoiceProposal)

/** A stored invoice (record or queue row) as the contract's Invoice: with `overdue` for `today` (spec 2.1). */
const withOverdue = <A extends Parameters<typeof isOverdue>[0]>(invoice: A, today: string) => ({
  ...invoice,
  overdue: isOverdue(invoice, today)
})

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
