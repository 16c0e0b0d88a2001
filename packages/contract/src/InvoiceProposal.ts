/** Spec 2.2: the InvoiceProposal record, field for field. */
import { Schema } from "effect"
import { OperationalContextId, OrganizationId, ProposalId } from "./Ids.js"
import {
  BillingStream,
  Currency,
  DocumentKind,
  IsoDate,
  MinorUnits,
  NonNegativeCount,
  ProposalStatus,
  Timestamp
} from "./Values.js"

export class InvoiceProposal extends Schema.Class<InvoiceProposal>("InvoiceProposal")(
  {
    id: ProposalId,
    invoiceRunId: Schema.UUID,
    invoiceNumber: Schema.optional(NonNegativeCount),
    organizationId: OrganizationId,
    operationalContextId: OperationalContextId,
    contractId: Schema.UUID,
    recipientAgentId: Schema.UUID,
    recipientAgentName: Schema.String,
    billingAccountId: Schema.UUID,
    documentKind: DocumentKind,
    creditedInvoiceId: Schema.optional(Schema.UUID),
    billingStream: BillingStream,
    requestedInvoiceDate: IsoDate,
    requestedDueDate: Schema.optional(IsoDate),
    paymentTermsDays: Schema.optional(NonNegativeCount),
    status: ProposalStatus,
    currency: Currency,
    totalNetMinorUnits: MinorUnits,
    totalVatMinorUnits: MinorUnits,
    totalGrossMinorUnits: MinorUnits,
    externalReference: Schema.optional(Schema.String),
    rejectionReason: Schema.optional(Schema.String),
    passedAt: Schema.optional(Timestamp),
    rejectedAt: Schema.optional(Timestamp),
    cancelledAt: Schema.optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp
  },
  { description: "Invoice material awaiting verification (spec 2.2); if passed, it becomes an invoice." }
) {}
