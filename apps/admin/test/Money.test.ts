/** Money's ISO value (issue 25: the value on hover beside the locale's text) and the locale's text it goes with. */
import { describe, expect, it } from "vitest"
import { currencyExponent, decimalAmount, isoMoney } from "../src/Money.js"
import { money, setLocale } from "../src/web/format.js"

describe("isoMoney", () => {
  it.each([
    [758250, "SEK", "7582.50 SEK"],
    [5, "SEK", "0.05 SEK"],
    [100, "NOK", "1.00 NOK"],
    [0, "EUR", "0.00 EUR"],
    [-1200, "NOK", "-12.00 NOK"],
    [-5, "EUR", "-0.05 EUR"],
    [1200, "JPY", "1200 JPY"],
    [1500, "ISK", "1500 ISK"],
    [1234, "KWD", "1.234 KWD"],
    [123456789012, "SEK", "1234567890.12 SEK"]
  ] as const)("%i %s minor units → %s", (minorUnits, currency, expected) => {
    expect(isoMoney(minorUnits, currency)).toBe(expected)
  })

  it("takes each currency's exponent", () => {
    expect([currencyExponent("SEK"), currencyExponent("JPY"), currencyExponent("KWD")]).toEqual([2, 0, 3])
    expect(decimalAmount(7, "KWD")).toBe("0.007")
  })

  it("refuses a code that is no currency code", () => {
    expect(() => isoMoney(100, "kronor")).toThrow(RangeError)
  })
})

describe("money", () => {
  // Intl separates with no-break spaces; compared with plain ones.
  const plain = (text: string) => text.replace(/\s/g, " ")

  it("writes the same amount as the ISO value, in the organization's locale", () => {
    setLocale("en-GB")
    expect(plain(money(758250, "SEK"))).toBe("SEK 7,582.50")
    setLocale("sv-SE")
    expect(plain(money(758250, "SEK"))).toBe("7 582,50 kr")
    setLocale("en-GB")
    expect(plain(money(1200, "JPY"))).toBe("JP¥1,200")
  })
})
