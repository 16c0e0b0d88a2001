import { describe, expect, it } from "@effect/vitest"
import {
  isKid,
  isLuhnValid,
  isMod11Valid,
  isOcr,
  luhnCheckDigit,
  mod11CheckValue,
  paymentReferenceProblem
} from "../src/PaymentReference.js"

// Published numbers, each with where it was published:
// - 79927398713: the Luhn algorithm's worked example (Wikipedia, "Luhn algorithm"); 79927398710 is its payload
//   with a wrong check digit.
// - 5368235896831135: a worked MasterCard check-digit example (callrid.com, "Check Credit Card Digit").
// - 612481: IBM's "Modulus 10 self-check digit" example, base 61248, check digit 1.
// - 8112189876: Skatteverket's example personal identity number 811218-9876 (Luhn, the same 10-modulus Bankgirot
//   uses for OCR references).
// - 602243: Monitor ERP's KID example, invoice number 60224 with MOD10 check digit 3.
// - 137391: IBM's "Modulus 11 self-check digit" example, base 13739, weights 2..7 from the right, check digit 1.
const LUHN_VALID = ["79927398713", "5368235896831135", "612481", "8112189876", "602243"]
const LUHN_INVALID = ["79927398710", "5368235896831136", "612480", "8112189875", "602244"]

describe("luhnCheckDigit / isLuhnValid (MOD10)", () => {
  it("computes the published check digits", () => {
    expect(luhnCheckDigit("7992739871")).toBe(3)
    expect(luhnCheckDigit("61248")).toBe(1)
    expect(luhnCheckDigit("60224")).toBe(3)
    expect(luhnCheckDigit("811218987")).toBe(6)
  })

  for (const value of LUHN_VALID) {
    it(`accepts ${value}`, () => expect(isLuhnValid(value)).toBe(true))
  }
  for (const value of LUHN_INVALID) {
    it(`refuses ${value} (wrong check digit)`, () => expect(isLuhnValid(value)).toBe(false))
  }

  it("refuses non-digits and a lone digit", () => {
    for (const value of ["", "0", "7992 7398 713", "7992739871a", "٧٩"]) expect(isLuhnValid(value)).toBe(false)
  })

  it("detects every single-digit error of a valid number", () => {
    for (const valid of LUHN_VALID) {
      for (let position = 0; position < valid.length; position++) {
        for (let digit = 0; digit <= 9; digit++) {
          if (String(digit) === valid[position]) continue
          const changed = valid.slice(0, position) + String(digit) + valid.slice(position + 1)
          expect(isLuhnValid(changed)).toBe(false)
        }
      }
    }
  })
})

describe("mod11CheckValue / isMod11Valid (MOD11, weights 2-7 from the right)", () => {
  it("computes IBM's published check digit: 13739 → 1", () => {
    expect(mod11CheckValue("13739")).toBe(1)
    expect(isMod11Valid("137391")).toBe(true)
  })

  it("gives 0 when the sum is a multiple of 11, and 10 (written '-') when 11 − remainder is 10", () => {
    // 2·2 + 1·3 = 7 → 11 − 7 = 4; 2·3 + 3·2 = 12 → 12 mod 11 = 1 → 10
    expect(mod11CheckValue("12")).toBe(4)
    expect(mod11CheckValue("23")).toBe(10)
    expect(isMod11Valid("23-")).toBe(true)
    expect(isMod11Valid("230")).toBe(false)
    // a weighted sum of 0 (a multiple of 11): 11 − 0 = 11, written 0
    expect(mod11CheckValue("0")).toBe(0)
  })

  it("refuses a wrong MOD11 check digit", () => {
    for (const value of ["137390", "137392", "23-0", "-", "1a1"]) expect(isMod11Valid(value)).toBe(false)
  })
})

describe("OCR references (Bankgirot: digits, last one a MOD10 check digit; 2 to 25 digits)", () => {
  for (const value of LUHN_VALID) {
    it(`accepts ${value}`, () => {
      expect(isOcr(value)).toBe(true)
      expect(paymentReferenceProblem("ocr", value)).toBeUndefined()
    })
  }
  for (const value of LUHN_INVALID) {
    it(`refuses ${value} for its check digit`, () => {
      expect(isOcr(value)).toBe(false)
      expect(paymentReferenceProblem("ocr", value)).toMatch(/check digit/)
    })
  }

  it("refuses a MOD11-only number: OCR is MOD10", () => expect(isOcr("137391")).toBe(false))

  it("refuses anything but digits", () => {
    for (const value of ["", "1234-5", " 79927398713", "79927398713 ", "23-", "０１"]) {
      expect(paymentReferenceProblem("ocr", value)).toBe("An OCR reference is digits only.")
    }
  })

  it("refuses a reference longer than 25 digits, and a lone digit", () => {
    const long = "1".repeat(25)
    const longValid = long + String(luhnCheckDigit(long))
    expect(paymentReferenceProblem("ocr", longValid)).toMatch(/2 to 25/)
    expect(paymentReferenceProblem("ocr", "0")).toMatch(/2 to 25/)
    const longest = "1".repeat(24)
    expect(isOcr(longest + String(luhnCheckDigit(longest)))).toBe(true)
  })
})

describe("KID (Nets: digits with a MOD10 or MOD11 check character; 2 to 25 characters)", () => {
  it("accepts the MOD10 examples", () => {
    for (const value of LUHN_VALID) expect(isKid(value)).toBe(true)
  })

  it("accepts IBM's MOD11 example 137391, which MOD10 refuses", () => {
    expect(isLuhnValid("137391")).toBe(false)
    expect(isKid("137391")).toBe(true)
  })

  it("accepts a MOD11 KID ending in '-' (check value 10)", () => expect(isKid("23-")).toBe(true))

  it("refuses a number wrong by both MOD10 and MOD11", () => {
    for (const value of ["79927398710", "602244", "137390", "24-"]) {
      expect(isKid(value)).toBe(false)
      expect(paymentReferenceProblem("kid", value)).toMatch(/MOD10 and MOD11/)
    }
  })

  it("refuses letters, inner dashes, a lone dash and spaces", () => {
    for (const value of ["", "-", "12-3", "KID123", "602 243"]) {
      expect(paymentReferenceProblem("kid", value)).toMatch(/digits only/)
    }
  })

  it("refuses more than 25 characters", () => {
    const long = "1".repeat(25)
    expect(paymentReferenceProblem("kid", long + String(luhnCheckDigit(long)))).toMatch(/2 to 25/)
  })
})

describe("free references", () => {
  it("accepts any text of 1 to 200 characters", () => {
    expect(paymentReferenceProblem("reference", "Faktura 2025-0042 / Ångström")).toBeUndefined()
    expect(paymentReferenceProblem("reference", "😀".repeat(200))).toBeUndefined()
  })

  it("refuses empty text and text over 200 characters", () => {
    expect(paymentReferenceProblem("reference", "")).toMatch(/1 to 200/)
    expect(paymentReferenceProblem("reference", "x".repeat(201))).toMatch(/1 to 200/)
  })
})
