import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { InvoiceRecord } from "../src/Invoice.js"
import { INVOICE_STATUSES } from "../src/Invoice.js"
import {
  balanceOf,
  EMPTY_LEDGER,
  isSettled,
  type Ledger,
  type PaymentRecord,
  reportPayment,
  reportPaymentReversed,
  reportWriteOff,
  settledStatus,
  type WriteOffRecord
} from "../src/Settlement.js"
import { aSentCreditNote, aSentInvoice, EARLIER, getLeft, getRight, NOW } from "./fixtures.js"

const LATER = new Date("2025-03-20T12:00:00.000Z")

const aPayment = (fields: Partial<PaymentRecord> = {}): PaymentRecord => ({
  paymentId: "BANK-1",
  amountMinorUnits: 250_000,
  paidOn: "2025-03-10",
  currency: "SEK",
  recordedAt: EARLIER,
  ...fields
})

const aWriteOff = (fields: Partial<WriteOffRecord> = {}): WriteOffRecord => ({
  writeOffId: "WO-1",
  amountMinorUnits: 100_000,
  writtenOffOn: "2025-03-12",
  recordedAt: EARLIER,
  ...fields
})

/** A sent invoice with `ledger` already on it: balance and status as settlement gives them. */
const withLedger = (invoice: InvoiceRecord, ledger: Ledger): { invoice: InvoiceRecord; ledger: Ledger } => {
  const balance = balanceOf(invoice.issuedTotalGrossMinorUnits ?? 0, ledger)
  const status = settledStatus(invoice.documentKind, balance, ledger)
  return {
    invoice: {
      ...invoice,
      balanceMinorUnits: Number(balance),
      status,
      ...(status === "paid" ? { paidAt: EARLIER } : {}),
      ...(status === "written-off" ? { writtenOffAt: EARLIER } : {})
    },
    ledger
  }
}

const payment = { paymentId: "BANK-2", amountMinorUnits: 250_000, paidOn: "2025-03-14" }

describe("Settlement.balanceOf (decisions.md 5: issued total − payments + reversed payments − write-offs)", () => {
  it("is the issued total on an empty ledger", () => {
    expect(balanceOf(1_250_000, EMPTY_LEDGER)).toBe(1_250_000n)
  })

  it("subtracts payments and write-offs and adds reversed payments back", () => {
    const ledger: Ledger = {
      payments: [
        aPayment({ paymentId: "a", amountMinorUnits: 300_000 }),
        aPayment({ paymentId: "b", amountMinorUnits: 200_000, reversal: { reversedOn: "2025-03-11", recordedAt: NOW } })
      ],
      writeOffs: [aWriteOff({ amountMinorUnits: 50_000 })]
    }
    expect(balanceOf(1_250_000, ledger)).toBe(BigInt(1_250_000 - 300_000 - 200_000 + 200_000 - 50_000))
  })

  it("is exact beyond 2^53 (BigInt)", () => {
    const ledger: Ledger = {
      payments: [aPayment({ amountMinorUnits: Number.MAX_SAFE_INTEGER }), aPayment({ paymentId: "b", amountMinorUnits: 2 })],
      writeOffs: []
    }
    expect(balanceOf(0, ledger)).toBe(-BigInt(Number.MAX_SAFE_INTEGER) - 2n)
  })
})

describe("Settlement.settledStatus (decisions.md 5)", () => {
  it("an invoice is sent while its balance is above zero, settled at zero or below", () => {
    expect(isSettled("invoice", 1)).toBe(false)
    expect(isSettled("invoice", 0)).toBe(true)
    expect(isSettled("invoice", -1)).toBe(true)
  })

  it("a credit note is sent while its balance is below zero, settled at zero or above", () => {
    expect(isSettled("credit-note", -1)).toBe(false)
    expect(isSettled("credit-note", 0)).toBe(true)
    expect(isSettled("credit-note", 1)).toBe(true)
  })

  it("settled without a write-off is paid, with one written-off; unsettled is sent", () => {
    expect(settledStatus("invoice", 10, { payments: [], writeOffs: [aWriteOff()] })).toBe("sent")
    expect(settledStatus("invoice", 0, EMPTY_LEDGER)).toBe("paid")
    expect(settledStatus("invoice", -5, EMPTY_LEDGER)).toBe("paid")
    expect(settledStatus("invoice", 0, { payments: [], writeOffs: [aWriteOff()] })).toBe("written-off")
    expect(settledStatus("invoice", -5, { payments: [], writeOffs: [aWriteOff()] })).toBe("written-off")
  })
})

describe("Settlement.reportPayment (report-payment, decisions.md 4 and 5)", () => {
  it("records a part payment: balance drops, the invoice stays sent", () => {
    const invoice = aSentInvoice()
    const outcome = getRight(reportPayment({ invoice, ledger: EMPTY_LEDGER }, payment, NOW))
    expect(outcome.replayed).toBe(false)
    expect(outcome.invoice).toStrictEqual({ ...invoice, balanceMinorUnits: 1_000_000, updatedAt: NOW })
    expect(outcome.payment).toStrictEqual({ ...payment, currency: "SEK", recordedAt: NOW })
    expect(outcome.ledger.payments).toStrictEqual([outcome.payment])
    expect(outcome.events).toStrictEqual([
      {
        _tag: "billing.invoice.payment_recorded",
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        at: NOW,
        paymentId: "BANK-2"
      }
    ])
  })

  it("settles the invoice as paid when the balance reaches zero: paidAt now, billing.invoice.paid", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment({ amountMinorUnits: 1_000_000 })], writeOffs: [] })
    const outcome = getRight(reportPayment(state, payment, NOW))
    expect(outcome.invoice.status).toBe("paid")
    expect(outcome.invoice.balanceMinorUnits).toBe(0)
    expect(outcome.invoice.paidAt).toStrictEqual(NOW)
    expect(outcome.events.map((event) => event._tag)).toStrictEqual([
      "billing.invoice.payment_recorded",
      "billing.invoice.paid"
    ])
  })

  it("accepts an overpayment: the balance goes below zero and the invoice is paid", () => {
    const outcome = getRight(
      reportPayment({ invoice: aSentInvoice(), ledger: EMPTY_LEDGER }, { ...payment, amountMinorUnits: 1_300_000 }, NOW)
    )
    expect(outcome.invoice.balanceMinorUnits).toBe(-50_000)
    expect(outcome.invoice.status).toBe("paid")
  })

  it("accepts money on a paid invoice: it stays paid with its first paidAt", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment({ amountMinorUnits: 1_250_000 })], writeOffs: [] })
    const outcome = getRight(reportPayment(state, payment, NOW))
    expect(outcome.invoice.status).toBe("paid")
    expect(outcome.invoice.paidAt).toStrictEqual(EARLIER)
    expect(outcome.invoice.balanceMinorUnits).toBe(-250_000)
    expect(outcome.events.map((event) => event._tag)).toStrictEqual(["billing.invoice.payment_recorded"])
  })

  it("accepts money on a written-off invoice: it stays written-off", () => {
    const state = withLedger(aSentInvoice(), {
      payments: [],
      writeOffs: [aWriteOff({ amountMinorUnits: 1_250_000 })]
    })
    expect(state.invoice.status).toBe("written-off")
    const outcome = getRight(reportPayment(state, payment, NOW))
    expect(outcome.invoice.status).toBe("written-off")
    expect(outcome.invoice.balanceMinorUnits).toBe(-250_000)
  })

  it("settles as written-off when a payment clears an invoice that had a write-off", () => {
    const state = withLedger(aSentInvoice(), { payments: [], writeOffs: [aWriteOff({ amountMinorUnits: 1_000_000 })] })
    const outcome = getRight(reportPayment(state, payment, NOW))
    expect(outcome.invoice.status).toBe("written-off")
    expect(outcome.invoice.writtenOffAt).toStrictEqual(NOW)
    expect(outcome.events.map((event) => event._tag)).toContain("billing.invoice.written_off")
  })

  it("takes a refund (negative) on a credit note and settles it as paid at zero", () => {
    const creditNote = aSentCreditNote()
    const outcome = getRight(
      reportPayment({ invoice: creditNote, ledger: EMPTY_LEDGER }, { ...payment, amountMinorUnits: -500_000 }, NOW)
    )
    expect(outcome.invoice.balanceMinorUnits).toBe(0)
    expect(outcome.invoice.status).toBe("paid")
  })

  describe("the same payment again (idempotent by paymentId)", () => {
    const recorded = aPayment({ paymentId: payment.paymentId, amountMinorUnits: 250_000, paidOn: payment.paidOn })
    const state = withLedger(aSentInvoice(), { payments: [recorded], writeOffs: [] })

    it("answers the current record and changes nothing", () => {
      const outcome = getRight(reportPayment(state, payment, NOW))
      expect(outcome.replayed).toBe(true)
      expect(outcome.invoice).toBe(state.invoice)
      expect(outcome.ledger).toBe(state.ledger)
      expect(outcome.payment).toBe(recorded)
      expect(outcome.events).toStrictEqual([])
    })

    it("counts a currency equal to the invoice's as the same content as none", () => {
      expect(getRight(reportPayment(state, { ...payment, currency: "SEK" }, NOW)).replayed).toBe(true)
    })

    it("replays even when the invoice has settled since", () => {
      const settled = withLedger(aSentInvoice(), {
        payments: [recorded, aPayment({ paymentId: "rest", amountMinorUnits: 1_000_000 })],
        writeOffs: []
      })
      expect(settled.invoice.status).toBe("paid")
      expect(getRight(reportPayment(settled, payment, NOW)).replayed).toBe(true)
    })

    for (const [field, changed] of [
      ["amountMinorUnits", { amountMinorUnits: 250_001 }],
      ["paidOn", { paidOn: "2025-03-15" }]
    ] as const) {
      it(`refuses another ${field} with BILLING_PAYMENT_REPLAY_MISMATCH (409)`, () => {
        const refusal = getLeft(reportPayment(state, { ...payment, ...changed }, NOW))
        expect(refusal.code).toBe("BILLING_PAYMENT_REPLAY_MISMATCH")
        expect(refusal.status).toBe(409)
        if (refusal._tag !== "PaymentReplayMismatch") return expect.unreachable()
        expect(refusal.paymentId).toBe(payment.paymentId)
        expect(refusal.report).toBe("payment")
      })
    }

    it("refuses a reversed payment reported again with BILLING_PAYMENT_REVERSED (400)", () => {
      const reversed = withLedger(aSentInvoice(), {
        payments: [{ ...recorded, reversal: { reversedOn: "2025-03-13", recordedAt: EARLIER } }],
        writeOffs: []
      })
      const refusal = getLeft(reportPayment(reversed, payment, NOW))
      expect(refusal.code).toBe("BILLING_PAYMENT_REVERSED")
      expect(refusal.status).toBe(400)
    })

    it("refuses a reversed payment reported with other content as a mismatch (409) first", () => {
      const reversed = withLedger(aSentInvoice(), {
        payments: [{ ...recorded, reversal: { reversedOn: "2025-03-13", recordedAt: EARLIER } }],
        writeOffs: []
      })
      expect(getLeft(reportPayment(reversed, { ...payment, amountMinorUnits: 1 }, NOW)).code).toBe(
        "BILLING_PAYMENT_REPLAY_MISMATCH"
      )
    })
  })

  for (const status of INVOICE_STATUSES.filter((status) => !["sent", "paid", "written-off"].includes(status))) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(reportPayment({ invoice: aSentInvoice({ status }), ledger: EMPTY_LEDGER }, payment, NOW))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      if (refusal._tag !== "InvoiceStatusInvalid") return expect.unreachable()
      expect(refusal.invoiceStatus).toBe(status)
      expect(refusal.action).toBe("report-payment")
    })
  }

  describe("BILLING_PAYMENT_AMOUNT_INVALID (400)", () => {
    const cases = [
      ["a zero amount on an invoice", aSentInvoice(), 0, "zero"],
      ["a zero amount on a credit note", aSentCreditNote(), 0, "zero"],
      ["a negative amount on an invoice", aSentInvoice(), -1, "sign"],
      ["a positive amount on a credit note", aSentCreditNote(), 1, "sign"]
    ] as const
    for (const [name, invoice, amountMinorUnits, problem] of cases) {
      it(`refuses ${name} (${problem})`, () => {
        const refusal = getLeft(reportPayment({ invoice, ledger: EMPTY_LEDGER }, { ...payment, amountMinorUnits }, NOW))
        expect(refusal.code).toBe("BILLING_PAYMENT_AMOUNT_INVALID")
        if (refusal._tag !== "PaymentAmountInvalid") return expect.unreachable()
        expect(refusal.problem).toBe(problem)
        expect(refusal.amountMinorUnits).toBe(amountMinorUnits)
      })
    }

    // issued 1, one payment of 2^53 − 1 already: the balance is 2 − 2^53, one minor unit above the bound
    const nearBound = withLedger(aSentInvoice({ issuedTotalGrossMinorUnits: 1 }), {
      payments: [aPayment({ paymentId: "huge", amountMinorUnits: Number.MAX_SAFE_INTEGER })],
      writeOffs: []
    })

    it("refuses an amount that takes the balance below −(2^53 − 1) (range)", () => {
      const refusal = getLeft(reportPayment(nearBound, { ...payment, amountMinorUnits: 2 }, NOW))
      expect(refusal.code).toBe("BILLING_PAYMENT_AMOUNT_INVALID")
      if (refusal._tag !== "PaymentAmountInvalid") return expect.unreachable()
      expect(refusal.problem).toBe("range")
    })

    it("accepts the largest payment that keeps the balance in range", () => {
      const outcome = getRight(reportPayment(nearBound, { ...payment, amountMinorUnits: 1 }, NOW))
      expect(outcome.invoice.balanceMinorUnits).toBe(-Number.MAX_SAFE_INTEGER)
    })
  })

  it("refuses a currency other than the invoice's with VALIDATION_FAILED at /currency, before anything else", () => {
    const refusal = getLeft(
      reportPayment({ invoice: aSentInvoice({ status: "approved" }), ledger: EMPTY_LEDGER }, { ...payment, currency: "EUR" }, NOW)
    )
    expect(refusal.code).toBe("VALIDATION_FAILED")
    if (refusal._tag !== "FieldsInvalid") return expect.unreachable()
    expect(refusal.issues).toStrictEqual([{ path: "/currency", message: "The invoice's currency is SEK." }])
  })

  it("leaves the given state unchanged", () => {
    const state = { invoice: aSentInvoice(), ledger: EMPTY_LEDGER }
    const before = structuredClone(state)
    reportPayment(state, payment, NOW)
    expect(state).toStrictEqual(before)
  })
})

describe("Settlement.reportPaymentReversed (report-payment-reversed, decisions.md 4 and 5)", () => {
  const reversal = { paymentId: "BANK-1", reversedOn: "2025-03-16", reason: "Returned by the bank" }

  it("returns a paid invoice to sent when the balance is due again: paidAt removed, billing.invoice.reopened", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment({ amountMinorUnits: 1_250_000 })], writeOffs: [] })
    const outcome = getRight(reportPaymentReversed(state, reversal, LATER))
    expect(outcome.replayed).toBe(false)
    expect(outcome.invoice.status).toBe("sent")
    expect(outcome.invoice.balanceMinorUnits).toBe(1_250_000)
    expect(outcome.invoice).not.toHaveProperty("paidAt")
    expect(outcome.invoice.updatedAt).toStrictEqual(LATER)
    expect(outcome.payment.reversal).toStrictEqual({ reversedOn: "2025-03-16", reason: reversal.reason, recordedAt: LATER })
    expect(outcome.events.map((event) => event._tag)).toStrictEqual([
      "billing.invoice.payment_reversed",
      "billing.invoice.reopened"
    ])
  })

  it("returns a written-off invoice to sent: writtenOffAt removed", () => {
    const state = withLedger(aSentInvoice(), {
      payments: [aPayment({ amountMinorUnits: 250_000 })],
      writeOffs: [aWriteOff({ amountMinorUnits: 1_000_000 })]
    })
    expect(state.invoice.status).toBe("written-off")
    const outcome = getRight(reportPaymentReversed(state, reversal, NOW))
    expect(outcome.invoice.status).toBe("sent")
    expect(outcome.invoice).not.toHaveProperty("writtenOffAt")
    expect(outcome.invoice.balanceMinorUnits).toBe(250_000)
  })

  it("keeps an invoice paid when other payments still settle it", () => {
    const state = withLedger(aSentInvoice(), {
      payments: [aPayment({ amountMinorUnits: 100_000 }), aPayment({ paymentId: "BANK-9", amountMinorUnits: 1_250_000 })],
      writeOffs: []
    })
    const outcome = getRight(reportPaymentReversed(state, reversal, NOW))
    expect(outcome.invoice.status).toBe("paid")
    expect(outcome.invoice.paidAt).toStrictEqual(EARLIER)
    expect(outcome.invoice.balanceMinorUnits).toBe(0)
    expect(outcome.events.map((event) => event._tag)).toStrictEqual(["billing.invoice.payment_reversed"])
  })

  it("takes back a part payment on a sent invoice: the balance grows by its amount", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment()], writeOffs: [] })
    const { reason: _reason, ...withoutReason } = reversal
    const outcome = getRight(reportPaymentReversed(state, withoutReason, NOW))
    expect(outcome.invoice.balanceMinorUnits).toBe(1_250_000)
    expect(outcome.payment.reversal).toStrictEqual({ reversedOn: "2025-03-16", recordedAt: NOW })
  })

  describe("the same reversal again", () => {
    const reversed = withLedger(aSentInvoice(), {
      payments: [aPayment({ reversal: { reversedOn: reversal.reversedOn, reason: reversal.reason, recordedAt: EARLIER } })],
      writeOffs: []
    })

    it("answers the current record and changes nothing", () => {
      const outcome = getRight(reportPaymentReversed(reversed, reversal, NOW))
      expect(outcome.replayed).toBe(true)
      expect(outcome.invoice).toBe(reversed.invoice)
      expect(outcome.events).toStrictEqual([])
    })

    for (const changed of [{ reversedOn: "2025-03-17" }, { reason: "Other" }, { reason: undefined }]) {
      it(`refuses ${JSON.stringify(changed)} with BILLING_PAYMENT_REPLAY_MISMATCH (409)`, () => {
        const { reason: _reason, ...base } = reversal
        const command = "reason" in changed && changed.reason === undefined ? base : { ...reversal, ...changed }
        const refusal = getLeft(reportPaymentReversed(reversed, command, NOW))
        expect(refusal.code).toBe("BILLING_PAYMENT_REPLAY_MISMATCH")
        expect(refusal.status).toBe(409)
        if (refusal._tag !== "PaymentReplayMismatch") return expect.unreachable()
        expect(refusal.report).toBe("reversal")
      })
    }
  })

  it("refuses an unknown paymentId with BILLING_PAYMENT_NOT_FOUND (400)", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment()], writeOffs: [] })
    const refusal = getLeft(reportPaymentReversed(state, { ...reversal, paymentId: "BANK-404" }, NOW))
    expect(refusal.code).toBe("BILLING_PAYMENT_NOT_FOUND")
    expect(refusal.status).toBe(400)
  })

  for (const status of ["created", "approved", "failed"] as const) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(reportPaymentReversed({ invoice: aSentInvoice({ status }), ledger: EMPTY_LEDGER }, reversal, NOW))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      if (refusal._tag !== "InvoiceStatusInvalid") return expect.unreachable()
      expect(refusal.action).toBe("report-payment-reversed")
    })
  }
})

describe("Settlement.reportWriteOff (report-write-off, decisions.md 4 and 5)", () => {
  const writeOff = { writeOffId: "WO-7", amountMinorUnits: 250_000, writtenOffOn: "2025-03-14", reason: "Small balance" }

  it("records a part write-off: balance drops, the invoice stays sent", () => {
    const invoice = aSentInvoice()
    const outcome = getRight(reportWriteOff({ invoice, ledger: EMPTY_LEDGER }, writeOff, NOW))
    expect(outcome.invoice).toStrictEqual({ ...invoice, balanceMinorUnits: 1_000_000, updatedAt: NOW })
    expect(outcome.writeOff).toStrictEqual({ ...writeOff, recordedAt: NOW })
    expect(outcome.events).toStrictEqual([
      {
        _tag: "billing.invoice.write_off_recorded",
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        at: NOW,
        writeOffId: "WO-7"
      }
    ])
  })

  it("settles as written-off when it brings the balance to zero: writtenOffAt now", () => {
    const state = withLedger(aSentInvoice(), { payments: [aPayment({ amountMinorUnits: 1_000_000 })], writeOffs: [] })
    const outcome = getRight(reportWriteOff(state, writeOff, NOW))
    expect(outcome.invoice.status).toBe("written-off")
    expect(outcome.invoice.balanceMinorUnits).toBe(0)
    expect(outcome.invoice.writtenOffAt).toStrictEqual(NOW)
    expect(outcome.events.map((event) => event._tag)).toStrictEqual([
      "billing.invoice.write_off_recorded",
      "billing.invoice.written_off"
    ])
  })

  it("writes off a credit note's remaining refund (negative)", () => {
    const outcome = getRight(
      reportWriteOff({ invoice: aSentCreditNote(), ledger: EMPTY_LEDGER }, { ...writeOff, amountMinorUnits: -500_000 }, NOW)
    )
    expect(outcome.invoice.status).toBe("written-off")
  })

  describe("BILLING_WRITE_OFF_AMOUNT_INVALID (400)", () => {
    const cases = [
      ["beyond the balance", aSentInvoice(), 1_250_001],
      ["zero", aSentInvoice(), 0],
      ["negative on an invoice", aSentInvoice(), -1],
      ["positive on a credit note", aSentCreditNote(), 1],
      ["beyond a credit note's balance", aSentCreditNote(), -500_001]
    ] as const
    for (const [name, invoice, amountMinorUnits] of cases) {
      it(`refuses an amount ${name}`, () => {
        const refusal = getLeft(reportWriteOff({ invoice, ledger: EMPTY_LEDGER }, { ...writeOff, amountMinorUnits }, NOW))
        expect(refusal.code).toBe("BILLING_WRITE_OFF_AMOUNT_INVALID")
        if (refusal._tag !== "WriteOffAmountInvalid") return expect.unreachable()
        expect(refusal.balanceMinorUnits).toBe(invoice.issuedTotalGrossMinorUnits)
      })
    }

    it("measures against the balance after payments", () => {
      const state = withLedger(aSentInvoice(), { payments: [aPayment({ amountMinorUnits: 1_100_000 })], writeOffs: [] })
      expect(getLeft(reportWriteOff(state, { ...writeOff, amountMinorUnits: 150_001 }, NOW)).code).toBe(
        "BILLING_WRITE_OFF_AMOUNT_INVALID"
      )
      expect(Either.isRight(reportWriteOff(state, { ...writeOff, amountMinorUnits: 150_000 }, NOW))).toBe(true)
    })
  })

  describe("the same write-off again (idempotent by writeOffId)", () => {
    const state = withLedger(aSentInvoice(), { payments: [], writeOffs: [aWriteOff({ ...writeOff })] })

    it("answers the current record and changes nothing, even after the invoice settled", () => {
      const settled = withLedger(aSentInvoice(), {
        payments: [aPayment({ amountMinorUnits: 1_000_000 })],
        writeOffs: [aWriteOff({ ...writeOff })]
      })
      expect(settled.invoice.status).toBe("written-off")
      for (const current of [state, settled]) {
        const outcome = getRight(reportWriteOff(current, writeOff, NOW))
        expect(outcome.replayed).toBe(true)
        expect(outcome.invoice).toBe(current.invoice)
        expect(outcome.events).toStrictEqual([])
      }
    })

    for (const changed of [{ amountMinorUnits: 1 }, { writtenOffOn: "2025-03-15" }, { reason: "Other" }]) {
      it(`refuses ${JSON.stringify(changed)} with BILLING_WRITE_OFF_REPLAY_MISMATCH (409)`, () => {
        const refusal = getLeft(reportWriteOff(state, { ...writeOff, ...changed }, NOW))
        expect(refusal.code).toBe("BILLING_WRITE_OFF_REPLAY_MISMATCH")
        expect(refusal.status).toBe(409)
      })
    }
  })

  for (const status of INVOICE_STATUSES.filter((status) => status !== "sent")) {
    it(`refuses an invoice that is ${status} with BILLING_INVOICE_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(reportWriteOff({ invoice: aSentInvoice({ status }), ledger: EMPTY_LEDGER }, writeOff, NOW))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      if (refusal._tag !== "InvoiceStatusInvalid") return expect.unreachable()
      expect(refusal.action).toBe("report-write-off")
    })
  }
})
