import { describe, expect, it } from "@effect/vitest"
import {
  BILLING_STREAMS,
  CURRENCIES,
  DOCUMENT_KINDS,
  INVOICE_STATUSES,
  isOverdue,
  PAYMENT_REFERENCE_TYPES,
  withOverdue
} from "../src/Invoice.js"
import { anInvoice } from "./fixtures.js"

describe("Invoice values (spec 2.1)", () => {
  it("has the six statuses of section 3", () => {
    expect(INVOICE_STATUSES).toStrictEqual(["created", "approved", "sent", "paid", "written-off", "failed"])
  })

  it("has the document kinds, billing streams, currencies and payment reference types of section 2.1", () => {
    expect(DOCUMENT_KINDS).toStrictEqual(["invoice", "credit-note"])
    expect(BILLING_STREAMS).toStrictEqual(["contractual", "running"])
    expect(CURRENCIES).toStrictEqual(["SEK", "NOK", "DKK", "EUR", "USD", "GBP"])
    expect(PAYMENT_REFERENCE_TYPES).toStrictEqual(["ocr", "kid", "reference"])
  })
})

describe("isOverdue (spec 2.1: sent and its due date has passed)", () => {
  const sent = anInvoice({ status: "sent", dueDate: "2025-03-31", issuedInvoiceDate: "2025-03-01" })

  it("is true for a sent invoice the day after its due date", () => {
    expect(isOverdue(sent, "2025-04-01")).toBe(true)
  })

  it("is true for a sent invoice long after its due date, across a year", () => {
    expect(isOverdue(sent, "2026-01-01")).toBe(true)
  })

  it("is false for a sent invoice on its due date", () => {
    expect(isOverdue(sent, "2025-03-31")).toBe(false)
  })

  it("is false for a sent invoice before its due date", () => {
    expect(isOverdue(sent, "2025-03-30")).toBe(false)
  })

  it("measures the issued due date, not the requested one", () => {
    const invoice = anInvoice({ status: "sent", requestedDueDate: "2025-03-10", dueDate: "2025-03-31" })
    expect(isOverdue(invoice, "2025-03-20")).toBe(false)
  })

  it("is false for a sent credit note issued without a due date", () => {
    const { requestedDueDate: _requestedDueDate, paymentTermsDays: _paymentTermsDays, ...rest } = anInvoice()
    const creditNote = { ...rest, documentKind: "credit-note" as const, status: "sent" as const }
    expect(isOverdue(creditNote, "2099-12-31")).toBe(false)
  })

  it("takes a stored row's null due date as no due date", () => {
    expect(isOverdue({ status: "sent", dueDate: null }, "2099-12-31")).toBe(false)
  })

  for (const status of INVOICE_STATUSES.filter((status) => status !== "sent")) {
    it(`is false for an invoice that is ${status}, whatever its due date`, () => {
      expect(isOverdue(anInvoice({ status, dueDate: "2025-03-31" }), "2025-04-01")).toBe(false)
    })
  }
})

describe("withOverdue (spec 2.1: overdue is computed, never stored)", () => {
  it("adds overdue true to an overdue invoice and keeps every other field", () => {
    const invoice = anInvoice({ status: "sent", dueDate: "2025-03-31" })
    expect(withOverdue(invoice, "2025-04-01")).toStrictEqual({ ...invoice, overdue: true })
  })

  it("adds overdue false to an invoice that is not overdue", () => {
    const invoice = anInvoice({ status: "sent", dueDate: "2025-03-31" })
    expect(withOverdue(invoice, "2025-03-31")).toStrictEqual({ ...invoice, overdue: false })
  })

  it("answers for the day asked, so a stored invoice never holds a stale flag", () => {
    const invoice = anInvoice({ status: "sent", dueDate: "2025-03-31" })
    expect(withOverdue(invoice, "2025-03-31").overdue).toBe(false)
    expect(withOverdue(invoice, "2025-04-01").overdue).toBe(true)
    expect(invoice).not.toHaveProperty("overdue")
  })
})
