/**
 * The booking records (spec 1 and 4.2, Booking; their shapes are "not shown", so they follow decisions.md
 * section 7): the bookable resource, its add-on products, availability, company lookups, the priced breakdown
 * and the booking request. Instants are ISO 8601 in UTC; local dates (`YYYY-MM-DD`) and local times (`HH:MM`) are
 * read in the resource's IANA `timeZone`; durations are minutes; money is integer minor units of `currency`,
 * net of VAT unless named gross; VAT rates are basis points (2500 = 25 %).
 */
import { Schema } from "effect"
import { AddOnProductId, BookableResourceId, BookingId, OperationalContextId, OrganizationId } from "./Ids.js"
import { Currency, IsoDate, MinorUnits, NonNegativeCount, OneOf, Timestamp } from "./Values.js"

/** A local wall-clock time, `HH:MM` (`24:00` where a period ends at midnight). */
export const LocalTime = Schema.String.pipe(
  Schema.pattern(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/),
  Schema.annotations({ description: "Local time HH:MM in the resource's time zone; 24:00 ends a day." })
)

/** ISO weekday, 1 Monday … 7 Sunday. */
export const IsoWeekday = Schema.Literal(1, 2, 3, 4, 5, 6, 7).annotations({ description: "ISO weekday: 1 Monday … 7 Sunday." })

/** A weekly opening period. */
export class WeeklyOpening extends Schema.Class<WeeklyOpening>("WeeklyOpening")({
  weekday: IsoWeekday,
  opens: LocalTime,
  closes: LocalTime
}) {}

/** Local dates closed all day, both included. */
export class Closure extends Schema.Class<Closure>("Closure")({ fromDate: IsoDate, toDate: IsoDate }) {}

/** Opening hours: a weekly schedule less closures, in the resource's time zone. */
export class OpeningHours extends Schema.Class<OpeningHours>("OpeningHours")({
  weekly: Schema.Array(WeeklyOpening),
  closures: Schema.Array(Closure)
}) {}

/** How a price rule counts (see the resource's description). */
export const PriceUnit = Schema.Literal("hour", "half-day", "day", "session", "night")

/** A local time window of a day. */
export class TimeWindow extends Schema.Class<TimeWindow>("TimeWindow")({ from: LocalTime, to: LocalTime }) {}

/** A price rule: on `weekdays`, inside `window` (the whole day when absent), `amountMinorUnits` net per `unit`. */
export class PriceRule extends Schema.Class<PriceRule>("PriceRule")({
  id: Schema.UUID,
  name: Schema.String,
  unit: PriceUnit,
  amountMinorUnits: MinorUnits,
  vatRateBasisPoints: NonNegativeCount,
  weekdays: Schema.Array(IsoWeekday),
  window: Schema.optional(TimeWindow)
}) {}

/** Stays of whole nights: check-in and check-out local times and the nights allowed. */
export class NightStays extends Schema.Class<NightStays>("NightStays")({
  checkInTime: LocalTime,
  checkOutTime: LocalTime,
  minNights: NonNegativeCount,
  maxNights: NonNegativeCount
}) {}

export class BookableResource extends Schema.Class<BookableResource>("BookableResource")(
  {
    id: BookableResourceId,
    organizationId: OrganizationId,
    operationalContextId: OperationalContextId,
    kind: Schema.Literal("room", "desk", "parking"),
    name: Schema.String,
    description: Schema.optional(Schema.String),
    timeZone: Schema.String.annotations({ description: "IANA time zone, e.g. Europe/Stockholm." }),
    capacity: NonNegativeCount.annotations({ description: "People it seats; it is sold to one booking at a time." }),
    currency: Currency,
    pricing: Schema.Literal("time", "night").annotations({
      description: "`time`: book a `period` (start, end); `night`: book a `stay` (check-in and check-out dates)."
    }),
    openingHours: OpeningHours,
    minDurationMinutes: NonNegativeCount,
    maxDurationMinutes: NonNegativeCount,
    durationIncrementMinutes: NonNegativeCount,
    startIncrementMinutes: NonNegativeCount.annotations({
      description: "A period starts on a local multiple of this many minutes after midnight."
    }),
    minimumNoticeMinutes: NonNegativeCount,
    horizonDays: NonNegativeCount.annotations({ description: "A booking starts at most this many local days ahead." }),
    bufferBeforeMinutes: NonNegativeCount,
    bufferAfterMinutes: NonNegativeCount,
    holdMinutes: NonNegativeCount.annotations({
      description: "How long a pending request holds its slot for an operator's decision (never past its start)."
    }),
    nightStays: Schema.optional(NightStays),
    priceRules: Schema.Array(PriceRule),
    cancellationNoticeMinutes: Schema.optional(NonNegativeCount).annotations({
      description: "An approved booking is cancelled or rescheduled free until this many minutes before it starts (0 when absent)."
    }),
    lateCancellationChargeBasisPoints: Schema.optional(NonNegativeCount).annotations({
      description:
        "After that, it may still be cancelled with a charge of this share of its price (basis points); absent: a " +
        "late cancellation is refused."
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp
  },
  {
    description:
      "A room, desk or parking space the Application may sell. Prices: `hour` rules split a booking by their windows, " +
      "pro rata to the minute; a `half-day` or `day` rule prices the part of a local day inside its window flat, a " +
      "`session` exactly its window; per local day the cheapest applies (flat rules cap the hourly price); `night` " +
      "rules price each night of a stay by its check-in weekday."
  }
) {}

/** When a product's order must be in: `time` local, `daysBefore` days before the delivery date. */
export class AddOnCutOff extends Schema.Class<AddOnCutOff>("AddOnCutOff")({
  daysBefore: NonNegativeCount,
  time: LocalTime
}) {}

export class AddOnProduct extends Schema.Class<AddOnProduct>("AddOnProduct")(
  {
    id: AddOnProductId,
    name: Schema.String,
    description: Schema.optional(Schema.String),
    category: Schema.Literal("catering", "equipment", "service"),
    currency: Currency,
    unitPriceMinorUnits: MinorUnits,
    vatRateBasisPoints: NonNegativeCount,
    leadTimeMinutes: NonNegativeCount,
    cutOff: Schema.optional(AddOnCutOff),
    maxQuantityPerLine: NonNegativeCount,
    specialPortions: Schema.Boolean.annotations({ description: "Whether a line may name special portions." }),
    deliveryHours: Schema.Array(WeeklyOpening).annotations({
      description: "When it can be delivered, in the resource's local time; any time of the booking when empty."
    }),
    retired: Schema.Boolean
  },
  { description: "An extra sold with a booking of the resource (catering, equipment)." }
) {}

/** A free period, `start` up to `end`. */
export class FreePeriod extends Schema.Class<FreePeriod>("FreePeriod")({ start: Timestamp, end: Timestamp }) {}

/** A start time and the price of a booking of the asked duration and add-ons from it. */
export class StartPrice extends Schema.Class<StartPrice>("StartPrice")(
  {
    start: Timestamp,
    currency: Currency,
    totalNetMinorUnits: MinorUnits,
    totalVatMinorUnits: MinorUnits,
    totalGrossMinorUnits: MinorUnits
  },
  { description: "What a booking from `start` costs now: the totals preview answers for the same body." }
) {}

export class Availability extends Schema.Class<Availability>("Availability")(
  {
    resourceId: BookableResourceId,
    timeZone: Schema.String,
    from: Timestamp,
    to: Timestamp,
    freePeriods: Schema.Array(FreePeriod),
    durationMinutes: Schema.optional(NonNegativeCount),
    startTimes: Schema.optional(Schema.Array(Timestamp)).annotations({
      description: "With `durationMinutes`: every start in the window at which a booking of that length is free."
    }),
    startPrices: Schema.optional(Schema.Array(StartPrice)).annotations({
      description:
        "With `prices=true`: each start of `startTimes` with its price (VAT included) for the duration and `addOns`, " +
        "from the checks and pricing preview runs; a start a booking there would be refused at (an add-on's rules, " +
        "no price rule) is left out."
    })
  },
  { description: "A resource's free time in a window of at most 31 days." }
) {}

export class ResourceAvailability extends Schema.Class<ResourceAvailability>("ResourceAvailability")(
  {
    resource: BookableResource,
    availability: Availability
  },
  {
    description:
      "One resource of a search across resources and its free time: `availability` is what the resource's own " +
      "availability answers for the same query at the same moment."
  }
) {}

/** A registry's answer about a company. */
export class RegisteredCompany extends Schema.Class<RegisteredCompany>("RegisteredCompany")({
  name: Schema.String,
  customerNumber: Schema.optional(Schema.String)
}) {}

export const RegistryCountry = OneOf("SE", "NO", "FI", "DK")

export class CompanyLookup extends Schema.Class<CompanyLookup>("CompanyLookup")(
  {
    country: RegistryCountry,
    organisationNumber: Schema.String.annotations({ description: "The number in its canonical form." }),
    registry: Schema.String.annotations({ description: "Which registry answered, e.g. `customer-register`." }),
    found: Schema.Boolean,
    company: Schema.optional(RegisteredCompany)
  },
  { description: "The result of a company lookup; `company` is absent when the registry does not know the number." }
) {}

export class SpecialPortion extends Schema.Class<SpecialPortion>("SpecialPortion")({
  label: Schema.String,
  quantity: NonNegativeCount
}) {}

/** A line pricing part of the resource's time. */
export class ResourceLine extends Schema.Class<ResourceLine>("ResourceLine")({
  kind: Schema.Literal("resource"),
  priceRuleId: Schema.UUID,
  description: Schema.String,
  unit: PriceUnit,
  localDate: IsoDate,
  start: Timestamp,
  end: Timestamp,
  minutes: NonNegativeCount,
  unitAmountMinorUnits: MinorUnits,
  vatRateBasisPoints: NonNegativeCount,
  netMinorUnits: MinorUnits,
  vatMinorUnits: MinorUnits,
  grossMinorUnits: MinorUnits
}) {}

/** A line pricing an add-on. */
export class AddOnLine extends Schema.Class<AddOnLine>("AddOnLine")({
  kind: Schema.Literal("add-on"),
  addOnProductId: AddOnProductId,
  description: Schema.String,
  quantity: NonNegativeCount,
  deliverAt: Timestamp,
  specialPortions: Schema.Array(SpecialPortion),
  unitAmountMinorUnits: MinorUnits,
  vatRateBasisPoints: NonNegativeCount,
  netMinorUnits: MinorUnits,
  vatMinorUnits: MinorUnits,
  grossMinorUnits: MinorUnits
}) {}

export class VatRateTotal extends Schema.Class<VatRateTotal>("VatRateTotal")({
  vatRateBasisPoints: NonNegativeCount,
  netMinorUnits: MinorUnits,
  vatMinorUnits: MinorUnits,
  grossMinorUnits: MinorUnits
}) {}

export class PriceBreakdown extends Schema.Class<PriceBreakdown>("PriceBreakdown")(
  {
    currency: Currency,
    lines: Schema.Array(Schema.Union(ResourceLine, AddOnLine)),
    vatRates: Schema.Array(VatRateTotal),
    totalNetMinorUnits: MinorUnits,
    totalVatMinorUnits: MinorUnits,
    totalGrossMinorUnits: MinorUnits
  },
  {
    description:
      "Lines (the resource's time in time order, then add-ons), VAT per line rounded half away from zero, totals " +
      "per VAT rate (highest first) and grand totals; every total is the sum of its lines."
  }
) {}

/** A period, `start` up to `end`. */
export class BookingPeriod extends Schema.Class<BookingPeriod>("BookingPeriod")({ start: Timestamp, end: Timestamp }) {}

/** A stay from `checkInDate` to `checkOutDate` (local dates). */
export class BookingStay extends Schema.Class<BookingStay>("BookingStay")({ checkInDate: IsoDate, checkOutDate: IsoDate }) {}

export class BookingPreview extends Schema.Class<BookingPreview>("BookingPreview")(
  {
    resourceId: BookableResourceId,
    start: Timestamp,
    end: Timestamp,
    nights: Schema.optional(NonNegativeCount),
    price: PriceBreakdown
  },
  { description: "What a booking request with this body would hold and cost now." }
) {}

export class Guest extends Schema.Class<Guest>("Guest")({
  name: Schema.String,
  email: Schema.String,
  phone: Schema.optional(Schema.String)
}) {}

export class GuestCompany extends Schema.Class<GuestCompany>("GuestCompany")({
  country: RegistryCountry,
  organisationNumber: Schema.String,
  name: Schema.String
}) {}

export class AddOnOrder extends Schema.Class<AddOnOrder>("AddOnOrder")({
  addOnProductId: AddOnProductId,
  quantity: NonNegativeCount,
  deliverAt: Timestamp,
  specialPortions: Schema.Array(SpecialPortion)
}) {}

export const BookingRequestStatus = Schema.Literal("pending", "approved", "declined", "expired", "cancelled")

export class LateCancellationCharge extends Schema.Class<LateCancellationCharge>("LateCancellationCharge")(
  {
    decision: Schema.Literal("charged", "waived"),
    chargeBasisPoints: NonNegativeCount,
    currency: Currency,
    netMinorUnits: MinorUnits,
    vatMinorUnits: MinorUnits,
    grossMinorUnits: MinorUnits
  },
  {
    description:
      "What a late cancellation costs: the resource's share of the booking's price (net and VAT each rounded half " +
      "away from zero); `waived` (by an operator) charges nothing."
  }
) {}

export class BookingRequest extends Schema.Class<BookingRequest>("BookingRequest")(
  {
    id: BookingId,
    requestId: Schema.String,
    organizationId: OrganizationId,
    operationalContextId: OperationalContextId,
    resourceId: BookableResourceId,
    status: BookingRequestStatus.annotations({
      description:
        "`pending` holds the slot until `holdExpiresAt`; an operator approves or declines it; `expired` when the " +
        "hold ran out first; `cancelled` by the website or an operator (the slot is free at once)."
    }),
    period: Schema.optional(BookingPeriod),
    stay: Schema.optional(BookingStay),
    start: Timestamp,
    end: Timestamp,
    nights: Schema.optional(NonNegativeCount),
    guest: Guest,
    company: Schema.optional(GuestCompany),
    message: Schema.optional(Schema.String),
    addOns: Schema.Array(AddOnOrder),
    price: PriceBreakdown,
    holdExpiresAt: Timestamp,
    approvedAt: Schema.optional(Timestamp),
    declinedAt: Schema.optional(Timestamp),
    declineReason: Schema.optional(Schema.String),
    expiredAt: Schema.optional(Timestamp),
    cancelledAt: Schema.optional(Timestamp),
    cancelledBy: Schema.optional(Schema.Literal("application", "operator")),
    cancellationReason: Schema.optional(Schema.String),
    lateCancellation: Schema.optional(LateCancellationCharge),
    rescheduledAt: Schema.optional(Timestamp.annotations({ description: "When it was last moved to another time." })),
    createdAt: Timestamp,
    updatedAt: Timestamp
  },
  { description: "A request to book a resource for a guest; an operator approves or declines it." }
) {}
