import { describe, expect, it } from "vitest"
import pg from "pg"
import { parseTimestamptz } from "../src/TimestampParser.js"

const pgParser = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text") as (value: string) => unknown

/** What pg's parser gives, made comparable: a Date's time value (NaN for an invalid Date), else the value. */
const comparable = (value: unknown): unknown => (value instanceof Date ? ["Date", value.getTime()] : value)

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** A deterministic pseudo-random sequence, so a failure reproduces. */
const random = (() => {
  let state = 0x2545f491
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
})()
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))

const OFFSETS = ["+00", "-05", "+01", "+05:30", "-03:30", "+13:45", "-12", "+14"]

/** Text as PostgreSQL writes a timestamptz (ISO style), with a fraction of 0 to 6 digits and an offset. */
const generated = (): string => {
  const fractionDigits = between(0, 6)
  const fraction = fractionDigits === 0 ? "" : `.${pad(between(0, 10 ** fractionDigits - 1), fractionDigits)}`
  return `${pad(between(1000, 9999), 4)}-${pad(between(1, 12), 2)}-${pad(between(1, 28), 2)} ${pad(between(0, 23), 2)}:${pad(between(0, 59), 2)}:${pad(between(0, 59), 2)}${fraction}${OFFSETS[between(0, OFFSETS.length - 1)]}`
}

describe("parseTimestamptz", () => {
  it("gives pg's own result for 20,000 generated timestamps", () => {
    for (let i = 0; i < 20_000; i++) {
      const text = generated()
      expect([text, comparable(parseTimestamptz(text))]).toEqual([text, comparable(pgParser(text))])
    }
  })

  it("gives pg's own result where floating point rounds a fraction down and for the edges of its format", () => {
    for (const text of [
      "2025-01-01 00:00:00.57+00",
      "2025-01-01 00:00:00.29+00",
      "2025-06-30 23:59:59.999999+00",
      "2025-01-01 00:00:00+00",
      "2024-02-29 12:00:00.1-05",
      "1000-01-01 00:00:00+00",
      "9999-12-31 23:59:59.999999+14",
      "2025-01-01 00:00:00.5+05:30"
    ]) {
      expect([text, comparable(parseTimestamptz(text))]).toEqual([text, comparable(pgParser(text))])
    }
  })

  it("gives pg's own result for every fraction of 1 to 5 digits and 200,000 of 6, and for fractions of 7 to 20 digits", () => {
    const mismatches: Array<string> = []
    const check = (fraction: string) => {
      const text = `2025-03-04 05:06:07.${fraction}+00`
      if (parseTimestamptz(text)?.valueOf() !== pgParser(text)?.valueOf()) mismatches.push(text)
    }
    for (let digits = 1; digits <= 5; digits++) {
      for (let n = 0; n < 10 ** digits; n++) check(pad(n, digits))
    }
    for (let i = 0; i < 200_000; i++) check(pad(between(0, 999_999), 6))
    for (let digits = 7; digits <= 20; digits++) {
      for (let i = 0; i < 2_000; i++) check(Array.from({ length: digits }, () => between(0, 9)).join(""))
    }
    expect(mismatches).toEqual([])
  })

  it("leaves what its fast path does not read to pg's parser", () => {
    for (const text of [
      "infinity",
      "-infinity",
      "0099-01-01 00:00:00+00",
      "0001-01-01 00:00:00+00 BC",
      "12345-01-01 00:00:00+00",
      "2025-01-01 00:00:00+05:30:15",
      "2025-01-01 00:00:00.+00",
      "2025-01-01 00:00:00",
      "2025-01-01T00:00:00Z",
      "2025-1x-01 00:00:00+00",
      "not a date at all"
    ]) {
      expect([text, comparable(parseTimestamptz(text))]).toEqual([text, comparable(pgParser(text))])
    }
  })
})
