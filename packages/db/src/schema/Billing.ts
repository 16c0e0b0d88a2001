/** `invoice_runs`: one billing period's run that produced invoices or proposals. */
export interface InvoiceRunTable {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  /** ISO dates of the billed period, inclusive. */
  periodStart: string
  periodEnd: string
  status: "draft" | "approved"
  approvedAt: Date | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `charges`: billable material (a contract line for a period); `invoiceId` is set once it is invoiced. */
export interface ChargeTable {
  readonly id: string
  readonly organizationId: string
  readonly contractId: string
  readonly contractLineId: string | null
  periodStart: string
  periodEnd: string
  description: string
  netMinorUnits: number
  vatRateBasisPoints: number
  invoiceId: string | null
  readonly createdAt: Date
}

interface DocumentColumns {
  readonly id: string
  readonly organizationId: string
  readonly invoiceRunId: string
  readonly operationalContextId: string
  readonly contractId: string
  readonly recipientAgentId: string
  recipientAgentName: string
  billingAccountId: string
  documentKind: "invoice" | "credit-note"
  creditedInvoiceId: string | null
  billingStream: "contractual" | "running"
  requestedInvoiceDate: string
  requestedDueDate: string | null
  paymentTermsDays: number | null
  currency: string
  totalNetMinorUnits: number
  totalVatMinorUnits: number
  totalGrossMinorUnits: number
  externalReference: string | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `invoice_proposals`: spec 2.2, one row per proposal. `invoiceId` is the invoice its pass created. */
export interface InvoiceProposalTable extends DocumentColumns {
  invoiceNumber: number | null
  status: "proposed" | "passed" | "rejected" | "cancelled"
  rejectionReason: string | null
  passedAt: Date | null
  rejectedAt: Date | null
  cancelledAt: Date | null
  invoiceId: string | null
}

/** `invoices`: spec 2.1, one row per invoice or credit note. `overdue` is computed, never stored. */
export interface InvoiceTable extends DocumentColumns {
  invoiceNumber: number
  status: "created" | "approved" | "sent" | "paid" | "written-off" | "failed"
  issuedInvoiceNumber: string | null
  issuedInvoiceDate: string | null
  dueDate: string | null
  issuedTotalGrossMinorUnits: number | null
  paymentReference: string | null
  paymentReferenceType: "ocr" | "kid" | "reference" | null
  documentUrl: string | null
  balanceMinorUnits: number | null
  approvedAt: Date | null
  sentAt: Date | null
  paidAt: Date | null
  writtenOffAt: Date | null
  failedAt: Date | null
  failureReason: string | null
  /** When an operator deleted it; a deleted invoice is in no list and answers 404 (decisions 5). */
  deletedAt: Date | null
}

/** `document_lines`: the lines of a proposal or an invoice (exactly one of the two ids is set). */
export interface DocumentLineTable {
  readonly id: string
  readonly proposalId: string | null
  readonly invoiceId: string | null
  readonly chargeId: string | null
  position: number
  description: string
  netMinorUnits: number
  vatRateBasisPoints: number
  vatMinorUnits: number
  grossMinorUnits: number
  /** On a credit note's line, the invoice line it credits; null on a manual credit line and on other documents. */
  readonly creditedLineId: string | null
}

/**
 * `payments`: a payment the caller's ERP reported on an invoice or credit note (decisions 4, 5). `paymentId` is the
 * caller's id, unique per invoice (`payments_invoice_payment_key`), so a repeated report can't record twice.
 * `amountMinorUnits` carries the document's sign (negative: a refund on a credit note). Append-only: a reversal
 * is a row of `payment_reversals`.
 */
export interface PaymentTable {
  readonly id: string
  readonly organizationId: string
  readonly invoiceId: string
  readonly paymentId: string
  readonly amountMinorUnits: number
  /** `YYYY-MM-DD`. */
  readonly paidOn: string
  readonly currency: string
  readonly recordedAt: Date
}

/** `payment_reversals`: at most one per payment (its primary key is the payment row's id). */
export interface PaymentReversalTable {
  readonly paymentRowId: string
  readonly organizationId: string
  readonly invoiceId: string
  /** `YYYY-MM-DD`. */
  readonly reversedOn: string
  readonly reason: string | null
  readonly recordedAt: Date
}

/** `write_offs`: a write-off the caller reported; `writeOffId` unique per invoice (`write_offs_invoice_write_off_key`). */
export interface WriteOffTable {
  readonly id: string
  readonly organizationId: string
  readonly invoiceId: string
  readonly writeOffId: string
  readonly amountMinorUnits: number
  /** `YYYY-MM-DD`. */
  readonly writtenOffOn: string
  readonly reason: string | null
  readonly recordedAt: Date
}

/**
 * `invoice_withdrawals`: a deleted invoice that had been in the send queue, until the caller reports it discarded
 * (decisions 5). One per invoice; the queue reads `pending` rows oldest deletion first.
 */
export interface InvoiceWithdrawalTable {
  readonly invoiceId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly invoiceNumber: number
  readonly documentKind: "invoice" | "credit-note"
  readonly creditedInvoiceId: string | null
  readonly currency: string
  readonly totalGrossMinorUnits: number
  readonly externalReference: string | null
  readonly invoiceStatus: "created" | "approved" | "sent" | "paid" | "written-off" | "failed"
  status: "pending" | "discarded"
  readonly deletedAt: Date
  discardedAt: Date | null
  updatedAt: Date
}

/**
 * `credit_acts`: an operator's credit of an invoice, idempotent by `creditActId` within the organization; `request`
 * is the act's content (to tell a replay from a mismatch), `creditNoteId` the credit note it made.
 */
export interface CreditActTable {
  readonly organizationId: string
  readonly creditActId: string
  readonly invoiceId: string
  readonly creditNoteId: string
  readonly request: Record<string, unknown>
  readonly createdAt: Date
}
