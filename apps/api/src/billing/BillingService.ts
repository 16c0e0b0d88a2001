/**
 * The billing slice's operations (spec 3, 4.1, 4.2; decisions 4, 5). Each write is one transaction: load and lock
 * the record, ask the pure domain (`@propline/billing`), persist the new state, the events and the audit entry.
 * Refusals come back as the domain's tagged values; the HTTP layer turns them into problem details.
 */
import * as InvoiceLifecycle from "@propline/billing/InvoiceLifecycle"
import type { BillingRefusal } from "@propline/billing/BillingRefusal"
import { ExternalReferenceAlreadyUsed } from "@propline/billing/BillingRefusal"
import * as ProposalVerification from "@propline/billing/ProposalVerification"
import type { PrincipalShape } from "@propline/contract/Authentication"
import * as Db from "@propline/db/Db"
import { Clock, Data, Effect, FiberRef } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../Audit.js"
import * as ContextRepository from "../contexts/ContextRepository.js"
import type { Position } from "../http/Cursor.js"
import { currentRequestId } from "../http/RequestId.js"
import * as Repo from "./BillingRepository.js"

/** The record does not exist, or the principal can't see it (another organization or context): 404. */
export class RecordNotFound extends Data.TaggedError("RecordNotFound")<{ readonly kind: "proposal" | "invoice" }> {}

/** The integration and the visible contexts; fails unless a billing integration is configured. */
const requireIntegration = (principal: PrincipalShape) =>
  Effect.tap(ContextRepository.billingScope(principal.organizationId, principal.contexts), (scope) =>
    ProposalVerification.requireBillingIntegration(scope.integration)
  )

/** As {@link requireIntegration}, and the integration must have declared the verification gate. */
const requireGate = (principal: PrincipalShape) =>
  Effect.tap(ContextRepository.billingScope(principal.organizationId, principal.contexts), (scope) =>
    ProposalVerification.requireVerificationGate(scope.integration)
  )

/**
 * Span options of these operations: no stack trace. Capturing one builds an Error per call, which on a hot path
 * costs more than the span; the span's name says where it came from.
 */
const hotSpan = { captureStackTrace: false } as const

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

const audit = (principal: PrincipalShape, action: string, targetType: string, targetId: string, at: Date, details?: Record<string, unknown>) =>
  Effect.flatMap(FiberRef.get(currentRequestId), (requestId) =>
    Audit.record({
      organizationId: principal.organizationId,
      actorType: "application",
      actorId: principal.subject,
      action,
      targetType,
      targetId,
      requestId,
      ...(details === undefined ? {} : { details }),
      occurredAt: at
    })
  )

/**
 * The proposal, locked for the transaction, after the verification gate is checked; RecordNotFound (404) when it
 * doesn't exist or lies outside the principal's organization or contexts.
 */
const lockVisibleProposal = (principal: PrincipalShape, proposalId: string) =>
  Effect.gen(function* () {
    const scope = yield* requireGate(principal)
    const proposal = yield* Repo.lockProposal(principal.organizationId, scope.contextIds, proposalId)
    return proposal ?? (yield* new RecordNotFound({ kind: "proposal" }))
  })

/** The invoice, locked for the transaction, after the integration is checked; RecordNotFound (404) as above. */
const lockVisibleInvoice = (principal: PrincipalShape, invoiceId: string) =>
  Effect.gen(function* () {
    const scope = yield* requireIntegration(principal)
    const invoice = yield* Repo.lockInvoice(principal.organizationId, scope.contextIds, invoiceId)
    return invoice ?? (yield* new RecordNotFound({ kind: "invoice" }))
  })

/** A transaction whose infrastructure failures are defects (callers can't act on them). */
const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Db.Db> =>
  Effect.catchIf(
    Db.transaction(effect),
    (error): error is Db.SqlError => error instanceof Db.SqlError,
    (error) => Effect.die(error)
  ) as Effect.Effect<A, E, R | Db.Db>

export class BillingService extends Effect.Service<BillingService>()("@propline/api/BillingService", {
  accessors: true,
  succeed: {
    /**
     * Verification queue (spec 4.2): proposals `proposed` in the principal's contexts, oldest first; `limit + 1`
     * rows. Refusals: BILLING_INTEGRATION_NOT_CONFIGURED, BILLING_INTEGRATION_GATE_NOT_DECLARED (400).
     */
    verificationQueue: (principal: PrincipalShape, after: Position | undefined, limit: number) =>
      Effect.gen(function* () {
        const scope = yield* requireGate(principal)
        return yield* Repo.verificationQueue(principal.organizationId, scope.contextIds, after, limit)
      }).pipe(Effect.withSpan("BillingService.verificationQueue", hotSpan)),

    /** Send queue (spec 4.2): invoices `approved`, oldest approval first; `limit + 1` rows. */
    sendQueue: (principal: PrincipalShape, after: Position | undefined, limit: number) =>
      Effect.gen(function* () {
        const scope = yield* requireIntegration(principal)
        return yield* Repo.sendQueue(principal.organizationId, scope.contextIds, after, limit)
      }).pipe(Effect.withSpan("BillingService.sendQueue", hotSpan)),

    /**
     * Pass (spec 3, 4.1): the proposal becomes `passed` and an `approved` invoice is created in the same
     * transaction. The proposal row is locked first, so of concurrent passes exactly one succeeds and the rest see
     * `passed` (400 BILLING_PROPOSAL_STATUS_INVALID). The charges are locked too, so two proposals over the same
     * material can't both pass (409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED); the unique key on
     * (organization, externalReference) settles a race between two proposals with one reference (409).
     */
    passProposal: (principal: PrincipalShape, proposalId: string, externalReference: string) =>
      inTransaction(
        Effect.gen(function* () {
          const proposal = yield* lockVisibleProposal(principal, proposalId)
          const charges = proposal.status === "proposed" ? yield* Repo.lockProposalCharges(proposal.id) : { chargeIds: [], alreadyInvoiced: false }
          const externalReferenceTaken = yield* Repo.isExternalReferenceTaken(principal.organizationId, externalReference)
          const at = yield* now
          const transition = yield* ProposalVerification.pass(
            proposal,
            {
              externalReference,
              invoiceId: randomUUID(),
              materialAlreadyInvoiced: charges.alreadyInvoiced,
              externalReferenceTaken
            },
            at
          )
          yield* Repo.insertInvoiceFromProposal(transition.invoice, proposal.id, charges.chargeIds).pipe(
            Effect.catchTag("ExternalReferenceConflict", () =>
              Effect.fail(new ExternalReferenceAlreadyUsed({ externalReference }) as BillingRefusal)
            )
          )
          yield* Repo.updateProposal(transition.proposal, transition.invoice.id)
          yield* Repo.appendEvents(transition.events)
          yield* audit(principal, "billing.invoice_proposal.pass", "invoice_proposal", proposal.id, at, {
            externalReference,
            invoiceId: transition.invoice.id
          })
          return transition
        })
      ).pipe(Effect.withSpan("BillingService.passProposal", hotSpan)),

    /** Reject (decisions 5): `proposed` → `rejected` with the reason; a repeat is 400 BILLING_PROPOSAL_STATUS_INVALID. */
    rejectProposal: (principal: PrincipalShape, proposalId: string, reason: string) =>
      inTransaction(
        Effect.gen(function* () {
          const proposal = yield* lockVisibleProposal(principal, proposalId)
          const at = yield* now
          const transition = yield* ProposalVerification.reject(proposal, { reason }, at)
          yield* Repo.updateProposal(transition.proposal)
          yield* Repo.appendEvents(transition.events)
          yield* audit(principal, "billing.invoice_proposal.reject", "invoice_proposal", proposal.id, at, { reason })
          return transition.proposal
        })
      ).pipe(Effect.withSpan("BillingService.rejectProposal", hotSpan)),

    /**
     * Report failed (spec 3, 4.1): `approved` → `failed` with failedAt and failureReason. The invoice row is locked,
     * so of concurrent reports exactly one succeeds; the rest, and any later report, get 400
     * BILLING_INVOICE_STATUS_INVALID.
     */
    reportFailed: (principal: PrincipalShape, invoiceId: string, reason: string) =>
      inTransaction(
        Effect.gen(function* () {
          const invoice = yield* lockVisibleInvoice(principal, invoiceId)
          const at = yield* now
          const transition = yield* InvoiceLifecycle.reportFailed(invoice, { reason }, at)
          yield* Repo.updateInvoiceStatus(transition.invoice)
          yield* Repo.appendEvents(transition.events)
          yield* audit(principal, "billing.invoice.report_failed", "invoice", invoice.id, at, { reason })
          return transition.invoice
        })
      ).pipe(Effect.withSpan("BillingService.reportFailed", hotSpan))
  }
}) {}
