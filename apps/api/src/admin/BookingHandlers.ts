/**
 * Booking in the console: resources, add-on products and booking requests of the operator's organization, and the
 * operator's decisions on requests — one call of the booking operator service each (lock, rule, persist, events,
 * audit in one transaction), with the operator as actor.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/admin/AdminApi"
import {
  AddOnProductView,
  BookingRequestView,
  PriceRuleView,
  ResourceDetail,
  ResourceSummary,
  WeeklyOpening
} from "@propline/admin/Booking"
import { CurrentOperator, type OperatorShape } from "@propline/admin/Session"
import { Effect } from "effect"
import { BookingOperatorService } from "../booking/BookingOperatorService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "./AdminListing.js"
import { BookingViews } from "./BookingViews.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type ResourceRow = Effect.Effect.Success<ReturnType<BookingViews["resource"]>>["resource"]
type RequestRow = Effect.Effect.Success<ReturnType<BookingViews["request"]>>

type SummaryFields = "id" | "name" | "kind" | "operationalContextId" | "operationalContextName" | "timeZone" | "capacity" | "currency" | "status" | "pendingRequests" | "createdAt"

const toResource = (row: Pick<ResourceRow, SummaryFields>) =>
  new ResourceSummary({
    id: row.id,
    name: row.name,
    kind: row.kind,
    operationalContextId: row.operationalContextId,
    operationalContextName: row.operationalContextName,
    timeZone: row.timeZone,
    capacity: row.capacity,
    currency: row.currency,
    status: row.status,
    pendingRequests: Number(row.pendingRequests),
    createdAt: row.createdAt
  })

const toRequest = (row: RequestRow) => new BookingRequestView(row)

/** `YYYY-MM-DD` as UTC midnight; the calendar asks for whole days. */
const day = (text: string | undefined) => {
  const value = given(text)
  return value === undefined ? undefined : new Date(`${value}T00:00:00.000Z`)
}

export const BookingHandlers = HttpApiBuilder.group(AdminApi, "booking", (handlers) =>
  Effect.gen(function* () {
    const views = yield* BookingViews
    const operations = yield* BookingOperatorService
    return handlers
      .handle("listResources", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-resources", urlParams.cursor)
          const filter = { q: given(urlParams.q), kind: given(urlParams.kind), status: given(urlParams.status) }
          const page = yield* views.resources(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toResource), nextCursor: page.nextCursor }
        })
      )
      .handle("getResource", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.resource(organizationId, path.resourceId).pipe(Effect.mapError(toProblem))
          const { resource } = found
          return new ResourceDetail({
            resource: toResource(resource),
            description: resource.description,
            weekly: resource.openingHours.weekly.map((opening) => new WeeklyOpening(opening)),
            closures: resource.openingHours.closures,
            rules: {
              minDurationMinutes: resource.minDurationMinutes,
              maxDurationMinutes: resource.maxDurationMinutes,
              durationIncrementMinutes: resource.durationIncrementMinutes,
              startIncrementMinutes: resource.startIncrementMinutes,
              minimumNoticeMinutes: resource.minimumNoticeMinutes,
              horizonDays: resource.horizonDays,
              bufferBeforeMinutes: resource.bufferBeforeMinutes,
              bufferAfterMinutes: resource.bufferAfterMinutes,
              holdMinutes: resource.holdMinutes
            },
            priceRules: found.priceRules.map((rule) => new PriceRuleView(rule)),
            addOnProducts: found.addOnProducts.map((product) => new AddOnProductView(product))
          })
        })
      )
      .handle("listAddOnProducts", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-add-ons", urlParams.cursor)
          const page = yield* views.addOnProducts(organizationId, { q: given(urlParams.q) }, after, limitOf(urlParams.limit))
          return { items: page.items.map((row) => new AddOnProductView(row)), nextCursor: page.nextCursor }
        })
      )
      .handle("listRequests", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-booking-requests", urlParams.cursor)
          const to = day(urlParams.to)
          const filter = {
            status: given(urlParams.status),
            resourceId: urlParams.resourceId,
            from: day(urlParams.from),
            // `to` names the last day shown: requests starting before the next midnight.
            to: to === undefined ? undefined : new Date(to.getTime() + 24 * 60 * 60 * 1000)
          }
          const page = yield* views.requests(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toRequest), nextCursor: page.nextCursor }
        })
      )
      .handle("approveRequest", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations.approve(actorOf(operator), operator.organizationId, path.bookingId).pipe(Effect.mapError(toProblem))
          return toRequest(yield* views.request(operator.organizationId, path.bookingId).pipe(Effect.orDie))
        })
      )
      .handle("declineRequest", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations
            .decline(actorOf(operator), operator.organizationId, path.bookingId, payload.reason)
            .pipe(Effect.mapError(toProblem))
          return toRequest(yield* views.request(operator.organizationId, path.bookingId).pipe(Effect.orDie))
        })
      )
  })
)
