/**
 * Value schemas shared by the records of spec section 2: money in minor units, ISO dates, timestamps and the
 * enumerations.
 */
import { Schema } from "effect"

/** Spec 8: integer fields are bounded by ±9007199254740991 (Number.MAX_SAFE_INTEGER). */
export const MinorUnits = Schema.Int.pipe(
  Schema.between(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  Schema.annotations({ description: "Integer amount in minor units of the record's currency." })
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
export const Currency = Schema.Literal("SEK", "NOK", "DKK", "EUR", "USD", "GBP")
export type Currency = typeof Currency.Type

/** Spec 2.1 `documentKind`. */
export const DocumentKind = Schema.Literal("invoice", "credit-note")

/** Spec 2.1 `billingStream`. */
export const BillingStream = Schema.Literal("contractual", "running")

/** Spec 2.1 / section 3 invoice `status`. */
export const InvoiceStatus = Schema.Literal("created", "approved", "sent", "paid", "written-off", "failed")

/** Spec 2.2 / section 3 proposal `status`. */
export const ProposalStatus = Schema.Literal("proposed", "passed", "rejected", "cancelled")

/** Spec 2.1 `paymentReferenceType`. */
export const PaymentReferenceType = Schema.Literal("ocr", "kid", "reference")

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
    Schema.annotations({ jsonSchema: { type: "string", minLength: min, maxLength: max } })
  )

const isCalendarDate = (value: string): boolean => {
  const [year, month, day] = value.split("-").map(Number) as [number, number, number]
  const date = new Date(Date.UTC(2000, month - 1, day))
  date.setUTCFullYear(year)
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * An ISO date a request sends (YYYY-MM-DD) that exists on the calendar: `2025-02-29` and `2025-04-31` are refused
 * (VALIDATION_FAILED), `2024-02-29` is accepted. Year 0001 to 9999.
 */
export const CalendarDate = IsoDate.pipe(
  Schema.filter((value) => isCalendarDate(value) || "must be a date that exists on the calendar"),
  Schema.annotations({ jsonSchema: { type: "string", format: "date" } })
)
