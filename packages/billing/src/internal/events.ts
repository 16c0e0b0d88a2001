import type { InvoiceEventFields, ProposalEventFields } from "../BillingEvent.js"
import type { InvoiceRecord } from "../Invoice.js"
import type { InvoiceProposalRecord } from "../InvoiceProposal.js"

/** @internal */
export const invoiceEvent = <Tag extends string>(
  _tag: Tag,
  invoice: InvoiceRecord,
  at: Date
): InvoiceEventFields & { readonly _tag: Tag } => ({
  _tag,
  invoiceId: invoice.id,
  organizationId: invoice.organizationId,
  operationalContextId: invoice.operationalContextId,
  at
})

/** @internal */
export const proposalEvent = <Tag extends string>(
  _tag: Tag,
  proposal: InvoiceProposalRecord,
  at: Date
): ProposalEventFields & { readonly _tag: Tag } => ({
  _tag,
  proposalId: proposal.id,
  organizationId: proposal.organizationId,
  operationalContextId: proposal.operationalContextId,
  at
})

/** @internal */
export const runEvent = <Tag extends string>(
  _tag: Tag,
  run: { readonly id: string; readonly organizationId: string; readonly operationalContextId: string },
  at: Date
): { readonly _tag: Tag; readonly invoiceRunId: string; readonly organizationId: string; readonly operationalContextId: string; readonly at: Date } => ({
  _tag,
  invoiceRunId: run.id,
  organizationId: run.organizationId,
  operationalContextId: run.operationalContextId,
  at
})
