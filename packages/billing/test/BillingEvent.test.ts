import { describe, expect, it } from "@effect/vitest"
import { BILLING_EVENT_TYPES } from "../src/BillingEvent.js"

describe("BillingEvent types (decisions.md 9)", () => {
  it("lists every billing event type", () => {
    expect(BILLING_EVENT_TYPES).toStrictEqual([
      "billing.invoice.created",
      "billing.invoice.approved",
      "billing.invoice.failed",
      "billing.invoice.sent",
      "billing.invoice.payment_recorded",
      "billing.invoice.payment_reversed",
      "billing.invoice.write_off_recorded",
      "billing.invoice.paid",
      "billing.invoice.written_off",
      "billing.invoice.reopened",
      "billing.invoice.deleted",
      "billing.invoice.credited",
      "billing.invoice_withdrawal.discarded",
      "billing.invoice_run.created",
      "billing.invoice_run.continued",
      "billing.invoice_run.approved",
      "billing.invoice_proposal.created",
      "billing.invoice_proposal.passed",
      "billing.invoice_proposal.rejected",
      "billing.invoice_proposal.cancelled"
    ])
  })

  it("names each as billing.<record>.<past-tense change>, in snake case", () => {
    for (const type of BILLING_EVENT_TYPES) {
      expect(type).toMatch(/^billing\.[a-z]+(?:_[a-z]+)*\.(?:[a-z]+_)*(?:[a-z]+ed|sent|paid|written_off)$/)
    }
  })
})
