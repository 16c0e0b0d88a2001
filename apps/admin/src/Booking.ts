/**
 * Booking as operators see it (decisions 7): bookable resources with their opening hours, rules and price rules,
 * add-on products, and booking requests — listed by time for a day or week calendar per resource, approved or
 * declined here through the booking operator service. Refusals: BOOKING_NOT_PENDING_APPROVAL,
 * BOOKING_APPROVAL_WINDOW_PASSED (400).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { NotFound } from "@propline/contract/Problem"
import { BoundedText } from "@propline/contract/Values"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./Session.js"

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
  addOnProducts: Schema.Array(AddOnProductView)
}) {}

export class BookingRequestView extends Schema.Class<BookingRequestView>("BookingRequestView")({
  id: Schema.UUID,
  resourceId: Schema.UUID,
  resourceName: Schema.String,
  timeZone: Schema.String,
  status: Schema.Literal("pending", "approved", "declined", "expired"),
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

export class DeclineBookingRequest extends Schema.Class<DeclineBookingRequest>("DeclineBookingRequest")({
  reason: BoundedText(1, 1000)
}) {}

export const ResourcePage = Page(ResourceSummary, "ResourcePage")
export const AddOnProductPage = Page(AddOnProductView, "AddOnProductPage")
export const BookingRequestPage = Page(BookingRequestView, "BookingRequestPage")

const BookingPath = Schema.Struct({ bookingId: Schema.UUID })

/** An ISO date; "" is no bound. */
const DateBound = Schema.optional(
  Schema.String.pipe(Schema.filter((text) => text === "" || (/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))) || "must be a date YYYY-MM-DD"))
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
    HttpApiEndpoint.get("listAddOnProducts", "/api/booking/add-on-products")
      .setUrlParams(Schema.Struct({ ...PageQuery, q: Filter(200) }))
      .addSuccess(AddOnProductPage)
  )
  .add(
    HttpApiEndpoint.get("listRequests", "/api/booking/requests")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          status: Choice("pending", "approved", "declined", "expired"),
          resourceId: Schema.optional(Schema.UUID),
          from: DateBound,
          to: DateBound
        }).annotations({ parseOptions: { errors: "all" } })
      )
      .addSuccess(BookingRequestPage)
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
      .setPayload(DeclineBookingRequest)
      .addSuccess(BookingRequestView)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
