/**
 * Organisation numbers of the Nordic company registers and their check digits, for
 * `POST /v1/booking/company-lookups` and a booking request's guest company (decisions.md section 7: "Company
 * lookup validates the organisation number's checksum"):
 *
 * - SE, organisationsnummer (Bolagsverket): 10 digits, written `NNNNNN-NNNN`; the last is a Luhn (mod 10) check
 *   digit over the other nine. A 12-digit form with the century prefix `16` is accepted.
 * - NO, organisasjonsnummer (Brønnøysundregistrene): 9 digits; the last is a mod 11 check digit with weights
 *   3 2 7 6 5 4 3 2 (a remainder giving 10 is never issued).
 * - FI, Y-tunnus (PRH/YTJ): 7 digits, `-`, and a mod 11 check digit with weights 7 9 10 5 8 4 2 (remainder 1
 *   is never issued); written `NNNNNNN-N`.
 * - DK, CVR-nummer (Erhvervsstyrelsen): 8 digits whose weighted sum with weights 2 7 6 5 4 3 2 1 is divisible by 11.
 *
 * Spaces, hyphens and dots are ignored on input; the canonical form is given back.
 *
 * @since 0.1.0
 */
import { Either } from "effect"

/**
 * A country whose organisation numbers this module checks.
 *
 * @since 0.1.0
 */
export type RegistryCountry = "SE" | "NO" | "FI" | "DK"

/**
 * Every checked country.
 *
 * @since 0.1.0
 */
export const REGISTRY_COUNTRIES: ReadonlyArray<RegistryCountry> = ["SE", "NO", "FI", "DK"]

/**
 * Why an organisation number is not valid: `message` is a sentence for a `VALIDATION_FAILED` issue.
 *
 * @since 0.1.0
 */
export interface OrganisationNumberProblem {
  readonly message: string
}

const weightedSum = (digits: ReadonlyArray<number>, weights: ReadonlyArray<number>): number =>
  weights.reduce((sum, weight, index) => sum + weight * (digits[index] ?? 0), 0)

/**
 * The Luhn check digit of `digits` (the digit that makes the whole pass mod 10).
 *
 * @since 0.1.0
 */
export const luhnCheckDigit = (digits: ReadonlyArray<number>): number => {
  let sum = 0
  for (let index = 0; index < digits.length; index++) {
    // Doubling starts from the rightmost digit of the payload, which sits next to the check digit.
    const digit = digits[digits.length - 1 - index] ?? 0
    const value = index % 2 === 0 ? digit * 2 : digit
    sum += value > 9 ? value - 9 : value
  }
  return (10 - (sum % 10)) % 10
}

const checkSwedish = (digits: ReadonlyArray<number>): boolean =>
  luhnCheckDigit(digits.slice(0, 9)) === digits[9]

/**
 * The MOD11 check digit of a Norwegian organisasjonsnummer's first eight `digits` (weights 3, 2, 7, 6, 5, 4, 3, 2);
 * `undefined` when the remainder leaves 10, a number Brønnøysundregistrene never issues.
 *
 * @since 0.2.0
 */
export const norwegianCheckDigit = (digits: ReadonlyArray<number>): number | undefined => {
  const remainder = weightedSum(digits, [3, 2, 7, 6, 5, 4, 3, 2]) % 11
  const check = remainder === 0 ? 0 : 11 - remainder
  return check === 10 ? undefined : check
}

const checkNorwegian = (digits: ReadonlyArray<number>): boolean => {
  const check = norwegianCheckDigit(digits.slice(0, 8))
  return check !== undefined && check === digits[8]
}

const checkFinnish = (digits: ReadonlyArray<number>): boolean => {
  const remainder = weightedSum(digits, [7, 9, 10, 5, 8, 4, 2]) % 11
  if (remainder === 1) return false
  return (remainder === 0 ? 0 : 11 - remainder) === digits[7]
}

const checkDanish = (digits: ReadonlyArray<number>): boolean => weightedSum(digits, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0

interface Format {
  readonly lengths: ReadonlyArray<number>
  readonly check: (digits: ReadonlyArray<number>) => boolean
  readonly canonical: (digits: string) => string
  readonly name: string
}

const formats: { readonly [Country in RegistryCountry]: Format } = {
  SE: {
    lengths: [10],
    check: checkSwedish,
    canonical: (digits) => `${digits.slice(0, 6)}-${digits.slice(6)}`,
    name: "a Swedish organisation number has 10 digits (NNNNNN-NNNN)"
  },
  NO: {
    lengths: [9],
    check: checkNorwegian,
    canonical: (digits) => digits,
    name: "a Norwegian organisation number has 9 digits"
  },
  FI: {
    lengths: [8],
    check: checkFinnish,
    canonical: (digits) => `${digits.slice(0, 7)}-${digits.slice(7)}`,
    name: "a Finnish business id has 7 digits and a check digit (NNNNNNN-N)"
  },
  DK: {
    lengths: [8],
    check: checkDanish,
    canonical: (digits) => digits,
    name: "a Danish CVR number has 8 digits"
  }
}

/**
 * Checks an organisation number of `country` and gives its canonical form (SE `NNNNNN-NNNN`, NO 9 digits,
 * FI `NNNNNNN-N`, DK 8 digits), or the problem: not digits of the country's length, or a wrong check digit.
 *
 * @since 0.1.0
 */
export const parseOrganisationNumber = (
  country: RegistryCountry,
  input: string
): Either.Either<string, OrganisationNumberProblem> => {
  const format = formats[country]
  let digits = input.replace(/[\s.-]/g, "")
  if (country === "SE" && digits.length === 12 && digits.startsWith("16")) digits = digits.slice(2)
  if (!/^\d+$/.test(digits) || !format.lengths.includes(digits.length)) {
    return Either.left({ message: `${format.name}` })
  }
  const numbers = [...digits].map(Number)
  return format.check(numbers)
    ? Either.right(format.canonical(digits))
    : Either.left({ message: "the check digit does not match the organisation number" })
}
