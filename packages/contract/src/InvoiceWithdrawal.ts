/**
 * A deleted invoice on the withdrawal queue (decisions 5; spec 4.2 `GET /v1/billing/withdrawal-queue`): the caller
 * read it from the send queue and may still hold a copy, which it discards and then reports discarded. The queue
 * item's shape is "not shown" in the spec; this is the service's.
 */
import { Schema } from "effect"
import { InvoiceId, OperationalContextId, OrganizationId } from "./Ids.js"
import { Currency, DocumentKind, InvoiceStatus, MinorUnits, NonNegativeCount, Timestamp } from "./Values.js"

export class InvoiceWithdrawal extends Schema.Class<InvoiceWithdrawal>("InvoiceWithdrawal")(
  {
    invoiceId: InvoiceId.annotations({ description: "The deleted invoice's id, as the send queue listed it." }),
    organizationId: OrganizationId,
    operationalContextId: OperationalContextId,
    invoiceNumber: NonNegativeCount.annotations({ description: "The service's own number of the deleted invoice." }),
    documentKind: DocumentKind,
    creditedInvoiceId: Schema.optional(Schema.UUID),
    currency: Currency,
    totalGrossMinorUnits: MinorUnits,
    externalReference: Schema.optional(Schema.String).annotations({
      description: "The caller's own id for the invoice, when one was attached."
    }),
    invoiceStatus: InvoiceStatus.annotations({ description: "The invoice's status when it was deleted." }),
    status: Schema.Literal("pending", "discarded").annotations({
      description: "`pending` while on the withdrawal queue; `discarded` once reported discarded."
    }),
    deletedAt: Timestamp,
    discardedAt: Schema.optional(Timestamp),
    updatedAt: Timestamp
  },
  { description: "A deleted invoice the caller may still hold (decisions 5). Money in minor units of `currency`." }
) {}
