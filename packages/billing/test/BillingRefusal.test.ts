import { describe, expect, it } from "@effect/vitest"
import { isErrorCode } from "@propline/refusal/ErrorCode"
import { isRefusal } from "@propline/refusal/Refusal"
import { Effect } from "effect"
import type { BillingRefusal } from "../src/BillingRefusal.js"
import {
  CreditActReplayMismatch,
  CreditExceedsInvoice,
  CreditExceedsLine,
  CreditNoteInvoiceNotCreditable,
  ExternalReferenceAlreadyUsed,
  FieldsInvalid,
  httpStatusOf,
  IntegrationGateNotDeclared,
  IntegrationNotConfigured,
  InvoiceRunNotContinuable,
  InvoiceStatusInvalid,
  ManualCreditVatRateUnknown,
  PaymentAmountInvalid,
  PaymentNotFound,
  PaymentReplayMismatch,
  PaymentReversed,
  ProposalMaterialAlreadyInvoiced,
  ProposalStatusInvalid,
  WithdrawalStatusInvalid,
  WriteOffAmountInvalid,
  WriteOffReplayMismatch
} from "../src/BillingRefusal.js"

const detail = "A sentence for the client."

// [refusal, _tag, code, HTTP status (decisions.md 4: 409 for *_REPLAY_MISMATCH, *_ALREADY_USED and
// BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED; 400 otherwise)]
const cases: ReadonlyArray<readonly [BillingRefusal, string, string, 400 | 409]> = [
  [new InvoiceStatusInvalid({ status: "failed", action: "report-failed" }), "InvoiceStatusInvalid", "BILLING_INVOICE_STATUS_INVALID", 400],
  [
    new WithdrawalStatusInvalid({ withdrawalStatus: "discarded", detail }),
    "WithdrawalStatusInvalid",
    "BILLING_INVOICE_STATUS_INVALID",
    400
  ],
  [new ProposalStatusInvalid({ status: "passed", action: "pass" }), "ProposalStatusInvalid", "BILLING_PROPOSAL_STATUS_INVALID", 400],
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
  ],
  [
    new PaymentReplayMismatch({ paymentId: "p", report: "payment", detail }),
    "PaymentReplayMismatch",
    "BILLING_PAYMENT_REPLAY_MISMATCH",
    409
  ],
  [new PaymentReversed({ paymentId: "p", detail }), "PaymentReversed", "BILLING_PAYMENT_REVERSED", 400],
  [new PaymentNotFound({ paymentId: "p", detail }), "PaymentNotFound", "BILLING_PAYMENT_NOT_FOUND", 400],
  [
    new PaymentAmountInvalid({ amountMinorUnits: 0, documentKind: "invoice", problem: "zero", detail }),
    "PaymentAmountInvalid",
    "BILLING_PAYMENT_AMOUNT_INVALID",
    400
  ],
  [
    new WriteOffReplayMismatch({ writeOffId: "w", detail }),
    "WriteOffReplayMismatch",
    "BILLING_WRITE_OFF_REPLAY_MISMATCH",
    409
  ],
  [
    new WriteOffAmountInvalid({ amountMinorUnits: 10, balanceMinorUnits: 5, detail }),
    "WriteOffAmountInvalid",
    "BILLING_WRITE_OFF_AMOUNT_INVALID",
    400
  ],
  [
    new CreditNoteInvoiceNotCreditable({
      invoiceStatus: "approved",
      documentKind: "invoice",
      problem: "status",
      detail
    }),
    "CreditNoteInvoiceNotCreditable",
    "BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE",
    400
  ],
  [
    new CreditExceedsLine({ lineId: "l", requestedNetMinorUnits: 2, remainingNetMinorUnits: 1, detail }),
    "CreditExceedsLine",
    "BILLING_CREDIT_EXCEEDS_LINE",
    400
  ],
  [
    new CreditExceedsInvoice({ requestedGrossMinorUnits: 2, remainingGrossMinorUnits: 1, detail }),
    "CreditExceedsInvoice",
    "BILLING_CREDIT_EXCEEDS_INVOICE",
    400
  ],
  [
    new CreditActReplayMismatch({ creditActId: "a", detail }),
    "CreditActReplayMismatch",
    "BILLING_CREDIT_ACT_REPLAY_MISMATCH",
    409
  ],
  [
    new ManualCreditVatRateUnknown({ vatRateBasisPoints: 1900, detail }),
    "ManualCreditVatRateUnknown",
    "BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN",
    400
  ],
  [
    new InvoiceRunNotContinuable({ runStatus: "approved", action: "continue", detail }),
    "InvoiceRunNotContinuable",
    "BILLING_INVOICE_RUN_NOT_CONTINUABLE",
    400
  ],
  [
    new FieldsInvalid({ issues: [{ path: "/dueDate", message: "required" }], detail }),
    "FieldsInvalid",
    "VALIDATION_FAILED",
    400
  ]
]

describe("BillingRefusal codes and HTTP status (spec 7.1 and 7.3, decisions.md 4)", () => {
  for (const [refusal, tag, code, status] of cases) {
    it(`${tag} carries ${code} and answers ${status}`, () => {
      expect(refusal._tag).toBe(tag)
      expect(refusal.code).toBe(code)
      expect(isErrorCode(refusal.code)).toBe(true)
      expect(refusal.status).toBe(status)
      expect(httpStatusOf(refusal)).toBe(status)
      expect(isRefusal(refusal)).toBe(true)
    })

    it(`${tag} has a detail for the client, which is also its message`, () => {
      expect(refusal.detail.length).toBeGreaterThan(0)
      expect(refusal.message).toBe(refusal.detail)
      expect(refusal).toBeInstanceOf(Error)
    })
  }

  it.effect("a refusal fails an Effect with itself when yielded", () =>
    Effect.gen(function* () {
      const refusal = yield* Effect.flip(new InvoiceStatusInvalid({ status: "sent", action: "report-failed" }))
      expect(refusal.code).toBe("BILLING_INVOICE_STATUS_INVALID")
      expect(refusal.invoiceStatus).toBe("sent")
    })
  )
})

describe("InvoiceStatusInvalid", () => {
  it("carries the current status and the attempted action, and names them in its detail", () => {
    const refusal = new InvoiceStatusInvalid({ status: "written-off", action: "report-failed" })
    expect(refusal).toBeInstanceOf(InvoiceStatusInvalid)
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
