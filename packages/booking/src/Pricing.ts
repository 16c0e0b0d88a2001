/**
 * Pricing of a booking (decisions.md section 7): the resource's time by its price rules, the add-on lines by
 * their products, VAT per line and per rate, and totals — every amount an integer number of minor units of the
 * resource's currency. Correct across time zones and DST changes: the booking is split at the local midnights of
 * the resource's time zone (a spring-forward day has 23 hours, a fall-back day 25) and rule windows are local
 * wall-clock times, all computed by Temporal.
 *
 * How a booked period is priced, per local day it touches (a "segment"):
 * 1. the `hour` rules of that weekday whose windows cover the whole segment give one line per rule, pro rata to
 *    the millisecond (`amount × elapsed / 1 h`, halves away from zero);
 * 2. each `session` rule whose window equals the segment, and each `half-day` or `day` rule whose window
 *    (the whole day when absent) contains the segment, gives one flat line;
 * 3. the cheapest of these (by net) prices the segment; at equal net a flat rule beats the hourly lines, and a
 *    session beats a half-day beats a day. Flat rules so act as caps on the hourly price.
 *
 * Refusals: two rules of the same unit claiming one instant of a segment (or one night) → `PriceRuleAmbiguous`
 * (`BOOKING_PRICE_RULE_AMBIGUOUS`, 400); a segment (or night) nothing prices → `PriceRuleNotApplicable`
 * (`BOOKING_PRICE_RULE_NOT_APPLICABLE`, 400). Segments are walked in time order and the first refusal is
 * answered.
 *
 * A stay is priced per night: the `night` rule of the check-in date's weekday, one line per night.
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"
import { lineTotals, type LineTotals, sumTotals } from "@propline/billing/Money"
import { Either } from "effect"
import type { AddOnLineCommand, AddOnProduct, SpecialPortion } from "./AddOnProduct.js"
import { PriceRuleAmbiguous, PriceRuleNotApplicable } from "./BookingRefusal.js"
import type { BookableResource, PriceRule, PriceUnit } from "./Resource.js"
import { minutesOfLocalTime } from "./Resource.js"
import { type Interval, overlaps } from "./internal/intervals.js"
import { proRata } from "./internal/rounding.js"
import { addDays, instantAt, localDateOf, startOfDate, weekdayOf } from "./internal/zoned.js"

const MS_PER_HOUR = 3_600_000

/**
 * A line pricing part of the resource's time: `unit` at `unitAmountMinorUnits` (per hour for `hour`, per line
 * otherwise) over `start` to `end` (`minutes` elapsed) on `localDate`; VAT at `vatRateBasisPoints`; `net`,
 * `vat`, `gross` in minor units (`gross` = `net` + `vat`).
 *
 * @since 0.1.0
 */
export interface ResourceLine {
  readonly kind: "resource"
  readonly priceRuleId: string
  readonly description: string
  readonly unit: PriceUnit
  readonly localDate: string
  readonly start: Date
  readonly end: Date
  readonly minutes: number
  readonly unitAmountMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly netMinorUnits: number
  readonly vatMinorUnits: number
  readonly grossMinorUnits: number
}

/**
 * A line pricing an add-on: `quantity` × `unitAmountMinorUnits`, delivered at `deliverAt`.
 *
 * @since 0.1.0
 */
export interface AddOnLine {
  readonly kind: "add-on"
  readonly addOnProductId: string
  readonly description: string
  readonly quantity: number
  readonly deliverAt: Date
  readonly specialPortions: ReadonlyArray<SpecialPortion>
  readonly unitAmountMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly netMinorUnits: number
  readonly vatMinorUnits: number
  readonly grossMinorUnits: number
}

/**
 * Any priced line.
 *
 * @since 0.1.0
 */
export type PricedLine = ResourceLine | AddOnLine

/**
 * The lines of one VAT rate, summed: `netMinorUnits`, `vatMinorUnits`, `grossMinorUnits`.
 *
 * @since 0.1.0
 */
export interface VatRateTotal {
  readonly vatRateBasisPoints: number
  readonly netMinorUnits: number
  readonly vatMinorUnits: number
  readonly grossMinorUnits: number
}

/**
 * A priced booking: its lines (resource lines in time order, then add-on lines in request order), the totals per
 * VAT rate (highest rate first) and the grand totals, all in minor units of `currency`. Every total is the sum of
 * the lines it covers.
 *
 * @since 0.1.0
 */
export interface PriceBreakdown {
  readonly currency: Currency
  readonly lines: ReadonlyArray<PricedLine>
  readonly vatRates: ReadonlyArray<VatRateTotal>
  readonly totalNetMinorUnits: number
  readonly totalVatMinorUnits: number
  readonly totalGrossMinorUnits: number
}

// Amounts are bounded at setup (MAX_AMOUNT_MINOR_UNITS, durations, quantities, lines) so that no priced booking
// leaves the spec's integer range; a breach is a setup defect, not a client's error.
const totalsOrDie = <E>(result: Either.Either<LineTotals, E>): LineTotals =>
  Either.getOrThrowWith(result, () => new Error("a booking amount left the spec's integer range despite setup bounds"))

interface Candidate {
  readonly lines: ReadonlyArray<ResourceLine>
  readonly net: number
  readonly rank: number
}

const RANK: { readonly [Unit in PriceUnit]: number } = { session: 0, "half-day": 1, day: 2, night: 3, hour: 4 }

const ruleWindow = (rule: PriceRule, date: string, timeZone: string): Interval => {
  const from = rule.window === undefined ? 0 : minutesOfLocalTime(rule.window.from) ?? 0
  const to = rule.window === undefined ? 1440 : minutesOfLocalTime(rule.window.to, true) ?? 1440
  return { start: instantAt(date, from, timeZone), end: instantAt(date, to, timeZone) }
}

const resourceLine = (
  rule: PriceRule,
  localDate: string,
  piece: Interval,
  netMinorUnits: number
): ResourceLine => {
  const totals = totalsOrDie(lineTotals(netMinorUnits, rule.vatRateBasisPoints))
  return {
    kind: "resource",
    priceRuleId: rule.id,
    description: rule.name,
    unit: rule.unit,
    localDate,
    start: new Date(piece.start),
    end: new Date(piece.end),
    minutes: (piece.end - piece.start) / 60_000,
    unitAmountMinorUnits: rule.amountMinorUnits,
    vatRateBasisPoints: rule.vatRateBasisPoints,
    netMinorUnits: totals.net,
    vatMinorUnits: totals.vat,
    grossMinorUnits: totals.gross
  }
}

const priceSegment = (
  resource: BookableResource,
  localDate: string,
  segment: Interval
): Either.Either<ReadonlyArray<ResourceLine>, PriceRuleAmbiguous | PriceRuleNotApplicable> => {
  const weekday = weekdayOf(localDate)
  const rules = resource.priceRules.filter((rule) => rule.unit !== "night" && rule.weekdays.includes(weekday))
  const candidates: Array<Candidate> = []

  const hourly = rules
    .filter((rule) => rule.unit === "hour")
    .map((rule) => {
      const window = ruleWindow(rule, localDate, resource.timeZone)
      const piece = { start: Math.max(window.start, segment.start), end: Math.min(window.end, segment.end) }
      return { rule, piece }
    })
    .filter(({ piece }) => piece.end > piece.start)
    .sort((a, b) => a.piece.start - b.piece.start)
  for (let i = 1; i < hourly.length; i++) {
    const previous = hourly[i - 1]
    const current = hourly[i]
    if (previous !== undefined && current !== undefined && overlaps(previous.piece, current.piece)) {
      return Either.left(ambiguous(localDate, "hour"))
    }
  }
  const covered = hourly.reduce((cursor, { piece }) => (piece.start <= cursor ? Math.max(cursor, piece.end) : cursor), segment.start)
  if (hourly.length > 0 && covered >= segment.end) {
    const lines = hourly.map(({ piece, rule }) =>
      resourceLine(rule, localDate, piece, proRata(rule.amountMinorUnits, piece.end - piece.start, MS_PER_HOUR))
    )
    candidates.push({ lines, net: lines.reduce((sum, line) => sum + line.netMinorUnits, 0), rank: RANK.hour })
  }

  for (const unit of ["session", "half-day", "day"] as const) {
    const fitting = rules.filter((rule) => {
      if (rule.unit !== unit) return false
      const window = ruleWindow(rule, localDate, resource.timeZone)
      return unit === "session"
        ? window.start === segment.start && window.end === segment.end
        : window.start <= segment.start && segment.end <= window.end
    })
    if (fitting.length > 1) return Either.left(ambiguous(localDate, unit))
    const rule = fitting[0]
    if (rule !== undefined) {
      const line = resourceLine(rule, localDate, segment, rule.amountMinorUnits)
      candidates.push({ lines: [line], net: line.netMinorUnits, rank: RANK[unit] })
    }
  }

  const best = candidates.sort((a, b) => a.net - b.net || a.rank - b.rank)[0]
  return best === undefined
    ? Either.left(
        new PriceRuleNotApplicable({ localDate, detail: `No price rule prices the booking's time on ${localDate}.` })
      )
    : Either.right(best.lines)
}

const ambiguous = (localDate: string, unit: PriceUnit): PriceRuleAmbiguous =>
  new PriceRuleAmbiguous({
    localDate,
    unit,
    detail: `Two ${unit} price rules claim the same time on ${localDate}; the price is not determined.`
  })

/**
 * The local-day segments of a period: `[start, end)` cut at every local midnight of `timeZone` between them,
 * each with its local date. Their lengths add up to the period's elapsed length, whatever DST changes it spans.
 *
 * @since 0.1.0
 */
export const localDaySegments = (
  start: Date,
  end: Date,
  timeZone: string
): ReadonlyArray<{ readonly localDate: string; readonly start: Date; readonly end: Date }> => {
  const segments: Array<{ localDate: string; start: Date; end: Date }> = []
  let cursor = start.getTime()
  while (cursor < end.getTime()) {
    const localDate = localDateOf(cursor, timeZone)
    const nextMidnight = startOfDate(addDays(localDate, 1), timeZone)
    const segmentEnd = Math.min(nextMidnight, end.getTime())
    segments.push({ localDate, start: new Date(cursor), end: new Date(segmentEnd) })
    cursor = segmentEnd
  }
  return segments
}

/**
 * Prices a booked period `[start, end)` of a resource priced by time (see the module's description). Lines come
 * in time order. Refuses with `PriceRuleAmbiguous` or `PriceRuleNotApplicable` (both 400).
 *
 * @since 0.1.0
 */
export const pricePeriod = (
  resource: BookableResource,
  start: Date,
  end: Date
): Either.Either<ReadonlyArray<ResourceLine>, PriceRuleAmbiguous | PriceRuleNotApplicable> => {
  const lines: Array<ResourceLine> = []
  for (const segment of localDaySegments(start, end, resource.timeZone)) {
    const priced = priceSegment(resource, segment.localDate, {
      start: segment.start.getTime(),
      end: segment.end.getTime()
    })
    if (Either.isLeft(priced)) return Either.left(priced.left)
    lines.push(...priced.right)
  }
  return Either.right(lines)
}

/**
 * Prices a stay of a resource priced by the night: one line per night from `checkInDate` up to `checkOutDate`,
 * each by the one `night` rule of its check-in weekday; a night line runs from that date's check-in time to the
 * next date's check-in time (the last one to the check-out time), so the lines partition the held period.
 * Refuses with `PriceRuleAmbiguous` (two night rules for one weekday) or `PriceRuleNotApplicable` (none).
 *
 * @since 0.1.0
 */
export const priceStay = (
  resource: BookableResource,
  checkInDate: string,
  checkOutDate: string
): Either.Either<ReadonlyArray<ResourceLine>, PriceRuleAmbiguous | PriceRuleNotApplicable> => {
  const stays = resource.nightStays
  const checkIn = stays === undefined ? 0 : minutesOfLocalTime(stays.checkInTime) ?? 0
  const checkOut = stays === undefined ? 0 : minutesOfLocalTime(stays.checkOutTime) ?? 0
  const lines: Array<ResourceLine> = []
  for (let date = checkInDate; date < checkOutDate; date = addDays(date, 1)) {
    const weekday = weekdayOf(date)
    const rules = resource.priceRules.filter((rule) => rule.unit === "night" && rule.weekdays.includes(weekday))
    if (rules.length > 1) return Either.left(ambiguous(date, "night"))
    const rule = rules[0]
    if (rule === undefined) {
      return Either.left(
        new PriceRuleNotApplicable({ localDate: date, detail: `No price rule prices the night of ${date}.` })
      )
    }
    const next = addDays(date, 1)
    const piece = {
      start: instantAt(date, checkIn, resource.timeZone),
      end: instantAt(next, next === checkOutDate ? checkOut : checkIn, resource.timeZone)
    }
    lines.push(resourceLine(rule, date, piece, rule.amountMinorUnits))
  }
  return Either.right(lines)
}

/**
 * Prices add-on lines: `quantity` × the product's `unitPriceMinorUnits`, VAT at the product's rate. `products`
 * must hold every line's product (the rule check has made sure).
 *
 * @since 0.1.0
 */
export const priceAddOns = (
  lines: ReadonlyArray<AddOnLineCommand>,
  products: ReadonlyMap<string, AddOnProduct>
): ReadonlyArray<AddOnLine> =>
  lines.flatMap((line) => {
    const product = products.get(line.addOnProductId)
    if (product === undefined) return []
    const totals = totalsOrDie(lineTotals(product.unitPriceMinorUnits * line.quantity, product.vatRateBasisPoints))
    return [
      {
        kind: "add-on" as const,
        addOnProductId: product.id,
        description: product.name,
        quantity: line.quantity,
        deliverAt: line.deliverAt,
        specialPortions: line.specialPortions,
        unitAmountMinorUnits: product.unitPriceMinorUnits,
        vatRateBasisPoints: product.vatRateBasisPoints,
        netMinorUnits: totals.net,
        vatMinorUnits: totals.vat,
        grossMinorUnits: totals.gross
      }
    ]
  })

const totalsOf = (lines: ReadonlyArray<PricedLine>): LineTotals =>
  totalsOrDie(
    sumTotals(lines.map((line) => ({ net: line.netMinorUnits, vat: line.vatMinorUnits, gross: line.grossMinorUnits })))
  )

/**
 * The breakdown of priced lines: the lines as given, the totals per VAT rate (highest first) and the grand totals.
 *
 * @since 0.1.0
 */
export const breakdown = (currency: Currency, lines: ReadonlyArray<PricedLine>): PriceBreakdown => {
  const rates = [...new Set(lines.map((line) => line.vatRateBasisPoints))].sort((a, b) => b - a)
  const total = totalsOf(lines)
  return {
    currency,
    lines,
    vatRates: rates.map((rate) => {
      const ofRate = totalsOf(lines.filter((line) => line.vatRateBasisPoints === rate))
      return {
        vatRateBasisPoints: rate,
        netMinorUnits: ofRate.net,
        vatMinorUnits: ofRate.vat,
        grossMinorUnits: ofRate.gross
      }
    }),
    totalNetMinorUnits: total.net,
    totalVatMinorUnits: total.vat,
    totalGrossMinorUnits: total.gross
  }
}
