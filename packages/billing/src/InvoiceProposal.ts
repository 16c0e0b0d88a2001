/**
 * The invoice proposal record of the Integration API (spec section 2.2): invoice material awaiting the caller's
 * verification. Same conventions as `Invoice.ts`: integer minor units, `YYYY-MM-DD` dates, `Date` timestamps,
 * optional fields absent (never `undefined`).
 *
 * @since 0.1.0
 */
import type { BillingStream, Currency, DocumentKind } from "./Invoice.js"

/**
 * Every proposal status (spec section 3).
 *
 * @since 0.1.0
 */
export const PROPOSAL_STATUSES = ["proposed", "passed", "rejected", "cancelled"] as const

/**
 * Proposal status (spec section 3): `proposed` (awaits the caller's verdict), `passed` and `rejected` (the
 * caller's verdicts), `cancelled` (an operator withdrew it). Only `proposed` moves.
 *
 * @since 0.1.0
 */
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number]

/**
 * An invoice proposal as stored (spec section 2.2), field for field. If passed, it becomes an invoice that keeps
 * its `invoiceNumber`.
 *
 * Ids are UUID strings; `*MinorUnits` are integers in minor units of `currency` (negative on a credit note);
 * `requestedInvoiceDate` and `requestedDueDate` are `YYYY-MM-DD`; `*At` fields are timestamps.
 *
 * @since 0.1.0
 */
export interface InvoiceProposalRecord {
  readonly id: string
  readonly invoiceRunId: string
  /** Integer ≤ 9007199254740991; absent only on some older rejected or cancelled proposals. */
  readonly invoiceNumber?: number
  readonly organizationId: string
  readonly operationalContextId: string
  readonly contractId: string
  readonly recipientAgentId: string
  readonly recipientAgentName: string
  readonly billingAccountId: string
  readonly documentKind: DocumentKind
  /** On a proposed credit note, the invoice it credits. */
  readonly creditedInvoiceId?: string
  readonly billingStream: BillingStream
  /** `YYYY-MM-DD`. */
  readonly requestedInvoiceDate: string
  /** `YYYY-MM-DD`; absent on a credit note. */
  readonly requestedDueDate?: string
  /** Integer ≥ 0; absent on a credit note. */
  readonly paymentTermsDays?: number
  readonly status: ProposalStatus
  readonly currency: Currency
  readonly totalNetMinorUnits: number
  readonly totalVatMinorUnits: number
  readonly totalGrossMinorUnits: number
  /** The caller's own invoice id, attached when the proposal is passed. */
  readonly externalReference?: string
  readonly rejectionReason?: string
  readonly passedAt?: Date
  readonly rejectedAt?: Date
  readonly cancelledAt?: Date
  readonly createdAt: Date
  readonly updatedAt: Date
}
