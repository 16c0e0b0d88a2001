/**
 * Payment references an invoice is sent with (spec section 2.1, `paymentReference` and `paymentReferenceType`;
 * decisions.md section 5): the reference the payer quotes, so the payment finds its invoice.
 *
 * - `ocr`: a Swedish OCR reference (Bankgirot "OCR-referens"): 2 to 25 digits whose last digit is a check digit
 *   by the 10-modulus (Luhn) method.
 * - `kid`: a Norwegian KID ("kundeidentifikasjon"): 2 to 25 characters, digits, whose last character is a check
 *   digit by MOD10 (Luhn) or MOD11 (weights 2, 3, 4, 5, 6, 7 repeating from the right). When MOD11 gives 10, the
 *   check character is `-` (the banks accept it and payers type it), so a KID may end in `-`.
 * - `reference`: free text, 1 to 200 characters, no check.
 *
 * Pure string functions; the contract's request schema applies {@link paymentReferenceProblem} so a wrong check
 * digit is a `VALIDATION_FAILED` issue at `/paymentReference`.
 *
 * @since 0.1.0
 */
import type { PaymentReferenceType } from "./Invoice.js"
import { codePointLength } from "./ReasonText.js"

/**
 * Fewest characters in an OCR or KID reference, check digit included.
 *
 * @since 0.1.0
 */
export const NUMERIC_REFERENCE_MIN_LENGTH = 2

/**
 * Most characters in an OCR or KID reference, check digit included (Bankgirot and the Norwegian banks: 25).
 *
 * @since 0.1.0
 */
export const NUMERIC_REFERENCE_MAX_LENGTH = 25

/**
 * Most characters (code points) in a free `reference`.
 *
 * @since 0.1.0
 */
export const FREE_REFERENCE_MAX_LENGTH = 200

const digitsOnly = /^\d+$/

/**
 * The Luhn (MOD10) check digit of `payload`, a string of digits: from the rightmost digit leftwards, every other
 * digit doubled (starting with the rightmost), the digits of the products summed with the others; the check
 * digit brings the sum to a multiple of 10. `luhnCheckDigit("7992739871")` is 3.
 *
 * @param payload one or more ASCII digits (not checked; callers test with {@link isLuhnValid}).
 * @since 0.1.0
 */
export const luhnCheckDigit = (payload: string): number => {
  let sum = 0
  for (let index = 0; index < payload.length; index++) {
    const digit = payload.charCodeAt(payload.length - 1 - index) - 48
    if (index % 2 === 0) {
      const doubled = digit * 2
      sum += doubled > 9 ? doubled - 9 : doubled
    } else {
      sum += digit
    }
  }
  return (10 - (sum % 10)) % 10
}

/**
 * The MOD11 check value of `payload`, a string of digits: each digit from the right multiplied by 2, 3, 4, 5, 6,
 * 7, 2, 3 …; the check value is 11 − (sum mod 11), where 11 becomes 0. A result of 10 has no digit (a KID then
 * ends in `-`). `mod11CheckValue("13739")` is 1.
 *
 * @param payload one or more ASCII digits (not checked).
 * @returns 0 to 10.
 * @since 0.1.0
 */
export const mod11CheckValue = (payload: string): number => {
  let sum = 0
  for (let index = 0; index < payload.length; index++) {
    const digit = payload.charCodeAt(payload.length - 1 - index) - 48
    sum += digit * (2 + (index % 6))
  }
  return (11 - (sum % 11)) % 11
}

/**
 * Whether `value` is one or more digits whose last digit is the Luhn check digit of the others.
 *
 * @since 0.1.0
 */
export const isLuhnValid = (value: string): boolean =>
  value.length >= 2 && digitsOnly.test(value) && luhnCheckDigit(value.slice(0, -1)) === Number(value.slice(-1))

/**
 * Whether `value` is digits whose last character is the MOD11 check of the others: a digit, or `-` when the
 * check value is 10.
 *
 * @since 0.1.0
 */
export const isMod11Valid = (value: string): boolean => {
  if (value.length < 2) return false
  const payload = value.slice(0, -1)
  const check = value.slice(-1)
  if (!digitsOnly.test(payload)) return false
  const expected = mod11CheckValue(payload)
  return expected === 10 ? check === "-" : check === String(expected)
}

const lengthProblem = (value: string): string | undefined =>
  value.length < NUMERIC_REFERENCE_MIN_LENGTH || value.length > NUMERIC_REFERENCE_MAX_LENGTH
    ? `must be ${NUMERIC_REFERENCE_MIN_LENGTH} to ${NUMERIC_REFERENCE_MAX_LENGTH} characters`
    : undefined

/**
 * Whether `value` is a valid Swedish OCR reference: 2 to 25 digits, the last a Luhn check digit.
 *
 * @since 0.1.0
 */
export const isOcr = (value: string): boolean => paymentReferenceProblem("ocr", value) === undefined

/**
 * Whether `value` is a valid Norwegian KID: 2 to 25 characters, digits with a MOD10 or MOD11 check character.
 *
 * @since 0.1.0
 */
export const isKid = (value: string): boolean => paymentReferenceProblem("kid", value) === undefined

/**
 * What is wrong with `value` as a payment reference of `type`, as a sentence safe to show the client (the
 * `message` of a `VALIDATION_FAILED` issue at `/paymentReference`), or `undefined` when it is valid.
 *
 * @since 0.1.0
 */
export const paymentReferenceProblem = (type: PaymentReferenceType, value: string): string | undefined => {
  switch (type) {
    case "ocr": {
      if (!digitsOnly.test(value)) return "An OCR reference is digits only."
      const length = lengthProblem(value)
      if (length !== undefined) return `An OCR reference ${length}.`
      return isLuhnValid(value) ? undefined : "The OCR reference's check digit (MOD10) is wrong."
    }
    case "kid": {
      if (!/^\d+-?$/.test(value) || value === "-") return "A KID is digits only, its check character may be '-'."
      const length = lengthProblem(value)
      if (length !== undefined) return `A KID ${length}.`
      return isLuhnValid(value) || isMod11Valid(value)
        ? undefined
        : "The KID's check digit is wrong by both MOD10 and MOD11."
    }
    case "reference": {
      const length = codePointLength(value)
      return length >= 1 && length <= FREE_REFERENCE_MAX_LENGTH
        ? undefined
        : `A reference must be 1 to ${FREE_REFERENCE_MAX_LENGTH} characters.`
    }
  }
}
