import { describe, expect, it } from "@effect/vitest"
import { INVOICE_STATUSES } from "../src/Invoice.js"
import { deleteInvoice, reportDiscarded } from "../src/InvoiceWithdrawal.js"
import { anInvoice, EARLIER, getLeft, getRight, NOW } from "./fixtures.js"

const LATER = new Date("2025-03-20T12:00:00.000Z")

describe("InvoiceWithdrawal.deleteInvoice (decisions.md 5: an operator deletes an unissued invoice)", () => {
  it("deletes a created invoice without a withdrawal: it was never in the send queue", () => {
    const invoice = anInvoice({ status: "created" })
    const { events, withdrawal, invoice: deleted } = getRight(deleteInvoice(invoice, NOW))
    expect(withdrawal).toBeUndefined()
    expect(deleted).toStrictEqual({ ...invoice, updatedAt: NOW })
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice.deleted",
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        at: NOW,
        withdrawn: false
      }
    ])
  })

  for (const status of ["approved", "failed"] as const) {
    it(`puts a deleted ${status} invoice on the withdrawal queue: it was in the send queue`, () => {
      const invoice = anInvoice({ status, approvedAt: EARLIER, externalReference: "ERP-9" })
      const { events, withdrawal } = getRight(deleteInvoice(invoice, NOW))
      expect(withdrawal).toStrictEqual({
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        invoiceNumber: invoice.invoiceNumber,
        documentKind: "invoice",
        currency: "SEK",
        totalGrossMinorUnits: invoice.totalGrossMinorUnits,
        externalReference: "ERP-9",
        invoiceStatus: status,
        status: "pending",
        deletedAt: NOW,
        updatedAt: NOW
      })
      expect(events[0]).toMatchObject({ _tag: "billing.invoice.deleted", withdrawn: true })
    })
  }

  for (const status of INVOICE_STATUSES.filter((status) => !["created", "approved", "failed"].includes(status))) {
    it(`refuses a ${status} invoice (credit it instead) with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(deleteInvoice(anInvoice({ status }), NOW))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      expect(refusal.action).toBe("delete")
    })
  }
})

describe("InvoiceWithdrawal.reportDiscarded (report-discarded: pending → discarded)", () => {
  const pending = getRight(deleteInvoice(anInvoice({ status: "approved", approvedAt: EARLIER }), NOW)).withdrawal
  if (pending === undefined) throw new Error("expected a withdrawal")

  it("discards a pending withdrawal: discardedAt and updatedAt now, billing.invoice_withdrawal.discarded", () => {
    const { events, withdrawal } = getRight(reportDiscarded(pending, LATER))
    expect(withdrawal).toStrictEqual({ ...pending, status: "discarded", discardedAt: LATER, updatedAt: LATER })
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice_withdrawal.discarded",
        invoiceId: pending.invoiceId,
        organizationId: pending.organizationId,
        operationalContextId: pending.operationalContextId,
        at: LATER
      }
    ])
  })

  it("refuses a repeated report with BILLING_INVOICE_STATUS_INVALID (400)", () => {
    const { withdrawal } = getRight(reportDiscarded(pending, LATER))
    const refusal = getLeft(reportDiscarded(withdrawal, LATER))
    expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    expect(refusal.status).toBe(400)
    expect(refusal.withdrawalStatus).toBe("discarded")
  })
})
