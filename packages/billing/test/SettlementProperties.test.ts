/**
 * Property tests of settlement (decisions.md 4 and 5): any sequence of payments, reversals and write-offs, on an
 * invoice or a credit note, run through the transitions, is checked step by step against a model kept here,
 * independently of `Settlement.ts`: which reports are accepted, replayed or refused (and with which code), the
 * balance (issued total − payments + reversed payments − write-offs), the status it gives, and the states that
 * must never be reached.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import type { DocumentKind, InvoiceRecord } from "../src/Invoice.js"
import type { BillingRefusal } from "../src/BillingRefusal.js"
import {
  EMPTY_LEDGER,
  type Ledger,
  type MoneyReportOutcome,
  reportPayment,
  reportPaymentReversed,
  reportWriteOff,
  type SettlementState
} from "../src/Settlement.js"
import { aSentCreditNote, aSentInvoice, NOW } from "./fixtures.js"

type Command =
  | { readonly _tag: "payment"; readonly paymentId: string; readonly amountMinorUnits: number; readonly paidOn: string }
  | { readonly _tag: "reversal"; readonly paymentId: string; readonly reversedOn: string; readonly reason?: string }
  | { readonly _tag: "writeOff"; readonly writeOffId: string; readonly amountMinorUnits: number; readonly writtenOffOn: string }

const MAX = Number.MAX_SAFE_INTEGER

// Few ids, so replays and mismatches happen often; amounts small, huge, zero and of either sign.
const id = fc.constantFrom("a", "b", "c", "d", "e")
const date = fc.constantFrom("2025-03-10", "2025-03-11")
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 600_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: -600_000, max: -1 }) },
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(MAX, -MAX, MAX - 1) }
)

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ _tag: fc.constant("payment" as const), paymentId: id, amountMinorUnits: amount, paidOn: date }),
  fc.record(
    { _tag: fc.constant("reversal" as const), paymentId: id, reversedOn: date, reason: fc.constantFrom("NSF", "Wrong payer") },
    { requiredKeys: ["_tag", "paymentId", "reversedOn"] }
  ),
  fc.record({ _tag: fc.constant("writeOff" as const), writeOffId: id, amountMinorUnits: amount, writtenOffOn: date })
)

const documentKind = fc.constantFrom<DocumentKind>("invoice", "credit-note")
const issuedMagnitude = fc.oneof(fc.integer({ min: 1, max: 1_500_000 }), fc.constant(MAX))

/** The model: what was accepted, by id, and the balance it gives, in exact integers. */
interface Model {
  readonly sign: 1 | -1
  readonly issued: bigint
  readonly payments: Map<string, { amount: number; paidOn: string; reversal?: { reversedOn: string; reason?: string } }>
  readonly writeOffs: Map<string, { amount: number; writtenOffOn: string }>
}

const modelBalance = (model: Model): bigint => {
  let balance = model.issued
  for (const payment of model.payments.values()) if (payment.reversal === undefined) balance -= BigInt(payment.amount)
  for (const writeOff of model.writeOffs.values()) balance -= BigInt(writeOff.amount)
  return balance
}

const modelStatus = (model: Model): "sent" | "paid" | "written-off" => {
  const balance = modelBalance(model) * BigInt(model.sign)
  if (balance > 0n) return "sent"
  return model.writeOffs.size > 0 ? "written-off" : "paid"
}

type Expected = "recorded" | "replayed" | string

/** What the model says a report must give: recorded, replayed, or the refusal's code. */
const expectedOf = (model: Model, step: Command): Expected => {
  switch (step._tag) {
    case "payment": {
      const recorded = model.payments.get(step.paymentId)
      if (recorded !== undefined) {
        if (recorded.amount !== step.amountMinorUnits || recorded.paidOn !== step.paidOn) {
          return "BILLING_PAYMENT_REPLAY_MISMATCH"
        }
        return recorded.reversal !== undefined ? "BILLING_PAYMENT_REVERSED" : "replayed"
      }
      if (step.amountMinorUnits === 0 || Math.sign(step.amountMinorUnits) !== model.sign) {
        return "BILLING_PAYMENT_AMOUNT_INVALID"
      }
      const after = modelBalance(model) - BigInt(step.amountMinorUnits)
      return after < BigInt(-MAX) || after > BigInt(MAX) ? "BILLING_PAYMENT_AMOUNT_INVALID" : "recorded"
    }
    case "reversal": {
      const recorded = model.payments.get(step.paymentId)
      if (recorded === undefined) return "BILLING_PAYMENT_NOT_FOUND"
      if (recorded.reversal === undefined) return "recorded"
      return recorded.reversal.reversedOn === step.reversedOn && recorded.reversal.reason === step.reason
        ? "replayed"
        : "BILLING_PAYMENT_REPLAY_MISMATCH"
    }
    case "writeOff": {
      const recorded = model.writeOffs.get(step.writeOffId)
      if (recorded !== undefined) {
        return recorded.amount === step.amountMinorUnits && recorded.writtenOffOn === step.writtenOffOn
          ? "replayed"
          : "BILLING_WRITE_OFF_REPLAY_MISMATCH"
      }
      if (modelStatus(model) !== "sent") return "BILLING_INVOICE_STATUS_INVALID"
      const signed = BigInt(step.amountMinorUnits) * BigInt(model.sign)
      return signed <= 0n || signed > modelBalance(model) * BigInt(model.sign)
        ? "BILLING_WRITE_OFF_AMOUNT_INVALID"
        : "recorded"
    }
  }
}

const apply = (state: SettlementState, step: Command): Either.Either<MoneyReportOutcome, BillingRefusal> => {
  switch (step._tag) {
    case "payment":
      return reportPayment(state, step, NOW)
    case "reversal":
      return reportPaymentReversed(state, step, NOW)
    case "writeOff":
      return reportWriteOff(state, step, NOW)
  }
}

const record = (model: Model, step: Command): void => {
  switch (step._tag) {
    case "payment":
      model.payments.set(step.paymentId, { amount: step.amountMinorUnits, paidOn: step.paidOn })
      return
    case "reversal": {
      const recorded = model.payments.get(step.paymentId)
      if (recorded !== undefined) {
        recorded.reversal = { reversedOn: step.reversedOn, ...(step.reason !== undefined ? { reason: step.reason } : {}) }
      }
      return
    }
    case "writeOff":
      model.writeOffs.set(step.writeOffId, { amount: step.amountMinorUnits, writtenOffOn: step.writtenOffOn })
  }
}

/** The states no sequence may reach (decisions.md 5). */
const assertAllowed = (invoice: InvoiceRecord, ledger: Ledger, model: Model): void => {
  const balance = invoice.balanceMinorUnits ?? Number.NaN
  expect(Number.isSafeInteger(balance)).toBe(true)
  expect(BigInt(balance)).toBe(modelBalance(model))
  expect(invoice.status).toBe(modelStatus(model))
  // a settlement time exactly while settled that way
  expect(invoice.paidAt !== undefined).toBe(invoice.status === "paid")
  expect(invoice.writtenOffAt !== undefined).toBe(invoice.status === "written-off")
  // written-off only with a write-off; paid only without one
  if (invoice.status === "written-off") expect(ledger.writeOffs.length).toBeGreaterThan(0)
  if (invoice.status === "paid") expect(ledger.writeOffs.length).toBe(0)
  // every amount on the document's side of zero
  for (const entry of [...ledger.payments, ...ledger.writeOffs]) {
    expect(Math.sign(entry.amountMinorUnits)).toBe(model.sign)
  }
  // ids unique on the document
  expect(new Set(ledger.payments.map((payment) => payment.paymentId)).size).toBe(ledger.payments.length)
  expect(new Set(ledger.writeOffs.map((writeOff) => writeOff.writeOffId)).size).toBe(ledger.writeOffs.length)
}

describe("Settlement properties (decisions.md 4 and 5, for any sequence of money reports)", () => {
  it("every report is recorded, replayed or refused as the model says; balance and status always agree", () => {
    fc.assert(
      fc.property(documentKind, issuedMagnitude, fc.array(command, { maxLength: 40 }), (kind, magnitude, steps) => {
        const sign = kind === "invoice" ? 1 : -1
        const issued = sign * magnitude
        const model: Model = { sign, issued: BigInt(issued), payments: new Map(), writeOffs: new Map() }
        const start =
          kind === "invoice"
            ? aSentInvoice({ issuedTotalGrossMinorUnits: issued })
            : aSentCreditNote({ issuedTotalGrossMinorUnits: issued, balanceMinorUnits: issued })
        let state: SettlementState = { invoice: start, ledger: EMPTY_LEDGER }
        for (const step of steps) {
          const expected = expectedOf(model, step)
          const result = apply(state, step)
          if (Either.isLeft(result)) {
            expect(result.left.code).toBe(expected)
            continue // a refused report changes nothing: the state is kept as it was
          }
          const outcome = result.right
          if (outcome.replayed) {
            expect(expected).toBe("replayed")
            expect(outcome.invoice).toBe(state.invoice)
            expect(outcome.ledger).toBe(state.ledger)
            expect(outcome.events).toStrictEqual([])
            continue
          }
          expect(expected).toBe("recorded")
          record(model, step)
          state = { invoice: outcome.invoice, ledger: outcome.ledger }
          assertAllowed(state.invoice, state.ledger, model)
          expect(outcome.events.length).toBeGreaterThan(0)
        }
        assertAllowed(state.invoice, state.ledger, model)
      }),
      { numRuns: 500 }
    )
  })

  it("write-offs never take the balance past zero", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (steps) => {
        let state: SettlementState = { invoice: aSentInvoice(), ledger: EMPTY_LEDGER }
        for (const step of steps) {
          const result = apply(state, step)
          if (Either.isLeft(result) || result.right.replayed) continue
          const before = state.invoice.balanceMinorUnits ?? 0
          state = { invoice: result.right.invoice, ledger: result.right.ledger }
          if (step._tag === "writeOff") {
            expect(before).toBeGreaterThan(0)
            expect(state.invoice.balanceMinorUnits).toBeGreaterThanOrEqual(0)
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it("the order of distinct payments does not change the outcome", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ paymentId: fc.uuid(), amountMinorUnits: fc.integer({ min: 1, max: 500_000 }) }), {
          selector: (payment) => payment.paymentId,
          maxLength: 20
        }),
        (payments) => {
          const settle = (ordered: typeof payments) => {
            let state: SettlementState = { invoice: aSentInvoice(), ledger: EMPTY_LEDGER }
            for (const payment of ordered) {
              const result = reportPayment(state, { ...payment, paidOn: "2025-03-10" }, NOW)
              if (Either.isRight(result)) state = { invoice: result.right.invoice, ledger: result.right.ledger }
            }
            return state.invoice
          }
          const forwards = settle(payments)
          const backwards = settle([...payments].reverse())
          expect(backwards.balanceMinorUnits).toBe(forwards.balanceMinorUnits)
          expect(backwards.status).toBe(forwards.status)
          const total = payments.reduce((sum, payment) => sum + payment.amountMinorUnits, 0)
          expect(forwards.balanceMinorUnits).toBe(1_250_000 - total)
        }
      ),
      { numRuns: 200 }
    )
  })
})
