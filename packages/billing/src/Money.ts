/**
 * Money arithmetic for invoice lines, in integer minor units (öre, øre, cent; spec section 2: "Money is an integer
 * in minor units of the record's currency"), and the VAT rates of the countries the service invoices in.
 * Computed exactly (BigInt inside), never throws: an amount outside the spec's integer bounds (section 8,
 * ±9007199254740991) or an impossible VAT rate is answered with a typed error.
 *
 * @since 0.1.0
 */
import { Data, Either } from "effect"
import { divideRoundHalfAwayFromZero } from "./internal/rounding.js"

/**
 * Largest amount a money field may hold (spec section 8): 9007199254740991 minor units.
 *
 * @since 0.1.0
 */
export const MAX_MINOR_UNITS = Number.MAX_SAFE_INTEGER

/**
 * Smallest amount a money field may hold (spec section 8): -9007199254740991 minor units.
 *
 * @since 0.1.0
 */
export const MIN_MINOR_UNITS = Number.MIN_SAFE_INTEGER

/**
 * Whether `value` is a valid money amount: an integer number of minor units within ±9007199254740991
 * (spec section 8). False for fractions, `NaN`, infinities and non-numbers.
 *
 * @since 0.1.0
 */
export const isSafeMinorUnits = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value)

/**
 * Basis points in 100 %: a VAT rate of 25 % is 2500 basis points.
 *
 * @since 0.1.0
 */
export const BASIS_POINTS_PER_WHOLE = 10_000

/**
 * The totals of one invoice line, or of a document, in integer minor units: `net` (excluding VAT), `vat`, and
 * `gross` = `net` + `vat`. Negative on a credit note.
 *
 * @since 0.1.0
 */
export interface LineTotals {
  readonly net: number
  readonly vat: number
  readonly gross: number
}

/**
 * An amount given to, or produced by, the arithmetic is not an integer within ±9007199254740991 minor units
 * (spec section 8). `field` names which: `net`, `vat` or `gross`. Not a client refusal: invoice material is
 * the service's own, so the caller treats this as a defect or a validation failure of its input.
 *
 * @since 0.1.0
 */
export class AmountOutOfRange extends Data.TaggedError("AmountOutOfRange")<{
  readonly field: "net" | "vat" | "gross"
  readonly detail: string
  readonly message: string
}> {
  constructor(args: { readonly field: "net" | "vat" | "gross" }) {
    const detail = `The ${args.field} amount is not an integer within ±${MAX_MINOR_UNITS} minor units.`
    super({ field: args.field, detail, message: detail })
  }
}

/**
 * A VAT rate is not an integer number of basis points from 0 to 10000 (0 % to 100 %).
 *
 * @since 0.1.0
 */
export class VatRateInvalid extends Data.TaggedError("VatRateInvalid")<{
  readonly vatRateBasisPoints: number
  readonly detail: string
  readonly message: string
}> {
  constructor(args: { readonly vatRateBasisPoints: number }) {
    const detail = "A VAT rate is an integer number of basis points from 0 to 10000."
    super({ vatRateBasisPoints: args.vatRateBasisPoints, detail, message: detail })
  }
}

const toSafeNumber = (
  value: bigint,
  field: "net" | "vat" | "gross"
): Either.Either<number, AmountOutOfRange> =>
  value >= BigInt(MIN_MINOR_UNITS) && value <= BigInt(MAX_MINOR_UNITS)
    ? Either.right(Number(value))
    : Either.left(new AmountOutOfRange({ field }))

/**
 * The totals of one line from its net amount and VAT rate:
 * `vat` = `net` × `vatRateBasisPoints` / 10000 rounded to the minor unit, halves away from zero (0.5 → 1,
 * −0.5 → −1, so a credit line mirrors its invoice line exactly); `gross` = `net` + `vat`.
 *
 * @param netMinorUnits integer minor units, negative on a credit note.
 * @param vatRateBasisPoints integer basis points, 0 to 10000 (2500 = 25 %); see {@link vatRatesFor}.
 * @returns `AmountOutOfRange` when `netMinorUnits`, `vat` or `gross` is not an integer within
 *   ±9007199254740991; `VatRateInvalid` for a rate that is not an integer from 0 to 10000.
 * @since 0.1.0
 */
export const lineTotals = (
  netMinorUnits: number,
  vatRateBasisPoints: number
): Either.Either<LineTotals, AmountOutOfRange | VatRateInvalid> => {
  if (!isSafeMinorUnits(netMinorUnits)) {
    return Either.left(new AmountOutOfRange({ field: "net" }))
  }
  if (
    !Number.isInteger(vatRateBasisPoints) || vatRateBasisPoints < 0 || vatRateBasisPoints > BASIS_POINTS_PER_WHOLE
  ) {
    return Either.left(new VatRateInvalid({ vatRateBasisPoints }))
  }
  const net = BigInt(netMinorUnits)
  const vat = divideRoundHalfAwayFromZero(net * BigInt(vatRateBasisPoints), BigInt(BASIS_POINTS_PER_WHOLE))
  return Either.all({
    net: toSafeNumber(net, "net"),
    vat: toSafeNumber(vat, "vat"),
    gross: toSafeNumber(net + vat, "gross")
  })
}

/**
 * The totals of a document: the sums of its lines' `net`, `vat` and `gross` (integer minor units). No lines
 * sum to zeros.
 *
 * @returns `AmountOutOfRange` when a line's amount, or a sum, is not an integer within ±9007199254740991.
 * @since 0.1.0
 */
export const sumTotals = (lines: Iterable<LineTotals>): Either.Either<LineTotals, AmountOutOfRange> => {
  let net = 0n
  let vat = 0n
  let gross = 0n
  for (const line of lines) {
    if (!isSafeMinorUnits(line.net)) return Either.left(new AmountOutOfRange({ field: "net" }))
    if (!isSafeMinorUnits(line.vat)) return Either.left(new AmountOutOfRange({ field: "vat" }))
    if (!isSafeMinorUnits(line.gross)) return Either.left(new AmountOutOfRange({ field: "gross" }))
    net += BigInt(line.net)
    vat += BigInt(line.vat)
    gross += BigInt(line.gross)
  }
  return Either.all({
    net: toSafeNumber(net, "net"),
    vat: toSafeNumber(vat, "vat"),
    gross: toSafeNumber(gross, "gross")
  })
}

/**
 * A country whose VAT rates the service knows: Sweden or Norway.
 *
 * @since 0.1.0
 */
export type VatCountry = "SE" | "NO"

const vatRates: { readonly [Country in VatCountry]: ReadonlyArray<number> } = {
  // Mervärdesskatt: standard; reduced (food, hotels); reduced (books, passenger transport, culture); zero
  SE: [2500, 1200, 600, 0],
  // Merverdiavgift: standard; reduced (food); low (passenger transport, accommodation, culture); zero
  NO: [2500, 1500, 1200, 0]
}

/**
 * The VAT rates allowed on a line invoiced in `country`, in basis points, highest first:
 * SE 2500, 1200, 600, 0; NO 2500, 1500, 1200, 0.
 *
 * @since 0.1.0
 */
export const vatRatesFor = (country: VatCountry): ReadonlyArray<number> => vatRates[country]

/**
 * Whether `vatRateBasisPoints` is one of {@link vatRatesFor}(`country`).
 *
 * @since 0.1.0
 */
export const isVatRateAllowed = (country: VatCountry, vatRateBasisPoints: number): boolean =>
  vatRates[country].includes(vatRateBasisPoints)
