/**
 * The operator's billing actions (decisions 1 and 5): approve an invoice, cancel a proposal, delete an invoice
 * (onto the withdrawal queue when it had been in the send queue), credit an invoice in full or by lines, and
 * create, continue and approve invoice runs. The admin console calls these; today the tests and the demo seed do.
 * Each is one transaction like an API operation — lock, pure rule (`@propline/billing`), persist, events, audit
 * (by the operator or the system) — and fails with RecordNotFound (the record is not in the organization) or the
 * rule's refusal.
 */
import type { BillingRefusal } from "@propline/billing/BillingRefusal"
import * as Crediting from "@propline/billing/Crediting"
import type { InvoiceRecord } from "@propline/billing/Invoice"
import * as InvoiceLifecycle from "@propline/billing/InvoiceLifecycle"
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import * as InvoiceRunLifecycle from "@propline/billing/InvoiceRunLifecycle"
import * as InvoiceWithdrawal from "@propline/billing/InvoiceWithdrawal"
import * as ProposalVerification from "@propline/billing/ProposalVerification"
import type { VatCountry } from "@propline/billing/Money"
import { Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import { ContextRepository } from "../contexts/ContextRepository.js"
import { OrganizationRepository } from "../contexts/OrganizationRepository.js"
import * as Audit from "../platform/Audit.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { BillingScopeRepository } from "./BillingScopeRepository.js"
import { InvoiceRepository } from "./InvoiceRepository.js"
import { type BillableContract, InvoiceRunRepository } from "./InvoiceRunRepository.js"
import { ProposalRepository } from "./ProposalRepository.js"
import { WithdrawalRepository } from "./WithdrawalRepository.js"

const span = (name: string) => Effect.withSpan(`BillingOperatorService.${name}`, { captureStackTrace: false })

/** The VAT country of an organization's country (ISO 3166-1 alpha-2): Norway's rules for NO, Sweden's otherwise. */
const vatCountryOf = (country: string): VatCountry => (country === "NO" ? "NO" : "SE")

/** What an invoice run made: the run, and the invoices or proposals it drafted. */
export interface RunResult {
  readonly run: InvoiceRunLifecycle.InvoiceRunRecord
  readonly invoices: ReadonlyArray<InvoiceRecord>
  readonly proposals: ReadonlyArray<InvoiceProposalRecord>
}

/** An operator's credit request and its idempotency key (see `Crediting.credit`). */
export interface CreditInvoiceCommand extends Crediting.CreditRequest {
  readonly creditActId: string
}

export class BillingOperatorService extends Effect.Service<BillingOperatorService>()(
  "@propline/api/billing/BillingOperatorService",
  {
    effect: Effect.gen(function* () {
      const scopes = yield* BillingScopeRepository
      const invoices = yield* InvoiceRepository
      const proposals = yield* ProposalRepository
      const runs = yield* InvoiceRunRepository
      const withdrawals = yield* WithdrawalRepository
      const organizations = yield* OrganizationRepository
      const contexts = yield* ContextRepository

      const lockInvoice = (organizationId: string, invoiceId: string) =>
        Effect.flatMap(invoices.lockForOperator(organizationId, invoiceId), (invoice) =>
          invoice === undefined ? new RecordNotFound({ kind: "invoice" }) : Effect.succeed(invoice)
        )

      const lockRun = (organizationId: string, runId: string) =>
        Effect.flatMap(runs.lockRun(organizationId, runId), (run) =>
          run === undefined ? new RecordNotFound({ kind: "invoice run" }) : Effect.succeed(run)
        )

      /**
       * Drafts `contracts` into `run`: numbers, then per draft either a proposal (the integration declared the
       * verification gate) or a `created` invoice, with one charge per line.
       */
      const draftInto = (
        run: InvoiceRunLifecycle.InvoiceRunRecord,
        drafting: InvoiceRunLifecycle.RunDrafting,
        contracts: ReadonlyArray<BillableContract>,
        at: Date
      ) =>
        Effect.gen(function* () {
          const scope = yield* scopes.scope(run.organizationId, [run.operationalContextId])
          const verification = Either.isRight(ProposalVerification.requireVerificationGate(scope.integration))
          const first = yield* organizations.takeInvoiceNumbers(run.organizationId, drafting.drafts.length)
          const made: { invoices: Array<InvoiceRecord>; proposals: Array<InvoiceProposalRecord> } = {
            invoices: [],
            proposals: []
          }
          const events = [...drafting.events]
          for (const [index, draft] of drafting.drafts.entries()) {
            const contract = contracts.find((candidate) => candidate.material.contractId === draft.contractId)
            if (contract === undefined) continue
            const fields = {
              id: randomUUID(),
              invoiceRunId: run.id,
              organizationId: run.organizationId,
              operationalContextId: contract.operationalContextId,
              recipientAgentId: contract.recipientAgentId,
              billingAccountId: contract.billingAccountId,
              invoiceNumber: first + index
            }
            if (verification) {
              const { events: created, proposal } = InvoiceRunLifecycle.proposalFromDraft(draft, fields, at)
              const chargeIds = yield* runs.insertCharges(run.organizationId, draft.contractId, contract.lineIds, draft.lines, draft, null, at)
              yield* proposals.insert(
                proposal,
                draft.lines.map((line, position) => ({ ...line, chargeId: chargeIds[position] ?? "" }))
              )
              made.proposals.push(proposal)
              events.push(...created)
            } else {
              const { events: created, invoice } = InvoiceRunLifecycle.documentFromDraft(draft, fields, at)
              yield* invoices.insert(invoice, [])
              const chargeIds = yield* runs.insertCharges(run.organizationId, draft.contractId, contract.lineIds, draft.lines, draft, invoice.id, at)
              yield* invoices.insertLines(
                invoice.id,
                draft.lines.map((line, position) => ({ ...line, chargeId: chargeIds[position] }))
              )
              made.invoices.push(invoice)
              events.push(...created)
            }
          }
          yield* Outbox.append(events)
          return made
        })

      return {
        /** Approve an invoice: `created` → `approved` (it enters the send queue). */
        approveInvoice: (organizationId: string, actor: Audit.Actor, invoiceId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const invoice = yield* lockInvoice(organizationId, invoiceId)
              const at = yield* Sql.now
              const transition = yield* InvoiceLifecycle.approve(invoice, at)
              yield* invoices.update(transition.invoice).pipe(Effect.orDie)
              yield* Outbox.append(transition.events)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice.approve",
                targetType: "invoice",
                targetId: invoiceId,
                at
              })
              return transition.invoice
            })
          ).pipe(span("approveInvoice")),

        /** Cancel a proposal: `proposed` → `cancelled` (how an operator clears one whose charges were invoiced). */
        cancelProposal: (organizationId: string, actor: Audit.Actor, proposalId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const proposal = yield* proposals.lockForOperator(organizationId, proposalId)
              if (proposal === undefined) return yield* new RecordNotFound({ kind: "invoice proposal" })
              const at = yield* Sql.now
              const transition = yield* ProposalVerification.cancel(proposal, at)
              yield* proposals.update(transition.proposal)
              yield* Outbox.append(transition.events)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice_proposal.cancel",
                targetType: "invoice_proposal",
                targetId: proposalId,
                at
              })
              return transition.proposal
            })
          ).pipe(span("cancelProposal")),

        /**
         * Delete an invoice (`created`, `approved` or `failed`): it is gone from every list and report; its charges
         * are released; if it had been in the send queue it joins the withdrawal queue.
         */
        deleteInvoice: (organizationId: string, actor: Audit.Actor, invoiceId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const invoice = yield* lockInvoice(organizationId, invoiceId)
              const at = yield* Sql.now
              const deletion = yield* InvoiceWithdrawal.deleteInvoice(invoice, at)
              yield* invoices.markDeleted(invoice, at)
              if (deletion.withdrawal !== undefined) yield* withdrawals.insert(deletion.withdrawal)
              yield* Outbox.append(deletion.events)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice.delete",
                targetType: "invoice",
                targetId: invoiceId,
                details: { withdrawn: deletion.withdrawal !== undefined },
                at
              })
              return deletion
            })
          ).pipe(span("deleteInvoice")),

        /**
         * Credit an invoice in full or by lines: an `approved` credit note with `creditedInvoiceId`. Idempotent by
         * `creditActId` (the same act again answers its credit note; other content: 409
         * BILLING_CREDIT_ACT_REPLAY_MISMATCH). The invoice row is locked, so concurrent credits of one invoice can't
         * together exceed it.
         */
        creditInvoice: (organizationId: string, actor: Audit.Actor, command: CreditInvoiceCommand) =>
          Sql.transaction(
            Effect.gen(function* () {
              const { creditActId, ...request } = command
              const act = yield* runs.lockCreditAct(organizationId, creditActId)
              const earlierNote = act === undefined ? undefined : yield* invoices.byId(organizationId, act.creditNoteId)
              const earlierAct =
                act === undefined || earlierNote === undefined
                  ? undefined
                  : { creditActId, request: act.request as unknown as Crediting.CreditRequest, creditNote: earlierNote }
              const invoice =
                earlierAct !== undefined && earlierAct.request.invoiceId !== request.invoiceId
                  ? earlierAct.creditNote // the mismatch is decided before the invoice is read
                  : yield* lockInvoice(organizationId, request.invoiceId)
              const credited = yield* invoices.creditState(invoice.id)
              const country = vatCountryOf(yield* organizations.country(organizationId))
              const at = yield* Sql.now
              const [number] = earlierAct === undefined ? [yield* organizations.takeInvoiceNumbers(organizationId, 1)] : [0]
              const outcome = yield* Crediting.credit(
                { invoice, lines: credited.lines, creditedGrossMinorUnits: credited.creditedGrossMinorUnits, country, earlierAct },
                { ...command, creditNoteId: randomUUID(), invoiceNumber: number ?? 0 },
                at
              )
              if (outcome.replayed) return outcome.creditNote
              yield* invoices.insert(outcome.creditNote, outcome.lines)
              yield* runs
                .insertCreditAct(organizationId, creditActId, request, outcome.creditNote.id, at)
                .pipe(Effect.catchAll(() => Effect.die(new Error("credit act raced past its lock"))))
              yield* Outbox.append(outcome.events)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice.credit",
                targetType: "invoice",
                targetId: invoice.id,
                details: { creditActId, creditNoteId: outcome.creditNote.id },
                at
              })
              return outcome.creditNote
            })
          ).pipe(span("creditInvoice")),

        /**
         * Create an invoice run for a period in an operational context: the context's active contracts not billed
         * for the period become `created` invoices (or proposals, when the integration declared the verification
         * gate).
         */
        createInvoiceRun: (
          organizationId: string,
          actor: Audit.Actor,
          command: {
            readonly operationalContextId: string
            readonly periodStart: string
            readonly periodEnd: string
            readonly invoiceDate: string
          }
        ) =>
          Sql.transaction(
            Effect.gen(function* () {
              if (!(yield* contexts.exists(organizationId, command.operationalContextId))) {
                return yield* new RecordNotFound({ kind: "operational context" })
              }
              const contracts = yield* runs.billableContracts(
                organizationId,
                command.operationalContextId,
                command.periodStart,
                command.periodEnd
              )
              const at = yield* Sql.now
              const drafting = yield* InvoiceRunLifecycle.createRun(
                { ...command, runId: randomUUID(), organizationId, contracts: contracts.map((c) => c.material) },
                at
              ).pipe(Either.mapLeft(refusalOrDefect))
              yield* runs.insertRun(drafting.run)
              const made = yield* draftInto(drafting.run, drafting, contracts, at)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice_run.create",
                targetType: "invoice_run",
                targetId: drafting.run.id,
                details: { ...command, documents: made.invoices.length + made.proposals.length },
                at
              })
              return { run: drafting.run, ...made } satisfies RunResult
            })
          ).pipe(span("createInvoiceRun")),

        /** Continue a draft run with contracts not yet billed for its period. */
        continueInvoiceRun: (
          organizationId: string,
          actor: Audit.Actor,
          runId: string,
          command: { readonly invoiceDate: string }
        ) =>
          Sql.transaction(
            Effect.gen(function* () {
              const run = yield* lockRun(organizationId, runId)
              const contracts =
                run.status === "draft"
                  ? yield* runs.billableContracts(organizationId, run.operationalContextId, run.periodStart, run.periodEnd)
                  : []
              const at = yield* Sql.now
              const drafting = yield* InvoiceRunLifecycle.continueRun(
                run,
                { invoiceDate: command.invoiceDate, contracts: contracts.map((c) => c.material) },
                at
              ).pipe(Either.mapLeft(refusalOrDefect))
              yield* runs.updateRun(drafting.run)
              const made = yield* draftInto(drafting.run, drafting, contracts, at)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice_run.continue",
                targetType: "invoice_run",
                targetId: runId,
                details: { documents: made.invoices.length + made.proposals.length },
                at
              })
              return { run: drafting.run, ...made } satisfies RunResult
            })
          ).pipe(span("continueInvoiceRun")),

        /** Approve a draft run: every `created` invoice of it is approved and enters the send queue. */
        approveInvoiceRun: (organizationId: string, actor: Audit.Actor, runId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const run = yield* lockRun(organizationId, runId)
              const documents = yield* invoices.lockRunInvoices(runId)
              const at = yield* Sql.now
              const approval = yield* InvoiceRunLifecycle.approveRun(run, documents, at)
              yield* runs.updateRun(approval.run)
              for (const invoice of approval.invoices) yield* invoices.update(invoice).pipe(Effect.orDie)
              yield* Outbox.append(approval.events)
              yield* Audit.byActor(organizationId, actor, {
                action: "billing.invoice_run.approve",
                targetType: "invoice_run",
                targetId: runId,
                details: { approved: approval.invoices.length },
                at
              })
              return { run: approval.run, invoices: approval.invoices, proposals: [] } satisfies RunResult
            })
          ).pipe(span("approveInvoiceRun"))
      }
    }),
    dependencies: [
      BillingScopeRepository.Default,
      InvoiceRepository.Default,
      ProposalRepository.Default,
      InvoiceRunRepository.Default,
      WithdrawalRepository.Default,
      OrganizationRepository.Default,
      ContextRepository.Default
    ]
  }
) {}

/** A run's refusal stays a refusal; contract material out of bounds is the organization's data gone bad: a defect. */
const refusalOrDefect = (error: BillingRefusal | InvoiceRunLifecycle.MaterialInvalid): BillingRefusal => {
  if ("code" in error) return error
  throw error
}
