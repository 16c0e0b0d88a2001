import { describe, expect, it } from "@effect/vitest"
import {
  addDays,
  calendarMonthOf,
  type ContractMaterial,
  draftCreditNote,
  draftDocuments,
  dueDateFor
} from "../src/InvoiceRun.js"
import { lineTotals, vatRatesFor } from "../src/Money.js"
import { getLeft, getRight } from "./fixtures.js"

const office: ContractMaterial = {
  contractId: "5b0c7f0e-8c1d-4f6a-9e2b-3d4c5e6f7a01",
  customerName: "Ångström Fastigheter AB",
  currency: "SEK",
  paymentTermsDays: 30,
  lines: [
    { description: "Kontorshyra", monthlyNetMinorUnits: 4_250_000, vatRateBasisPoints: 2500 },
    { description: "Parkering", monthlyNetMinorUnits: 120_050, vatRateBasisPoints: 2500 },
    { description: "Lokalhyra utan moms", monthlyNetMinorUnits: 1_000_000, vatRateBasisPoints: 0 },
    { description: "Konferenspaket", monthlyNetMinorUnits: 33_333, vatRateBasisPoints: 600 }
  ]
}

const coworking: ContractMaterial = {
  contractId: "5b0c7f0e-8c1d-4f6a-9e2b-3d4c5e6f7a02",
  customerName: "Fjord Kontor AS",
  currency: "NOK",
  paymentTermsDays: 10,
  lines: [
    { description: "Fast plass", monthlyNetMinorUnits: 499_900, vatRateBasisPoints: 2500 },
    { description: "Kantine", monthlyNetMinorUnits: 12_345, vatRateBasisPoints: 1500 }
  ]
}

const october = { periodStart: "2026-10-01", periodEnd: "2026-10-31", invoiceDate: "2026-10-01" }

const run = (periodStart: string, periodEnd: string, invoiceDate: string, contracts: ReadonlyArray<ContractMaterial>) =>
  draftDocuments({ periodStart, periodEnd, invoiceDate, contracts })

describe("draftDocuments", () => {
  it("drafts one invoice per contract, in the order given, with the contract's material", () => {
    const documents = getRight(draftDocuments({ ...october, contracts: [office, coworking] }))
    expect(documents.map((document) => document.contractId)).toStrictEqual([office.contractId, coworking.contractId])
    const [first, second] = documents
    expect(first).toMatchObject({
      recipientAgentName: "Ångström Fastigheter AB",
      documentKind: "invoice",
      billingStream: "contractual",
      currency: "SEK",
      periodStart: "2026-10-01",
      periodEnd: "2026-10-31",
      requestedInvoiceDate: "2026-10-01",
      requestedDueDate: "2026-10-31",
      paymentTermsDays: 30
    })
    expect(second).toMatchObject({ currency: "NOK", paymentTermsDays: 10, requestedDueDate: "2026-10-11" })
  })

  it("computes each line with Money.lineTotals and numbers lines from 1", () => {
    const [document] = getRight(draftDocuments({ ...october, contracts: [office] }))
    expect(document?.lines).toStrictEqual([
      {
        position: 1,
        description: "Kontorshyra",
        netMinorUnits: 4_250_000,
        vatRateBasisPoints: 2500,
        vatMinorUnits: 1_062_500,
        grossMinorUnits: 5_312_500
      },
      {
        position: 2,
        description: "Parkering",
        netMinorUnits: 120_050,
        vatRateBasisPoints: 2500,
        vatMinorUnits: 30_013, // 30012.5 rounds away from zero
        grossMinorUnits: 150_063
      },
      {
        position: 3,
        description: "Lokalhyra utan moms",
        netMinorUnits: 1_000_000,
        vatRateBasisPoints: 0,
        vatMinorUnits: 0,
        grossMinorUnits: 1_000_000
      },
      {
        position: 4,
        description: "Konferenspaket",
        netMinorUnits: 33_333,
        vatRateBasisPoints: 600,
        vatMinorUnits: 2_000, // 1999.98
        grossMinorUnits: 35_333
      }
    ])
  })

  it("totals are the sums of the lines, and net + vat = gross on every line and in total", () => {
    for (const document of getRight(draftDocuments({ ...october, contracts: [office, coworking] }))) {
      const sum = (pick: (line: (typeof document.lines)[number]) => number) =>
        document.lines.reduce((total, line) => total + pick(line), 0)
      expect(document.totals).toStrictEqual({
        net: sum((line) => line.netMinorUnits),
        vat: sum((line) => line.vatMinorUnits),
        gross: sum((line) => line.grossMinorUnits)
      })
      for (const line of document.lines) {
        expect(line.netMinorUnits + line.vatMinorUnits).toBe(line.grossMinorUnits)
      }
      expect(document.totals.net + document.totals.vat).toBe(document.totals.gross)
    }
  })

  it("rounds VAT per line, not on the document's net total", () => {
    // Three lines of 2 öre at 25 %: 0.5 öre VAT each rounds to 1 (3 in all); on the 6-öre sum it would be 1.5 → 2.
    const contract: ContractMaterial = {
      ...office,
      lines: [1, 2, 3].map((n) => ({ description: `Rad ${n}`, monthlyNetMinorUnits: 2, vatRateBasisPoints: 2500 }))
    }
    const [document] = getRight(draftDocuments({ ...october, contracts: [contract] }))
    expect(document?.lines.map((line) => line.vatMinorUnits)).toStrictEqual([1, 1, 1])
    expect(document?.totals).toStrictEqual({ net: 6, vat: 3, gross: 9 })
  })

  it("bills every calendar month of a longer period (a quarter is three months)", () => {
    const [document] = getRight(run("2026-01-01", "2026-03-31", "2025-12-20", [coworking]))
    expect(document?.lines.map((line) => line.netMinorUnits)).toStrictEqual([1_499_700, 37_035])
    expect(document?.lines[1]?.vatMinorUnits).toBe(5_555) // 5555.25, on the quarter's net
    expect(document?.requestedDueDate).toBe("2025-12-30")
  })

  it("accepts a period over a year end and February of a common and of a leap year", () => {
    expect(getRight(run("2026-02-01", "2026-02-28", "2026-02-01", []))).toStrictEqual([])
    expect(getRight(run("2025-12-01", "2026-01-31", "2025-12-01", []))).toStrictEqual([])
    expect(getRight(run("2028-02-01", "2028-02-29", "2028-02-01", []))).toStrictEqual([])
  })

  it("drafts a contract without lines with zero totals", () => {
    const [document] = getRight(draftDocuments({ ...october, contracts: [{ ...office, lines: [] }] }))
    expect(document?.lines).toStrictEqual([])
    expect(document?.totals).toStrictEqual({ net: 0, vat: 0, gross: 0 })
  })

  describe("refuses a period that is not whole calendar months", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["2026-10-02", "2026-10-31", "starts after the 1st"],
      ["2026-10-01", "2026-10-30", "ends before the month's last day"],
      ["2028-02-01", "2028-02-28", "February 2028 has 29 days"],
      ["2026-11-01", "2026-10-31", "ends before it starts"]
    ]
    for (const [periodStart, periodEnd, why] of cases) {
      it(`${periodStart}..${periodEnd} (${why})`, () => {
        const result = draftDocuments({ periodStart, periodEnd, invoiceDate: "2026-10-01", contracts: [office] })
        expect(getLeft(result)).toMatchObject({ _tag: "PeriodInvalid", periodStart, periodEnd })
      })
    }
  })

  describe("refuses a malformed date", () => {
    const cases: ReadonlyArray<readonly [Partial<typeof october>, string]> = [
      [{ periodStart: "2026-13-01" }, "periodStart"],
      [{ periodStart: "2026-10-1" }, "periodStart"],
      [{ periodEnd: "2026-10-32" }, "periodEnd"],
      [{ periodEnd: "0000-12-31" }, "periodEnd"],
      [{ invoiceDate: "2026-02-29" }, "invoiceDate"],
      [{ invoiceDate: "2026-10-01T00:00:00Z" }, "invoiceDate"],
      [{ invoiceDate: "" }, "invoiceDate"]
    ]
    for (const [override, field] of cases) {
      it(`${JSON.stringify(override)} → DateInvalid on ${field}`, () => {
        expect(getLeft(draftDocuments({ ...october, ...override, contracts: [] }))).toMatchObject({
          _tag: "DateInvalid",
          field
        })
      })
    }
  })

  it("refuses payment terms that are not whole days ≥ 0", () => {
    for (const paymentTermsDays of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 3_000_000]) {
      const result = draftDocuments({ ...october, contracts: [{ ...office, paymentTermsDays }] })
      expect(getLeft(result)).toMatchObject({ _tag: "PaymentTermsInvalid", paymentTermsDays })
    }
  })

  it("refuses a VAT rate outside 0..10000 basis points and an amount outside the spec's bounds", () => {
    const badRate = { ...office, lines: [{ description: "x", monthlyNetMinorUnits: 100, vatRateBasisPoints: 10_001 }] }
    expect(getLeft(draftDocuments({ ...october, contracts: [badRate] }))._tag).toBe("VatRateInvalid")
    const fraction = { ...office, lines: [{ description: "x", monthlyNetMinorUnits: 0.5, vatRateBasisPoints: 2500 }] }
    expect(getLeft(draftDocuments({ ...october, contracts: [fraction] }))).toMatchObject({
      _tag: "AmountOutOfRange",
      field: "net"
    })
    const huge = {
      ...office,
      lines: [{ description: "x", monthlyNetMinorUnits: 4_503_599_627_370_495, vatRateBasisPoints: 0 }]
    }
    // 2^52 − 1: one month fits; a quarter is three times the monthly price and does not.
    expect(getRight(draftDocuments({ ...october, contracts: [huge] }))).toHaveLength(1)
    expect(getLeft(run("2026-10-01", "2026-12-31", "2026-10-01", [huge]))).toMatchObject({
      _tag: "AmountOutOfRange",
      field: "net"
    })
  })
})

describe("dueDateFor (invoice date + payment terms, calendar days)", () => {
  // [invoice date, terms, due date, why]
  const cases: ReadonlyArray<readonly [string, number, string, string]> = [
    ["2026-10-01", 30, "2026-10-31", "within a month"],
    ["2026-10-01", 0, "2026-10-01", "due on the invoice date"],
    ["2026-01-31", 1, "2026-02-01", "across a month end"],
    ["2026-01-31", 30, "2026-03-02", "through a 28-day February"],
    ["2028-01-31", 30, "2028-03-01", "through a 29-day February (leap year)"],
    ["2028-02-19", 10, "2028-02-29", "onto a leap day"],
    ["2028-02-29", 1, "2028-03-01", "from a leap day"],
    ["2027-02-19", 10, "2027-03-01", "no leap day in 2027"],
    ["2100-02-28", 1, "2100-03-01", "2100 is not a leap year (divisible by 100)"],
    ["2000-02-28", 1, "2000-02-29", "2000 is a leap year (divisible by 400)"],
    ["2026-12-15", 20, "2027-01-04", "across a year end"],
    ["2026-12-31", 1, "2027-01-01", "from the last day of a year"],
    ["2027-12-02", 30, "2028-01-01", "onto new year's day"],
    ["2028-01-01", 366, "2029-01-01", "a whole leap year"],
    ["2026-01-01", 365, "2027-01-01", "a whole common year"],
    ["9999-12-01", 30, "9999-12-31", "the last representable date"]
  ]
  for (const [invoiceDate, terms, due, why] of cases) {
    it(`${invoiceDate} + ${terms} days = ${due} (${why})`, () => {
      expect(getRight(dueDateFor(invoiceDate, terms))).toBe(due)
    })
  }

  it("agrees with UTC calendar arithmetic for every day of 1999 to 2031 and the usual terms", () => {
    const oracle = (date: string, days: number) =>
      new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10)
    for (let day = Date.UTC(1999, 0, 1); day <= Date.UTC(2031, 11, 31); day += 86_400_000) {
      const date = new Date(day).toISOString().slice(0, 10)
      for (const terms of [0, 10, 20, 30, 45, 60, 90, 365]) {
        expect(getRight(dueDateFor(date, terms))).toBe(oracle(date, terms))
      }
    }
  })

  it("refuses a due date after 9999-12-31 and a malformed invoice date", () => {
    expect(getLeft(dueDateFor("9999-12-31", 1))).toMatchObject({ _tag: "PaymentTermsInvalid", paymentTermsDays: 1 })
    expect(getLeft(dueDateFor("2026-01-01", Number.MAX_SAFE_INTEGER))._tag).toBe("PaymentTermsInvalid")
    expect(getLeft(dueDateFor("2026-02-30", 30))).toMatchObject({ _tag: "DateInvalid", field: "invoiceDate" })
  })
})

describe("addDays", () => {
  it("adds and subtracts calendar days", () => {
    expect(getRight(addDays("2028-03-01", -1))).toBe("2028-02-29")
    expect(getRight(addDays("2027-01-01", -1))).toBe("2026-12-31")
    expect(getRight(addDays("0001-01-01", 0))).toBe("0001-01-01")
    expect(getRight(addDays("1970-01-01", -719_162))).toBe("0001-01-01")
  })

  it("refuses a result outside 0001..9999 and a fractional day count", () => {
    expect(getLeft(addDays("0001-01-01", -1))._tag).toBe("DateInvalid")
    expect(getLeft(addDays("9999-12-31", 1))._tag).toBe("DateInvalid")
    expect(getLeft(addDays("2026-01-01", 0.5))._tag).toBe("DateInvalid")
  })
})

describe("calendarMonthOf", () => {
  const cases: ReadonlyArray<readonly [string, number, string, string]> = [
    ["2026-11-22", 0, "2026-11-01", "2026-11-30"],
    ["2026-11-22", -1, "2026-10-01", "2026-10-31"],
    ["2026-01-15", -1, "2025-12-01", "2025-12-31"],
    ["2026-12-31", 1, "2027-01-01", "2027-01-31"],
    ["2028-03-31", -1, "2028-02-01", "2028-02-29"],
    ["2027-03-31", -1, "2027-02-01", "2027-02-28"],
    ["2026-06-01", -18, "2024-12-01", "2024-12-31"]
  ]
  for (const [date, offset, periodStart, periodEnd] of cases) {
    it(`${date} ${offset >= 0 ? "+" : ""}${offset} month(s) → ${periodStart}..${periodEnd}`, () => {
      expect(getRight(calendarMonthOf(date, offset))).toStrictEqual({ periodStart, periodEnd })
    })
  }

  it("refuses a bad date and a month outside 0001..9999", () => {
    expect(getLeft(calendarMonthOf("2026-02-29"))._tag).toBe("DateInvalid")
    expect(getLeft(calendarMonthOf("0001-01-15", -1))._tag).toBe("DateInvalid")
    expect(getLeft(calendarMonthOf("9999-12-15", 1))._tag).toBe("DateInvalid")
  })
})

describe("draftCreditNote", () => {
  const [invoice] = getRight(draftDocuments({ ...october, contracts: [office] }))
  const invoiceLines = invoice?.lines ?? []

  it("negates every line exactly: net, VAT and gross, with the rates and descriptions kept", () => {
    const credit = getRight(draftCreditNote(invoiceLines, "Felaktig hyra debiterad"))
    expect(credit.documentKind).toBe("credit-note")
    expect(credit.reason).toBe("Felaktig hyra debiterad")
    expect(credit.lines).toStrictEqual(
      invoiceLines.map((line) => ({
        ...line,
        netMinorUnits: 0 - line.netMinorUnits,
        vatMinorUnits: 0 - line.vatMinorUnits,
        grossMinorUnits: 0 - line.grossMinorUnits
      }))
    )
    expect(credit.totals).toStrictEqual({
      net: -(invoice?.totals.net ?? 0),
      vat: -(invoice?.totals.vat ?? 0),
      gross: -(invoice?.totals.gross ?? 0)
    })
  })

  it("mirrors the invoice line's rounded VAT at every SE and NO rate", () => {
    for (const rate of new Set([...vatRatesFor("SE"), ...vatRatesFor("NO")])) {
      for (let net = 1; net <= 200; net++) {
        const invoiceLine = getRight(lineTotals(net, rate))
        const line = { description: "x", netMinorUnits: net, vatRateBasisPoints: rate }
        const credit = getRight(draftCreditNote([line], "r"))
        expect(credit.totals).toStrictEqual({ net: -net, vat: 0 - invoiceLine.vat, gross: -invoiceLine.gross })
      }
    }
  })

  it("credits some of the lines, renumbered from 1, and has no due date or payment terms (spec 2.1)", () => {
    const credit = getRight(draftCreditNote(invoiceLines.slice(1, 2), "Parkering ej nyttjad"))
    expect(credit.lines).toStrictEqual([
      {
        position: 1,
        description: "Parkering",
        netMinorUnits: -120_050,
        vatRateBasisPoints: 2500,
        vatMinorUnits: -30_013,
        grossMinorUnits: -150_063
      }
    ])
    expect(credit).not.toHaveProperty("requestedDueDate")
    expect(credit).not.toHaveProperty("paymentTermsDays")
  })

  it("turns a discount line positive and keeps a zero line zero (never −0)", () => {
    const credit = getRight(
      draftCreditNote(
        [
          { description: "Hyra", netMinorUnits: 10_000, vatRateBasisPoints: 2500 },
          { description: "Rabatt", netMinorUnits: -1_000, vatRateBasisPoints: 2500 },
          { description: "Gratis", netMinorUnits: 0, vatRateBasisPoints: 2500 }
        ],
        "Avtalet hävt"
      )
    )
    expect(credit.lines.map((line) => line.grossMinorUnits)).toStrictEqual([-12_500, 1_250, 0])
    expect(Object.is(credit.lines[2]?.netMinorUnits, -0)).toBe(false)
    expect(credit.totals).toStrictEqual({ net: -9_000, vat: -2_250, gross: -11_250 })
  })

  describe("refuses", () => {
    const line = { description: "Hyra", netMinorUnits: 10_000, vatRateBasisPoints: 2500 }
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<typeof line>, string, string]> = [
      ["no lines", [], "r", "no-lines"],
      ["an empty reason", [line], "", "reason-length"],
      ["a reason of 1001 characters", [line], "å".repeat(1001), "reason-length"],
      ["a credit that is not negative (a discount)", [{ ...line, netMinorUnits: -10_000 }], "r", "total-not-negative"],
      ["a credit of zero", [{ ...line, netMinorUnits: 0 }], "r", "total-not-negative"]
    ]
    for (const [why, lines, reason, problem] of cases) {
      it(why, () => {
        expect(getLeft(draftCreditNote(lines, reason))).toMatchObject({ _tag: "CreditNoteInvalid", problem })
      })
    }

    it("a reason of 1000 characters is accepted", () => {
      expect(getRight(draftCreditNote([line], "å".repeat(1000))).reason).toHaveLength(1000)
    })

    it("a VAT rate outside 0..10000", () => {
      expect(getLeft(draftCreditNote([{ ...line, vatRateBasisPoints: -1 }], "r"))._tag).toBe("VatRateInvalid")
    })
  })
})
