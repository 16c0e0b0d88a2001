/**
 * HTTP handlers of the booking group: decoding is the contract's schemas (the role and body checks its
 * middleware); what the schemas can't say — exactly one of `period` and `stay`, an availability window of at most
 * 31 days, an organisation number's check digit — is answered here as VALIDATION_FAILED, before any lookup
 * (decisions 4: 400 validation before 404). Each handler calls {@link BookingService} and encodes the domain
 * records as the contract's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { AddOnProduct as AddOnProductRecord } from "@propline/booking/AddOnProduct"
import { type StartAddOn, type TimeRange, windowProblem } from "@propline/booking/Availability"
import type { BookingTime } from "@propline/booking/BookingCheck"
import { type BookingRequestRecord, requestFingerprint, statusAt } from "@propline/booking/BookingRequest"
import { parseOrganisationNumber } from "@propline/booking/OrganisationNumber"
import type { PriceBreakdown as PriceRecord } from "@propline/booking/Pricing"
import { isPricedByNight } from "@propline/booking/Resource"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { AddOnOrderInput, AvailabilityParams, BookingPreviewRequest, CreateBookingRequest } from "@propline/contract/Booking"
import {
  AddOnProduct,
  Availability,
  BookableResource,
  BookingPreview,
  BookingRequest,
  CompanyLookup,
  LateCancellationCharge,
  PriceBreakdown,
  ResourceAvailability
} from "@propline/contract/BookingRecords"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { problem } from "@propline/contract/Problem"
import { Clock, Effect, Either } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import type { ResourceRow } from "./ResourceRepository.js"
import { type AvailabilityAnswer, BookingService, SEARCH_CURSOR } from "./BookingService.js"

// Domain records → contract classes. Our own data, already valid: constructed without re-validation; the casts
// only brand ids.
type Unbranded<T> = T extends string ? string : T extends ReadonlyArray<infer E> ? ReadonlyArray<Unbranded<E>> : T extends Date ? Date : T extends object ? { readonly [K in keyof T]: Unbranded<T[K]> } : T

const toResource = ({ resource, createdAt, updatedAt }: ResourceRow): BookableResource =>
  new BookableResource(
    {
      ...resource,
      pricing: isPricedByNight(resource) ? "night" : "time",
      createdAt,
      updatedAt
    } as Unbranded<BookableResource> as BookableResource,
    true
  )

const toAddOnProduct = (product: AddOnProductRecord): AddOnProduct => {
  const { organizationId: _organization, operationalContextId: _context, ...fields } = product
  return new AddOnProduct(fields as Unbranded<AddOnProduct> as AddOnProduct, true)
}

const toPrice = (price: PriceRecord): PriceBreakdown => new PriceBreakdown(price as Unbranded<PriceBreakdown> as PriceBreakdown, true)

/** Domain record → contract class, its status as of `now` (a pending hold past its time reads `expired`). */
export const toBookingRequest = (record: BookingRequestRecord, now: Date): BookingRequest => {
  const { time, fingerprint: _fingerprint, requestedBy: _requestedBy, blockedStart: _b, blockedEnd: _e, price, lateCancellation, ...fields } = record
  return new BookingRequest(
    {
      ...fields,
      ...(lateCancellation === undefined ? {} : { lateCancellation: new LateCancellationCharge(lateCancellation, true) }),
      status: statusAt(record, now),
      ...(time._tag === "Period"
        ? { period: { start: time.start, end: time.end } }
        : { stay: { checkInDate: time.checkInDate, checkOutDate: time.checkOutDate } }),
      price: toPrice(price)
    } as Unbranded<BookingRequest> as BookingRequest,
    true
  )
}

const currentTime = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

/** Exactly one of `period` and `stay`, as the domain's BookingTime; VALIDATION_FAILED otherwise. */
const timeOf = (body: Pick<BookingPreviewRequest, "period" | "stay">): Effect.Effect<BookingTime, ReturnType<typeof problem.validationFailed>> => {
  if (body.period !== undefined && body.stay === undefined) {
    return Effect.succeed({ _tag: "Period", start: body.period.start, end: body.period.end })
  }
  if (body.stay !== undefined && body.period === undefined) {
    return Effect.succeed({ _tag: "Stay", checkInDate: body.stay.checkInDate, checkOutDate: body.stay.checkOutDate })
  }
  return Effect.fail(
    problem.validationFailed([{ path: body.period === undefined ? "" : "/stay", message: "give exactly one of period and stay" }])
  )
}

const addOnsOf = (lines: ReadonlyArray<AddOnOrderInput>) =>
  lines.map((line) => ({
    addOnProductId: line.addOnProductId as string,
    quantity: line.quantity,
    deliverAt: line.deliverAt,
    specialPortions: line.specialPortions.map((portion) => ({ label: portion.label, quantity: portion.quantity }))
  }))

/** `addOnProductId:quantity,…` (the contract checked its form) as the add-ons priced with every start. */
const startAddOnsOf = (text: string | undefined): ReadonlyArray<StartAddOn> =>
  text === undefined
    ? []
    : text.split(",").map((pair) => {
        const [addOnProductId = "", quantity = "0"] = pair.split(":")
        return { addOnProductId: addOnProductId.toLowerCase(), quantity: Number(quantity) }
      })

/**
 * What the schemas can't say of an availability query (one resource's or the search's): a window of at most 31
 * days (VALIDATION_FAILED at `/to`), `durationMinutes` with `prices=true`, `addOns` only with it. The window and,
 * with `prices=true`, the add-ons priced with every start.
 */
const availabilityQuery = (urlParams: typeof AvailabilityParams.Type) =>
  Effect.gen(function* () {
    const window = { from: urlParams.from, to: urlParams.to }
    const invalid = windowProblem(window)
    if (invalid !== undefined) return yield* Effect.fail(problem.validationFailed([{ path: "/to", message: invalid }]))
    const priced = urlParams.prices === "true"
    if (priced && urlParams.durationMinutes === undefined) {
      return yield* Effect.fail(problem.validationFailed([{ path: "/durationMinutes", message: "is required with prices=true" }]))
    }
    if (!priced && urlParams.addOns !== undefined) {
      return yield* Effect.fail(problem.validationFailed([{ path: "/addOns", message: "is read only with prices=true" }]))
    }
    return { window, prices: priced ? { addOns: startAddOnsOf(urlParams.addOns) } : undefined }
  })

/** One resource's availability answer as the contract's record. */
const toAvailability = (answer: AvailabilityAnswer, window: TimeRange, durationMinutes: number | undefined): Availability =>
  new Availability(
    {
      resourceId: answer.resource.id,
      timeZone: answer.resource.timeZone,
      from: window.from,
      to: window.to,
      freePeriods: answer.freePeriods,
      ...(durationMinutes === undefined ? {} : { durationMinutes }),
      ...(answer.startTimes === undefined ? {} : { startTimes: answer.startTimes }),
      ...(answer.startPrices === undefined ? {} : { startPrices: answer.startPrices })
    } as Unbranded<Availability> as Availability,
    true
  )

/** The guest company with its number in canonical form; VALIDATION_FAILED for a wrong check digit. */
const companyOf = (body: CreateBookingRequest) => {
  if (body.company === undefined) return Effect.succeed(undefined)
  const company = body.company
  return Either.match(parseOrganisationNumber(company.country, company.organisationNumber), {
    onLeft: ({ message }) => Effect.fail(problem.validationFailed([{ path: "/company/organisationNumber", message }])),
    onRight: (organisationNumber) => Effect.succeed({ country: company.country, organisationNumber, name: company.name })
  })
}

export const BookingHandlers = HttpApiBuilder.group(IntegrationApi, "booking", (handlers) =>
  Effect.gen(function* () {
    const booking = yield* BookingService
    return handlers
      .handle("listResources", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("booking-resources", urlParams.cursor)
          const page = yield* booking.listResources(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
          return { items: page.items.map(toResource), nextCursor: page.nextCursor }
        })
      )
      .handle("getResource", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          return toResource(yield* booking.getResource(principal, path.resourceId).pipe(Effect.mapError(toProblem)))
        })
      )
      .handle("getAvailability", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const query = yield* availabilityQuery(urlParams)
          const answer = yield* booking
            .availability(principal, path.resourceId, query.window, urlParams.durationMinutes, query.prices)
            .pipe(Effect.mapError(toProblem))
          return toAvailability(answer, query.window, urlParams.durationMinutes)
        })
      )
      .handle("searchAvailability", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const query = yield* availabilityQuery(urlParams)
          const after = yield* CursorPage.decode(SEARCH_CURSOR, urlParams.cursor)
          const page = yield* booking
            .searchAvailability(
              principal,
              {
                ...(urlParams.operationalContextId === undefined ? {} : { operationalContextId: urlParams.operationalContextId }),
                ...(urlParams.kind === undefined ? {} : { kind: urlParams.kind }),
                ...(urlParams.minCapacity === undefined ? {} : { minCapacity: urlParams.minCapacity })
              },
              query.window,
              urlParams.durationMinutes,
              query.prices,
              after,
              urlParams.limit ?? DEFAULT_LIMIT
            )
            .pipe(Effect.mapError(toProblem))
          return {
            items: page.items.map(
              ({ answer, row }) =>
                new ResourceAvailability({ resource: toResource(row), availability: toAvailability(answer, query.window, urlParams.durationMinutes) }, true)
            ),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("listAddOnProducts", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode(`booking-add-ons:${path.resourceId}`, urlParams.cursor)
          const page = yield* booking
            .listAddOnProducts(principal, path.resourceId, after, urlParams.limit ?? DEFAULT_LIMIT)
            .pipe(Effect.mapError(toProblem))
          return { items: page.items.map(toAddOnProduct), nextCursor: page.nextCursor }
        })
      )
      .handle("lookUpCompany", ({ payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const parsed = parseOrganisationNumber(payload.country, payload.organisationNumber)
          if (Either.isLeft(parsed)) {
            return yield* Effect.fail(problem.validationFailed([{ path: "/organisationNumber", message: parsed.left.message }]))
          }
          const result = yield* booking.lookUpCompany(principal, payload.country, parsed.right).pipe(Effect.mapError(toProblem))
          return new CompanyLookup(
            {
              country: result.country,
              organisationNumber: result.organisationNumber,
              registry: result.registry,
              found: result.company !== undefined,
              ...(result.company === undefined ? {} : { company: result.company })
            },
            true
          )
        })
      )
      .handle("previewBookingRequest", ({ payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const time = yield* timeOf(payload)
          const checked = yield* booking
            .preview(principal, {
              resourceId: payload.resourceId,
              time,
              addOns: addOnsOf(payload.addOns),
              ...(payload.currency === undefined ? {} : { currency: payload.currency })
            })
            .pipe(Effect.mapError(toProblem))
          return new BookingPreview(
            {
              resourceId: payload.resourceId,
              start: checked.start,
              end: checked.end,
              ...(checked.nights === undefined ? {} : { nights: checked.nights }),
              price: toPrice(checked.price)
            },
            true
          )
        })
      )
      .handle("createBookingRequest", ({ payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const time = yield* timeOf(payload)
          const company = yield* companyOf(payload)
          const { requestId, ...body } = payload
          const record = yield* booking
            .create(principal, {
              resourceId: payload.resourceId,
              requestId,
              fingerprint: requestFingerprint(body),
              time,
              addOns: addOnsOf(payload.addOns),
              ...(payload.currency === undefined ? {} : { currency: payload.currency }),
              guest: {
                name: payload.guest.name,
                email: payload.guest.email,
                ...(payload.guest.phone === undefined ? {} : { phone: payload.guest.phone })
              },
              ...(company === undefined ? {} : { company }),
              ...(payload.message === undefined ? {} : { message: payload.message })
            })
            .pipe(Effect.mapError(toProblem))
          return toBookingRequest(record, yield* currentTime)
        })
      )
      .handle("listBookingRequests", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const { from, to } = urlParams
          if (from !== undefined && to !== undefined && to.getTime() <= from.getTime()) {
            return yield* Effect.fail(problem.validationFailed([{ path: "/to", message: "must be after from" }]))
          }
          const after = yield* CursorPage.decode("booking-requests", urlParams.cursor)
          const page = yield* booking.list(
            principal,
            {
              ...(urlParams.status === undefined ? {} : { status: urlParams.status }),
              ...(urlParams.resourceId === undefined ? {} : { resourceId: urlParams.resourceId }),
              ...(from === undefined ? {} : { from }),
              ...(to === undefined ? {} : { to })
            },
            after,
            urlParams.limit ?? DEFAULT_LIMIT
          )
          const now = yield* currentTime
          return { items: page.items.map((record) => toBookingRequest(record, now)), nextCursor: page.nextCursor }
        })
      )
      .handle("cancelBookingRequest", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const { cancellationId, ...body } = payload
          const record = yield* booking
            .cancel(
              principal,
              path.bookingId,
              { changeId: cancellationId, fingerprint: requestFingerprint(body) },
              {
                ...(payload.reason === undefined ? {} : { reason: payload.reason }),
                ...(payload.lateCancellation === undefined ? {} : { lateCancellation: payload.lateCancellation })
              }
            )
            .pipe(Effect.mapError(toProblem))
          return toBookingRequest(record, yield* currentTime)
        })
      )
      .handle("rescheduleBookingRequest", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const time = yield* timeOf(payload)
          const { rescheduleId, ...body } = payload
          const record = yield* booking
            .reschedule(
              principal,
              path.bookingId,
              { changeId: rescheduleId, fingerprint: requestFingerprint(body) },
              {
                time,
                ...(payload.addOns === undefined ? {} : { addOns: addOnsOf(payload.addOns) }),
                ...(payload.currency === undefined ? {} : { currency: payload.currency })
              }
            )
            .pipe(Effect.mapError(toProblem))
          return toBookingRequest(record, yield* currentTime)
        })
      )
      .handle("getBookingRequestByRequestId", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const record = yield* booking.getByRequestId(principal, path.requestId).pipe(Effect.mapError(toProblem))
          return toBookingRequest(record, yield* currentTime)
        })
      )
      .handle("getBookingRequest", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const record = yield* booking.get(principal, path.bookingId).pipe(Effect.mapError(toProblem))
          return toBookingRequest(record, yield* currentTime)
        })
      )
  })
)
