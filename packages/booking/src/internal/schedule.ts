/**
 * Weekly schedules (opening hours, delivery hours) and closures as intervals of instants in a time zone.
 *
 * @internal
 */
import type { Closure, WeeklyOpening } from "../Resource.js"
import { minutesOfLocalTime } from "../Resource.js"
import { type Interval, clip, normalize } from "./intervals.js"
import { addDays, datesFromTo, instantAt, localDateOf, weekdayOf } from "./zoned.js"

const isClosed = (date: string, closures: ReadonlyArray<Closure>): boolean =>
  closures.some((closure) => closure.fromDate <= date && date <= closure.toDate)

/**
 * The instants of `range` the weekly schedule covers, less closed dates; normalized (touching periods, such as
 * `…–24:00` and the next day's `00:00–…`, join). Local dates are walked one either side of the range, so a
 * period that a DST shift or a `24:00` end carries across a date boundary is still found.
 *
 * @internal
 */
export const scheduleWithin = (
  weekly: ReadonlyArray<WeeklyOpening>,
  closures: ReadonlyArray<Closure>,
  timeZone: string,
  range: Interval
): Array<Interval> => {
  if (range.end <= range.start) return []
  const first = addDays(localDateOf(range.start, timeZone), -1)
  const last = addDays(localDateOf(range.end, timeZone), 1)
  const periods: Array<Interval> = []
  for (const date of datesFromTo(first, last)) {
    if (isClosed(date, closures)) continue
    const weekday = weekdayOf(date)
    for (const opening of weekly) {
      if (opening.weekday !== weekday) continue
      const opens = minutesOfLocalTime(opening.opens)
      const closes = minutesOfLocalTime(opening.closes, true)
      if (opens === undefined || closes === undefined || closes <= opens) continue
      periods.push({ start: instantAt(date, opens, timeZone), end: instantAt(date, closes, timeZone) })
    }
  }
  return clip(normalize(periods), range)
}
