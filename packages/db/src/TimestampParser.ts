/**
 * A `timestamptz` text parser for pg that gives exactly the `Date` pg's own parser (`postgres-date`) gives, without
 * its three regular expressions per value (issue 27: a page of 50 invoices parses 200 timestamps; their matches were
 * a tenth of what a send-queue request allocated).
 *
 * The fast path takes PostgreSQL's ISO output `YYYY-MM-DD HH:MM:SS[.fraction]±HH[:MM]` with a four-digit year from
 * 1000 on; the fraction is read as `postgres-date` reads it (`1000 * parseFloat(".fraction")`, truncated by
 * `Date.UTC`), so even its floating-point rounding is the same: up to 15 digits it is computed as `digits / 10^n`
 * without a substring (both exact doubles, so their quotient is the double nearest the decimal fraction, which is what
 * parseFloat gives). Anything else (`infinity`, BC dates, other years,
 * an offset with seconds) goes to `postgres-date` itself.
 */
import pg from "pg"

const fallback = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text") as (value: string) => Date | number | null

const ZERO = 48

/** 10^n for the fraction's digit counts read without parseFloat: exact doubles. */
const POWERS_OF_TEN: ReadonlyArray<number> = Array.from({ length: 16 }, (_, n) => 10 ** n)

/** The two-digit number at `at`, or NaN when either character is not a digit. */
const twoDigits = (value: string, at: number): number => {
  const tens = value.charCodeAt(at) - ZERO
  const ones = value.charCodeAt(at + 1) - ZERO
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : Number.NaN
}

/** Parses a `timestamptz` as pg's default parser does (see the module's docs). */
export const parseTimestamptz = (value: string): Date | number | null => {
  const length = value.length
  if (length < 22 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45 || value.charCodeAt(10) !== 32) {
    return fallback(value)
  }
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2)
  const month = twoDigits(value, 5)
  const day = twoDigits(value, 8)
  const hour = twoDigits(value, 11)
  const minute = twoDigits(value, 14)
  const second = twoDigits(value, 17)
  if (value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58 || !(year >= 1000)) return fallback(value)
  let at = 19
  let ms = 0
  if (value.charCodeAt(at) === 46) {
    let end = at + 1
    let digits = 0
    while (end < length) {
      const digit = value.charCodeAt(end) - ZERO
      if (digit < 0 || digit > 9) break
      digits = digits * 10 + digit
      end++
    }
    const count = end - at - 1
    if (count === 0) return fallback(value)
    ms = 1000 * (count < POWERS_OF_TEN.length ? digits / POWERS_OF_TEN[count]! : parseFloat(value.slice(at, end)))
    at = end
  }
  const sign = value.charCodeAt(at)
  if (sign !== 43 && sign !== 45) return fallback(value)
  const offsetHours = twoDigits(value, at + 1)
  let offsetMinutes = 0
  if (length === at + 6 && value.charCodeAt(at + 3) === 58) offsetMinutes = twoDigits(value, at + 4)
  else if (length !== at + 3) return fallback(value)
  const time = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  const offset = (offsetHours * 3600 + offsetMinutes * 60) * 1000
  const result = sign === 45 ? time + offset : time - offset
  // Any field that was not two digits made a NaN: pg's parser decides what such text means.
  return Number.isNaN(result) ? fallback(value) : new Date(result)
}
