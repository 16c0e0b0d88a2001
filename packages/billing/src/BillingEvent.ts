/**
 * The events billing state changes produce, written by the service in the same transaction as the change
 * (outbox) and delivered to webhooks (decisions.md section 9). Each names the record that changed and when;
 * receivers re-read the record, so an event carries no record state.
 *
 * @since 0.1.0
 */

/**
 * Fields every invoice event carries: the invoice's id, organization and operational context (for routing and
 * visibility), and `at`, the time of the change.
 *
 * @since 0.1.0
 */
export interface InvoiceEventFields {
  readonly invoiceId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly at: Date
}

/**
 * Fields every proposal event carries: the proposal's id, organization, operational context and `at`.
 *
 * @since 0.1.0
 */
export interface ProposalEventFields {
  readonly proposalId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly at: Date
}

/**
 * An invoice was created (by passing a proposal, or by an invoice run).
 *
 * @since 0.1.0
 */
export interface InvoiceCreated extends InvoiceEventFields {
  readonly _tag: "billing.invoice.created"
}

/**
 * An invoice became `approved`: it entered the send queue.
 *
 * @since 0.1.0
 */
export interface InvoiceApproved extends InvoiceEventFields {
  readonly _tag: "billing.invoice.approved"
}

/**
 * An invoice became `failed` (report-failed, spec section 3).
 *
 * @since 0.1.0
 */
export interface InvoiceFailed extends InvoiceEventFields {
  readonly _tag: "billing.invoice.failed"
}

/**
 * An invoice was reported sent (report-sent): it left the send queue and has a balance.
 *
 * @since 0.1.0
 */
export interface InvoiceSent extends InvoiceEventFields {
  readonly _tag: "billing.invoice.sent"
}

/**
 * A payment was recorded on an invoice; `paymentId` is the caller's id of it.
 *
 * @since 0.1.0
 */
export interface InvoicePaymentRecorded extends InvoiceEventFields {
  readonly _tag: "billing.invoice.payment_recorded"
  readonly paymentId: string
}

/**
 * A recorded payment was reversed (taken back); `paymentId` is the caller's id of it.
 *
 * @since 0.1.0
 */
export interface InvoicePaymentReversed extends InvoiceEventFields {
  readonly _tag: "billing.invoice.payment_reversed"
  readonly paymentId: string
}

/**
 * A write-off was recorded on an invoice; `writeOffId` is the caller's id of it.
 *
 * @since 0.1.0
 */
export interface InvoiceWriteOffRecorded extends InvoiceEventFields {
  readonly _tag: "billing.invoice.write_off_recorded"
  readonly writeOffId: string
}

/**
 * An invoice was settled as `paid` (decisions.md section 5).
 *
 * @since 0.1.0
 */
export interface InvoicePaid extends InvoiceEventFields {
  readonly _tag: "billing.invoice.paid"
}

/**
 * An invoice was settled as `written-off` (decisions.md section 5).
 *
 * @since 0.1.0
 */
export interface InvoiceWrittenOff extends InvoiceEventFields {
  readonly _tag: "billing.invoice.written_off"
}

/**
 * A settled invoice (`paid` or `written-off`) returned to `sent` because a reversal made its balance due again.
 *
 * @since 0.1.0
 */
export interface InvoiceReopened extends InvoiceEventFields {
  readonly _tag: "billing.invoice.reopened"
}

/**
 * An operator deleted an invoice; `withdrawn` is true when it joined the withdrawal queue (it had been in the
 * send queue, decisions.md section 5).
 *
 * @since 0.1.0
 */
export interface InvoiceDeleted extends InvoiceEventFields {
  readonly _tag: "billing.invoice.deleted"
  readonly withdrawn: boolean
}

/**
 * An operator credited an invoice; `creditNoteId` is the credit note that credits it.
 *
 * @since 0.1.0
 */
export interface InvoiceCredited extends InvoiceEventFields {
  readonly _tag: "billing.invoice.credited"
  readonly creditNoteId: string
}

/**
 * The caller reported a deleted invoice discarded: it left the withdrawal queue.
 *
 * @since 0.1.0
 */
export interface InvoiceWithdrawalDiscarded extends InvoiceEventFields {
  readonly _tag: "billing.invoice_withdrawal.discarded"
}

/**
 * Fields every invoice-run event carries.
 *
 * @since 0.1.0
 */
export interface InvoiceRunEventFields {
  readonly invoiceRunId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly at: Date
}

/**
 * An operator created an invoice run (`billing.invoice_run.created`), continued it with more documents
 * (`billing.invoice_run.continued`) or approved it (`billing.invoice_run.approved`).
 *
 * @since 0.1.0
 */
export interface InvoiceRunChanged extends InvoiceRunEventFields {
  readonly _tag: "billing.invoice_run.created" | "billing.invoice_run.continued" | "billing.invoice_run.approved"
}

/**
 * An invoice run created a proposal (the billing integration declared the verification gate).
 *
 * @since 0.1.0
 */
export interface InvoiceProposalCreated extends ProposalEventFields {
  readonly _tag: "billing.invoice_proposal.created"
}

/**
 * A proposal was passed; `invoiceId` is the invoice it became (spec section 3).
 *
 * @since 0.1.0
 */
export interface InvoiceProposalPassed extends ProposalEventFields {
  readonly _tag: "billing.invoice_proposal.passed"
  readonly invoiceId: string
}

/**
 * A proposal was rejected by the caller (spec section 3).
 *
 * @since 0.1.0
 */
export interface InvoiceProposalRejected extends ProposalEventFields {
  readonly _tag: "billing.invoice_proposal.rejected"
}

/**
 * A proposal was cancelled by an operator (spec section 3).
 *
 * @since 0.1.0
 */
export interface InvoiceProposalCancelled extends ProposalEventFields {
  readonly _tag: "billing.invoice_proposal.cancelled"
}

/**
 * Any billing event; `_tag` is the event type as webhooks name it (decisions.md section 9).
 *
 * @since 0.1.0
 */
export type BillingEvent =
  | InvoiceCreated
  | InvoiceApproved
  | InvoiceFailed
  | InvoiceSent
  | InvoicePaymentRecorded
  | InvoicePaymentReversed
  | InvoiceWriteOffRecorded
  | InvoicePaid
  | InvoiceWrittenOff
  | InvoiceReopened
  | InvoiceDeleted
  | InvoiceCredited
  | InvoiceWithdrawalDiscarded
  | InvoiceRunChanged
  | InvoiceProposalCreated
  | InvoiceProposalPassed
  | InvoiceProposalRejected
  | InvoiceProposalCancelled

/**
 * An event type name, such as `billing.invoice.failed`.
 *
 * @since 0.1.0
 */
export type BillingEventType = BillingEvent["_tag"]

// A record keyed by every event type, so adding an event without listing it here fails to compile.
const eventTypes: { readonly [Type in BillingEventType]: null } = {
  "billing.invoice.created": null,
  "billing.invoice.approved": null,
  "billing.invoice.failed": null,
  "billing.invoice.sent": null,
  "billing.invoice.payment_recorded": null,
  "billing.invoice.payment_reversed": null,
  "billing.invoice.write_off_recorded": null,
  "billing.invoice.paid": null,
  "billing.invoice.written_off": null,
  "billing.invoice.reopened": null,
  "billing.invoice.deleted": null,
  "billing.invoice.credited": null,
  "billing.invoice_withdrawal.discarded": null,
  "billing.invoice_run.created": null,
  "billing.invoice_run.continued": null,
  "billing.invoice_run.approved": null,
  "billing.invoice_proposal.created": null,
  "billing.invoice_proposal.passed": null,
  "billing.invoice_proposal.rejected": null,
  "billing.invoice_proposal.cancelled": null
}

/**
 * Every billing event type, for webhook subscription choices.
 *
 * @since 0.1.0
 */
export const BILLING_EVENT_TYPES = Object.keys(eventTypes) as ReadonlyArray<BillingEventType>
