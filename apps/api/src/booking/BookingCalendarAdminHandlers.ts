/**
 * The booking week calendar (issue 25, item 6): 7 days from `from` (UTC midnight; default this week's Monday) with
 * each active resource's bookings, live holds and approved minutes per day ({@link BookingCalendarReadRepository}).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { CurrentOperator } from "@propline/contract/AdminSession"
import { BookingCalendar } from "@propline/contract/PicturesAdmin"
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"
import { BookingCalendarReadRepository } from "./BookingCalendarReadRepository.js"

const DAYS = 7
const DAY_MS = 24 * 60 * 60 * 1000

/** The Monday (UTC) of `at`'s week, at midnight. */
export const mondayOf = (at: Date): Date => {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())
  return new Date(midnight - ((at.getUTCDay() + 6) % 7) * DAY_MS)
}

export const BookingCalendarAdminHandlers = HttpApiBuilder.group(AdminApi, "bookingCalendar", (handlers) =>
  Effect.gen(function* () {
    const calendar = yield* BookingCalendarReadRepository
    return handlers.handle("bookingCalendar", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const now = yield* Sql.now
        const from = urlParams.from === undefined || urlParams.from === "" ? mondayOf(now) : new Date(`${urlParams.from}T00:00:00Z`)
        const to = new Date(from.getTime() + DAYS * DAY_MS)
        const [resources, items, minutes] = yield* Effect.all([
          calendar.resources(operator.organizationId),
          calendar.items(operator.organizationId, from, to, now),
          calendar.bookedMinutes(operator.organizationId, from, DAYS)
        ])
        return new BookingCalendar({
          from: from.toISOString().slice(0, 10),
          resources: resources.map((resource) => ({
            ...resource,
            items: items.filter((item) => item.resourceId === resource.id).map(({ resourceId: _, ...item }) => item),
            bookedMinutesPerDay: Array.from(
              { length: DAYS },
              (_, day) => minutes.find((row) => row.resourceId === resource.id && row.day === day)?.minutes ?? 0
            )
          }))
        })
      })
    )
  })
)
