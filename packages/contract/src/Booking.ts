/**
 * The booking group (spec 1 and 4.2, Booking; decisions 4 and 7): what a booking website needs to sell rooms, desks
 * and parking — the resources the Application may sell, their free time and extras, company lookups, priced
 * previews, booking requests (idempotent by `requestId`) and reading them back. Every operation needs the
 * `booking` role.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import {
  AddOnProduct,
  Availability,
  BookableResource,
  BookingPreview,
  BookingRequest,
  BookingRequestStatus,
  CompanyLookup,
  RegistryCountry,
  ResourceAvailability
} from "./BookingRecords.js"
import { AddOnProductId, BookableResourceId, BookingId, OperationalContextId } from "./Ids.js"
import { JsonBody } from "./JsonBody.js"
import { Page, PageParams } from "./Page.js"
import { Conflict, NotFound } from "./Problem.js"
import { BookingRole } from "./Roles.js"
import { body } from "./Request.js"
import { BoundedText, CalendarDate, Currency, Instant, IntegerBetween, IntegerParameter } from "./Values.js"

const Count = IntegerBetween

/** `?from=&to=&durationMinutes=` of availability. */
export const AvailabilityParams = Schema.Struct({
  from: Instant.annotations({ description: "Start of the window (ISO 8601 with offset)." }),
  to: Instant.annotations({ description: "End of the window; at most 31 days after `from`." }),
  durationMinutes: Schema.optional(
    IntegerParameter(
      1,
      44_640,
      "With it, the answer lists `startTimes` for a booking of this many minutes: decimal digits, 1 to 44640."
    )
  ),
  prices: Schema.optional(
    Schema.Literal("true", "false").annotations({
      description: "`true`: also `startPrices`, each start's price for `durationMinutes` (which it needs) and `addOns`."
    })
  ),
  addOns: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(
        /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:[1-9]\d{0,3}(,[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:[1-9]\d{0,3}){0,19}$/
      ),
      Schema.annotations({
        description:
          "With `prices=true`: add-ons priced with every start, delivered at it: up to 20 comma-separated " +
          "`addOnProductId:quantity` pairs (quantity 1 to 9999).",
        message: () => ({ message: "must be up to 20 comma-separated addOnProductId:quantity pairs", override: true })
      })
    )
  )
})

/**
 * `GET /v1/booking/availability`: one resource's availability query (`from`, `to`, `durationMinutes`, `prices`,
 * `addOns`), the resource filters and a page (`limit`, `cursor`).
 */
export const AvailabilitySearchParams = Schema.Struct({
  ...AvailabilityParams.fields,
  ...PageParams.fields,
  operationalContextId: Schema.optional(
    OperationalContextId.annotations({
      description: "Only resources in this operational context or below it; one the Application does not see gives no resources."
    })
  ),
  kind: Schema.optional(Schema.Literal("room", "desk", "parking").annotations({ description: "Only resources of this kind." })),
  minCapacity: Schema.optional(
    IntegerParameter(1, 10_000, "Only resources seating at least this many people: decimal digits, 1 to 10000.")
  )
})

export const PeriodInput = Schema.Struct({
  start: Instant,
  end: Instant
}).annotations({ identifier: "PeriodInput" })
export type PeriodInput = typeof PeriodInput.Type

export const StayInput = Schema.Struct({
  checkInDate: CalendarDate,
  checkOutDate: CalendarDate
}).annotations({ identifier: "StayInput" })
export type StayInput = typeof StayInput.Type

export const SpecialPortionInput = Schema.Struct({
  label: BoundedText(1, 100),
  quantity: Count(1, 10_000)
}).annotations({ identifier: "SpecialPortionInput" })
export type SpecialPortionInput = typeof SpecialPortionInput.Type

export const AddOnOrderInput = Schema.Struct({
  addOnProductId: AddOnProductId,
  quantity: Count(1, 10_000),
  deliverAt: Instant,
  specialPortions: Schema.optionalWith(Schema.Array(SpecialPortionInput).pipe(Schema.maxItems(20)), { default: () => [] })
}).annotations({ identifier: "AddOnOrderInput" })
export type AddOnOrderInput = typeof AddOnOrderInput.Type

/** What is booked: exactly one of `period` (resources priced by time) and `stay` (priced by the night). */
const draftFields = {
  resourceId: BookableResourceId,
  period: Schema.optional(PeriodInput),
  stay: Schema.optional(StayInput),
  addOns: Schema.optionalWith(Schema.Array(AddOnOrderInput).pipe(Schema.maxItems(100)), { default: () => [] }),
  currency: Schema.optional(Currency).annotations({ description: "The currency the website expects to pay in." })
}

export class BookingPreviewRequest extends Schema.Class<BookingPreviewRequest>("BookingPreviewRequest")(draftFields) {}

/** A simple e-mail address check (one `@`, a dot in the domain, no spaces), as booking forms do. */
const Email = BoundedText(3, 254).pipe(
  Schema.filter((text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) || "must be an e-mail address"),
  Schema.annotations({ message: () => ({ message: "must be an e-mail address of at most 254 characters", override: true }) })
)

export const GuestInput = Schema.Struct({
  name: BoundedText(1, 200),
  email: Email,
  phone: Schema.optional(BoundedText(1, 40))
}).annotations({ identifier: "GuestInput" })
export type GuestInput = typeof GuestInput.Type

export const GuestCompanyInput = Schema.Struct({
  country: RegistryCountry,
  organisationNumber: BoundedText(1, 32).annotations({ description: "Checked by its check digit." }),
  name: BoundedText(1, 200)
}).annotations({ identifier: "GuestCompanyInput" })
export type GuestCompanyInput = typeof GuestCompanyInput.Type

export class CreateBookingRequest extends Schema.Class<CreateBookingRequest>("CreateBookingRequest")({
  requestId: BoundedText(1, 200).annotations({
    description: "The caller's idempotency key: the same requestId with the same body gives the same booking request."
  }),
  ...draftFields,
  guest: GuestInput,
  company: Schema.optional(GuestCompanyInput),
  message: Schema.optional(BoundedText(1, 2000))
}) {}

export class CancelBookingRequest extends Schema.Class<CancelBookingRequest>("CancelBookingRequest")({
  cancellationId: BoundedText(1, 200).annotations({
    description: "The caller's idempotency key: the same cancellationId with the same body answers the request again."
  }),
  reason: Schema.optional(BoundedText(1, 1000)),
  lateCancellation: Schema.optional(
    Schema.Struct({
      decision: Schema.Literal("charge"),
      chargeGrossMinorUnits: IntegerBetween(0, Number.MAX_SAFE_INTEGER).annotations({
        description: "The gross charge accepted (minor units), as BOOKING_LATE_CANCELLATION_DECISION_REQUIRED named it."
      })
    }).annotations({ identifier: "LateCancellationDecision" })
  )
}) {}

export class RescheduleBookingRequest extends Schema.Class<RescheduleBookingRequest>("RescheduleBookingRequest")({
  rescheduleId: BoundedText(1, 200).annotations({
    description: "The caller's idempotency key: the same rescheduleId with the same body answers the request again."
  }),
  period: Schema.optional(PeriodInput),
  stay: Schema.optional(StayInput),
  addOns: Schema.optional(Schema.Array(AddOnOrderInput).pipe(Schema.maxItems(100))).annotations({
    description: "The add-on lines of the moved booking; when absent, the current ones (their delivery times must fit)."
  }),
  currency: Schema.optional(Currency)
}) {}

export class CompanyLookupRequest extends Schema.Class<CompanyLookupRequest>("CompanyLookupRequest")({
  country: RegistryCountry,
  organisationNumber: BoundedText(1, 32)
}) {}

export const BookableResourcePage = Page(BookableResource, "BookableResourcePage")
export const BookingRequestPage = Page(BookingRequest, "BookingRequestPage")
export const ResourceAvailabilityPage = Page(ResourceAvailability, "ResourceAvailabilityPage")

/** `?status=&resourceId=&from=&to=&limit=&cursor=` of the Application's own booking requests. */
export const BookingRequestListParams = Schema.Struct({
  ...PageParams.fields,
  status: Schema.optional(
    BookingRequestStatus.annotations({
      description: "Only requests in this status as it reads now (a pending request past its hold reads `expired`)."
    })
  ),
  resourceId: Schema.optional(BookableResourceId.annotations({ description: "Only requests for this resource." })),
  from: Schema.optional(Instant.annotations({ description: "Only bookings that end after this instant." })),
  to: Schema.optional(Instant.annotations({ description: "Only bookings that start before this instant (after `from`)." }))
})
export const AddOnProductPage = Page(AddOnProduct, "AddOnProductPage")

const ResourcePath = Schema.Struct({ resourceId: BookableResourceId })
const BookingPath = Schema.Struct({ bookingId: BookingId })

const CHECK_CODES =
  "`BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING`, `BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL`, " +
  "`BOOKING_DATE_INTERVAL_EMPTY`, `BOOKING_IN_THE_PAST`, `BOOKING_NOTICE_TOO_SHORT`, `BOOKING_HORIZON_EXCEEDED`, " +
  "`BOOKING_START_NOT_ON_INCREMENT`, `BOOKING_DURATION_TOO_SHORT`, `BOOKING_DURATION_TOO_LONG`, " +
  "`BOOKING_DURATION_NOT_ON_INCREMENT`, `BOOKING_STAY_TOO_SHORT`, `BOOKING_STAY_TOO_LONG`, " +
  "`BOOKING_OUTSIDE_OPEN_HOURS`, `BOOKING_BUFFER_CONFLICT`, `BOOKING_SLOT_TAKEN` (409), " +
  "`BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED`, `BOOKING_ADD_ON_NOT_OFFERED`, `BOOKING_ADD_ON_PRODUCT_RETIRED`, " +
  "`BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID`, `BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING`, " +
  "`BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY`, `BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT`, " +
  "`BOOKING_ADD_ON_CUTOFF_PASSED`, `BOOKING_PRICE_RULE_AMBIGUOUS`, `BOOKING_PRICE_RULE_NOT_APPLICABLE`, " +
  "`BOOKING_RESOURCE_CURRENCY_MISMATCH`"

export class BookingGroup extends HttpApiGroup.make("booking")
  .add(
    HttpApiEndpoint.get("listResources", "/v1/booking/resources")
      .setUrlParams(PageParams)
      .addSuccess(BookableResourcePage)
      .annotate(OpenApi.Summary, "List the resources the Application may sell")
      .annotate(
        OpenApi.Description,
        "Active resources an operator lets this Application sell, in the token's contexts, oldest first. Needs the " +
          "`booking` role."
      )
  )
  .add(
    HttpApiEndpoint.get("getResource", "/v1/booking/resources/:resourceId")
      .setPath(ResourcePath)
      .addSuccess(BookableResource)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a resource")
      .annotate(OpenApi.Description, "404 when it does not exist or the Application may not sell it.")
  )
  .add(
    HttpApiEndpoint.get("getAvailability", "/v1/booking/resources/:resourceId/availability")
      .setPath(ResourcePath)
      .setUrlParams(AvailabilityParams)
      .addSuccess(Availability)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Read a resource's free time")
      .annotate(
        OpenApi.Description,
        "Free periods in `from`..`to` (at most 31 days): opening hours less closures, from now plus the minimum " +
          "notice to the end of the horizon, less the time pending and approved bookings keep (with both buffers). " +
          "With `durationMinutes`, also every start time (on the resource's local start grid) at which a booking of " +
          "that length passes every time rule; none for a duration the resource does not sell. With `prices=true`, " +
          "also `startPrices`: each start's price (net, VAT, gross) for that duration and the `addOns` delivered at " +
          "the start, from the very checks and pricing functions preview runs, so a priced start previews and " +
          "requests at that price while nothing else books it. 400 `VALIDATION_FAILED` at `/to` for a window that " +
          "does not end after `from` or exceeds 31 days (or, with `prices=true`, holds over 5000 start times), at `/durationMinutes` for `prices=true` without it, at " +
          "`/addOns` for add-ons without `prices=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("searchAvailability", "/v1/booking/availability")
      .setUrlParams(AvailabilitySearchParams)
      .addSuccess(ResourceAvailabilityPage)
      .annotate(OpenApi.Summary, "Search free time across resources")
      .annotate(
        OpenApi.Description,
        "Free time of every resource the Application may sell, narrowed by `operationalContextId` (that context " +
          "and the contexts below it, within the token's), `kind` and `minCapacity`, oldest resource first, paged " +
          "by resource: each item is the resource and exactly what its own availability " +
          "(`GET /v1/booking/resources/{resourceId}/availability`) answers for the same `from`, `to`, " +
          "`durationMinutes`, `prices` and `addOns` — the same functions compute both. Every matching resource is " +
          "listed, those without free time too. The query and its 400s are that operation's (`VALIDATION_FAILED` at " +
          "`/to` for a window over 31 days, at `/durationMinutes`, `/addOns`), and a cursor of another list is 400 " +
          "at `/cursor`. Cost is bounded per page: a page holds at most `limit` resources and at most 400 " +
          "resource-days (a 31-day window pages 12 resources, a one-day window up to 100); with `prices=true` a page " +
          "also ends before the resource that would take it past 5000 priced starts (a single resource past that " +
          "alone is 400 at `/to`, as its own availability is). So a page may hold fewer than `limit` items while " +
          "`nextCursor` is not null. " +
          "Why `GET /v1/booking/availability` and not `POST …/search`: the query is a handful of scalars that fit a " +
          "URL (add-ons are at most 20 `id:quantity` pairs), it changes nothing, and as a GET it is linkable, " +
          "cacheable and retried safely by any HTTP client; it is the resource's own availability query with " +
          "filters added, at the collection's path."
      )
  )
  .add(
    HttpApiEndpoint.get("listAddOnProducts", "/v1/booking/resources/:resourceId/add-on-products")
      .setPath(ResourcePath)
      .setUrlParams(PageParams)
      .addSuccess(AddOnProductPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the extras a resource sells")
      .annotate(OpenApi.Description, "The add-on products the resource offers, retired ones included (marked `retired`).")
  )
  .add(
    HttpApiEndpoint.post("lookUpCompany", "/v1/booking/company-lookups")
      .setPayload(body(CompanyLookupRequest))
      .addSuccess(CompanyLookup)
      .annotate(OpenApi.Summary, "Look up a company by organisation number")
      .annotate(
        OpenApi.Description,
        "Checks the number's check digit (SE Luhn, NO and FI mod 11, DK mod 11 weights) — a bad one is 400 " +
          "`VALIDATION_FAILED` at `/organisationNumber` — then asks the organization's company registry (by " +
          "default its own customer register). 400 `TENANT_COMPANY_REGISTRY_NOT_SUPPORTED` for a country the " +
          "registry cannot answer; 400 `TENANT_COMPANY_REGISTRY_UNAVAILABLE` when a remote registry fails. Answers " +
          "200 with `found` false for a valid number the registry does not know."
      )
  )
  .add(
    HttpApiEndpoint.post("previewBookingRequest", "/v1/booking/booking-requests/preview")
      .setPayload(body(BookingPreviewRequest))
      .addSuccess(BookingPreview)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Price a booking before requesting it")
      .annotate(
        OpenApi.Description,
        "Runs exactly the checks a booking request runs, in the same order, and answers the first refusal's code or " +
          `the priced breakdown. Exactly one of \`period\` and \`stay\`. Codes, in order: ${CHECK_CODES}. 404 when ` +
          "the resource does not exist or the Application may not sell it."
      )
  )
  .add(
    HttpApiEndpoint.post("createBookingRequest", "/v1/booking/booking-requests")
      .setPayload(body(CreateBookingRequest))
      .addSuccess(BookingRequest, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Request a booking for a guest")
      .annotate(
        OpenApi.Description,
        "Creates a `pending` booking request that holds its slot until an operator approves or declines it or the " +
          "hold expires; 201 with the request. Idempotent by `requestId`: the same requestId with the same body " +
          "answers 201 with the same request (no second booking), with another body 409 " +
          "`BOOKING_REQUEST_ID_ALREADY_USED`. The company's organisation number must pass its check digit " +
          `(\`VALIDATION_FAILED\`). Refusals are the preview's, in the same order: ${CHECK_CODES}. Of concurrent ` +
          "requests for one slot exactly one holds it; the rest get 409 `BOOKING_SLOT_TAKEN`."
      )
  )
  .add(
    HttpApiEndpoint.get("listBookingRequests", "/v1/booking/booking-requests")
      .setUrlParams(BookingRequestListParams)
      .addSuccess(BookingRequestPage)
      .annotate(OpenApi.Summary, "List the Application's booking requests")
      .annotate(
        OpenApi.Description,
        "The booking requests this Application made, oldest first (by creation), each with its status as it reads " +
          "now. Narrowed by `status`, `resourceId` and a period the booking overlaps (`from` up to `to`). 400 " +
          "`VALIDATION_FAILED` at `/to` when `to` is not after `from`, at `/cursor` for a cursor of another list."
      )
  )
  .add(
    HttpApiEndpoint.get("getBookingRequestByRequestId", "/v1/booking/booking-requests/by-request-id/:requestId")
      .setPath(Schema.Struct({ requestId: BoundedText(1, 200) }))
      .addSuccess(BookingRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a booking request by the website's requestId")
      .annotate(
        OpenApi.Description,
        "The booking request this Application made with its own `requestId` (URL-encoded in the path), so a website " +
          "that lost a response finds what it booked. 404 when this Application made no request with that requestId."
      )
  )
  .add(
    HttpApiEndpoint.post("cancelBookingRequest", "/v1/booking/booking-requests/:bookingId/cancel")
      .setPath(BookingPath)
      .setPayload(body(CancelBookingRequest))
      .addSuccess(BookingRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Cancel a booking request")
      .annotate(
        OpenApi.Description,
        "Cancels a pending or approved request this Application made; its slot is free at once. A pending request, " +
          "or an approved one before its cancellation deadline (start less the resource's " +
          "`cancellationNoticeMinutes`), is cancelled free. Past the deadline the resource's late terms decide: none " +
          "→ refused; a charge → the caller repeats with `lateCancellation` naming the charge it accepts, which the " +
          "request then carries (as `lateCancellation`; this version records the charge but does not invoice it: " +
          "bookings do not reach billing yet). Idempotent by `cancellationId`: the same id and body answer 200 with the request as " +
          "it is; another body or another request 409 `BOOKING_REQUEST_ID_ALREADY_USED`. Refusals, in the check's " +
          "order: 400 `BOOKING_NOT_RESCHEDULABLE` (declined, expired or already cancelled), " +
          "`BOOKING_ALREADY_STARTED`, `BOOKING_NOT_PAST_CANCELLATION_DEADLINE` (a decision while still free), " +
          "`BOOKING_CANCELLATION_NOTICE_EXPIRED`, `BOOKING_LATE_CANCELLATION_DECISION_REQUIRED` (its `detail` names the " +
          "gross charge: the resource's `lateCancellationChargeBasisPoints` of the price, net and VAT each rounded " +
          "half away from zero); 409 `BOOKING_LATE_CANCELLATION_ITEMS_CHANGED` when the accepted charge is not " +
          "the charge now. 404 when it does not exist or another Application made it."
      )
  )
  .add(
    HttpApiEndpoint.post("rescheduleBookingRequest", "/v1/booking/booking-requests/:bookingId/reschedule")
      .setPath(BookingPath)
      .setPayload(body(RescheduleBookingRequest))
      .addSuccess(BookingRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Move a booking request to another time")
      .annotate(
        OpenApi.Description,
        "Moves a pending or approved request this Application made to a new `period` or `stay` (exactly one), " +
          "with the same checks and pricing as a new request, its own time left out; it keeps its id and status and " +
          "takes the new price. An approved booking moves only before its cancellation deadline. Idempotent by " +
          "`rescheduleId` as cancel is by `cancellationId` (409 `BOOKING_REQUEST_ID_ALREADY_USED`). Refusals, in " +
          "order: 400 `BOOKING_NOT_RESCHEDULABLE`, `BOOKING_ALREADY_STARTED`, `BOOKING_CANCELLATION_NOTICE_EXPIRED`, " +
          `then a new request's: ${CHECK_CODES}. Of concurrent reschedules into one slot exactly one moves; the ` +
          "rest get 409 `BOOKING_SLOT_TAKEN`. 404 when the request does not exist, another Application made it or " +
          "the Application may no longer sell its resource."
      )
  )
  .add(
    HttpApiEndpoint.get("getBookingRequest", "/v1/booking/booking-requests/:bookingId")
      .setPath(BookingPath)
      .addSuccess(BookingRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a booking request")
      .annotate(OpenApi.Description, "404 when it does not exist or another Application made it.")
  )
  .middleware(JsonBody)
  .middleware(BookingRole)
  .middleware(Authentication) {}
