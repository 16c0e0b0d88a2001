import { describe, expect, it } from "@effect/vitest"
import { httpStatusOf } from "../src/BillingRefusal.js"
import { INVOICE_STATUSES } from "../src/Invoice.js"
import * as InvoiceLifecycle from "../src/InvoiceLifecycle.js"
import { anInvoice, getLeft, getRight, NOW } from "./fixtures.js"

describe("InvoiceLifecycle.approve (decisions.md 5: created → approved)", () => {
  it("approves a created invoice: status approved, approvedAt and updatedAt are now, nothing else changes", () => {
    const invoice = anInvoice({ status: "created" })
    const { events, invoice: approved } = getRight(InvoiceLifecycle.approve(invoice, NOW))
    expect(approved).toStrictEqual({ ...invoice, status: "approved", approvedAt: NOW, updatedAt: NOW })
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice.approved",
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        at: NOW
      }
    ])
  })

  it("leaves the given invoice unchanged", () => {
    const invoice = anInvoice({ status: "created" })
    const before = structuredClone(invoice)
    InvoiceLifecycle.approve(invoice, NOW)
    expect(invoice).toStrictEqual(before)
  })

  for (const status of INVOICE_STATUSES.filter((status) => status !== "created")) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(InvoiceLifecycle.approve(anInvoice({ status }), NOW))
      expect(refusal._tag).toBe("InvoiceStatusInvalid")
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      expect(refusal.invoiceStatus).toBe(status)
      expect(refusal.action).toBe("approve")
      expect(httpStatusOf(refusal)).toBe(400)
    })
  }
})

describe("InvoiceLifecycle.reportFailed (spec 3 and 4.1: approved → failed)", () => {
  const command = { reason: "Customer unknown in the ERP: organisation number 556677-8899 not found" }

  it("fails an approved invoice: status failed, failedAt, failureReason and updatedAt set, nothing else changes", () => {
    const invoice = anInvoice({ status: "approved", approvedAt: new Date("2025-03-02T08:00:00.000Z") })
    const { invoice: failed } = getRight(InvoiceLifecycle.reportFailed(invoice, command, NOW))
    expect(failed).toStrictEqual({
      ...invoice,
      status: "failed",
      failedAt: NOW,
      failureReason: command.reason,
      updatedAt: NOW
    })
  })

  it("emits billing.invoice.failed for the invoice at now", () => {
    const invoice = anInvoice({ status: "approved" })
    const { events } = getRight(InvoiceLifecycle.reportFailed(invoice, command, NOW))
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice.failed",
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        at: NOW
      }
    ])
  })

  it("keeps the reason exactly as reported", () => {
    const reason = "  Företaget saknas 😀 \n"
    const { invoice } = getRight(InvoiceLifecycle.reportFailed(anInvoice({ status: "approved" }), { reason }, NOW))
    expect(invoice.failureReason).toBe(reason)
  })

  it("leaves the given invoice unchanged", () => {
    const invoice = anInvoice({ status: "approved" })
    const before = structuredClone(invoice)
    InvoiceLifecycle.reportFailed(invoice, command, NOW)
    expect(invoice).toStrictEqual(before)
  })

  it("refuses a second report on the invoice it failed with BILLING_INVOICE_STATUS_INVALID (400)", () => {
    const { invoice: failed } = getRight(InvoiceLifecycle.reportFailed(anInvoice({ status: "approved" }), command, NOW))
    const refusal = getLeft(InvoiceLifecycle.reportFailed(failed, command, NOW))
    expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    expect(refusal.invoiceStatus).toBe("failed")
    expect(httpStatusOf(refusal)).toBe(400)
  })

  for (const status of INVOICE_STATUSES.filter((status) => status !== "approved")) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(InvoiceLifecycle.reportFailed(anInvoice({ status }), command, NOW))
      expect(refusal._tag).toBe("InvoiceStatusInvalid")
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      expect(refusal.invoiceStatus).toBe(status)
      expect(refusal.action).toBe("report-failed")
      expect(httpStatusOf(refusal)).toBe(400)
    })
  }
})
