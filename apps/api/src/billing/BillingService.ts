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
import * as InvoiceWithdrawal from "@propline/billing/InvoiceWithdrawal"
import * as ProposalVerification from "@propline/billing/ProposalVerification"
import * as Settlement from "@propline/billing/Settlement"
import type { PrincipalShape } from "@propline/contract/Authentication"
import type * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as EventsAndAudit from "../platform/EventsAndAudit.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { BillingScopeRepository } from "./BillingScopeRepository.js"
import { InvoiceRepository } from "./InvoiceRepository.js"
import { LedgerRepository } from "./LedgerRepository.js"
import { ProposalRepository } from "./ProposalRepository.js"
import { WithdrawalRepository } from "./WithdrawalRepository.js"
import { traced } from "../platform/Spans.js"

const span = (name: string) => traced(`BillingService.${name}`)

/** Which invoice a money report names: our id, or the caller's own (`externalReference`, spec 4.2). */
export type InvoiceTarget = { readonly invoiceId: string } | { readonly externalReference: string }

/** Report-sent body (decisions 5) as the contract decoded it. */
export interface ReportSentBody {
  readonly issuedInvoiceNumber: string
  readonly issuedInvoiceDate: string
  readonly dueDate?: string | undefined
  readonly issuedTotalGrossMinorUnits: number
  readonly externalReference?: string | undefined
  readonly paymentReference?: string | undefined
  readonly paymentReferenceType?: "ocr" | "kid" | "reference" | undefined
  readonly documentUrl?: string | undefined
}

/** Drops members that are `undefined`, for the domain's exact optional fields. */
const defined = <T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } => {
  const out: Record<string, unknown> = {}
  for (const key in value) if (value[key] !== undefined) out[key] = value[key]
  return out as { [K in keyof T]: Exclude<T[K], undefined> }
}

export class BillingService extends Effect.Service<BillingService>()("@propline/api/billing/BillingService", {
  effect: Effect.gen(function* () {
    const scopes = yield* BillingScopeRepository
    const proposals = yield* ProposalRepository
    const invoices = yield* InvoiceRepository
    const ledgers = yield* LedgerRepository
    const withdrawals = yield* WithdrawalRepository

    /**
     * The proposal, locked for the transaction, read with the billing scope in one round trip: 404 (RecordNotFound)
     * when it doesn't exist or lies outside the principal's organization or contexts; then the integration must be
     * ready with the verification gate.
     */
    const lockVisibleProposal = (principal: PrincipalShape, proposalId: string) =>
      Effect.gen(function* () {
        const { row, scope } = yield* scopes.scopeLocking(
          principal.organizationId,
          principal.contexts,
          proposals.lockTarget,
          proposalId
        )
        if (row === undefined) return yield* new RecordNotFound({ kind: "invoice proposal" })
        yield* ProposalVerification.requireVerificationGate(scope.integration)
        return proposals.toRecord(row)
      })

    /**
     * The invoice named by id or by the caller's externalReference, locked for the transaction, read with the
     * billing scope in one round trip: 404 as above; then the integration must be ready.
     */
    const lockTarget = (principal: PrincipalShape, target: InvoiceTarget) =>
      Effect.gen(function* () {
        const { row, scope } = yield* ("invoiceId" in target
          ? scopes.scopeLocking(principal.organizationId, principal.contexts, invoices.lockTarget, target.invoiceId)
          : scopes.scopeLocking(
              principal.organizationId,
              principal.contexts,
              invoices.lockTargetByExternalReference,
              target.externalReference
            ))
        if (row === undefined) return yield* new RecordNotFound({ kind: "invoice" })
        yield* ProposalVerification.requireBillingIntegration(scope.integration)
        return invoices.toRecord(row)
      })

    /** As {@link lockTarget}, by id. */
    const lockVisibleInvoice = (principal: PrincipalShape, invoiceId: string) => lockTarget(principal, { invoiceId })

    /**
     * One money report on a locked invoice and its ledger (read after the lock, so it holds every report committed
     * before): a replay persists nothing; a recorded report writes the ledger row with the invoice, its events and
     * an audit entry in one statement (`persist`, given the events and audit entry as CTEs).
     */
    const moneyReport = <O extends Settlement.MoneyReportOutcome, E>(
      principal: PrincipalShape,
      target: InvoiceTarget,
      action: string,
      details: Record<string, unknown>,
      decide: (state: Settlement.SettlementState, at: Date) => Effect.Effect<O, E>,
      persist: (outcome: O, also: EventsAndAudit.EventsAndAudit) => Effect.Effect<void, never, Db.Db>
    ) =>
      Sql.transaction(
        Effect.gen(function* () {
          const invoice = yield* lockTarget(principal, target)
          const ledger = yield* ledgers.ledger(invoice.id)
          const at = yield* Sql.now
          const outcome = yield* decide({ invoice, ledger }, at)
          if (outcome.replayed) return outcome.invoice
          const also = yield* EventsAndAudit.of(principal, outcome.events, {
            action,
            targetType: "invoice",
            targetId: invoice.id,
            details,
            at
          })
          yield* persist(outcome, also)
          yield* Outbox.appendedIn(outcome.events)
          return outcome.invoice
        })
      )

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
          // The scope and the page in one round trip; a refusal answers before the page is looked at.
          const { integration, rows } = yield* scopes.integrationAndPage(
            principal.organizationId,
            principal.contexts,
            invoices.sendQueuePage,
            after,
            limit
          )
          yield* ProposalVerification.requireBillingIntegration(integration)
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
            // The charges are locked, and the facts read, only for a proposal that can pass: pass refuses any
            // other status (or a missing invoice number) before it looks at them.
            const facts =
              proposal.status === "proposed" && proposal.invoiceNumber !== undefined
                ? yield* invoices.passFacts(principal.organizationId, proposal.id, externalReference)
                : { chargeIds: [], alreadyInvoiced: false, externalReferenceTaken: false }
            const at = yield* Sql.now
            const transition = yield* ProposalVerification.pass(
              proposal,
              {
                externalReference,
                invoiceId: randomUUID(),
                materialAlreadyInvoiced: facts.alreadyInvoiced,
                externalReferenceTaken: facts.externalReferenceTaken
              },
              at
            )
            // The invoice, its lines, charges, the proposal's verdict, the events and the audit entry: one statement.
            const also = yield* EventsAndAudit.of(principal, transition.events, {
              action: "billing.invoice_proposal.pass",
              targetType: "invoice_proposal",
              targetId: proposal.id,
              details: { externalReference, invoiceId: transition.invoice.id },
              at
            })
            yield* invoices
              .insertFromProposal(transition.invoice, transition.proposal, facts.chargeIds, also)
              .pipe(
                Effect.catchTag("ExternalReferenceConflict", () =>
                  Effect.fail<BillingRefusal>(new ExternalReferenceAlreadyUsed({ externalReference }))
                )
              )
            yield* Outbox.appendedIn(transition.events)
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
        ).pipe(span("reportFailed")),

      /**
       * Report sent (decisions 5): `approved` → `sent` with the issued fields and a balance of the issued total.
       * Refusals: VALIDATION_FAILED for fields the invoice decides, BILLING_INVOICE_STATUS_INVALID (400, a repeat
       * included), BILLING_EXTERNAL_REFERENCE_ALREADY_USED (409; the unique key settles a race).
       */
      reportSent: (principal: PrincipalShape, invoiceId: string, body: ReportSentBody) =>
        Sql.transaction(
          Effect.gen(function* () {
            const invoice = yield* lockVisibleInvoice(principal, invoiceId)
            const attaching = body.externalReference !== undefined && invoice.externalReference === undefined
            const externalReferenceTaken =
              attaching && body.externalReference !== undefined
                ? yield* invoices.isExternalReferenceTaken(principal.organizationId, body.externalReference)
                : false
            const at = yield* Sql.now
            const { paymentReference, paymentReferenceType, ...fields } = body
            const transition = yield* InvoiceLifecycle.reportSent(
              invoice,
              {
                ...defined(fields),
                ...(paymentReference !== undefined && paymentReferenceType !== undefined
                  ? { paymentReference: { type: paymentReferenceType, value: paymentReference } }
                  : {}),
                externalReferenceTaken
              },
              at
            )
            yield* invoices
              .update(transition.invoice)
              .pipe(
                Effect.catchTag("ExternalReferenceConflict", () =>
                  Effect.fail<BillingRefusal>(
                    new ExternalReferenceAlreadyUsed({ externalReference: body.externalReference ?? "" })
                  )
                )
              )
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "billing.invoice.report_sent",
              targetType: "invoice",
              targetId: invoice.id,
              details: defined({ ...body }),
              at
            })
            return transition.invoice
          })
        ).pipe(span("reportSent")),

      /**
       * Report a payment (decisions 4, 5), by invoice id or externalReference. The invoice row is locked, so
       * concurrent reports on it run one after another: copies of one payment record it once (the rest are
       * replays, 200), distinct payments add up exactly. See `Settlement.reportPayment` for the refusals.
       */
      reportPayment: (principal: PrincipalShape, target: InvoiceTarget, command: Settlement.ReportPaymentCommand) =>
        moneyReport(
          principal,
          target,
          "billing.invoice.report_payment",
          { ...command },
          (state, at) => Settlement.reportPayment(state, command, at),
          (outcome, also) => ledgers.recordPayment(outcome.invoice, outcome.payment, also)
        ).pipe(span("reportPayment")),

      /** Report a payment reversed (decisions 4, 5); see `Settlement.reportPaymentReversed` for the refusals. */
      reportPaymentReversed: (
        principal: PrincipalShape,
        target: InvoiceTarget,
        command: Settlement.ReportPaymentReversedCommand
      ) =>
        moneyReport(
          principal,
          target,
          "billing.invoice.report_payment_reversed",
          { ...command },
          (state, at) => Settlement.reportPaymentReversed(state, command, at),
          (outcome, also) => ledgers.recordReversal(outcome.invoice, outcome.payment, also)
        ).pipe(span("reportPaymentReversed")),

      /** Report a write-off (decisions 4, 5); see `Settlement.reportWriteOff` for the refusals. */
      reportWriteOff: (principal: PrincipalShape, invoiceId: string, command: Settlement.ReportWriteOffCommand) =>
        moneyReport(
          principal,
          { invoiceId },
          "billing.invoice.report_write_off",
          { ...command },
          (state, at) => Settlement.reportWriteOff(state, command, at),
          (outcome, also) => ledgers.recordWriteOff(outcome.invoice, outcome.writeOff, also)
        ).pipe(span("reportWriteOff")),

      /** Withdrawal queue (spec 4.2, decisions 5): pending withdrawals, oldest deletion first. */
      withdrawalQueue: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        Effect.gen(function* () {
          const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
          yield* ProposalVerification.requireBillingIntegration(scope.integration)
          const rows = yield* withdrawals.queue(principal.organizationId, scope.contextIds, after, limit)
          return CursorPage.page("withdrawal-queue", rows, limit)
        }).pipe(span("withdrawalQueue")),

      /**
       * Report discarded (decisions 5): the withdrawal becomes `discarded` and leaves the queue. 404 when the invoice
       * has no withdrawal or can't be seen; a repeat is 400 BILLING_INVOICE_STATUS_INVALID.
       */
      reportDiscarded: (principal: PrincipalShape, invoiceId: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const scope = yield* scopes.scope(principal.organizationId, principal.contexts)
            const withdrawal = yield* withdrawals.lock(principal.organizationId, scope.contextIds, invoiceId)
            if (withdrawal === undefined) return yield* new RecordNotFound({ kind: "invoice withdrawal" })
            yield* ProposalVerification.requireBillingIntegration(scope.integration)
            const at = yield* Sql.now
            const transition = yield* InvoiceWithdrawal.reportDiscarded(withdrawal, at)
            yield* withdrawals.update(transition.withdrawal)
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "billing.invoice_withdrawal.report_discarded",
              targetType: "invoice",
              targetId: invoiceId,
              at
            })
            return transition.withdrawal
          })
        ).pipe(span("reportDiscarded"))
    }
  }),
  dependencies: [
    BillingScopeRepository.Default,
    ProposalRepository.Default,
    InvoiceRepository.Default,
    LedgerRepository.Default,
    WithdrawalRepository.Default
  ]
}) {}
