import { Either } from "effect"
import type { InvoiceRecord } from "../src/Invoice.js"
import type { InvoiceProposalRecord } from "../src/InvoiceProposal.js"

/** The frozen "now" every transition in the tests is given. */
export const NOW = new Date("2025-03-14T09:26:53.000Z")
/** An earlier instant, for fields set before the transition under test. */
export const EARLIER = new Date("2025-03-01T07:00:00.000Z")

export const anInvoice = (fields: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
  id: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a01",
  invoiceRunId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a02",
  organizationId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a03",
  operationalContextId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a04",
  contractId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a05",
  recipientAgentId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a06",
  recipientAgentName: "Ångström Fastigheter AB",
  billingAccountId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a07",
  documentKind: "invoice",
  billingStream: "contractual",
  requestedInvoiceDate: "2025-03-01",
  requestedDueDate: "2025-03-31",
  paymentTermsDays: 30,
  invoiceNumber: 10042,
  status: "created",
  currency: "SEK",
  totalNetMinorUnits: 1_000_000,
  totalVatMinorUnits: 250_000,
  totalGrossMinorUnits: 1_250_000,
  createdAt: EARLIER,
  updatedAt: EARLIER,
  ...fields
})

export const aProposal = (fields: Partial<InvoiceProposalRecord> = {}): InvoiceProposalRecord => ({
  id: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b01",
  invoiceRunId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b02",
  invoiceNumber: 20077,
  organizationId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b03",
  operationalContextId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b04",
  contractId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b05",
  recipientAgentId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b06",
  recipientAgentName: "Fjord Kontor AS",
  billingAccountId: "7d2e9a40-5f1b-4a8e-8b0c-2f4e6a8c0b07",
  documentKind: "invoice",
  billingStream: "running",
  requestedInvoiceDate: "2025-03-15",
  requestedDueDate: "2025-04-14",
  paymentTermsDays: 30,
  status: "proposed",
  currency: "NOK",
  totalNetMinorUnits: 480_000,
  totalVatMinorUnits: 120_000,
  totalGrossMinorUnits: 600_000,
  createdAt: EARLIER,
  updatedAt: EARLIER,
  ...fields
})

/** The Right of `either`; fails the test (with the Left) otherwise. */
export const getRight = <R, L>(either: Either.Either<R, L>): R => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got Left: ${String(either.left)}`)
  return either.right
}

/** The Left of `either`; fails the test (with the Right) otherwise. */
export const getLeft = <R, L>(either: Either.Either<R, L>): L => {
  if (Either.isRight(either)) throw new Error(`expected Left, got Right: ${JSON.stringify(either.right)}`)
  return either.left
}

/** When the invoice under test was reported sent. */
export const SENT_AT = new Date("2025-03-05T10:00:00.000Z")

/** An invoice reported sent with `issuedTotalGrossMinorUnits` (default 1 250 000 öre), nothing paid yet. */
export const aSentInvoice = (fields: Partial<InvoiceRecord> = {}): InvoiceRecord => {
  const issued = fields.issuedTotalGrossMinorUnits ?? 1_250_000
  return anInvoice({
    status: "sent",
    approvedAt: EARLIER,
    externalReference: "ERP-2025-000123",
    issuedInvoiceNumber: "F-2025-0042",
    issuedInvoiceDate: "2025-03-05",
    dueDate: "2025-04-04",
    issuedTotalGrossMinorUnits: issued,
    balanceMinorUnits: issued,
    sentAt: SENT_AT,
    updatedAt: SENT_AT,
    ...fields
  })
}

/** A credit note reported sent: negative totals, no due date, crediting {@link anInvoice}. */
export const aSentCreditNote = (fields: Partial<InvoiceRecord> = {}): InvoiceRecord => {
  const { paymentTermsDays: _terms, requestedDueDate: _due, dueDate: _dueDate, ...invoice } = aSentInvoice({
    id: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a11",
    documentKind: "credit-note",
    creditedInvoiceId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a01",
    invoiceNumber: 10043,
    totalNetMinorUnits: -400_000,
    totalVatMinorUnits: -100_000,
    totalGrossMinorUnits: -500_000,
    issuedTotalGrossMinorUnits: fields.issuedTotalGrossMinorUnits ?? -500_000
  })
  return { ...invoice, ...fields }
}
