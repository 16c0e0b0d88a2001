/**
 * The booking week calendar (issue 25, item 6): an organization's active resources with their approved bookings and
 * the pending requests that still hold their slot over a range, and each resource's approved minutes per day (an
 * SQL aggregate over the range's days, a booking across midnight counted in each day it covers).
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"

interface ItemRow {
  readonly id: string
  readonly resourceId: string
  readonly status: "approved" | "pending"
  readonly startsAt: Date | string
  readonly endsAt: Date | string
  readonly holdExpiresAt: Date | string
  readonly guestName: string
}

interface MinutesRow {
  readonly resourceId: string
  readonly day: number
  readonly minutes: string | number
}

export class BookingCalendarReadRepository extends Effect.Service<BookingCalendarReadRepository>()("@propline/api/booking/BookingCalendarReadRepository", {
  succeed: spanned("BookingCalendarReadRepository", {
    /** The organization's active resources, by name. */
    resources: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("bookingResources")
          .select(["id", "name", "kind", "timeZone"])
          .where("organizationId", "=", organizationId)
          .where("status", "=", "active")
          .orderBy("name")
          .orderBy("id")
          .execute()
      ),

    /** Approved bookings and live holds (pending, `holdExpiresAt` after `now`) overlapping [`from`, `to`). */
    items: (organizationId: string, from: Date, to: Date, now: Date) =>
      Sql.rows(
        sql<ItemRow>`
          select r.id, r.resource_id as "resourceId", r.status, r.starts_at as "startsAt", r.ends_at as "endsAt",
            r.hold_expires_at as "holdExpiresAt", r.guest_name as "guestName"
          from booking_requests r
          join booking_resources s on s.id = r.resource_id and s.status = 'active'
          where r.organization_id = ${organizationId} and r.starts_at < ${to}::timestamptz and r.ends_at > ${from}::timestamptz
            and (r.status = 'approved' or (r.status = 'pending' and r.hold_expires_at > ${now}::timestamptz))
          order by r.starts_at, r.id`
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            ...row,
            startsAt: new Date(row.startsAt),
            endsAt: new Date(row.endsAt),
            holdExpiresAt: new Date(row.holdExpiresAt)
          }))
        )
      ),

    /** Approved minutes per resource and day index (0 to `days` − 1, days of 24 h from `from`). */
    bookedMinutes: (organizationId: string, from: Date, days: number) =>
      Sql.rows(
        sql<MinutesRow>`
          select r.resource_id as "resourceId", d.day,
            sum(extract(epoch from (least(r.ends_at, d.day_end) - greatest(r.starts_at, d.day_start))) / 60) as minutes
          from booking_requests r
          join (
            select g as day, ${from}::timestamptz + g * interval '1 day' as day_start, ${from}::timestamptz + (g + 1) * interval '1 day' as day_end
            from generate_series(0, ${days - 1}::int) g
          ) d on r.starts_at < d.day_end and r.ends_at > d.day_start
          where r.organization_id = ${organizationId} and r.status = 'approved'
          group by r.resource_id, d.day`
      ).pipe(Effect.map((rows) => rows.map((row) => ({ resourceId: row.resourceId, day: Number(row.day), minutes: Math.round(Number(row.minutes)) }))))
  })
}) {}
