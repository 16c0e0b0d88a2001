/**
 * HTTP handlers of the billing group: decoding is the contract's schemas (the role and body checks its
 * middleware), each handler calls {@link BillingService} and encodes domain records as the contract's Invoice /
 * InvoiceProposal (spec 2.1, 2.2).
 */
import { HttpApiBuilder } from "@effect/platform"
import { withOverdue, type InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import { PassProposalResponse } from "@propline/contract/Billing"
import type { InvoiceId, OperationalContextId, OrganizationId, ProposalId } from "@propline/contract/Ids"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Clock, Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { BillingService } from "./BillingService.js"

const todayIn = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString().slice(0, 10))

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
          return { items: page.items.map(toProposal), nextCursor: page.nextCursor }
        })
      )
      .handle("getSendQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("send-queue", urlParams.cursor)
          const page = yield* billing.sendQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT).pipe(Effect.mapError(toProblem))
          const today = yield* todayIn
          return { items: page.items.map((row) => toInvoice(row, today)), nextCursor: page.nextCursor }
        })
      )
      .handle("passProposal", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const result = yield* billing.passProposal(principal, path.proposalId, payload.externalReference).pipe(Effect.mapError(toProblem))
          const today = yield* todayIn
          return new PassProposalResponse(
            { proposal: toProposal(result.proposal), invoice: toInvoice(result.invoice, today) },
            true
          )
        })
      )
      .handle("rejectProposal", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const proposal = yield* billing.rejectProposal(principal, path.proposalId, payload.reason).pipe(Effect.mapError(toProblem))
          return toProposal(proposal)
        })
      )
      .handle("reportFailed", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const invoice = yield* billing.reportFailed(principal, path.invoiceId, payload.reason).pipe(Effect.mapError(toProblem))
          return toInvoice(invoice, yield* todayIn)
        })
      )
  })
)
