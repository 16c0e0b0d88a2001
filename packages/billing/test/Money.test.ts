import { describe, expect, it } from "@effect/vitest"
import {
  isSafeMinorUnits,
  isVatRateAllowed,
  lineTotals,
  MAX_MINOR_UNITS,
  MIN_MINOR_UNITS,
  sumTotals,
  vatRatesFor
} from "../src/Money.js"
import { getLeft, getRight } from "./fixtures.js"

describe("lineTotals (VAT in minor units, halves away from zero)", () => {
  // [net, rate in basis points, expected vat, why]
  const cases: ReadonlyArray<readonly [number, number, number, string]> = [
    [100_000, 2500, 25_000, "25 % of 1000.00"],
    [19_999, 2500, 5_000, "4999.75 rounds up"],
    [1, 2500, 0, "0.25 rounds down"],
    [-1, 2500, 0, "−0.25 rounds toward zero"],
    [2, 2500, 1, "0.5 (a half) rounds away from zero, up"],
    [-2, 2500, -1, "−0.5 (a half) rounds away from zero, down"],
    [6, 2500, 2, "1.5 rounds to 2, not to even"],
    [-6, 2500, -2, "−1.5 rounds to −2, not to even"],
    [10, 2500, 3, "2.5 rounds to 3, not to even"],
    [-10, 2500, -3, "−2.5 rounds to −3"],
    [25, 600, 2, "1.5 at 6 %"],
    [-25, 600, -2, "−1.5 at 6 %"],
    [9, 600, 1, "0.54 rounds up"],
    [10, 1200, 1, "1.2 rounds down"],
    [-10, 1200, -1, "−1.2 rounds toward zero"],
    [12_345, 1200, 1_481, "1481.4 rounds down"],
    [-12_345, 1200, -1_481, "credit note of the same line"],
    [7, 1500, 1, "1.05 rounds down"],
    [10, 1500, 2, "1.5 at 15 % rounds up"],
    [-10, 1500, -2, "−1.5 at 15 % rounds down"],
    [123_456, 0, 0, "zero rate"],
    [123_456, 10_000, 123_456, "100 %"]
  ]

  for (const [net, rate, vat, why] of cases) {
    it(`net ${net} at ${rate} bp: vat ${vat}, gross ${net + vat} (${why})`, () => {
      expect(getRight(lineTotals(net, rate))).toStrictEqual({ net, vat, gross: net + vat })
    })
  }

  it("never answers negative zero", () => {
    for (const net of [0, -0, -1, 1]) {
      const totals = getRight(lineTotals(net, 2500))
      expect(Object.is(totals.vat, -0)).toBe(false)
      expect(Object.is(totals.gross, -0)).toBe(false)
    }
  })

  it("gives a credit line exactly the negative of its invoice line, at every SE and NO rate", () => {
    for (const rate of new Set([...vatRatesFor("SE"), ...vatRatesFor("NO")])) {
      for (let net = 0; net <= 400; net++) {
        const invoiceLine = getRight(lineTotals(net, rate))
        const creditLine = getRight(lineTotals(-net, rate))
        expect(creditLine.vat + invoiceLine.vat).toBe(0)
        expect(creditLine.gross + invoiceLine.gross).toBe(0)
        expect(invoiceLine.gross).toBe(invoiceLine.net + invoiceLine.vat)
        expect(Math.abs(invoiceLine.vat * 10_000 - net * rate)).toBeLessThanOrEqual(5_000)
      }
    }
  })

  it("computes exactly where floating point would not (net 2^52 + 1 at 25 %)", () => {
    // 4503599627370497 × 0.25 = 1125899906842624.25; in doubles, net × 2500 is already rounded.
    expect(getRight(lineTotals(4_503_599_627_370_497, 2500))).toStrictEqual({
      net: 4_503_599_627_370_497,
      vat: 1_125_899_906_842_624,
      gross: 5_629_499_534_213_121
    })
  })

  it("rounds an exact half away from zero at large amounts too", () => {
    expect(getRight(lineTotals(4_503_599_627_370_498, 2500)).vat).toBe(1_125_899_906_842_625)
    expect(getRight(lineTotals(-4_503_599_627_370_498, 2500)).vat).toBe(-1_125_899_906_842_625)
  })

  it("accepts the largest and smallest amounts at 0 %", () => {
    expect(getRight(lineTotals(MAX_MINOR_UNITS, 0))).toStrictEqual({ net: MAX_MINOR_UNITS, vat: 0, gross: MAX_MINOR_UNITS })
    expect(getRight(lineTotals(MIN_MINOR_UNITS, 0))).toStrictEqual({ net: MIN_MINOR_UNITS, vat: 0, gross: MIN_MINOR_UNITS })
  })

  it("refuses a gross beyond ±9007199254740991 with AmountOutOfRange (gross)", () => {
    expect(getLeft(lineTotals(MAX_MINOR_UNITS, 2500))).toMatchObject({ _tag: "AmountOutOfRange", field: "gross" })
    expect(getLeft(lineTotals(MIN_MINOR_UNITS, 2500))).toMatchObject({ _tag: "AmountOutOfRange", field: "gross" })
  })

  for (const net of [0.5, -1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_MINOR_UNITS + 1, MIN_MINOR_UNITS - 1]) {
    it(`refuses net ${net} with AmountOutOfRange (net)`, () => {
      expect(getLeft(lineTotals(net, 2500))).toMatchObject({ _tag: "AmountOutOfRange", field: "net" })
    })
  }

  for (const rate of [-1, 10_001, 12.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses a VAT rate of ${rate} bp with VatRateInvalid`, () => {
      expect(getLeft(lineTotals(100, rate))).toMatchObject({ _tag: "VatRateInvalid", vatRateBasisPoints: rate })
    })
  }
})

describe("sumTotals (document totals)", () => {
  it("sums no lines to zeros", () => {
    expect(getRight(sumTotals([]))).toStrictEqual({ net: 0, vat: 0, gross: 0 })
  })

  it("sums each of net, vat and gross", () => {
    const lines = [
      getRight(lineTotals(100_000, 2500)),
      getRight(lineTotals(33_333, 1200)),
      getRight(lineTotals(-5_000, 600))
    ]
    expect(getRight(sumTotals(lines))).toStrictEqual({
      net: 100_000 + 33_333 - 5_000,
      vat: 25_000 + 4_000 - 300,
      gross: 125_000 + 37_333 - 5_300
    })
  })

  it("sums a credit note's lines to negative totals", () => {
    const lines = [getRight(lineTotals(-2, 2500)), getRight(lineTotals(-6, 2500))]
    expect(getRight(sumTotals(lines))).toStrictEqual({ net: -8, vat: -3, gross: -11 })
  })

  it("sums exactly even when an intermediate sum leaves the safe range", () => {
    const big = { net: MAX_MINOR_UNITS, vat: 0, gross: MAX_MINOR_UNITS }
    const back = { net: -MAX_MINOR_UNITS, vat: 0, gross: -MAX_MINOR_UNITS }
    expect(getRight(sumTotals([big, { net: 1, vat: 0, gross: 1 }, back]))).toStrictEqual({ net: 1, vat: 0, gross: 1 })
  })

  it("refuses a sum beyond ±9007199254740991 with AmountOutOfRange", () => {
    const line = { net: MAX_MINOR_UNITS, vat: 0, gross: MAX_MINOR_UNITS }
    expect(getLeft(sumTotals([line, { net: 1, vat: 0, gross: 1 }]))).toMatchObject({
      _tag: "AmountOutOfRange",
      field: "net"
    })
  })

  for (const field of ["net", "vat", "gross"] as const) {
    it(`refuses a line whose ${field} is not a safe integer with AmountOutOfRange (${field})`, () => {
      const line = { net: 1, vat: 0, gross: 1, [field]: 0.5 }
      expect(getLeft(sumTotals([line]))).toMatchObject({ _tag: "AmountOutOfRange", field })
    })
  }
})

describe("vatRatesFor (allowed rates in basis points)", () => {
  it("gives Sweden 25 %, 12 %, 6 % and 0 %", () => {
    expect(vatRatesFor("SE")).toStrictEqual([2500, 1200, 600, 0])
  })

  it("gives Norway 25 %, 15 %, 12 % and 0 %", () => {
    expect(vatRatesFor("NO")).toStrictEqual([2500, 1500, 1200, 0])
  })

  it("isVatRateAllowed follows the country's list", () => {
    expect(isVatRateAllowed("SE", 600)).toBe(true)
    expect(isVatRateAllowed("SE", 1500)).toBe(false)
    expect(isVatRateAllowed("NO", 1500)).toBe(true)
    expect(isVatRateAllowed("NO", 600)).toBe(false)
    expect(isVatRateAllowed("NO", 25)).toBe(false)
  })
})

describe("isSafeMinorUnits (spec 8: integers within ±9007199254740991)", () => {
  for (const value of [0, 1, -1, 125_000, MAX_MINOR_UNITS, MIN_MINOR_UNITS]) {
    it(`accepts ${value}`, () => {
      expect(isSafeMinorUnits(value)).toBe(true)
    })
  }

  for (const value of [0.5, -0.01, MAX_MINOR_UNITS + 1, MIN_MINOR_UNITS - 1, Number.NaN, Infinity, "100", 100n, null]) {
    it(`refuses ${String(value)} (${typeof value})`, () => {
      expect(isSafeMinorUnits(value)).toBe(false)
    })
  }

  it("has the bounds of spec section 8", () => {
    expect(MAX_MINOR_UNITS).toBe(9007199254740991)
    expect(MIN_MINOR_UNITS).toBe(-9007199254740991)
  })
})
