/** `billing_integrations`: the organization's configured ERP integration and its declared gates (decisions 5, 8). */
export interface BillingIntegrationTable {
  readonly organizationId: string
  provider: string
  status: "connecting" | "ready" | "failed"
  /** Gates the integration declared, e.g. `verification`. */
  declaredGates: Array<string>
  externalAccount: string | null
  readonly createdAt: Date
  updatedAt: Date
}

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
}
