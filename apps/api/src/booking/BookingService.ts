/**
 * The booking operations of the API (spec 4.2 Booking; decisions 4, 7). What an Application may see is the
 * resources an operator let it sell, in the contexts its token sees; a booking request is visible to the
 * Application that made it. Preview and request load the same state and run the same pure check
 * (`@propline/booking/BookingCheck`), so they answer the same code for the same body at the same moment.
 *
 * A request is one transaction: lock the resource row (so requests for one resource run one after another and
 * each sees the bookings before it), replay a known requestId, write down holds that expired, check and price,
 * insert (PostgreSQL's exclusion constraint is the last guard against a double sale), events, audit.
 */
import { bookableStarts, freePeriods, pricedStarts, type StartAddOn, type TimeRange } from "@propline/booking/Availability"
import { type BookingCommand, type BookingState, checkBooking, resolveTime } from "@propline/booking/BookingCheck"
import {
  type BookingRequestCommand,
  expire,
  replayBookingRequest,
  requestBooking
} from "@propline/booking/BookingRequest"
import type { CompanyLookupResult } from "@propline/booking/CompanyLookup"
import type { RegistryCountry } from "@propline/booking/OrganisationNumber"
import type { BookableResource } from "@propline/booking/Resource"
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { type BookingRequestFilters, BookingRequestRepository } from "./BookingRequestRepository.js"
import { CompanyRegistry } from "./CompanyRegistry.js"
import { ResourceRepository, type Seller } from "./ResourceRepository.js"

const span = (name: string) => Effect.withSpan(`BookingService.${name}`, { captureStackTrace: false })

const sellerOf = (principal: PrincipalShape): Seller => ({
  organizationId: principal.organizationId,
  applicationId: principal.subject,
  contextIds: principal.contexts
})

const RESOURCE = "bookable resource"
const HOLD_EXPIRY_ACTOR = { type: "system", id: "booking-hold-expiry" } as const

/** A booking draft as the API takes it: the resource and the booking itself. */
export interface BookingDraft extends BookingCommand {
  readonly resourceId: string
}

/** A booking request as the API takes it (the record's id, requester and fingerprint are the service's). */
export interface BookingRequestInput extends BookingDraft, Omit<BookingRequestCommand, "id" | "requestedBy" | keyof BookingCommand> {}

export class BookingService extends Effect.Service<BookingService>()("@propline/api/booking/BookingService", {
  effect: Effect.gen(function* () {
    const resources = yield* ResourceRepository
    const requests = yield* BookingRequestRepository
    const registry = yield* CompanyRegistry

    const sellable = (principal: PrincipalShape, resourceId: string, lock = false) =>
      Effect.flatMap(resources.findSellable(sellerOf(principal), resourceId, lock), (row) =>
        row === undefined ? Effect.fail(new RecordNotFound({ kind: RESOURCE })) : Effect.succeed(row)
      )

    /** What the check reads for a booking of `resource` at `time`: offered add-ons and nearby live bookings. */
    const stateFor = (resource: BookableResource, time: BookingCommand["time"], now: Date) =>
      Effect.gen(function* () {
        const offeredAddOns = (yield* resources.offeredAddOns(resource.id)).map((row) => row.record)
        const resolved = resolveTime(resource, time)
        // Only bookings within both buffers of the asked period can conflict with it.
        const gap = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes) * 60_000
        const otherBookings = Either.isLeft(resolved)
          ? []
          : yield* requests.livePeriods(
              resource.id,
              new Date(resolved.right.period.start - gap),
              new Date(resolved.right.period.end + gap),
              now
            )
        return { resource, offeredAddOns, otherBookings } satisfies BookingState
      })

    /** Writes down the resource's holds that ran out by `now` (under the resource's lock). */
    const expireStaleHolds = (resource: BookableResource, now: Date) =>
      Effect.gen(function* () {
        for (const stale of yield* requests.staleHolds(resource.id, now)) {
          const transition = expire(stale, now)
          if (Option.isNone(transition)) continue
          yield* requests.updateStatus(transition.value.record)
          yield* Outbox.append(transition.value.events)
          yield* Audit.byActor(resource.organizationId, HOLD_EXPIRY_ACTOR, {
            action: "booking.booking_request.expire",
            targetType: "booking_request",
            targetId: stale.id,
            at: now
          })
        }
      })

    const replay = (principal: PrincipalShape, requestId: string, fingerprint: string) =>
      Effect.flatMap(requests.findByRequestId(principal.subject, requestId), (existing) =>
        existing === undefined
          ? Effect.dieMessage("a booking request's requestId was taken but the request is not there")
          : replayBookingRequest(existing, fingerprint)
      )

    return {
      /** The resources the principal's Application may sell, oldest first (decisions 4 pages). */
      listResources: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        resources
          .listSellable(sellerOf(principal), after, limit)
          .pipe(Effect.map((rows) => CursorPage.page("booking-resources", rows, limit)), span("listResources")),

      /** One sellable resource; 404 otherwise. */
      getResource: (principal: PrincipalShape, resourceId: string) => sellable(principal, resourceId).pipe(span("getResource")),

      /**
       * Free periods of a window (≤ 31 days, checked by the caller) and, with `durationMinutes`, the bookable start
       * times; from the same live bookings the check reads. With `prices`, each start's price for the duration and
       * the add-ons (delivered at the start), from the preview's check (`pricedStarts`).
       */
      availability: (
        principal: PrincipalShape,
        resourceId: string,
        window: TimeRange,
        durationMinutes: number | undefined,
        prices?: { readonly addOns: ReadonlyArray<StartAddOn> }
      ) =>
        Effect.gen(function* () {
          const row = yield* sellable(principal, resourceId)
          const resource = row.resource
          const now = yield* Sql.now
          const reach = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes + (durationMinutes ?? 0)) * 60_000
          const otherBookings = yield* requests.livePeriods(
            resource.id,
            new Date(window.from.getTime() - reach),
            new Date(window.to.getTime() + reach),
            now
          )
          const state = { resource, otherBookings }
          const startTimes = durationMinutes === undefined ? undefined : bookableStarts(state, window, durationMinutes, now)
          // Prices come from the preview's own check on the same state, so a priced start previews at its price.
          const startPrices =
            prices === undefined || startTimes === undefined || durationMinutes === undefined
              ? undefined
              : yield* pricedStarts(
                  { ...state, offeredAddOns: (yield* resources.offeredAddOns(resource.id)).map((row) => row.record) },
                  startTimes,
                  durationMinutes,
                  prices.addOns,
                  now
                )
          return {
            resource,
            freePeriods: freePeriods(state, window, now),
            ...(startTimes === undefined ? {} : { startTimes }),
            ...(startPrices === undefined ? {} : { startPrices })
          }
        }).pipe(span("availability")),

      /** The add-on products a sellable resource offers, oldest first. */
      listAddOnProducts: (principal: PrincipalShape, resourceId: string, after: CursorPage.Position | undefined, limit: number) =>
        Effect.gen(function* () {
          yield* sellable(principal, resourceId)
          const rows = yield* resources.offeredAddOns(resourceId, after, limit)
          return CursorPage.page(`booking-add-ons:${resourceId}`, rows, limit)
        }).pipe(span("listAddOnProducts")),

      /**
       * Asks the company registry about a checked organisation number (canonical form). Refusals:
       * TENANT_COMPANY_REGISTRY_NOT_SUPPORTED, TENANT_COMPANY_REGISTRY_UNAVAILABLE (400).
       */
      lookUpCompany: (principal: PrincipalShape, country: RegistryCountry, organisationNumber: string) =>
        registry.lookUp(principal.organizationId, country, organisationNumber).pipe(
          Effect.map(
            (company): CompanyLookupResult & { readonly customerNumber?: string } => ({
              country,
              organisationNumber,
              registry: registry.name,
              ...(company === undefined ? {} : { company })
            })
          ),
          span("lookUpCompany")
        ),

      /** Prices a booking now: the check a request runs, without holding anything. */
      preview: (principal: PrincipalShape, draft: BookingDraft) =>
        Effect.gen(function* () {
          const row = yield* sellable(principal, draft.resourceId)
          const now = yield* Sql.now
          const state = yield* stateFor(row.resource, draft.time, now)
          return yield* checkBooking(state, draft, now)
        }).pipe(span("preview")),

      /**
       * Requests a booking (decisions 7): a new `pending` request holding its slot, or — for a requestId the
       * Application used before — the same request again when the body is the same, else 409
       * BOOKING_REQUEST_ID_ALREADY_USED. Refusals: the check's, in its order (BOOKING_SLOT_TAKEN is 409).
       */
      create: (principal: PrincipalShape, input: BookingRequestInput) =>
        Sql.transaction(
          Effect.gen(function* () {
            const row = yield* sellable(principal, input.resourceId, true)
            const existing = yield* requests.findByRequestId(principal.subject, input.requestId)
            if (existing !== undefined) return yield* replayBookingRequest(existing, input.fingerprint)
            const now = yield* Sql.now
            yield* expireStaleHolds(row.resource, now)
            const state = yield* stateFor(row.resource, input.time, now)
            const transition = yield* requestBooking(state, { ...input, id: randomUUID(), requestedBy: principal.subject }, now)
            yield* requests.insert(transition.record)
            yield* Outbox.append(transition.events)
            yield* Audit.byPrincipal(principal, {
              action: "booking.booking_request.create",
              targetType: "booking_request",
              targetId: transition.record.id,
              details: { requestId: input.requestId, resourceId: row.resource.id },
              at: now
            })
            return transition.record
          })
        ).pipe(
          Effect.catchTag("RequestIdRace", () => replay(principal, input.requestId, input.fingerprint)),
          span("create")
        ),

      /**
       * The booking requests the principal's Application made, oldest first, narrowed by `filters` (issue 26,
       * item 2): a website that lost a response finds what it booked.
       */
      list: (
        principal: PrincipalShape,
        filters: BookingRequestFilters,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Effect.gen(function* () {
          const now = yield* Sql.now
          const rows = yield* requests.listForApplication(principal.organizationId, principal.subject, filters, now, after, limit)
          return CursorPage.page("booking-requests", rows, limit)
        }).pipe(span("list")),

      /** The booking request the principal's Application made with its own `requestId`; 404 otherwise. */
      getByRequestId: (principal: PrincipalShape, requestId: string) =>
        Effect.flatMap(requests.findByRequestId(principal.subject, requestId), (record) =>
          record === undefined || record.organizationId !== principal.organizationId
            ? Effect.fail(new RecordNotFound({ kind: "booking request" }))
            : Effect.succeed(record)
        ).pipe(span("getByRequestId")),

      /** A booking request the principal's Application made; 404 otherwise. */
      get: (principal: PrincipalShape, bookingId: string) =>
        Effect.flatMap(requests.findForApplication(principal.organizationId, principal.subject, bookingId), (record) =>
          record === undefined ? Effect.fail(new RecordNotFound({ kind: "booking request" })) : Effect.succeed(record)
        ).pipe(span("get"))
    }
  }),
  dependencies: [ResourceRepository.Default, BookingRequestRepository.Default]
}) {}
