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
import {
  bookingReachMs,
  pricedStarts,
  type PricedStart,
  type ResourceAvailability,
  resourceAvailability,
  searchPageSize,
  type StartAddOn,
  type TimeRange
} from "@propline/booking/Availability"
import { type BookingCommand, type BookingState, checkBooking, resolveTime } from "@propline/booking/BookingCheck"
import { MAX_PRICED_STARTS, type QueryTooLarge, RequestIdAlreadyUsed } from "@propline/booking/BookingRefusal"
import {
  type BookingRequestCommand,
  type BookingRequestRecord,
  cancel,
  type CancelCommand,
  expire,
  replayBookingRequest,
  requestBooking,
  reschedule
} from "@propline/booking/BookingRequest"
import type { CompanyLookupResult } from "@propline/booking/CompanyLookup"
import type { RegistryCountry } from "@propline/booking/OrganisationNumber"
import type { BookingEvent } from "@propline/booking/BookingEvent"
import type { BookableResource } from "@propline/booking/Resource"
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { type BookingRequestChange, type BookingRequestFilters, BookingRequestRepository } from "./BookingRequestRepository.js"
import { CompanyRegistry } from "./CompanyRegistry.js"
import { type ResourceFilters, ResourceRepository, type ResourceRow, type Seller } from "./ResourceRepository.js"
import { traced } from "../platform/Spans.js"

const span = (name: string) => traced(`BookingService.${name}`)

const sellerOf = (principal: PrincipalShape): Seller => ({
  organizationId: principal.organizationId,
  applicationId: principal.subject,
  contextIds: principal.contexts
})

const RESOURCE = "bookable resource"
const HOLD_EXPIRY_ACTOR = { type: "system", id: "booking-hold-expiry" } as const

/** The cursor key of the search across resources' pages. */
export const SEARCH_CURSOR = "booking-availability"

/** What `prices=true` asks of availability: the add-ons priced with every start. */
export interface PricesAsked {
  readonly addOns: ReadonlyArray<StartAddOn>
}

/** One resource's availability as the handlers encode it: the resource, its free time and, when asked, prices. */
export interface AvailabilityAnswer extends ResourceAvailability {
  readonly resource: BookableResource
  readonly startPrices?: ReadonlyArray<PricedStart>
}

/** A booking draft as the API takes it: the resource and the booking itself. */
export interface BookingDraft extends BookingCommand {
  readonly resourceId: string
}

/** A change to a booking request as the API takes it: the caller's own id of it and the body's fingerprint. */
export interface ChangeKey {
  readonly changeId: string
  readonly fingerprint: string
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
    const stateFor = (resource: BookableResource, time: BookingCommand["time"], now: Date, exceptId?: string) =>
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
              now,
              exceptId
            )
        return { resource, offeredAddOns, otherBookings } satisfies BookingState
      })

    /**
     * One resource's availability answer from its state and its free time (`resourceAvailability`): with `prices`,
     * each start's price from the preview's check on the same state (`pricedStarts`; QueryTooLarge past
     * `MAX_PRICED_STARTS` starts).
     */
    const answerAvailability = (
      state: BookingState,
      base: ResourceAvailability,
      durationMinutes: number | undefined,
      prices: PricesAsked | undefined,
      now: Date
    ): Effect.Effect<AvailabilityAnswer, QueryTooLarge> =>
      Effect.gen(function* () {
        // Prices come from the preview's own check on the same state, so a priced start previews at its price.
        const startPrices =
          prices === undefined || base.startTimes === undefined || durationMinutes === undefined
            ? undefined
            : yield* pricedStarts(state, base.startTimes, durationMinutes, prices.addOns, now)
        return { resource: state.resource, ...base, ...(startPrices === undefined ? {} : { startPrices }) }
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

    const notFound = () => new RecordNotFound({ kind: "booking request" })

    /**
     * A change id the Application used before (decisions 4, idempotency by the caller's own id): the request as it
     * is now when it was the same change of the same request with the same body; else 409
     * BOOKING_REQUEST_ID_ALREADY_USED. Undefined when the id is new.
     */
    const replayChange = (
      principal: PrincipalShape,
      bookingId: string,
      kind: BookingRequestChange["kind"],
      key: ChangeKey
    ) =>
      Effect.gen(function* () {
        const known = yield* requests.findChange(principal.subject, key.changeId)
        if (known === undefined) return undefined
        if (known.bookingId !== bookingId || known.kind !== kind || known.fingerprint !== key.fingerprint) {
          return yield* new RequestIdAlreadyUsed({
            detail: `This ${kind === "cancel" ? "cancellationId" : "rescheduleId"} was already used for another change.`
          })
        }
        const current = yield* requests.findForApplication(principal.organizationId, principal.subject, bookingId)
        return current ?? (yield* notFound())
      })

    /** Writes a change the domain made: the record, the caller's id of it, events and audit. */
    const persistChange = (
      principal: PrincipalShape,
      kind: BookingRequestChange["kind"],
      key: ChangeKey,
      transition: { readonly record: BookingRequestRecord; readonly events: ReadonlyArray<BookingEvent> },
      now: Date
    ) =>
      Effect.gen(function* () {
        yield* requests.insertChange(principal.subject, key.changeId, { bookingId: transition.record.id, kind, fingerprint: key.fingerprint }, now)
        yield* Outbox.append(transition.events)
        yield* Audit.byPrincipal(principal, {
          action: `booking.booking_request.${kind}`,
          targetType: "booking_request",
          targetId: transition.record.id,
          details: { changeId: key.changeId },
          at: now
        })
        return transition.record
      })

    const replayRace = (principal: PrincipalShape, bookingId: string, kind: BookingRequestChange["kind"], key: ChangeKey) =>
      Effect.flatMap(replayChange(principal, bookingId, kind, key), (record) =>
        record === undefined ? Effect.dieMessage("a change id was taken but the change is not there") : Effect.succeed(record)
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
        prices?: PricesAsked
      ) =>
        Effect.gen(function* () {
          const row = yield* sellable(principal, resourceId)
          const resource = row.resource
          const now = yield* Sql.now
          const reach = bookingReachMs(resource, durationMinutes)
          const otherBookings = yield* requests.livePeriods(
            resource.id,
            new Date(window.from.getTime() - reach),
            new Date(window.to.getTime() + reach),
            now
          )
          const offeredAddOns = prices === undefined ? [] : (yield* resources.offeredAddOns(resource.id)).map((row) => row.record)
          const base = resourceAvailability({ resource, otherBookings }, window, durationMinutes, now)
          return yield* answerAvailability({ resource, otherBookings, offeredAddOns }, base, durationMinutes, prices, now)
        }).pipe(span("availability")),

      /**
       * Free time of many sellable resources in one call (issue 26, item 4): the resources `filters` narrows to,
       * oldest first after `after`, `searchPageSize` of them (at most `limit`, and at most 400 resource-days), each
       * answered by the very functions single-resource availability runs (`resourceAvailability`, `pricedStarts`) on
       * bookings read in one statement for the page. With `prices`, a page also ends before a resource whose starts
       * would take the page's priced starts past `MAX_PRICED_STARTS` (one resource alone past it: QueryTooLarge,
       * as single-resource availability). Three statements a page (resources with their rules, live bookings,
       * offered add-ons with `prices`).
       */
      searchAvailability: (
        principal: PrincipalShape,
        filters: ResourceFilters,
        window: TimeRange,
        durationMinutes: number | undefined,
        prices: PricesAsked | undefined,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Effect.gen(function* () {
          const size = searchPageSize(window, limit)
          const rows = yield* resources.listSellable(sellerOf(principal), after, size, filters)
          const page = rows.slice(0, size)
          const ids = page.map((row) => row.record.resource.id)
          const now = yield* Sql.now
          const reach = Math.max(0, ...page.map((row) => bookingReachMs(row.record.resource, durationMinutes)))
          const bookings = yield* requests.livePeriodsOf(
            ids,
            new Date(window.from.getTime() - reach),
            new Date(window.to.getTime() + reach),
            now
          )
          const addOns = prices === undefined ? new Map<string, never>() : yield* resources.offeredAddOnsOf(ids)
          const items: Array<{ readonly row: ResourceRow; readonly answer: AvailabilityAnswer }> = []
          let pricedSoFar = 0
          for (const { record: row } of page) {
            const resource = row.resource
            const otherBookings = bookings.get(resource.id) ?? []
            const base = resourceAvailability({ resource, otherBookings }, window, durationMinutes, now)
            if (prices !== undefined && base.startTimes !== undefined) {
              if (items.length > 0 && pricedSoFar + base.startTimes.length > MAX_PRICED_STARTS) break
              pricedSoFar += base.startTimes.length
            }
            const offeredAddOns = addOns.get(resource.id) ?? []
            items.push({ row, answer: yield* answerAvailability({ resource, otherBookings, offeredAddOns }, base, durationMinutes, prices, now) })
          }
          const last = page[items.length - 1]
          const more = items.length < page.length || rows.length > size
          return {
            items,
            nextCursor: more && last !== undefined ? CursorPage.encode(SEARCH_CURSOR, last.position) : null
          }
        }).pipe(span("searchAvailability")),

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

      /**
       * Cancels a booking request the principal's Application made (issue 26), idempotent by the caller's
       * `cancellationId`: one transaction locking the request (so a cancel and an operator's decision run one after
       * the other), the check's cancellation refusals (`checkCancellation`), then the cancelled record, its id,
       * event and audit. 404 for another Application's request.
       */
      cancel: (principal: PrincipalShape, bookingId: string, key: ChangeKey, command: Omit<CancelCommand, "by">) =>
        Sql.transaction(
          Effect.gen(function* () {
            const record = yield* requests.lockForApplication(principal.organizationId, principal.subject, bookingId)
            if (record === undefined) return yield* notFound()
            const replayed = yield* replayChange(principal, bookingId, "cancel", key)
            if (replayed !== undefined) return replayed
            const found = yield* resources.find(principal.organizationId, record.resourceId)
            if (found === undefined) return yield* Effect.dieMessage("a booking request's resource is not there")
            const now = yield* Sql.now
            const transition = yield* cancel({ resource: found.resource }, record, { ...command, by: "application" }, now)
            yield* requests.updateStatus(transition.record)
            return yield* persistChange(principal, "cancel", key, transition, now)
          })
        ).pipe(
          Effect.catchTag("ChangeIdRace", () => replayRace(principal, bookingId, "cancel", key)),
          span("cancel")
        ),

      /**
       * Moves a booking request the principal's Application made to a new time (issue 26), idempotent by the
       * caller's `rescheduleId`: as a new request does, it locks the resource (requests and reschedules of one
       * resource run one after another), writes down stale holds and runs the one check — the change's checks
       * first — on the other live bookings; PostgreSQL's exclusion constraint is the last guard. 404 for another
       * Application's request or a resource it may no longer sell.
       */
      reschedule: (
        principal: PrincipalShape,
        bookingId: string,
        key: ChangeKey,
        command: Omit<BookingCommand, "addOns" | "change"> & { readonly addOns?: BookingCommand["addOns"] }
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const current = yield* requests.findForApplication(principal.organizationId, principal.subject, bookingId)
            if (current === undefined) return yield* notFound()
            const row = yield* sellable(principal, current.resourceId, true)
            const record = yield* requests.lockForApplication(principal.organizationId, principal.subject, bookingId)
            if (record === undefined) return yield* notFound()
            const replayed = yield* replayChange(principal, bookingId, "reschedule", key)
            if (replayed !== undefined) return replayed
            const now = yield* Sql.now
            yield* expireStaleHolds(row.resource, now)
            const fresh = (yield* requests.lock(principal.organizationId, bookingId)) ?? record
            const state = yield* stateFor(row.resource, command.time, now, bookingId)
            const transition = yield* reschedule(
              state,
              fresh,
              { ...command, addOns: command.addOns ?? fresh.addOns, by: "application" },
              now
            )
            yield* requests.reschedule(transition.record)
            return yield* persistChange(principal, "reschedule", key, transition, now)
          })
        ).pipe(
          Effect.catchTag("ChangeIdRace", () => replayRace(principal, bookingId, "reschedule", key)),
          span("reschedule")
        ),

      /** A booking request the principal's Application made; 404 otherwise. */
      get: (principal: PrincipalShape, bookingId: string) =>
        Effect.flatMap(requests.findForApplication(principal.organizationId, principal.subject, bookingId), (record) =>
          record === undefined ? Effect.fail(new RecordNotFound({ kind: "booking request" })) : Effect.succeed(record)
        ).pipe(span("get"))
    }
  }),
  dependencies: [ResourceRepository.Default, BookingRequestRepository.Default]
}) {}
