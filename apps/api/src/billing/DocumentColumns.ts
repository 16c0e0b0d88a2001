/**
 * The columns invoices and invoice proposals share (the schema's document columns), listed once for the select
 * lists of both repositories' plain statements (`Sql.columns`).
 */
import type { InvoiceProposalTable, InvoiceTable } from "@propline/db/Database"
import type { Selectable } from "kysely"

export const documentColumns = {
  id: true,
  organizationId: true,
  invoiceRunId: true,
  operationalContextId: true,
  contractId: true,
  recipientAgentId: true,
  recipientAgentName: true,
  billingAccountId: true,
  documentKind: true,
  creditedInvoiceId: true,
  billingStream: true,
  requestedInvoiceDate: true,
  requestedDueDate: true,
  paymentTermsDays: true,
  currency: true,
  totalNetMinorUnits: true,
  totalVatMinorUnits: true,
  totalGrossMinorUnits: true,
  invoiceNumber: true,
  status: true,
  externalReference: true,
  createdAt: true,
  updatedAt: true
} as const satisfies { readonly [K in keyof Selectable<InvoiceTable> & keyof Selectable<InvoiceProposalTable>]: true }
