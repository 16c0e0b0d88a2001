import type { InvoiceRecord } from "../Invoice.js"
import type { InvoiceProposalRecord } from "../InvoiceProposal.js"

/**
 * The invoice a passed proposal becomes: approved at `now`, with the proposal's material and number and the
 * caller's reference. Optional fields are copied only when present (exactOptionalPropertyTypes).
 *
 * @internal
 */
export const invoiceFromProposal = (
  proposal: InvoiceProposalRecord,
  fields: {
    readonly invoiceId: string
    readonly invoiceNumber: number
    readonly externalReference: string
    readonly now: Date
  }
): InvoiceRecord => ({
  id: fields.invoiceId,
  invoiceRunId: proposal.invoiceRunId,
  organizationId: proposal.organizationId,
  operationalContextId: proposal.operationalContextId,
  contractId: proposal.contractId,
  recipientAgentId: proposal.recipientAgentId,
  recipientAgentName: proposal.recipientAgentName,
  billingAccountId: proposal.billingAccountId,
  documentKind: proposal.documentKind,
  ...(proposal.creditedInvoiceId !== undefined ? { creditedInvoiceId: proposal.creditedInvoiceId } : {}),
  billingStream: proposal.billingStream,
  requestedInvoiceDate: proposal.requestedInvoiceDate,
  ...(proposal.requestedDueDate !== undefined ? { requestedDueDate: proposal.requestedDueDate } : {}),
  ...(proposal.paymentTermsDays !== undefined ? { paymentTermsDays: proposal.paymentTermsDays } : {}),
  invoiceNumber: fields.invoiceNumber,
  status: "approved",
  currency: proposal.currency,
  totalNetMinorUnits: proposal.totalNetMinorUnits,
  totalVatMinorUnits: proposal.totalVatMinorUnits,
  totalGrossMinorUnits: proposal.totalGrossMinorUnits,
  externalReference: fields.externalReference,
  approvedAt: fields.now,
  createdAt: fields.now,
  updatedAt: fields.now
})
