/**
 * The console's pictures (issue 25, item 6): the figures behind the billing overview's charts and the booking week
 * calendar, each one read of SQL aggregates in its owner's read repository.
 *
 * - Billing charts: per calendar month (UTC) and currency over the last `months` months (1 to 24, default 12, the
 *   current month included): `invoicedMinorUnits` — the issued gross of invoices (credit notes not counted) whose
 *   invoice date is in the month; `paidMinorUnits` — payments received in the month (`paidOn`), reversed payments
 *   left out; `overdueMinorUnits` — the open balance, today, of invoices that fell due in the month and are overdue
 *   (status `sent`, due date before today, spec 2.1). And the overdue balance by age (days past the due date: 1–30,
 *   31–60, 61–90, over 90) per currency. Amounts in minor units.
 * - Booking calendar: the organization's active resources and, for the 7 days from `from` (UTC midnight; default
 *   this week's Monday), their approved bookings and the pending requests that still hold their slot (a hold ends at
 *   `holdExpiresAt`), with each resource's booked minutes per day (approved only).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"
import { DateBound } from "./BookingAdmin.js"
import { IntegerParameter, Timestamp } from "./Values.js"

export const MonthFigures = Schema.Struct({
  /** `YYYY-MM`. */
  month: Schema.String,
  currency: Schema.String,
  invoicedMinorUnits: Schema.Int,
  paidMinorUnits: Schema.Int,
  overdueMinorUnits: Schema.Int
}).annotations({ identifier: "MonthFigures" })
export type MonthFigures = typeof MonthFigures.Type

export const OverdueAge = Schema.Literal("1-30", "31-60", "61-90", "90+")
export type OverdueAge = typeof OverdueAge.Type

export const OverdueBucket = Schema.Struct({
  currency: Schema.String,
  age: OverdueAge,
  count: Schema.Int,
  balanceMinorUnits: Schema.Int
}).annotations({ identifier: "OverdueBucket" })
export type OverdueBucket = typeof OverdueBucket.Type

export class BillingCharts extends Schema.Class<BillingCharts>("BillingCharts")({
  /** The day the figures are for (UTC), `YYYY-MM-DD`. */
  today: Schema.String,
  /** Every month of the range, oldest first (`YYYY-MM`), so a chart shows the empty ones too. */
  months: Schema.Array(Schema.String),
  figures: Schema.Array(MonthFigures),
  overdueByAge: Schema.Array(OverdueBucket)
}) {}

export const CalendarItem = Schema.Struct({
  id: Schema.UUID,
  /** `approved`: a booking; `pending`: a request holding its slot until `holdExpiresAt`. */
  status: Schema.Literal("approved", "pending"),
  startsAt: Timestamp,
  endsAt: Timestamp,
  holdExpiresAt: Timestamp,
  guestName: Schema.String
}).annotations({ identifier: "CalendarItem" })
export type CalendarItem = typeof CalendarItem.Type

export const CalendarResource = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  kind: Schema.String,
  timeZone: Schema.String,
  items: Schema.Array(CalendarItem),
  /** Approved minutes per day of the week (UTC days from `from`), 7 numbers. */
  bookedMinutesPerDay: Schema.Array(Schema.Int)
}).annotations({ identifier: "CalendarResource" })
export type CalendarResource = typeof CalendarResource.Type

export class BookingCalendar extends Schema.Class<BookingCalendar>("BookingCalendar")({
  /** The first day (`YYYY-MM-DD`, UTC). */
  from: Schema.String,
  resources: Schema.Array(CalendarResource)
}) {}

export class BillingChartsGroup extends HttpApiGroup.make("billingCharts")
  .add(
    HttpApiEndpoint.get("billingCharts", "/api/billing/charts")
      .setUrlParams(Schema.Struct({ months: Schema.optional(IntegerParameter(1, 24, "How many months back, the current one included (default 12).")) }))
      .addSuccess(BillingCharts)
      .annotate(OpenApi.Description, "Invoiced, paid and overdue per month and currency, and the overdue balance by age.")
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}

export class BookingCalendarGroup extends HttpApiGroup.make("bookingCalendar")
  .add(
    HttpApiEndpoint.get("bookingCalendar", "/api/booking/calendar")
      .setUrlParams(Schema.Struct({ from: DateBound }))
      .addSuccess(BookingCalendar)
      .annotate(OpenApi.Description, "Each active resource's bookings and holds over the 7 days from `from` (default: this week's Monday, UTC).")
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
