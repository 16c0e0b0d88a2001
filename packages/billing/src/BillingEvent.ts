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
