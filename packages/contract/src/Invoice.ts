/** Spec 2.1: the Invoice record (an invoice or a credit note), field for field. */
import { Schema } from "effect"
import { InvoiceId, OperationalContextId, OrganizationId } from "./Ids.js"
import {
  BillingStream,
  Currency,
  DocumentKind,
  InvoiceStatus,
  IsoDate,
  MinorUnits,
  NonNegativeCount,
  PaymentReferenceType,
  Timestamp
} from "./Values.js"

export class Invoice extends Schema.Class<Invoice>("Invoice")(
  {
    id: InvoiceId,
    invoiceRunId: Schema.UUID,
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
    invoiceNumber: NonNegativeCount,
    status: InvoiceStatus,
    currency: Currency,
    totalNetMinorUnits: MinorUnits,
    totalVatMinorUnits: MinorUnits,
    totalGrossMinorUnits: MinorUnits,
    externalReference: Schema.optional(Schema.String),
    issuedInvoiceNumber: Schema.optional(Schema.String),
    issuedInvoiceDate: Schema.optional(IsoDate),
    dueDate: Schema.optional(IsoDate),
    issuedTotalGrossMinorUnits: Schema.optional(MinorUnits),
    paymentReference: Schema.optional(Schema.String),
    paymentReferenceType: Schema.optional(PaymentReferenceType),
    documentUrl: Schema.optional(Schema.String),
    balanceMinorUnits: Schema.optional(MinorUnits),
    overdue: Schema.Boolean,
    approvedAt: Schema.optional(Timestamp),
    sentAt: Schema.optional(Timestamp),
    paidAt: Schema.optional(Timestamp),
    writtenOffAt: Schema.optional(Timestamp),
    failedAt: Schema.optional(Timestamp),
    failureReason: Schema.optional(Schema.String),
    createdAt: Timestamp,
    updatedAt: Timestamp
  },
  { description: "An invoice or a credit note (spec 2.1). Money in minor units of `currency`." }
) {}
