import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  luhnCheckDigit,
  norwegianCheckDigit,
  parseOrganisationNumber,
  type RegistryCountry
} from "../src/OrganisationNumber.js"

// Numbers of real, registered companies (public registers), in the forms people type them.
const valid: ReadonlyArray<readonly [RegistryCountry, string, string, string]> = [
  ["SE", "556036-0793", "556036-0793", "Swedish, with hyphen"],
  ["SE", "5560125790", "556012-5790", "Swedish, digits only (AB Volvo)"],
  ["SE", "16556012-5790", "556012-5790", "Swedish, with the 16 century prefix"],
  ["SE", " 556012 5790 ", "556012-5790", "Swedish, with spaces"],
  ["NO", "923609016", "923609016", "Norwegian (Equinor)"],
  ["NO", "974 760 673", "974760673", "Norwegian, grouped (Brønnøysundregistrene)"],
  ["FI", "0112038-9", "0112038-9", "Finnish (Nokia)"],
  ["FI", "15728600", "1572860-0", "Finnish, without hyphen"],
  ["DK", "24256790", "24256790", "Danish (Novo Nordisk)"],
  ["DK", "61 05 64 16", "61056416", "Danish, grouped"]
]

const invalid: ReadonlyArray<readonly [RegistryCountry, string, string]> = [
  ["SE", "556012-5791", "wrong Luhn digit"],
  ["SE", "556012-579", "nine digits"],
  ["SE", "556012-57900", "eleven digits"],
  ["SE", "17556012-5790", "12 digits without the 16 prefix"],
  ["SE", "55601A-5790", "a letter"],
  ["NO", "923609017", "wrong mod 11 digit"],
  ["NO", "92360901", "eight digits"],
  ["NO", "400000000", "a remainder that gives check digit 10 is never issued"],
  ["FI", "0112038-8", "wrong mod 11 digit"],
  ["FI", "0009000-0", "remainder 1 is never issued"],
  ["DK", "24256791", "weighted sum not divisible by 11"],
  ["DK", "2425679", "seven digits"],
  ["DK", "", "empty"]
]

describe("parseOrganisationNumber", () => {
  for (const [country, input, canonical, why] of valid) {
    it(`accepts ${input} (${why}) as ${canonical}`, () => {
      expect(parseOrganisationNumber(country, input)).toStrictEqual(Either.right(canonical))
    })
  }
  for (const [country, input, why] of invalid) {
    it(`refuses ${country} ${JSON.stringify(input)}: ${why}`, () => {
      expect(Either.isLeft(parseOrganisationNumber(country, input))).toBe(true)
    })
  }
  it("says whether the length or the check digit is wrong", () => {
    expect(parseOrganisationNumber("SE", "123")).toStrictEqual(
      Either.left({ message: "a Swedish organisation number has 10 digits (NNNNNN-NNNN)" })
    )
    expect(parseOrganisationNumber("NO", "923609017")).toStrictEqual(
      Either.left({ message: "the check digit does not match the organisation number" })
    )
  })
  it("finds every single-digit error in a Swedish number (Luhn's guarantee)", () => {
    const digits = "5560125790"
    for (let position = 0; position < digits.length; position++) {
      for (let digit = 0; digit <= 9; digit++) {
        if (String(digit) === digits[position]) continue
        const typo = digits.slice(0, position) + digit + digits.slice(position + 1)
        expect(Either.isLeft(parseOrganisationNumber("SE", typo))).toBe(true)
      }
    }
  })
})

describe("luhnCheckDigit", () => {
  it("gives the digit that completes a Luhn number", () => {
    expect(luhnCheckDigit([5, 5, 6, 0, 1, 2, 5, 7, 9])).toBe(0)
    expect(luhnCheckDigit([7, 9, 9, 2, 7, 3, 9, 8, 7, 1])).toBe(3)
  })
})

describe("norwegianCheckDigit", () => {
  it("gives the MOD11 digit of the first eight digits, and none when the remainder leaves 10", () => {
    expect(norwegianCheckDigit([9, 2, 3, 6, 0, 9, 0, 1])).toBe(6)
    expect(norwegianCheckDigit([0, 0, 0, 0, 0, 0, 0, 0])).toBe(0)
    expect(norwegianCheckDigit([0, 0, 0, 0, 0, 0, 0, 6])).toBeUndefined()
  })

  it("agrees with parseOrganisationNumber on every number it completes", () => {
    for (let body = 90_000_000; body < 90_000_400; body++) {
      const digits = [...String(body)].map(Number)
      const check = norwegianCheckDigit(digits)
      for (let candidate = 0; candidate <= 9; candidate++) {
        expect(Either.isRight(parseOrganisationNumber("NO", `${body}${candidate}`))).toBe(candidate === check)
      }
    }
  })
})
