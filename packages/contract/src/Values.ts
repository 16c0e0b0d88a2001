/**
 * Value schemas shared by the records of spec section 2: money in minor units, ISO dates, timestamps and the
 * enumerations.
 */
import { ParseResult, Schema } from "effect"

/**
 * One of `values`, with the message "must be one of: …" naming every value (a Literal union's default message
 * names one per issue).
 */
export const OneOf = <const Values extends readonly [string, ...Array<string>]>(...values: Values) =>
  Schema.Literal(...values).annotations({
    message: () => ({ message: `must be one of: ${values.join(", ")}`, override: true })
  })

/** Spec 8: integer fields are bounded by ±9007199254740991 (Number.MAX_SAFE_INTEGER). */
export const MinorUnits = Schema.Int.pipe(
  Schema.between(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  Schema.annotations({
    description: "Integer amount in minor units of the record's currency.",
    message: () => ({
      message: `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
      override: true
    })
  })
)

/** A non-negative bounded integer (paymentTermsDays, invoiceNumber). */
export const NonNegativeCount = Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER))

/** An ISO date, YYYY-MM-DD (spec 2). */
export const IsoDate = Schema.String.pipe(
  Schema.pattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/),
  Schema.annotations({ format: "date", description: "ISO date (YYYY-MM-DD)." })
)

/** An ISO 8601 timestamp in UTC, carried as a `Date` in code (spec 2: "Timestamps are ISO 8601 in UTC"). */
export const Timestamp = Schema.Date.annotations({
  jsonSchema: { type: "string", format: "date-time" },
  description: "ISO 8601 timestamp in UTC."
})

/** Spec 2.1 `currency`. */
export const Currency = OneOf("SEK", "NOK", "DKK", "EUR", "USD", "GBP")
export type Currency = typeof Currency.Type

/** Spec 2.1 `documentKind`. */
export const DocumentKind = OneOf("invoice", "credit-note")

/** Spec 2.1 `billingStream`. */
export const BillingStream = OneOf("contractual", "running")

/** Spec 2.1 / section 3 invoice `status`. */
export const InvoiceStatus = OneOf("created", "approved", "sent", "paid", "written-off", "failed")

/** Spec 2.2 / section 3 proposal `status`. */
export const ProposalStatus = OneOf("proposed", "passed", "rejected", "cancelled")

/** Spec 2.1 `paymentReferenceType`. */
export const PaymentReferenceType = OneOf("ocr", "kid", "reference")

/**
 * C0 controls other than tab, line feed and carriage return, DEL, the C1 controls (U+0080 to U+009F, e.g. U+009B,
 * the 8-bit CSI that terminals obey), and UTF-16 halves without their pair.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unstorable = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text of a bounded length, counted in Unicode code points as JSON Schema's minLength/maxLength count them.
 * Leading and trailing white space is kept as sent; a text of only white space is refused, and so is one holding a
 * control character (C0 other than tab and line breaks, DEL, C1), or half of a UTF-16 surrogate pair (neither can be stored as
 * sent, and U+0000 can't be stored at all).
 */
export const BoundedText = (min: number, max: number) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      const length = [...s].length
      if (length < min || length > max) return `must be ${min} to ${max} characters long`
      if (s.trim().length === 0) return "must not be blank"
      if (unstorable.test(s)) return "must not contain control characters or unpaired surrogates"
      return true
    }),
    Schema.annotations({
      jsonSchema: { type: "string", minLength: min, maxLength: max },
      // The filter's own sentence when the text breaks a rule; one sentence for a value that is not text at all.
      message: (issue) => ({
        message:
          issue._tag === "Refinement" && issue.kind === "Predicate" && issue.issue._tag === "Type" && issue.issue.message !== undefined
            ? issue.issue.message
            : `must be text of ${min} to ${max} characters`,
        override: true
      })
    })
  )

/** The first and last day a request may name (dates, and instants in UTC): a sane range for every operation. */
export const EARLIEST_DATE = "1900-01-01"
export const LATEST_DATE = "2999-12-31"

const EARLIEST_YEAR = Number(EARLIEST_DATE.slice(0, 4))
const LATEST_YEAR = Number(LATEST_DATE.slice(0, 4))

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** Year, month and day name a day of the calendar within {@link EARLIEST_DATE}..{@link LATEST_DATE}. */
const isCalendarDay = (year: number, month: number, day: number): boolean =>
  year >= EARLIEST_YEAR && year <= LATEST_YEAR && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** The message of every refused {@link CalendarDate}. */
export const CALENDAR_DATE_MESSAGE =
  `must be a date (YYYY-MM-DD) that exists in the calendar, from ${EARLIEST_DATE} to ${LATEST_DATE}`

/**
 * Whether `value` is a date a request may name: `YYYY-MM-DD`, a day that exists in the calendar (`2027-02-29` and
 * `2027-04-31` do not; `2028-02-29` does), from {@link EARLIEST_DATE} to {@link LATEST_DATE}.
 */
export const isCalendarDate = (value: string): boolean => {
  const match = datePattern.exec(value)
  return match !== null && isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3]))
}

/**
 * An ISO date a request sends (spec 2: "Dates are ISO dates (YYYY-MM-DD)") that exists in the calendar, from
 * {@link EARLIEST_DATE} to {@link LATEST_DATE}; anything else — `2027-02-29`, `2027-04-31`, `2026-1-5`, a number —
 * is 400 VALIDATION_FAILED with {@link CALENDAR_DATE_MESSAGE}, never read as another day. Every operation's and the
 * console's date inputs use it; records keep {@link IsoDate}.
 */
export const CalendarDate = Schema.String.pipe(
  Schema.filter(isCalendarDate),
  Schema.annotations({
    message: () => ({ message: CALENDAR_DATE_MESSAGE, override: true }),
    description: `ISO date (YYYY-MM-DD) that exists in the calendar, ${EARLIEST_DATE} to ${LATEST_DATE}.`,
    // No `type` here: the string's own is kept, and so is a field's description.
    jsonSchema: { format: "date" }
  })
)

const instantPattern =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/

const EARLIEST_INSTANT = Date.parse(`${EARLIEST_DATE}T00:00:00.000Z`)
const LATEST_INSTANT = Date.parse(`${LATEST_DATE}T23:59:59.999Z`)

/** The message of every refused {@link Instant}. */
export const INSTANT_MESSAGE =
  "must be an ISO 8601 date-time with a UTC offset, e.g. 2026-03-24T10:00:00Z, that exists in the calendar, " +
  `from ${EARLIEST_DATE} to ${LATEST_DATE}, at most to the millisecond`

/**
 * The instant `text` names, in milliseconds since the epoch, or undefined when it names none exactly: see
 * {@link Instant}.
 */
export const instantOf = (text: string): number | undefined => {
  const match = instantPattern.exec(text)
  if (match === null) return undefined
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((index) => Number(match[index])) as [number, number, number, number, number]
  const second = match[6] === undefined ? 0 : Number(match[6])
  const fraction = match[7] ?? ""
  // Digits past the millisecond would be dropped by the Date the instant is read into: refused unless zeros.
  if (/[1-9]/.test(fraction.slice(3))) return undefined
  const offsetHours = match[9] === undefined ? 0 : Number(match[9])
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10])
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined
  if (offsetHours > 23 || offsetMinutes > 59) return undefined
  const offset = (match[8] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const millisecond = Number(fraction.slice(0, 3).padEnd(3, "0"))
  const instant = Date.UTC(year, month - 1, day, hour, minute, second, millisecond) - offset
  return instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT ? instant : undefined
}

/**
 * An instant a request sends (spec 2: "Timestamps are ISO 8601 in UTC"): a date, a time and a UTC offset (`Z` or
 * `±HH:MM`), read as a `Date`. The date must exist in the calendar (`2026-11-31T09:00:00Z` is refused, never read as
 * 1 December), the time too (no `24:00`, no leap second), the instant must fall from {@link EARLIEST_DATE} to
 * {@link LATEST_DATE} (UTC), and it must round-trip exactly: fraction digits past the millisecond only as zeros. A
 * date alone or a time without an offset names no instant and is refused. Anything else is 400 VALIDATION_FAILED
 * with {@link INSTANT_MESSAGE}. Encoded with `toISOString`.
 */
export const Instant = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (text, _, ast) => {
    const instant = instantOf(text)
    return instant === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, text, INSTANT_MESSAGE))
      : ParseResult.succeed(new Date(instant))
  },
  encode: (date) => ParseResult.succeed(date.toISOString())
}).annotations({
  message: () => ({ message: INSTANT_MESSAGE, override: true }),
  description: `ISO 8601 date-time with a UTC offset, ${EARLIEST_DATE} to ${LATEST_DATE}.`,
  jsonSchema: { format: "date-time" }
})

/**
 * An integer sent as text (a query or path parameter): only plain decimal digits without a leading zero
 * (`0` alone for zero), `min` to `max`. Spellings `Number()` would also read — `0x3c`, `6e1`, `060`, `+60`,
 * `60.0`, ` 60` — are refused, so one value has one spelling. Documented as an integer with its bounds (and
 * `description`: the document describes it as an integer, so a field's own description annotation is not kept).
 */
export const IntegerParameter = (min: number, max: number, description?: string) => {
  const message = `must be an integer from ${min} to ${max}`
  return Schema.transformOrFail(Schema.String, Schema.Int, {
    strict: true,
    decode: (text, _, ast) =>
      /^(?:0|[1-9]\d{0,15})$/.test(text) && Number(text) >= min && Number(text) <= max
        ? ParseResult.succeed(Number(text))
        : ParseResult.fail(new ParseResult.Type(ast, text, message)),
    encode: (value) => ParseResult.succeed(String(value))
  }).annotations({
    message: () => ({ message, override: true }),
    jsonSchema: { type: "integer", minimum: min, maximum: max, ...(description === undefined ? {} : { description }) }
  })
}

/** An integer `min` to `max` in a body, with the message "must be an integer from `min` to `max`". */
export const IntegerBetween = (min: number, max: number) => {
  const message = `must be an integer from ${min} to ${max}`
  return Schema.Number.pipe(
    Schema.filter((value) => Number.isSafeInteger(value) && value >= min && value <= max),
    Schema.annotations({
      message: () => ({ message, override: true }),
      jsonSchema: { type: "integer", minimum: min, maximum: max }
    })
  )
}

