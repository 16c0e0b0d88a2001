import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { BillingRefusal } from "../src/BillingRefusal.js"
import {
  ExternalReferenceAlreadyUsed,
  httpStatusOf,
  IntegrationGateNotDeclared,
  IntegrationNotConfigured,
  InvoiceStatusInvalid,
  ProposalMaterialAlreadyInvoiced,
  ProposalStatusInvalid
} from "../src/BillingRefusal.js"

// The BILLING_* codes of spec section 7.3; a refusal may only use one of them.
const SPEC_BILLING_CODES = [
  "BILLING_INTEGRATION_NOT_CONFIGURED",
  "BILLING_INTEGRATION_GATE_NOT_DECLARED",
  "BILLING_EXTERNAL_REFERENCE_ALREADY_USED",
  "BILLING_INVOICE_STATUS_INVALID",
  "BILLING_PAYMENT_REPLAY_MISMATCH",
  "BILLING_PAYMENT_REVERSED",
  "BILLING_PAYMENT_NOT_FOUND",
  "BILLING_PAYMENT_AMOUNT_INVALID",
  "BILLING_WRITE_OFF_REPLAY_MISMATCH",
  "BILLING_WRITE_OFF_AMOUNT_INVALID",
  "BILLING_PROPOSAL_STATUS_INVALID",
  "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED",
  "BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE",
  "BILLING_CREDIT_NOTE_NO_PENDING_CORRECTIONS",
  "BILLING_INVOICE_RUN_NOT_CONTINUABLE",
  "BILLING_CREDIT_EXCEEDS_LINE",
  "BILLING_CREDIT_EXCEEDS_INVOICE",
  "BILLING_CREDIT_WITHHELD",
  "BILLING_CREDIT_ACT_REPLAY_MISMATCH",
  "BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN",
  "BILLING_CORRECTION_NOT_WITHDRAWABLE"
]

// [refusal, _tag, code, HTTP status (decisions.md 4)]
const cases: ReadonlyArray<readonly [BillingRefusal, string, string, 400 | 409]> = [
  [
    new InvoiceStatusInvalid({ status: "failed", action: "report-failed" }),
    "InvoiceStatusInvalid",
    "BILLING_INVOICE_STATUS_INVALID",
    400
  ],
  [
    new ProposalStatusInvalid({ status: "passed", action: "pass" }),
    "ProposalStatusInvalid",
    "BILLING_PROPOSAL_STATUS_INVALID",
    400
  ],
  [new IntegrationNotConfigured(), "IntegrationNotConfigured", "BILLING_INTEGRATION_NOT_CONFIGURED", 400],
  [
    new IntegrationGateNotDeclared({ gate: "verification" }),
    "IntegrationGateNotDeclared",
    "BILLING_INTEGRATION_GATE_NOT_DECLARED",
    400
  ],
  [
    new ProposalMaterialAlreadyInvoiced(),
    "ProposalMaterialAlreadyInvoiced",
    "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED",
    409
  ],
  [
    new ExternalReferenceAlreadyUsed({ externalReference: "ERP-1" }),
    "ExternalReferenceAlreadyUsed",
    "BILLING_EXTERNAL_REFERENCE_ALREADY_USED",
    409
  ]
]

describe("BillingRefusal codes and HTTP status (spec 7.1 and 7.3, decisions.md 4)", () => {
  for (const [refusal, tag, code, status] of cases) {
    it(`${tag} carries ${code} and answers ${status}`, () => {
      expect(refusal._tag).toBe(tag)
      expect(refusal.code).toBe(code)
      expect(SPEC_BILLING_CODES).toContain(refusal.code)
      expect(httpStatusOf(refusal)).toBe(status)
    })

    it(`${tag} has a detail for the client, which is also its message`, () => {
      expect(refusal.detail.length).toBeGreaterThan(0)
      expect(refusal.message).toBe(refusal.detail)
      expect(refusal).toBeInstanceOf(Error)
    })
  }

  it("carries its status on the refusal itself, the shape every domain package shares", () => {
    for (const [refusal, , , status] of cases) expect(refusal.status).toBe(status)
  })

  it.effect("a refusal fails an Effect with itself when yielded", () =>
    Effect.gen(function*() {
      const refusal = yield* Effect.flip(new InvoiceStatusInvalid({ status: "sent", action: "report-failed" }))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      expect(refusal.invoiceStatus).toBe("sent")
    }))
})

describe("InvoiceStatusInvalid", () => {
  it("carries the current status and the attempted action, and names them in its detail", () => {
    const refusal = new InvoiceStatusInvalid({ status: "written-off", action: "report-failed" })
    expect(refusal.invoiceStatus).toBe("written-off")
    expect(refusal.action).toBe("report-failed")
    expect(refusal.detail).toContain("written-off")
    expect(refusal.detail).toContain("report-failed")
  })
})

describe("ProposalStatusInvalid", () => {
  it("carries the current status and the attempted action", () => {
    const refusal = new ProposalStatusInvalid({ status: "cancelled", action: "reject" })
    expect(refusal.proposalStatus).toBe("cancelled")
    expect(refusal.action).toBe("reject")
    expect(refusal.invoiceNumberMissing).toBe(false)
    expect(refusal.detail).toContain("cancelled")
  })

  it("says when the proposal lacks an invoice number", () => {
    const refusal = new ProposalStatusInvalid({ status: "proposed", action: "pass", invoiceNumberMissing: true })
    expect(refusal.invoiceNumberMissing).toBe(true)
    expect(refusal.detail).toContain("invoice number")
  })
})

describe("ExternalReferenceAlreadyUsed", () => {
  it("carries the reference but does not repeat caller text in its detail", () => {
    const refusal = new ExternalReferenceAlreadyUsed({ externalReference: "<script>x</script>" })
    expect(refusal.externalReference).toBe("<script>x</script>")
    expect(refusal.detail).not.toContain("<script>")
  })
})

describe("IntegrationGateNotDeclared", () => {
  it("carries the gate that was required", () => {
    const refusal = new IntegrationGateNotDeclared({ gate: "verification" })
    expect(refusal.gate).toBe("verification")
    expect(refusal.detail).toContain("verification")
  })
})
