import { describe, expect, it } from "@effect/vitest"
import { INVOICE_STATUSES } from "../src/Invoice.js"
import * as InvoiceLifecycle from "../src/InvoiceLifecycle.js"
import { anInvoice, EARLIER, getLeft, getRight, NOW } from "./fixtures.js"

const approved = anInvoice({ status: "approved", approvedAt: EARLIER })
const approvedCreditNote = (() => {
  const { paymentTermsDays: _terms, requestedDueDate: _due, ...invoice } = anInvoice({
    status: "approved",
    approvedAt: EARLIER,
    documentKind: "credit-note",
    creditedInvoiceId: "0b6f3b1e-41a4-4c3c-9c53-7d1d6f1c0a99",
    totalNetMinorUnits: -400_000,
    totalVatMinorUnits: -100_000,
    totalGrossMinorUnits: -500_000
  })
  return invoice
})()

const command: InvoiceLifecycle.ReportSentCommand = {
  issuedInvoiceNumber: "F-2025-0042",
  issuedInvoiceDate: "2025-03-14",
  dueDate: "2025-04-13",
  issuedTotalGrossMinorUnits: 1_250_000,
  externalReference: "ERP-77",
  paymentReference: { type: "ocr", value: "79927398713" },
  documentUrl: "https://erp.example/invoices/F-2025-0042.pdf",
  externalReferenceTaken: false
}

describe("InvoiceLifecycle.reportSent (decisions.md 5: approved → sent)", () => {
  it("sends an approved invoice with every reported field, a balance of the issued total and sentAt now", () => {
    const { events, invoice } = getRight(InvoiceLifecycle.reportSent(approved, command, NOW))
    expect(invoice).toStrictEqual({
      ...approved,
      status: "sent",
      externalReference: "ERP-77",
      issuedInvoiceNumber: "F-2025-0042",
      issuedInvoiceDate: "2025-03-14",
      dueDate: "2025-04-13",
      issuedTotalGrossMinorUnits: 1_250_000,
      paymentReference: "79927398713",
      paymentReferenceType: "ocr",
      documentUrl: "https://erp.example/invoices/F-2025-0042.pdf",
      balanceMinorUnits: 1_250_000,
      sentAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice.sent",
        invoiceId: approved.id,
        organizationId: approved.organizationId,
        operationalContextId: approved.operationalContextId,
        at: NOW
      }
    ])
  })

  it("measures the balance against the issued total, not the service's total", () => {
    const { invoice } = getRight(InvoiceLifecycle.reportSent(approved, { ...command, issuedTotalGrossMinorUnits: 1_250_001 }, NOW))
    expect(invoice.balanceMinorUnits).toBe(1_250_001)
    expect(invoice.totalGrossMinorUnits).toBe(1_250_000)
  })

  it("leaves out what was not reported, and keeps the reference the pass attached", () => {
    const {
      documentUrl: _url,
      paymentReference: _reference,
      externalReference: _external,
      ...bare
    } = command
    const { invoice } = getRight(
      InvoiceLifecycle.reportSent({ ...approved, externalReference: "FROM-PASS" }, bare, NOW)
    )
    expect(invoice.externalReference).toBe("FROM-PASS")
    expect(invoice).not.toHaveProperty("paymentReference")
    expect(invoice).not.toHaveProperty("paymentReferenceType")
    expect(invoice).not.toHaveProperty("documentUrl")
  })

  it("sends a credit note without a due date, with a negative balance", () => {
    const { dueDate: _dueDate, ...withoutDue } = command
    const { invoice } = getRight(
      InvoiceLifecycle.reportSent(approvedCreditNote, { ...withoutDue, issuedTotalGrossMinorUnits: -500_000 }, NOW)
    )
    expect(invoice.status).toBe("sent")
    expect(invoice).not.toHaveProperty("dueDate")
    expect(invoice.balanceMinorUnits).toBe(-500_000)
  })

  describe("VALIDATION_FAILED for fields the invoice decides (400, with issues)", () => {
    const cases = [
      ["no dueDate on an invoice", approved, { dueDate: undefined }, "/dueDate"],
      ["a dueDate before the issued date", approved, { dueDate: "2025-03-13" }, "/dueDate"],
      ["a zero issued total", approved, { issuedTotalGrossMinorUnits: 0 }, "/issuedTotalGrossMinorUnits"],
      ["a negative issued total on an invoice", approved, { issuedTotalGrossMinorUnits: -1 }, "/issuedTotalGrossMinorUnits"],
      ["a positive issued total on a credit note", approvedCreditNote, { issuedTotalGrossMinorUnits: 1 }, "/issuedTotalGrossMinorUnits"],
      [
        "an externalReference other than the one attached",
        { ...approved, externalReference: "FROM-PASS" },
        { externalReference: "OTHER" },
        "/externalReference"
      ]
    ] as const
    for (const [name, invoice, change, path] of cases) {
      it(`refuses ${name} at ${path}`, () => {
        const changed: Record<string, unknown> = { ...command, ...change }
        if ("dueDate" in change && change.dueDate === undefined) delete changed.dueDate
        const refusal = getLeft(InvoiceLifecycle.reportSent(invoice, changed as unknown as InvoiceLifecycle.ReportSentCommand, NOW))
        expect(refusal.code).toBe("VALIDATION_FAILED")
        if (refusal._tag !== "FieldsInvalid") return expect.unreachable()
        expect(refusal.issues.map((issue) => issue.path)).toStrictEqual([path])
      })
    }
  })

  it("accepts the same externalReference the invoice already carries", () => {
    const { invoice } = getRight(InvoiceLifecycle.reportSent({ ...approved, externalReference: "ERP-77" }, command, NOW))
    expect(invoice.externalReference).toBe("ERP-77")
  })

  it("refuses a second report with BILLING_INVOICE_STATUS_INVALID (400)", () => {
    const { invoice } = getRight(InvoiceLifecycle.reportSent(approved, command, NOW))
    const refusal = getLeft(InvoiceLifecycle.reportSent(invoice, command, NOW))
    expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    expect(refusal.status).toBe(400)
  })

  for (const status of INVOICE_STATUSES.filter((status) => status !== "approved")) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(InvoiceLifecycle.reportSent(anInvoice({ status }), command, NOW))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      if (refusal._tag !== "InvoiceStatusInvalid") return expect.unreachable()
      expect(refusal.action).toBe("report-sent")
    })
  }

  it("refuses an externalReference another invoice carries with BILLING_EXTERNAL_REFERENCE_ALREADY_USED (409)", () => {
    const refusal = getLeft(InvoiceLifecycle.reportSent(approved, { ...command, externalReferenceTaken: true }, NOW))
    expect(refusal.code).toBe("BILLING_EXTERNAL_REFERENCE_ALREADY_USED")
    expect(refusal.status).toBe(409)
  })
})
