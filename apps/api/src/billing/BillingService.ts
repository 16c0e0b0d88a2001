/**
 * The billing operations of the API (spec 3, 4.1, 4.2; decisions 4, 5). Each write is one transaction: read the
 * billing scope, load and lock the record (404 when missing or invisible — before any business rule, so a caller
 * learns nothing about the integration from a record it can't see), ask the pure domain (`@propline/billing`),
 * persist the new state, the events and the audit entry. Refusals come back as the domain's tagged values; the
 * handlers turn them into problem details.
 */
import type { BillingRefusal } from "@propline/billing/BillingRefusal"
import { ExternalReferenceAlreadyUsed } from "@propline/billing/BillingRefusal"
import * as InvoiceLifecycle from "@propline/billing/InvoiceLifecycle"
import * as ProposalVerification from "@propline/billing/ProposalVerification"
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { BillingScopeRepository } from "./BillingScopeRepository.js"
import { InvoiceRepository } from "./InvoiceRepository.js"
import { ProposalRepository } from "./ProposalRepository.js"

const span = (name: string) => Effect.withSpan(`BillingService.${name}`, { captureStackTrace: false })

export class BillingService extends Effect.Service<BillingService>()("@propline/api/billing/BillingService", {
  effect: Effect.gen(function* () {
    const scopes = yield* BillingScopeRepository
    const proposals = yield* ProposalRepository
    const invoices = yield* InvoiceRepository

    /**
     * The proposal, locked for the transaction: 404 (RecordNotFound) when it doesn't exist or lies outside the
     * principal's organization or contexts; then the integration must be ready with the verification gate.
     */
    const lockVisibleProposal = (principal: PrincipalShape, proposalId: string) =>
      Effect.gen(function* () {
        const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
        const proposal = yield* proposals.lock(principal.organizationId, scope.contextIds, proposalId)
        if (proposal === undefined) return yield* new RecordNotFound({ kind: "invoice proposal" })
        yield* ProposalVerification.requireVerificationGate(scope.integration)
        return proposal
      })

    /** The invoice, locked for the transaction: 404 as above; then the integration must be ready. */
    const lockVisibleInvoice = (principal: PrincipalShape, invoiceId: string) =>
      Effect.gen(function* () {
        const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
        const invoice = yield* invoices.lock(principal.organizationId, scope.contextIds, invoiceId)
        if (invoice === undefined) return yield* new RecordNotFound({ kind: "invoice" })
        yield* ProposalVerification.requireBillingIntegration(scope.integration)
        return invoice
      })

    return {
      /**
       * Verification queue (spec 4.2): proposals `proposed` in the principal's contexts, oldest first.
       * Refusals: BILLING_INTEGRATION_NOT_CONFIGURED, BILLING_INTEGRATION_GATE_NOT_DECLARED (400).
       */
      verificationQueue: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        Effect.gen(function* () {
          const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
          yield* ProposalVerification.requireVerificationGate(scope.integration)
          const rows = yield* proposals.verificationQueue(principal.organizationId, scope.contextIds, after, limit)
          return CursorPage.page("verification-queue", rows, limit)
        }).pipe(span("verificationQueue")),

      /** Send queue (spec 4.2): invoices `approved`, oldest approval first. Refusal: BILLING_INTEGRATION_NOT_CONFIGURED. */
      sendQueue: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        Effect.gen(function* () {
          const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
          yield* ProposalVerification.requireBillingIntegration(scope.integration)
          const rows = yield* invoices.sendQueue(principal.organizationId, scope.contextIds, after, limit)
          return CursorPage.page("send-queue", rows, limit)
        }).pipe(span("sendQueue")),

      /**
       * Pass (spec 3, 4.1): the proposal becomes `passed` and an `approved` invoice is created in the same
       * transaction. The proposal row is locked first, so of concurrent passes exactly one succeeds and the rest see
       * `passed` (400 BILLING_PROPOSAL_STATUS_INVALID). The charges are locked too, so two proposals over the same
       * material can't both pass (409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED); the unique key on
       * (organization, externalReference) settles a race between two proposals with one reference (409
       * BILLING_EXTERNAL_REFERENCE_ALREADY_USED).
       */
      passProposal: (principal: PrincipalShape, proposalId: string, externalReference: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const proposal = yield* lockVisibleProposal(principal, proposalId)
            const charges =
              proposal.status === "proposed"
                ? yield* proposals.lockCharges(proposal.id)
                : { chargeIds: [], alreadyInvoiced: false }
            const externalReferenceTaken = yield* invoices.isExternalReferenceTaken(principal.organizationId, externalReference)
            const at = yield* Sql.now
            const transition = yield* ProposalVerification.pass(
              proposal,
              { externalReference, invoiceId: randomUUID(), materialAlreadyInvoiced: charges.alreadyInvoiced, externalReferenceTaken },
              at
            )
            yield* invoices
              .insertFromProposal(transition.invoice, proposal.id, charges.chargeIds)
              .pipe(
                Effect.catchTag("ExternalReferenceConflict", () =>
                  Effect.fail<BillingRefusal>(new ExternalReferenceAlreadyUsed({ externalReference }))
                )
              )
            yield* proposals.update(transition.proposal, transition.invoice.id)
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "billing.invoice_proposal.pass",
              targetType: "invoice_proposal",
              targetId: proposal.id,
              details: { externalReference, invoiceId: transition.invoice.id },
              at
            })
            return transition
          })
        ).pipe(span("passProposal")),

      /** Reject (decisions 5): `proposed` → `rejected` with the reason; a repeat is 400 BILLING_PROPOSAL_STATUS_INVALID. */
      rejectProposal: (principal: PrincipalShape, proposalId: string, reason: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const proposal = yield* lockVisibleProposal(principal, proposalId)
            const at = yield* Sql.now
            const transition = yield* ProposalVerification.reject(proposal, { reason }, at)
            yield* proposals.update(transition.proposal)
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "billing.invoice_proposal.reject",
              targetType: "invoice_proposal",
              targetId: proposal.id,
              details: { reason },
              at
            })
            return transition.proposal
          })
        ).pipe(span("rejectProposal")),

      /**
       * Report failed (spec 3, 4.1): `approved` → `failed` with failedAt and failureReason. The invoice row is
       * locked, so of concurrent reports exactly one succeeds; the rest, and any later report, get 400
       * BILLING_INVOICE_STATUS_INVALID.
       */
      reportFailed: (principal: PrincipalShape, invoiceId: string, reason: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const invoice = yield* lockVisibleInvoice(principal, invoiceId)
            const at = yield* Sql.now
            const transition = yield* InvoiceLifecycle.reportFailed(invoice, { reason }, at)
            yield* invoices.updateStatus(transition.invoice)
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "billing.invoice.report_failed",
              targetType: "invoice",
              targetId: invoice.id,
              details: { reason },
              at
            })
            return transition.invoice
          })
        ).pipe(span("reportFailed"))
    }
  }),
  dependencies: [BillingScopeRepository.Default, ProposalRepository.Default, InvoiceRepository.Default]
}) {}
