/**
 * The time facts the rule check and availability share, so the two can never disagree: the horizon, the open
 * time, and the time other bookings keep a new booking out of.
 *
 * @internal
 */
import type { BookableResource } from "../Resource.js"
import { type Interval } from "./intervals.js"
import { scheduleWithin } from "./schedule.js"
import { addDays, localDateOf, minutesMs, startOfDate } from "./zoned.js"

/** The last local date a booking may start on: today's local date plus `horizonDays`. @internal */
export const lastBookableDate = (resource: BookableResource, now: number): string =>
  addDays(localDateOf(now, resource.timeZone), resource.horizonDays)

/** The first instant after the horizon: midnight after the last bookable date. @internal */
export const horizonEnd = (resource: BookableResource, now: number): number =>
  startOfDate(addDays(lastBookableDate(resource, now), 1), resource.timeZone)

/** The earliest instant a booking may start: now plus the minimum notice. @internal */
export const earliestStart = (resource: BookableResource, now: number): number =>
  now + minutesMs(resource.minimumNoticeMinutes)

/** The resource's open time inside `range` (weekly schedule less closures). @internal */
export const openWithin = (resource: BookableResource, range: Interval): Array<Interval> =>
  scheduleWithin(resource.openingHours.weekly, resource.openingHours.closures, resource.timeZone, range)

/**
 * Where a new booking's own time may not lie because of another booking `[s, e)`: `[s − gap, e + gap)` with
 * `gap` = buffer before + buffer after. Two bookings whose buffered spans (`[start − before, end + after)`)
 * overlap are exactly the two whose times reach into each other's such zone. @internal
 */
export const keptOutBy = (resource: BookableResource, other: Interval): Interval => {
  const gap = minutesMs(resource.bufferBeforeMinutes + resource.bufferAfterMinutes)
  return { start: other.start - gap, end: other.end + gap }
}

/** A booking's buffered span `[start − before, end + after)`, the range PostgreSQL's exclusion keeps apart. @internal */
export const bufferedSpan = (resource: BookableResource, period: Interval): Interval => ({
  start: period.start - minutesMs(resource.bufferBeforeMinutes),
  end: period.end + minutesMs(resource.bufferAfterMinutes)
})
