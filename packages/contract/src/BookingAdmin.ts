/**
 * Booking as operators see it (decisions 7): bookable resources with their opening hours, rules and price rules,
 * add-on products, and booking requests — listed by time for a day or week calendar per resource, approved or
 * declined here through the booking operator service. Refusals: BOOKING_NOT_PENDING_APPROVAL,
 * BOOKING_APPROVAL_WINDOW_PASSED (400).
 *
 * Setting up: a resource (create, or replace its whole setup: opening hours, rules and price rules), the add-on
 * products it offers, the Applications that may sell it, and add-on products. The bodies here check only shapes
 * and types; the booking operator service validates the values and answers each invalid one as a VALIDATION_FAILED
 * issue whose path points into the body (`/priceRules/0/amountMinorUnits`), then its refusals
 * BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT, BOOKING_PRICE_RULE_AMBIGUOUS and BOOKING_RESOURCE_CURRENCY_MISMATCH
 * (400). Units as in `@propline/booking/Resource`: minutes, local `HH:MM` times and `YYYY-MM-DD` dates in the
 * resource's IANA time zone, ISO weekdays 1 (Monday) to 7, money in integer minor units excluding VAT, VAT in basis
 * points (2500 = 25 %).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { NotFound } from "./Problem.js"
import { BoundedText, CALENDAR_DATE_MESSAGE, Currency, isCalendarDate } from "./Values.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class WeeklyOpening extends Schema.Class<WeeklyOpening>("WeeklyOpening")({
  weekday: Schema.Int,
  opens: Schema.String,
  closes: Schema.String
}) {}

export class ResourceSummary extends Schema.Class<ResourceSummary>("ResourceSummary")({
  id: Schema.UUID,
  name: Schema.String,
  kind: Schema.Literal("room", "desk", "parking"),
  operationalContextId: Schema.UUID,
  operationalContextName: Schema.String,
  timeZone: Schema.String,
  capacity: Schema.Int,
  currency: Schema.String,
  status: Schema.Literal("active", "retired"),
  pendingRequests: Schema.Int,
  createdAt: Schema.Date
}) {}

export class PriceRuleView extends Schema.Class<PriceRuleView>("PriceRuleView")({
  name: Schema.String,
  unit: Schema.String,
  amountMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int,
  weekdays: Schema.Array(Schema.Int),
  windowFrom: Schema.NullOr(Schema.String),
  windowTo: Schema.NullOr(Schema.String)
}) {}

export class AddOnProductView extends Schema.Class<AddOnProductView>("AddOnProductView")({
  id: Schema.UUID,
  name: Schema.String,
  category: Schema.String,
  currency: Schema.String,
  unitPriceMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int,
  leadTimeMinutes: Schema.Int,
  retiredAt: Schema.NullOr(Schema.Date)
}) {}

/** The Applications that may sell a resource through the public API. */
export class SellerView extends Schema.Class<SellerView>("SellerView")({
  id: Schema.UUID,
  name: Schema.String,
  clientId: Schema.String
}) {}

export class ResourceDetail extends Schema.Class<ResourceDetail>("ResourceDetail")({
  resource: ResourceSummary,
  description: Schema.NullOr(Schema.String),
  weekly: Schema.Array(WeeklyOpening),
  closures: Schema.Array(Schema.Struct({ fromDate: Schema.String, toDate: Schema.String })),
  rules: Schema.Struct({
    minDurationMinutes: Schema.Int,
    maxDurationMinutes: Schema.Int,
    durationIncrementMinutes: Schema.Int,
    startIncrementMinutes: Schema.Int,
    minimumNoticeMinutes: Schema.Int,
    horizonDays: Schema.Int,
    bufferBeforeMinutes: Schema.Int,
    bufferAfterMinutes: Schema.Int,
    holdMinutes: Schema.Int
  }),
  priceRules: Schema.Array(PriceRuleView),
  addOnProducts: Schema.Array(AddOnProductView),
  sellers: Schema.Array(SellerView)
}) {}

/** One opening period of a weekday: ISO `weekday`, `opens` up to `closes` (`HH:MM`, `24:00` for the day's end). */
export const OpeningInput = Schema.Struct({ weekday: Schema.Int, opens: Schema.String, closes: Schema.String })

/** A price rule: `amountMinorUnits` per `unit` on `weekdays`, inside `window` (all day when absent). */
export const PriceRuleInput = Schema.Struct({
  name: BoundedText(1, 200),
  unit: Schema.Literal("hour", "half-day", "day", "session", "night"),
  amountMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int,
  weekdays: Schema.Array(Schema.Int).pipe(Schema.maxItems(7)),
  window: Schema.optionalWith(Schema.Struct({ from: Schema.String, to: Schema.String }), { exact: true })
})

/**
 * A resource's whole setup (decisions 7), as created or replaced: what `@propline/booking`'s BookableResource holds
 * but its id and organization. `nightStays` makes it priced by the night (its rules then all `night`).
 */
export class ResourceSetup extends Schema.Class<ResourceSetup>("ResourceSetup")(
  Schema.Struct({
    operationalContextId: Schema.UUID,
    kind: Schema.Literal("room", "desk", "parking"),
    name: BoundedText(1, 200),
    description: Schema.optionalWith(BoundedText(1, 2000), { exact: true }),
    timeZone: BoundedText(1, 100),
    capacity: Schema.Int,
    currency: Currency,
    openingHours: Schema.Struct({
      weekly: Schema.Array(OpeningInput).pipe(Schema.maxItems(70)),
      closures: Schema.Array(Schema.Struct({ fromDate: Schema.String, toDate: Schema.String })).pipe(Schema.maxItems(400))
    }),
    minDurationMinutes: Schema.Int,
    maxDurationMinutes: Schema.Int,
    durationIncrementMinutes: Schema.Int,
    startIncrementMinutes: Schema.Int,
    minimumNoticeMinutes: Schema.Int,
    horizonDays: Schema.Int,
    bufferBeforeMinutes: Schema.Int,
    bufferAfterMinutes: Schema.Int,
    holdMinutes: Schema.Int,
    cancellationNoticeMinutes: Schema.optionalWith(Schema.Int, { exact: true }).annotations({
      description: "Cancelled free until this many minutes before the start (0 to 1051200, two years); absent: until the start."
    }),
    lateCancellationChargeBasisPoints: Schema.optionalWith(Schema.Int, { exact: true }).annotations({
      description: "After that, the share of the price a late cancellation costs (0 to 10000); absent: late cancellations are refused."
    }),
    nightStays: Schema.optionalWith(
      Schema.Struct({ checkInTime: Schema.String, checkOutTime: Schema.String, minNights: Schema.Int, maxNights: Schema.Int }),
      { exact: true }
    ),
    priceRules: Schema.Array(PriceRuleInput).pipe(Schema.maxItems(50))
  }).annotations({ parseOptions: { errors: "all" } })
) {}

/** An add-on product's whole setup: price per unit, lead time, optional cut-off, delivery hours, retired or sold. */
export class AddOnProductSetup extends Schema.Class<AddOnProductSetup>("AddOnProductSetup")(
  Schema.Struct({
    operationalContextId: Schema.UUID,
    name: BoundedText(1, 200),
    description: Schema.optionalWith(BoundedText(1, 2000), { exact: true }),
    category: Schema.Literal("catering", "equipment", "service"),
    currency: Currency,
    unitPriceMinorUnits: Schema.Int,
    vatRateBasisPoints: Schema.Int,
    leadTimeMinutes: Schema.Int,
    cutOff: Schema.optionalWith(Schema.Struct({ daysBefore: Schema.Int, time: Schema.String }), { exact: true }),
    maxQuantityPerLine: Schema.Int,
    specialPortions: Schema.Boolean,
    deliveryHours: Schema.Array(OpeningInput).pipe(Schema.maxItems(70)),
    retired: Schema.Boolean
  }).annotations({ parseOptions: { errors: "all" } })
) {}

/** The add-on products a resource offers, in order (each the organization's, in the resource's currency). */
export class OfferAddOnProductsRequest extends Schema.Class<OfferAddOnProductsRequest>("OfferAddOnProductsRequest")({
  addOnProductIds: Schema.Array(Schema.UUID).pipe(
    Schema.maxItems(50),
    Schema.filter((ids) => new Set(ids).size === ids.length || "names a product twice")
  )
}) {}

/** An Application of the organization that may sell the resource from now on. */
export class AllowSellerRequest extends Schema.Class<AllowSellerRequest>("AllowSellerRequest")({
  applicationId: Schema.UUID
}) {}

export class BookingRequestView extends Schema.Class<BookingRequestView>("BookingRequestView")({
  id: Schema.UUID,
  resourceId: Schema.UUID,
  resourceName: Schema.String,
  timeZone: Schema.String,
  status: Schema.Literal("pending", "approved", "declined", "expired", "cancelled"),
  startsAt: Schema.Date,
  endsAt: Schema.Date,
  guestName: Schema.String,
  guestEmail: Schema.String,
  companyName: Schema.NullOr(Schema.String),
  message: Schema.NullOr(Schema.String),
  currency: Schema.String,
  totalGrossMinorUnits: Schema.Int,
  holdExpiresAt: Schema.Date,
  declineReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date
}) {}

/** An operator's cancellation: an optional reason and, for a late one, whether the charge is made or waived. */
export class CancelBookingRequestAdmin extends Schema.Class<CancelBookingRequestAdmin>("CancelBookingRequestAdmin")({
  reason: Schema.optional(BoundedText(1, 1000)),
  lateCancellation: Schema.optional(Schema.Literal("charge", "waive"))
}) {}

export class DeclineBookingRequest extends Schema.Class<DeclineBookingRequest>("DeclineBookingRequest")({
  reason: BoundedText(1, 1000)
}) {}

export const ResourcePage = Page(ResourceSummary, "ResourcePage")
export const AddOnProductPage = Page(AddOnProductView, "AddOnProductPage")
export const BookingRequestPage = Page(BookingRequestView, "BookingRequestPage")

const BookingPath = Schema.Struct({ bookingId: Schema.UUID })
const ResourcePath = Schema.Struct({ resourceId: Schema.UUID })
const ProductPath = Schema.Struct({ productId: Schema.UUID })

/** An ISO date that exists in the calendar (`CalendarDate`); "" is no bound. */
export const DateBound = Schema.optional(
  Schema.String.pipe(
    Schema.filter((text) => text === "" || isCalendarDate(text)),
    Schema.annotations({ message: () => ({ message: CALENDAR_DATE_MESSAGE, override: true }) })
  )
)

export class BookingGroup extends HttpApiGroup.make("booking")
  .add(
    HttpApiEndpoint.get("listResources", "/api/booking/resources")
      .setUrlParams(Schema.Struct({ ...PageQuery, q: Filter(200), kind: Choice("room", "desk", "parking"), status: Choice("active", "retired") }))
      .addSuccess(ResourcePage)
  )
  .add(
    HttpApiEndpoint.get("getResource", "/api/booking/resources/:resourceId")
      .setPath(Schema.Struct({ resourceId: Schema.UUID }))
      .addSuccess(ResourceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("resourceSetup", "/api/booking/resources/:resourceId/setup")
      .setPath(ResourcePath)
      .addSuccess(ResourceSetup)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("createResource", "/api/booking/resources")
      .setPayload(body(ResourceSetup))
      .addSuccess(ResourceDetail, { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("replaceResource", "/api/booking/resources/:resourceId")
      .setPath(ResourcePath)
      .setPayload(body(ResourceSetup))
      .addSuccess(ResourceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("offerAddOnProducts", "/api/booking/resources/:resourceId/add-on-products")
      .setPath(ResourcePath)
      .setPayload(body(OfferAddOnProductsRequest))
      .addSuccess(ResourceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("allowSeller", "/api/booking/resources/:resourceId/sellers")
      .setPath(ResourcePath)
      .setPayload(body(AllowSellerRequest))
      .addSuccess(ResourceDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("addOnProductSetup", "/api/booking/add-on-products/:productId/setup")
      .setPath(ProductPath)
      .addSuccess(AddOnProductSetup)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("createAddOnProduct", "/api/booking/add-on-products")
      .setPayload(body(AddOnProductSetup))
      .addSuccess(AddOnProductView, { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("replaceAddOnProduct", "/api/booking/add-on-products/:productId")
      .setPath(ProductPath)
      .setPayload(body(AddOnProductSetup))
      .addSuccess(AddOnProductView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listAddOnProducts", "/api/booking/add-on-products")
      .setUrlParams(Schema.Struct({ ...PageQuery, q: Filter(200) }))
      .addSuccess(AddOnProductPage)
  )
  .add(
    HttpApiEndpoint.get("listRequests", "/api/booking/requests")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          status: Choice("pending", "approved", "declined", "expired", "cancelled"),
          resourceId: Schema.optional(Schema.UUID),
          from: DateBound,
          to: DateBound
        }).annotations({ parseOptions: { errors: "all" } })
      )
      .addSuccess(BookingRequestPage)
  )
  .add(
    HttpApiEndpoint.get("getRequest", "/api/booking/requests/:bookingId")
      .setPath(BookingPath)
      .addSuccess(BookingRequestView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("approveRequest", "/api/booking/requests/:bookingId/approve")
      .setPath(BookingPath)
      .addSuccess(BookingRequestView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("declineRequest", "/api/booking/requests/:bookingId/decline")
      .setPath(BookingPath)
      .setPayload(body(DeclineBookingRequest))
      .addSuccess(BookingRequestView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("cancelRequest", "/api/booking/requests/:bookingId/cancel")
      .setPath(BookingPath)
      .setPayload(body(CancelBookingRequestAdmin))
      .addSuccess(BookingRequestView)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
