/**
 * Wall-clock arithmetic in a resource's IANA time zone, done by Temporal (temporal-polyfill), never by
 * hand-rolled offsets: local dates and times become instants with Temporal's `compatible` disambiguation
 * (a time in a spring-forward gap moves forward by the gap; a time repeated at fall-back is its first occurrence),
 * the same rule RFC 5545 and java.time use.
 *
 * Instants are epoch milliseconds; local dates are ISO `YYYY-MM-DD`; local times are minutes after midnight.
 *
 * @internal
 */
import { Temporal } from "temporal-polyfill"
import type { IsoWeekday } from "../Resource.js"

const MS_PER_MINUTE = 60_000

// Temporal (the polyfill) costs microseconds per call, and pricing or checking a run of start times asks the same
// few dates, times and midnights again and again (issue 26: a price for every start of a 31-day window). These
// functions are pure, so their answers are kept, by key, in bounded maps that start over when full.
const MEMO_LIMIT = 20_000

const memoized = <A>(compute: (key: string) => A): ((key: string) => A) => {
  const memo = new Map<string, A>()
  return (key) => {
    const known = memo.get(key)
    if (known !== undefined) return known
    const value = compute(key)
    if (memo.size >= MEMO_LIMIT) memo.clear()
    memo.set(key, value)
    return value
  }
}

const splitKey = (key: string): [string, string, string] => {
  const [a = "", b = "", c = ""] = key.split("|")
  return [a, b, c]
}

/** The instant a local date and minute-of-day (0..1440; 1440 is the next day's midnight) names. @internal */
export const instantAt = (date: string, minuteOfDay: number, timeZone: string): number =>
  instantAtMemo(`${date}|${minuteOfDay}|${timeZone}`)

const instantAtMemo = memoized((key) => {
  const [date, minuteText, timeZone] = splitKey(key)
  const minuteOfDay = Number(minuteText)
  const day = Temporal.PlainDate.from(date).add({ days: Math.floor(minuteOfDay / 1440) })
  const minutes = minuteOfDay % 1440
  return day
    .toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 })
    .toZonedDateTime(timeZone, { disambiguation: "compatible" }).epochMilliseconds
})

/** The first instant of a local date (its midnight, or the first instant after a gap at midnight). @internal */
export const startOfDate = (date: string, timeZone: string): number => startOfDateMemo(`${date}|${timeZone}`)

const startOfDateMemo = memoized((key) => {
  const [date, timeZone] = splitKey(key)
  return Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds
})

const zoned = (instant: number, timeZone: string): Temporal.ZonedDateTime =>
  Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(timeZone)

/** The local date an instant falls on. @internal */
export const localDateOf = (instant: number, timeZone: string): string => localDateMemo(`${instant}|${timeZone}`)

const localDateMemo = memoized((key) => {
  const [instant, timeZone] = splitKey(key)
  return zoned(Number(instant), timeZone).toPlainDate().toString()
})

/** The local wall-clock minute of the day (0..1439) of an instant, and whether it is on a whole minute. @internal */
export const localMinuteOf = (instant: number, timeZone: string): { readonly minute: number; readonly whole: boolean } => {
  const z = zoned(instant, timeZone)
  return {
    minute: z.hour * 60 + z.minute,
    whole: z.second === 0 && z.millisecond === 0 && z.microsecond === 0 && z.nanosecond === 0
  }
}

/** ISO weekday (1 Monday … 7 Sunday) of a local date. @internal */
export const weekdayOf = (date: string): IsoWeekday => weekdayMemo(date)

const weekdayMemo = memoized((date) => Temporal.PlainDate.from(date).dayOfWeek as IsoWeekday)

/** A local date `days` later (or earlier, when negative). @internal */
export const addDays = (date: string, days: number): string => addDaysMemo(`${date}|${days}`)

const addDaysMemo = memoized((key) => {
  const [date, days] = splitKey(key)
  return Temporal.PlainDate.from(date).add({ days: Number(days) }).toString()
})

/** Days from `from` to `to` (negative when `to` is earlier). @internal */
export const daysBetween = (from: string, to: string): number =>
  Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: "days" }).days

/** Every local date from `from` to `to`, both included. @internal */
export const datesFromTo = (from: string, to: string): Array<string> => {
  const dates: Array<string> = []
  for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date)
  return dates
}

/**
 * The instants whose local wall-clock reading is `date` at `minuteOfDay` (0..1439): none in a spring-forward gap,
 * two at a fall-back repeat, else one. @internal
 */
export const instantsReading = (date: string, minuteOfDay: number, timeZone: string): Array<number> => {
  const wall = Temporal.PlainDate.from(date).toPlainDateTime({
    hour: Math.floor(minuteOfDay / 60),
    minute: minuteOfDay % 60
  })
  const earlier = wall.toZonedDateTime(timeZone, { disambiguation: "earlier" })
  if (!earlier.toPlainDateTime().equals(wall)) return []
  const later = wall.toZonedDateTime(timeZone, { disambiguation: "later" })
  return later.epochMilliseconds === earlier.epochMilliseconds
    ? [earlier.epochMilliseconds]
    : [earlier.epochMilliseconds, later.epochMilliseconds]
}

/** Whether `timeZone` is a time zone name Temporal knows (IANA, such as `Europe/Oslo`), not a fixed offset. @internal */
export const isIanaTimeZone = (timeZone: string): boolean => {
  if (/^[+-]/.test(timeZone)) return false
  try {
    Temporal.PlainDate.from("2000-01-01").toZonedDateTime({ timeZone })
    return true
  } catch {
    return false
  }
}

/** Minutes between two instants (may be fractional when either is not on a whole minute). @internal */
export const minutesBetween = (start: number, end: number): number => (end - start) / MS_PER_MINUTE

/** `minutes` as milliseconds. @internal */
export const minutesMs = (minutes: number): number => minutes * MS_PER_MINUTE
