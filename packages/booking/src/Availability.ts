/**
 * A resource's free time (spec section 4.2, `GET /v1/booking/resources/{resourceId}/availability`;
 * decisions.md section 7: "Availability returns free periods for a window (≤ 31 days)"), computed from the same
 * facts as the rule check (`BookingCheck.ts`), so every start time offered here passes the check's time rules.
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"
import { Either } from "effect"
import type { AddOnLineCommand } from "./AddOnProduct.js"
import { type BookingState, checkBooking } from "./BookingCheck.js"
import { MAX_PRICED_STARTS, QueryTooLarge } from "./BookingRefusal.js"
import type { BookableResource } from "./Resource.js"
import { type Interval, clip, subtract, within } from "./internal/intervals.js"
import { earliestStart, horizonEnd, keptOutBy, openWithin } from "./internal/timeline.js"
import {
  addDays,
  datesFromTo,
  instantsReading,
  localDateOf,
  localMinuteOf,
  minutesMs,
  startOfDate
} from "./internal/zoned.js"

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Longest availability window: 31 days.
 *
 * @since 0.1.0
 */
export const MAX_AVAILABILITY_WINDOW_DAYS = 31

/**
 * A window of time, `from` up to `to` (instants).
 *
 * @since 0.1.0
 */
export interface TimeRange {
  readonly from: Date
  readonly to: Date
}

/**
 * A free period, `start` up to `end` (instants).
 *
 * @since 0.1.0
 */
export interface FreePeriod {
  readonly start: Date
  readonly end: Date
}

/**
 * What availability reads: the resource and the periods (without buffers) of its live bookings.
 *
 * @since 0.1.0
 */
export interface AvailabilityState {
  readonly resource: BookableResource
  readonly otherBookings: ReadonlyArray<{ readonly start: Date; readonly end: Date }>
}

/**
 * Why a window is not valid, as a sentence for a `VALIDATION_FAILED` issue, or `undefined` when it is:
 * `to` must be after `from`, and at most {@link MAX_AVAILABILITY_WINDOW_DAYS} days (of 24 hours) later.
 *
 * @since 0.1.0
 */
export const windowProblem = (window: TimeRange): string | undefined => {
  const length = window.to.getTime() - window.from.getTime()
  if (length <= 0) return "must be after from"
  if (length > minutesMs(MAX_AVAILABILITY_WINDOW_DAYS * 24 * 60)) {
    return `must be at most ${MAX_AVAILABILITY_WINDOW_DAYS} days after from`
  }
  return undefined
}

const toInterval = (period: { readonly start: Date; readonly end: Date }): Interval => ({
  start: period.start.getTime(),
  end: period.end.getTime()
})

// Open time in `range` that no other booking (with both bookings' buffers) keeps a new booking out of.
const freeSpace = (state: AvailabilityState, range: Interval): Array<Interval> =>
  subtract(
    openWithin(state.resource, range),
    state.otherBookings.map((other) => keptOutBy(state.resource, toInterval(other)))
  )

/**
 * The free periods of `window`: open time (weekly hours less closures, in the resource's time zone) from no
 * earlier than now + minimum notice up to the end of the horizon's last date, less the time other live bookings
 * keep a new booking out of (their own time widened by buffer before + buffer after on each side). Periods are in
 * time order, neither overlapping nor touching (open time that runs on across midnight is one period).
 *
 * A booking that passes the check's time rules lies in one free period, as long as it starts inside `window`
 * and ends by its end.
 *
 * @since 0.1.0
 */
export const freePeriods = (state: AvailabilityState, window: TimeRange, now: Date): ReadonlyArray<FreePeriod> => {
  const range = {
    start: Math.max(window.from.getTime(), earliestStart(state.resource, now.getTime())),
    end: Math.min(window.to.getTime(), horizonEnd(state.resource, now.getTime()))
  }
  return freeSpace(state, range).map((period) => ({ start: new Date(period.start), end: new Date(period.end) }))
}

/**
 * Whether `durationMinutes` is a duration the resource sells: between its minimum and maximum and a multiple of
 * its duration increment.
 *
 * @since 0.1.0
 */
export const isBookableDuration = (resource: BookableResource, durationMinutes: number): boolean =>
  Number.isInteger(durationMinutes) &&
  durationMinutes >= resource.minDurationMinutes &&
  durationMinutes <= resource.maxDurationMinutes &&
  durationMinutes % resource.durationIncrementMinutes === 0

/**
 * The start times in `window` (`from` ≤ start < `to`) at which a booking of `durationMinutes` passes every time
 * rule of the check: not in the past, after the notice, within the horizon, on the local start-increment grid
 * (a wall-clock time a DST gap skips has no start; one a fall-back repeats has two), inside opening hours from
 * start to end, and clear of other bookings and their buffers. Empty for a duration the resource does not sell
 * ({@link isBookableDuration}) and for a resource priced by the night. In time order.
 *
 * @since 0.1.0
 */
export const bookableStarts = (
  state: AvailabilityState,
  window: TimeRange,
  durationMinutes: number,
  now: Date
): ReadonlyArray<Date> => {
  const { resource } = state
  if (resource.nightStays !== undefined || !isBookableDuration(resource, durationMinutes)) return []
  const duration = minutesMs(durationMinutes)
  const first = Math.max(window.from.getTime(), earliestStart(resource, now.getTime()), now.getTime())
  const last = Math.min(window.to.getTime(), horizonEnd(resource, now.getTime()))
  if (last <= first) return []
  const space = freeSpace(state, { start: first, end: last + duration })
  const starts: Array<number> = []
  const step = minutesMs(resource.startIncrementMinutes)
  for (const date of datesFromTo(localDateOf(first, resource.timeZone), localDateOf(last, resource.timeZone))) {
    const day = { start: startOfDate(date, resource.timeZone), end: startOfDate(addDays(date, 1), resource.timeZone) }
    const free = clip(space, day)
    if (free.length === 0) continue
    if (day.end - day.start === DAY_MS && localMinuteOf(day.start, resource.timeZone).minute === 0) {
      // A day of 24 hours that begins at midnight has no offset change (none that tz data holds cancels out within
      // a day), so its wall-clock grid is arithmetic: no time-zone lookup per start, which made a 31-day window on
      // a 1-minute grid cost over a second of CPU (issue 19). The starts rise, and so does the free period that
      // can hold them: one pass over both.
      let period = 0
      for (let start = day.start; start < day.end; start += step) {
        if (start < first || start >= last) continue
        while (period < space.length && space[period]!.end < start + duration) period++
        const holder = space[period]
        if (holder !== undefined && holder.start <= start) starts.push(start)
      }
      continue
    }
    for (let minute = 0; minute < 1440; minute += resource.startIncrementMinutes) {
      for (const start of instantsReading(date, minute, resource.timeZone)) {
        if (start >= first && start < last && within(space, { start, end: start + duration })) starts.push(start)
      }
    }
  }
  return starts.sort((a, b) => a - b).map((start) => new Date(start))
}

/**
 * What availability answers for one resource: its free periods in the window and, with a duration, the bookable
 * start times ({@link freePeriods}, {@link bookableStarts}).
 *
 * @since 0.2.0
 */
export interface ResourceAvailability {
  readonly freePeriods: ReadonlyArray<FreePeriod>
  readonly startTimes?: ReadonlyArray<Date>
}

/**
 * One resource's free time in `window` as single-resource availability and the search across resources both
 * answer it: {@link freePeriods} and, with `durationMinutes`, {@link bookableStarts}. `state.otherBookings` may hold
 * more bookings than the window's (a search reads one batch for many resources): bookings that cannot reach the
 * window change nothing.
 *
 * @since 0.2.0
 */
export const resourceAvailability = (
  state: AvailabilityState,
  window: TimeRange,
  durationMinutes: number | undefined,
  now: Date
): ResourceAvailability => ({
  freePeriods: freePeriods(state, window, now),
  ...(durationMinutes === undefined ? {} : { startTimes: bookableStarts(state, window, durationMinutes, now) })
})

/**
 * How far around a window a resource's live bookings matter to its availability: both buffers and the asked
 * duration, in milliseconds (a booking that far outside can still keep a start in the window out).
 *
 * @since 0.2.0
 */
export const bookingReachMs = (resource: BookableResource, durationMinutes: number | undefined): number =>
  minutesMs(resource.bufferBeforeMinutes + resource.bufferAfterMinutes + (durationMinutes ?? 0))

/**
 * The most resource-days one page of the search across resources computes (issue 26, item 4): a page holds at
 * most `floor(400 / days of the window)` resources (at least one), so a 31-day window pages 12 resources at a
 * time and a one-day window up to the page limit. It bounds the CPU one request spends on the event loop; the
 * figure per resource and day is in docs/performance.md.
 *
 * @since 0.2.0
 */
export const MAX_SEARCH_RESOURCE_DAYS = 400

/**
 * How many resources one search page holds for `window` when the caller asks `limit`: `limit`, lowered so that
 * resources × days (of 24 hours, started days counted whole) stays within {@link MAX_SEARCH_RESOURCE_DAYS}, and
 * never below one.
 *
 * @since 0.2.0
 */
export const searchPageSize = (window: TimeRange, limit: number): number => {
  const days = Math.max(1, Math.ceil((window.to.getTime() - window.from.getTime()) / DAY_MS))
  return Math.max(1, Math.min(limit, Math.floor(MAX_SEARCH_RESOURCE_DAYS / days)))
}

/**
 * An add-on a website prices with every start: `quantity` of the product, delivered at the booking's start.
 *
 * @since 0.2.0
 */
export interface StartAddOn {
  readonly addOnProductId: string
  readonly quantity: number
}

/**
 * A start time and what a booking of the asked duration (and add-ons) starting there costs now: totals in minor
 * units of `currency` (net, VAT, gross; the sums of the breakdown preview answers).
 *
 * @since 0.2.0
 */
export interface PricedStart {
  readonly start: Date
  readonly currency: Currency
  readonly totalNetMinorUnits: number
  readonly totalVatMinorUnits: number
  readonly totalGrossMinorUnits: number
}

/**
 * The price of each of `starts` (issue 26, item 3): for each, the very check a preview runs (`checkBooking`, so
 * the same rules and the same pricing functions) on a period of `durationMinutes` from it, with `addOns` delivered
 * at the start. A start whose booking the check refuses — an add-on's lead time, cut-off or delivery hours, or no
 * price rule covering it — is left out; so a start listed here previews, and requests, at this price while the
 * state is unchanged. In the order of `starts`. Refuses more than {@link MAX_PRICED_STARTS} starts with
 * `QueryTooLarge` (`VALIDATION_FAILED` at `/to`, 400).
 *
 * @since 0.2.0
 */
export const pricedStarts = (
  state: BookingState,
  starts: ReadonlyArray<Date>,
  durationMinutes: number,
  addOns: ReadonlyArray<StartAddOn>,
  now: Date
): Either.Either<ReadonlyArray<PricedStart>, QueryTooLarge> => {
  if (starts.length > MAX_PRICED_STARTS) {
    return Either.left(
      new QueryTooLarge({
        issues: [{ path: "/to", message: `with prices=true, must leave at most ${MAX_PRICED_STARTS} start times; ask a shorter window` }],
        detail: "The request is not valid; see issues."
      })
    )
  }
  const priced: Array<PricedStart> = []
  for (const start of starts) {
    const lines: ReadonlyArray<AddOnLineCommand> = addOns.map((addOn) => ({
      addOnProductId: addOn.addOnProductId,
      quantity: addOn.quantity,
      deliverAt: start,
      specialPortions: []
    }))
    const end = new Date(start.getTime() + minutesMs(durationMinutes))
    const checked = checkBooking(state, { time: { _tag: "Period", start, end }, addOns: lines }, now)
    if (Either.isLeft(checked)) continue
    const price = checked.right.price
    priced.push({
      start,
      currency: price.currency,
      totalNetMinorUnits: price.totalNetMinorUnits,
      totalVatMinorUnits: price.totalVatMinorUnits,
      totalGrossMinorUnits: price.totalGrossMinorUnits
    })
  }
  return Either.right(priced)
}
