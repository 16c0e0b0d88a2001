import { describe, expect, it } from "@effect/vitest"
import { credit, type CreditCommand, type CreditState, type InvoiceLineToCredit } from "../src/Crediting.js"
import { INVOICE_STATUSES } from "../src/Invoice.js"
import { aSentCreditNote, aSentInvoice, getLeft, getRight, NOW } from "./fixtures.js"

// A sent invoice of two lines: rent 1 000 000 at 25 % (VAT 250 000), parking 200 000 at 25 % (VAT 50 000).
const lines: ReadonlyArray<InvoiceLineToCredit> = [
  { lineId: "line-rent", description: "Office rent", netMinorUnits: 1_000_000, vatRateBasisPoints: 2500, creditedNetMinorUnits: 0 },
  { lineId: "line-park", description: "Parking", netMinorUnits: 200_000, vatRateBasisPoints: 2500, creditedNetMinorUnits: 0 }
]
const invoice = aSentInvoice({
  totalNetMinorUnits: 1_200_000,
  totalVatMinorUnits: 300_000,
  totalGrossMinorUnits: 1_500_000,
  issuedTotalGrossMinorUnits: 1_500_000
})
const state: CreditState = { invoice, lines, creditedGrossMinorUnits: 0, country: "SE", earlierAct: undefined }
const full: CreditCommand = {
  creditActId: "act-1",
  creditNoteId: "9f0e8d7c-0000-4000-8000-000000000001",
  invoiceNumber: 10077,
  invoiceId: invoice.id,
  reason: "Wrong tenant",
  invoiceDate: "2025-03-14",
  scope: { kind: "full" }
}
const byLines = (
  lineCredits: ReadonlyArray<{ lineId: string; netMinorUnits: number }>,
  manualLines: ReadonlyArray<{ description: string; netMinorUnits: number; vatRateBasisPoints: number }> = []
): CreditCommand => ({ ...full, scope: { kind: "lines", lines: lineCredits, manualLines } })

describe("Crediting.credit in full", () => {
  it("makes an approved credit note negating every line, naming the invoice it credits", () => {
    const outcome = getRight(credit(state, full, NOW))
    expect(outcome.replayed).toBe(false)
    expect(outcome.creditNote).toMatchObject({
      id: full.creditNoteId,
      documentKind: "credit-note",
      creditedInvoiceId: invoice.id,
      status: "approved",
      invoiceNumber: 10077,
      requestedInvoiceDate: "2025-03-14",
      currency: "SEK",
      totalNetMinorUnits: -1_200_000,
      totalVatMinorUnits: -300_000,
      totalGrossMinorUnits: -1_500_000,
      approvedAt: NOW
    })
    expect(outcome.creditNote).not.toHaveProperty("requestedDueDate")
    expect(outcome.creditNote).not.toHaveProperty("paymentTermsDays")
    expect(outcome.lines.map((line) => [line.creditedLineId, line.netMinorUnits, line.vatMinorUnits])).toStrictEqual([
      ["line-rent", -1_000_000, -250_000],
      ["line-park", -200_000, -50_000]
    ])
    expect(outcome.events.map((event) => event._tag)).toStrictEqual([
      "billing.invoice.created",
      "billing.invoice.approved",
      "billing.invoice.credited"
    ])
  })

  it("credits only what earlier credit notes left", () => {
    const partly: CreditState = {
      ...state,
      lines: [{ ...lines[0]!, creditedNetMinorUnits: 400_000 }, lines[1]!],
      creditedGrossMinorUnits: -500_000
    }
    const outcome = getRight(credit(partly, full, NOW))
    expect(outcome.creditNote.totalGrossMinorUnits).toBe(-1_000_000)
  })

  it("refuses an invoice credited in full already with BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE (400)", () => {
    const done: CreditState = {
      ...state,
      lines: lines.map((line) => ({ ...line, creditedNetMinorUnits: line.netMinorUnits })),
      creditedGrossMinorUnits: -1_500_000
    }
    const refusal = getLeft(credit(done, full, NOW))
    expect(refusal.code).toBe("BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE")
    if (refusal._tag !== "CreditNoteInvoiceNotCreditable") return expect.unreachable()
    expect(refusal.problem).toBe("fully-credited")
  })
})

describe("Crediting.credit by lines", () => {
  it("credits part of a line, VAT recomputed on the part", () => {
    const outcome = getRight(credit(state, byLines([{ lineId: "line-park", netMinorUnits: 100_001 }]), NOW))
    expect(outcome.lines).toHaveLength(1)
    expect(outcome.lines[0]).toMatchObject({ creditedLineId: "line-park", netMinorUnits: -100_001, vatMinorUnits: -25_000 })
  })

  it("adds a manual line at one of the country's VAT rates", () => {
    const outcome = getRight(
      credit(state, byLines([], [{ description: "Goodwill", netMinorUnits: 10_000, vatRateBasisPoints: 1200 }]), NOW)
    )
    expect(outcome.lines[0]).toMatchObject({ description: "Goodwill", netMinorUnits: -10_000, vatMinorUnits: -1_200 })
    expect(outcome.lines[0]).not.toHaveProperty("creditedLineId")
  })

  it("refuses more than is left of a line with BILLING_CREDIT_EXCEEDS_LINE (400)", () => {
    const partly: CreditState = { ...state, lines: [{ ...lines[0]!, creditedNetMinorUnits: 900_000 }, lines[1]!] }
    const refusal = getLeft(credit(partly, byLines([{ lineId: "line-rent", netMinorUnits: 100_001 }]), NOW))
    expect(refusal.code).toBe("BILLING_CREDIT_EXCEEDS_LINE")
    if (refusal._tag !== "CreditExceedsLine") return expect.unreachable()
    expect(refusal.remainingNetMinorUnits).toBe(100_000)
  })

  it("refuses a negative amount on an ordinary line with BILLING_CREDIT_EXCEEDS_LINE (400)", () => {
    expect(getLeft(credit(state, byLines([{ lineId: "line-rent", netMinorUnits: -1 }]), NOW)).code).toBe(
      "BILLING_CREDIT_EXCEEDS_LINE"
    )
  })

  it("refuses a manual VAT rate the country lacks with BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN (400)", () => {
    const refusal = getLeft(
      credit(state, byLines([], [{ description: "Goodwill", netMinorUnits: 10_000, vatRateBasisPoints: 1500 }]), NOW)
    )
    expect(refusal.code).toBe("BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN")
    expect(credit({ ...state, country: "NO" }, byLines([], [{ description: "G", netMinorUnits: 1, vatRateBasisPoints: 1500 }]), NOW)._tag).toBe("Right")
  })

  it("refuses a credit note beyond what is left of the invoice with BILLING_CREDIT_EXCEEDS_INVOICE (400)", () => {
    const refusal = getLeft(
      credit(
        { ...state, creditedGrossMinorUnits: -1_400_000 },
        byLines([{ lineId: "line-park", netMinorUnits: 100_000 }]),
        NOW
      )
    )
    expect(refusal.code).toBe("BILLING_CREDIT_EXCEEDS_INVOICE")
    if (refusal._tag !== "CreditExceedsInvoice") return expect.unreachable()
    expect(refusal.requestedGrossMinorUnits).toBe(125_000)
    expect(refusal.remainingGrossMinorUnits).toBe(100_000)
  })

  describe("VALIDATION_FAILED (400) for a request that does not fit the invoice", () => {
    const cases = [
      ["no lines at all", byLines([]), "/lines"],
      ["an unknown line", byLines([{ lineId: "nope", netMinorUnits: 1 }]), "/lines/0/lineId"],
      ["a line twice", byLines([{ lineId: "line-rent", netMinorUnits: 1 }, { lineId: "line-rent", netMinorUnits: 1 }]), "/lines/1/lineId"],
      ["a zero amount", byLines([{ lineId: "line-rent", netMinorUnits: 0 }]), "/lines/0/netMinorUnits"],
      ["a manual line not above zero", byLines([], [{ description: "x", netMinorUnits: 0, vatRateBasisPoints: 2500 }]), "/manualLines/0/netMinorUnits"],
      ["an empty reason", { ...full, reason: "" }, "/reason"]
    ] as const
    for (const [name, command, path] of cases) {
      it(`refuses ${name} at ${path}`, () => {
        const refusal = getLeft(credit(state, command, NOW))
        expect(refusal.code).toBe("VALIDATION_FAILED")
        if (refusal._tag !== "FieldsInvalid") return expect.unreachable()
        expect(refusal.issues.map((issue) => issue.path)).toContain(path)
      })
    }
  })
})

describe("Crediting.credit: what can be credited", () => {
  for (const status of INVOICE_STATUSES.filter((status) => !["sent", "paid", "written-off"].includes(status))) {
    it(`refuses a ${status} invoice with BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE (400)`, () => {
      const refusal = getLeft(credit({ ...state, invoice: { ...invoice, status } }, full, NOW))
      expect(refusal.code).toBe("BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE")
      if (refusal._tag !== "CreditNoteInvoiceNotCreditable") return expect.unreachable()
      expect(refusal.problem).toBe("status")
    })
  }

  it("refuses a credit note with BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE (400)", () => {
    const refusal = getLeft(credit({ ...state, invoice: aSentCreditNote() }, full, NOW))
    expect(refusal.code).toBe("BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE")
  })
})

describe("Crediting.credit is idempotent by creditActId", () => {
  const made = getRight(credit(state, full, NOW))
  const earlierAct = { creditActId: full.creditActId, request: full, creditNote: made.creditNote }

  it("answers the credit note the same act made, and changes nothing", () => {
    const outcome = getRight(credit({ ...state, earlierAct }, { ...full, creditNoteId: "other", invoiceNumber: 1 }, NOW))
    expect(outcome.replayed).toBe(true)
    expect(outcome.creditNote).toBe(made.creditNote)
    expect(outcome.events).toStrictEqual([])
  })

  for (const [name, changed] of [
    ["another reason", { reason: "Other" }],
    ["another date", { invoiceDate: "2025-03-15" }],
    ["another scope", { scope: { kind: "lines", lines: [{ lineId: "line-rent", netMinorUnits: 1 }], manualLines: [] } }],
    ["another invoice", { invoiceId: "another-invoice" }]
  ] as const) {
    it(`refuses the same id with ${name} with BILLING_CREDIT_ACT_REPLAY_MISMATCH (409)`, () => {
      const refusal = getLeft(credit({ ...state, earlierAct }, { ...full, ...changed }, NOW))
      expect(refusal.code).toBe("BILLING_CREDIT_ACT_REPLAY_MISMATCH")
      expect(refusal.status).toBe(409)
    })
  }
})
