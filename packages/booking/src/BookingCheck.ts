/**
 * The one ordered rule check of a booking, shared by `POST /v1/booking/booking-requests/preview` and
 * `POST /v1/booking/booking-requests` (spec section 4.2; decisions.md section 7: "Preview and request run the
 * same checks in a fixed order and return the first refusal's code"). Pure: the caller loads the resource, the
 * add-on products it offers and the other live bookings of it (in the transaction that will persist the
 * result), and passes the time.
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"
import { Either } from "effect"
import { type AddOnLineCommand, type AddOnProduct, MAX_ADD_ON_LINES } from "./AddOnProduct.js"
import {
  AddOnCutOffPassed,
  AddOnDeliveryOutsideAvailability,
  AddOnDeliveryOutsideBooking,
  AddOnLineLimitExceeded,
  AddOnNotOffered,
  AddOnOrderLeadTooShort,
  AddOnProductRetired,
  AddOnSpecialPortionsInvalid,
  AlreadyStarted,
  type BookingChangeRefusal,
  type BookingCheckRefusal,
  BufferConflict,
  CancellationNoticeExpired,
  DateIntervalEmpty,
  DateIntervalRequiresNightPricing,
  DurationNotOnIncrement,
  DurationTooLong,
  DurationTooShort,
  HorizonExceeded,
  InThePast,
  LateCancellationDecisionRequired,
  LateCancellationItemsChanged,
  NightPricingRequiresDateInterval,
  NotPastCancellationDeadline,
  NotReschedulable,
  NoticeTooShort,
  OutsideOpenHours,
  ResourceCurrencyMismatch,
  SlotTaken,
  StartNotOnIncrement,
  StayTooLong,
  StayTooShort
} from "./BookingRefusal.js"
import { breakdown, type PriceBreakdown, priceAddOns, pricePeriod, priceStay } from "./Pricing.js"
import { type BookableResource, minutesOfLocalTime } from "./Resource.js"
import { type Interval, overlaps, within } from "./internal/intervals.js"
import { proRata } from "./internal/rounding.js"
import { scheduleWithin } from "./internal/schedule.js"
import {
  bufferedSpan,
  earliestStart,
  horizonEnd,
  keptOutBy,
  lastBookableDate,
  openWithin
} from "./internal/timeline.js"
import { addDays, daysBetween, instantAt, localDateOf, localMinuteOf, minutesMs } from "./internal/zoned.js"

/**
 * When the booking is, as the website asks it:
 * - `Period`: from `start` up to `end` (instants), for a resource priced by time;
 * - `Stay`: from `checkInDate` to `checkOutDate` (local ISO dates; nights = days between), for a resource priced
 *   by the night; it holds the resource from the check-in time to the check-out time.
 *
 * @since 0.1.0
 */
export type BookingTime =
  | { readonly _tag: "Period"; readonly start: Date; readonly end: Date }
  | { readonly _tag: "Stay"; readonly checkInDate: string; readonly checkOutDate: string }

/**
 * What is asked: the time, the add-on lines (in order) and, optionally, the currency the website expects to pay
 * in (checked against the resource's).
 *
 * @since 0.1.0
 */
export interface BookingCommand {
  readonly time: BookingTime
  readonly addOns: ReadonlyArray<AddOnLineCommand>
  readonly currency?: Currency
  /** Present when the command moves an existing booking (a reschedule) rather than asking a new one. */
  readonly change?: BookingChange
}

/**
 * A caller's decision about a late cancellation: `charge` (be charged; a website names the gross charge it
 * accepts, `chargeGrossMinorUnits`) or `waive` (an operator only: cancel without a charge).
 *
 * @since 0.2.0
 */
export type LateCancellationDecision =
  | { readonly decision: "charge"; readonly chargeGrossMinorUnits?: number }
  | { readonly decision: "waive" }

/**
 * A change to an existing booking, checked before anything else: a `Reschedule` to the command's time, or a
 * `Cancel`. `booking` is the booking as it is (`status` as it reads now, `start`, `price`); `by` who asks.
 *
 * @since 0.2.0
 */
export interface BookingChange {
  readonly _tag: "Reschedule" | "Cancel"
  readonly booking: {
    readonly status: "pending" | "approved" | "declined" | "expired" | "cancelled"
    readonly start: Date
    readonly price: PriceBreakdown
  }
  readonly by: "application" | "operator"
  readonly lateCancellation?: LateCancellationDecision
}

/**
 * What a late cancellation costs: the resource's share (`chargeBasisPoints`) of the booking's price, net and VAT
 * each rounded half away from zero, gross their sum; `decision` `charged` or `waived` (then nothing is due).
 *
 * @since 0.2.0
 */
export interface LateCancellationCharge {
  readonly decision: "charged" | "waived"
  readonly chargeBasisPoints: number
  readonly currency: Currency
  readonly netMinorUnits: number
  readonly vatMinorUnits: number
  readonly grossMinorUnits: number
}

/**
 * What the check reads: the resource, the add-on products it offers (retired ones included), and the periods
 * (`[start, end)`, without buffers) of its other live bookings — pending requests whose hold has not expired and
 * approved ones.
 *
 * @since 0.1.0
 */
export interface BookingState {
  readonly resource: BookableResource
  readonly offeredAddOns: ReadonlyArray<AddOnProduct>
  readonly otherBookings: ReadonlyArray<{ readonly start: Date; readonly end: Date }>
}

/**
 * A booking that passed every rule: the period it holds (`start`, `end`), its buffered span (`blockedStart` =
 * start − buffer before, `blockedEnd` = end + buffer after, what PostgreSQL keeps from overlapping), the number of
 * `nights` of a stay (absent for a period) and its price.
 *
 * @since 0.1.0
 */
export interface CheckedBooking {
  readonly start: Date
  readonly end: Date
  readonly blockedStart: Date
  readonly blockedEnd: Date
  readonly nights?: number
  readonly price: PriceBreakdown
}

/**
 * The codes the check can answer, in the order it tries them. The first six are about the booking a change
 * (cancel, reschedule; issue 26) acts on, and are tried only for a change: is it still live, has it started, is
 * it past its cancellation deadline and on what terms. The next three decide what the request means (which kind
 * of time it asks for, and that a stay has nights) and so come before the rules that read that time; the rest
 * follow the order of the booking issue.
 *
 * @since 0.1.0
 */
export const CHECK_ORDER = [
  "BOOKING_NOT_RESCHEDULABLE",
  "BOOKING_ALREADY_STARTED",
  "BOOKING_NOT_PAST_CANCELLATION_DEADLINE",
  "BOOKING_CANCELLATION_NOTICE_EXPIRED",
  "BOOKING_LATE_CANCELLATION_DECISION_REQUIRED",
  "BOOKING_LATE_CANCELLATION_ITEMS_CHANGED",
  "BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING",
  "BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL",
  "BOOKING_DATE_INTERVAL_EMPTY",
  "BOOKING_IN_THE_PAST",
  "BOOKING_NOTICE_TOO_SHORT",
  "BOOKING_HORIZON_EXCEEDED",
  "BOOKING_START_NOT_ON_INCREMENT",
  "BOOKING_DURATION_TOO_SHORT",
  "BOOKING_DURATION_TOO_LONG",
  "BOOKING_DURATION_NOT_ON_INCREMENT",
  "BOOKING_STAY_TOO_SHORT",
  "BOOKING_STAY_TOO_LONG",
  "BOOKING_OUTSIDE_OPEN_HOURS",
  "BOOKING_BUFFER_CONFLICT",
  "BOOKING_SLOT_TAKEN",
  "BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED",
  "BOOKING_ADD_ON_NOT_OFFERED",
  "BOOKING_ADD_ON_PRODUCT_RETIRED",
  "BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID",
  "BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING",
  "BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY",
  "BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT",
  "BOOKING_ADD_ON_CUTOFF_PASSED",
  "BOOKING_PRICE_RULE_AMBIGUOUS",
  "BOOKING_PRICE_RULE_NOT_APPLICABLE",
  "BOOKING_RESOURCE_CURRENCY_MISMATCH"
] as const satisfies ReadonlyArray<BookingCheckRefusal["code"]>

interface Asked {
  readonly period: Interval
  readonly stay?: { readonly checkInDate: string; readonly checkOutDate: string; readonly nights: number }
}

/**
 * Resolves the asked time into the period it would hold (step 1 of the check). Exported for availability and the
 * service, which need the same reading.
 *
 * Refuses with `DateIntervalRequiresNightPricing`, `NightPricingRequiresDateInterval` or `DateIntervalEmpty`
 * (all 400).
 *
 * @since 0.1.0
 */
export const resolveTime = (
  resource: BookableResource,
  time: BookingTime
): Either.Either<
  Asked,
  DateIntervalRequiresNightPricing | NightPricingRequiresDateInterval | DateIntervalEmpty
> => {
  const stays = resource.nightStays
  if (time._tag === "Stay") {
    if (stays === undefined) {
      return Either.left(
        new DateIntervalRequiresNightPricing({
          detail: "This resource is priced by time; ask for a period (start and end), not check-in and check-out dates."
        })
      )
    }
    const nights = daysBetween(time.checkInDate, time.checkOutDate)
    if (nights <= 0) {
      return Either.left(
        new DateIntervalEmpty({
          checkInDate: time.checkInDate,
          checkOutDate: time.checkOutDate,
          detail: "The check-out date must be after the check-in date."
        })
      )
    }
    return Either.right({
      period: {
        start: instantAt(time.checkInDate, minutesOfLocalTime(stays.checkInTime) ?? 0, resource.timeZone),
        end: instantAt(time.checkOutDate, minutesOfLocalTime(stays.checkOutTime) ?? 0, resource.timeZone)
      },
      stay: { checkInDate: time.checkInDate, checkOutDate: time.checkOutDate, nights }
    })
  }
  if (stays !== undefined) {
    return Either.left(
      new NightPricingRequiresDateInterval({
        detail: "This resource is priced by the night; ask for check-in and check-out dates, not a period."
      })
    )
  }
  return Either.right({ period: { start: time.start.getTime(), end: time.end.getTime() } })
}

/**
 * The cancellation deadline of a booking: its start less the resource's cancellation notice.
 *
 * @since 0.2.0
 */
export const cancellationDeadline = (resource: BookableResource, start: Date): Date =>
  new Date(start.getTime() - minutesMs(resource.cancellationNoticeMinutes ?? 0))

const lateCharge = (
  resource: BookableResource,
  price: PriceBreakdown,
  decision: "charged" | "waived"
): LateCancellationCharge => {
  const basisPoints = decision === "waived" ? 0 : resource.lateCancellationChargeBasisPoints ?? 0
  const net = proRata(price.totalNetMinorUnits, basisPoints, 10_000)
  const vat = proRata(price.totalVatMinorUnits, basisPoints, 10_000)
  return { decision, chargeBasisPoints: basisPoints, currency: price.currency, netMinorUnits: net, vatMinorUnits: vat, grossMinorUnits: net + vat }
}

/**
 * The first six checks of {@link CHECK_ORDER}, for a change to `change.booking`: the refusal, or what a
 * cancellation now costs (`lateCancellation`, absent when it is free). Shared by {@link checkBooking} (a
 * reschedule) and {@link checkCancellation}.
 */
const changeCheck = (
  resource: BookableResource,
  change: BookingChange,
  now: number
): Either.Either<{ readonly lateCancellation?: LateCancellationCharge }, BookingChangeRefusal> => {
  const { booking } = change
  if (booking.status !== "pending" && booking.status !== "approved") {
    return Either.left(
      new NotReschedulable({
        bookingStatus: booking.status,
        detail: `The booking request is ${booking.status}; only a pending or approved one can be moved or cancelled.`
      })
    )
  }
  if (booking.start.getTime() <= now) {
    return Either.left(new AlreadyStarted({ start: booking.start, detail: "The booking has started; it can no longer be moved or cancelled." }))
  }
  const deadline = cancellationDeadline(resource, booking.start)
  // A pending request binds no one yet: it is withdrawn or moved free until it starts.
  const late = booking.status === "approved" && now >= deadline.getTime()
  const decision = change.lateCancellation
  if (!late) {
    return decision === undefined
      ? Either.right({})
      : Either.left(
          new NotPastCancellationDeadline({
            deadline,
            detail: "The booking can still be cancelled free; cancel it without a late-cancellation decision."
          })
        )
  }
  const waived = change.by === "operator" && decision?.decision === "waive"
  if (change._tag === "Reschedule" || (resource.lateCancellationChargeBasisPoints === undefined && !waived)) {
    return Either.left(
      new CancellationNoticeExpired({
        deadline,
        cancellationNoticeMinutes: resource.cancellationNoticeMinutes ?? 0,
        detail:
          change._tag === "Reschedule"
            ? "The booking's cancellation deadline has passed; it can no longer be moved."
            : "The booking's cancellation deadline has passed and the resource takes no late cancellations."
      })
    )
  }
  const charge = lateCharge(resource, booking.price, "charged")
  if (decision === undefined) {
    return Either.left(
      new LateCancellationDecisionRequired({
        deadline,
        currency: charge.currency,
        chargeGrossMinorUnits: charge.grossMinorUnits,
        detail: `The cancellation is late: repeat it with the decision to be charged ${charge.grossMinorUnits} (minor units, ${charge.currency}).`
      })
    )
  }
  if (waived) return Either.right({ lateCancellation: lateCharge(resource, booking.price, "waived") })
  if (decision.decision === "charge" && decision.chargeGrossMinorUnits !== undefined && decision.chargeGrossMinorUnits !== charge.grossMinorUnits) {
    return Either.left(
      new LateCancellationItemsChanged({
        chargeGrossMinorUnits: charge.grossMinorUnits,
        detail: `The late-cancellation charge is now ${charge.grossMinorUnits}, not the ${decision.chargeGrossMinorUnits} accepted.`
      })
    )
  }
  return Either.right({ lateCancellation: charge })
}

/**
 * Checks a cancellation of `change.booking` (a `Cancel` change): the first six checks of {@link CHECK_ORDER},
 * and what it costs. A pending request, or an approved booking before its deadline (start − the resource's
 * `cancellationNoticeMinutes`), is cancelled free; a decision then is `BOOKING_NOT_PAST_CANCELLATION_DEADLINE`.
 * Past the deadline: without late terms (`lateCancellationChargeBasisPoints`) → `BOOKING_CANCELLATION_NOTICE_EXPIRED`
 * (an operator may still `waive`); without a decision → `BOOKING_LATE_CANCELLATION_DECISION_REQUIRED` (with the
 * charge); a `charge` decision naming another gross charge → `BOOKING_LATE_CANCELLATION_ITEMS_CHANGED` (409).
 * Not live → `BOOKING_NOT_RESCHEDULABLE`; started → `BOOKING_ALREADY_STARTED`.
 *
 * @since 0.2.0
 */
export const checkCancellation = (
  resource: BookableResource,
  change: BookingChange,
  now: Date
): Either.Either<{ readonly lateCancellation?: LateCancellationCharge }, BookingChangeRefusal> =>
  changeCheck(resource, { ...change, _tag: "Cancel" }, now.getTime())

interface Context {
  readonly state: BookingState
  readonly command: BookingCommand
  readonly resource: BookableResource
  readonly asked: Asked
  readonly now: number
  readonly products: ReadonlyMap<string, AddOnProduct>
}

type Check = (context: Context) => BookingCheckRefusal | undefined

const inThePast: Check = ({ asked, now }) =>
  asked.period.start < now
    ? new InThePast({ start: new Date(asked.period.start), detail: "The booking would start in the past." })
    : undefined

const noticeTooShort: Check = ({ asked, resource, now }) =>
  asked.period.start < earliestStart(resource, now)
    ? new NoticeTooShort({
        minimumNoticeMinutes: resource.minimumNoticeMinutes,
        detail: `The resource must be booked at least ${resource.minimumNoticeMinutes} minutes before it starts.`
      })
    : undefined

const horizonExceeded: Check = ({ asked, resource, now }) =>
  asked.period.start >= horizonEnd(resource, now)
    ? new HorizonExceeded({
        horizonDays: resource.horizonDays,
        lastDate: lastBookableDate(resource, now),
        detail: `The resource can be booked at most ${resource.horizonDays} days ahead.`
      })
    : undefined

const startNotOnIncrement: Check = ({ asked, resource }) => {
  if (asked.stay !== undefined) return undefined
  const { minute, whole } = localMinuteOf(asked.period.start, resource.timeZone)
  return whole && minute % resource.startIncrementMinutes === 0
    ? undefined
    : new StartNotOnIncrement({
        startIncrementMinutes: resource.startIncrementMinutes,
        detail: `A booking starts on a multiple of ${resource.startIncrementMinutes} minutes after midnight, local time.`
      })
}

const durationRules: Check = ({ asked, resource }) => {
  if (asked.stay !== undefined) return undefined
  const durationMinutes = (asked.period.end - asked.period.start) / 60_000
  if (durationMinutes < resource.minDurationMinutes || durationMinutes <= 0) {
    return new DurationTooShort({
      minDurationMinutes: resource.minDurationMinutes,
      durationMinutes,
      detail: `A booking lasts at least ${resource.minDurationMinutes} minutes.`
    })
  }
  if (durationMinutes > resource.maxDurationMinutes) {
    return new DurationTooLong({
      maxDurationMinutes: resource.maxDurationMinutes,
      durationMinutes,
      detail: `A booking lasts at most ${resource.maxDurationMinutes} minutes.`
    })
  }
  return Number.isInteger(durationMinutes) && durationMinutes % resource.durationIncrementMinutes === 0
    ? undefined
    : new DurationNotOnIncrement({
        durationIncrementMinutes: resource.durationIncrementMinutes,
        durationMinutes,
        detail: `A booking lasts a multiple of ${resource.durationIncrementMinutes} minutes.`
      })
}

const stayRules: Check = ({ asked, resource }) => {
  const stays = resource.nightStays
  if (asked.stay === undefined || stays === undefined) return undefined
  const nights = asked.stay.nights
  if (nights < stays.minNights) {
    return new StayTooShort({
      minNights: stays.minNights,
      nights,
      detail: `A stay lasts at least ${stays.minNights} nights.`
    })
  }
  return nights > stays.maxNights
    ? new StayTooLong({ maxNights: stays.maxNights, nights, detail: `A stay lasts at most ${stays.maxNights} nights.` })
    : undefined
}

const outsideOpenHours: Check = ({ asked, resource }) =>
  within(openWithin(resource, asked.period), asked.period)
    ? undefined
    : new OutsideOpenHours({ detail: "The booking is not within the resource's opening hours." })

const others = (context: Context): ReadonlyArray<Interval> =>
  context.state.otherBookings.map((other) => ({ start: other.start.getTime(), end: other.end.getTime() }))

const bufferConflict: Check = (context) => {
  const { asked, resource } = context
  const conflict = others(context).some(
    (other) => !overlaps(other, asked.period) && overlaps(keptOutBy(resource, other), asked.period)
  )
  return conflict
    ? new BufferConflict({
        bufferBeforeMinutes: resource.bufferBeforeMinutes,
        bufferAfterMinutes: resource.bufferAfterMinutes,
        detail: "The booking leaves too little time before or after another booking of the resource."
      })
    : undefined
}

const slotTaken: Check = (context) =>
  others(context).some((other) => overlaps(other, context.asked.period))
    ? new SlotTaken({ detail: "Another booking holds part of this time." })
    : undefined

const addOnRules: Check = (context) => {
  const { command, asked, resource, now, products } = context
  const lines = command.addOns
  if (lines.length > MAX_ADD_ON_LINES) {
    return new AddOnLineLimitExceeded({
      limit: MAX_ADD_ON_LINES,
      detail: `A booking carries at most ${MAX_ADD_ON_LINES} add-on lines.`
    })
  }
  for (const [line, addOn] of lines.entries()) {
    const refusal = addOnLineRefusal(line, addOn, products.get(addOn.addOnProductId), asked.period, resource, now)
    if (refusal !== undefined) return refusal
  }
  return undefined
}

const addOnLineRefusal = (
  line: number,
  addOn: AddOnLineCommand,
  product: AddOnProduct | undefined,
  period: Interval,
  resource: BookableResource,
  now: number
): BookingCheckRefusal | undefined => {
  const which = `Add-on line ${line + 1}`
  if (product === undefined) {
    return new AddOnNotOffered({
      line,
      addOnProductId: addOn.addOnProductId,
      detail: `${which}: the resource does not offer this product.`
    })
  }
  if (product.retired) {
    return new AddOnProductRetired({
      line,
      addOnProductId: addOn.addOnProductId,
      detail: `${which}: the product is no longer sold.`
    })
  }
  if (addOn.quantity > product.maxQuantityPerLine) {
    return new AddOnLineLimitExceeded({
      line,
      limit: product.maxQuantityPerLine,
      detail: `${which}: at most ${product.maxQuantityPerLine} of this product per line.`
    })
  }
  const special = addOn.specialPortions
  const specialCount = special.reduce((sum, portion) => sum + portion.quantity, 0)
  if (
    special.length > 0 &&
    (!product.specialPortions ||
      specialCount > addOn.quantity ||
      new Set(special.map((portion) => portion.label)).size !== special.length)
  ) {
    return new AddOnSpecialPortionsInvalid({
      line,
      detail: product.specialPortions
        ? `${which}: special portions must name each kind once and add up to at most the line's quantity.`
        : `${which}: the product has no special portions.`
    })
  }
  const deliverAt = addOn.deliverAt.getTime()
  if (deliverAt < period.start || deliverAt >= period.end) {
    return new AddOnDeliveryOutsideBooking({ line, detail: `${which}: the delivery time is not within the booking.` })
  }
  if (
    product.deliveryHours.length > 0 &&
    !within(scheduleWithin(product.deliveryHours, [], resource.timeZone, { start: deliverAt, end: deliverAt + 1 }), {
      start: deliverAt,
      end: deliverAt + 1
    })
  ) {
    return new AddOnDeliveryOutsideAvailability({
      line,
      detail: `${which}: the product is not delivered at that time.`
    })
  }
  if (deliverAt - now < minutesMs(product.leadTimeMinutes)) {
    return new AddOnOrderLeadTooShort({
      line,
      leadTimeMinutes: product.leadTimeMinutes,
      detail: `${which}: the product must be ordered at least ${product.leadTimeMinutes} minutes before delivery.`
    })
  }
  if (product.cutOff !== undefined) {
    const deliveryDate = localDateOf(deliverAt, resource.timeZone)
    const deadline = instantAt(
      addDays(deliveryDate, -product.cutOff.daysBefore),
      minutesOfLocalTime(product.cutOff.time) ?? 0,
      resource.timeZone
    )
    if (now > deadline) {
      return new AddOnCutOffPassed({
        line,
        deadline: new Date(deadline),
        detail: `${which}: the order deadline for this delivery has passed.`
      })
    }
  }
  return undefined
}

const TIME_CHECKS: ReadonlyArray<Check> = [
  inThePast,
  noticeTooShort,
  horizonExceeded,
  startNotOnIncrement,
  durationRules,
  stayRules,
  outsideOpenHours,
  bufferConflict,
  slotTaken,
  addOnRules
]

/**
 * Checks a booking and prices it. Answers the first refusal in {@link CHECK_ORDER}:
 *
 * 0. for a reschedule (`command.change`), the change's checks (see {@link checkCancellation}), except that an
 *    approved booking past its cancellation deadline is not moved at all (`BOOKING_CANCELLATION_NOTICE_EXPIRED`);
 *    the other bookings in `state` must leave out the one being moved;
 * 1. the kind of time fits the resource's pricing: a stay of a resource priced by time →
 *    `BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING`; a period of one priced by the night →
 *    `BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL`; a stay with no nights → `BOOKING_DATE_INTERVAL_EMPTY`;
 * 2. start before `now` → `BOOKING_IN_THE_PAST`; before `now` + minimum notice → `BOOKING_NOTICE_TOO_SHORT`;
 *    on a local date after today + `horizonDays` → `BOOKING_HORIZON_EXCEEDED`;
 * 3. (periods) start not on a whole minute that is a local multiple of the start increment →
 *    `BOOKING_START_NOT_ON_INCREMENT`; elapsed minutes below the minimum (or ≤ 0) → `BOOKING_DURATION_TOO_SHORT`,
 *    above the maximum → `BOOKING_DURATION_TOO_LONG`, not a multiple of the increment →
 *    `BOOKING_DURATION_NOT_ON_INCREMENT`; (stays) nights outside `minNights`..`maxNights` →
 *    `BOOKING_STAY_TOO_SHORT` / `BOOKING_STAY_TOO_LONG`;
 * 4. not wholly inside the opening hours (closures excluded) → `BOOKING_OUTSIDE_OPEN_HOURS`;
 * 5. too close to another live booking for the buffers → `BOOKING_BUFFER_CONFLICT`; overlapping one →
 *    `BOOKING_SLOT_TAKEN` (409);
 * 6. add-on lines: more than {@link MAX_ADD_ON_LINES} → `BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED`; then line by line:
 *    product not offered by the resource → `BOOKING_ADD_ON_NOT_OFFERED`; retired →
 *    `BOOKING_ADD_ON_PRODUCT_RETIRED`; quantity above `maxQuantityPerLine` → `BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED`;
 *    special portions not allowed, repeated or more than the quantity → `BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID`;
 *    delivery not inside the booking → `BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING`; outside the product's delivery
 *    hours → `BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY`; sooner than its lead time →
 *    `BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT`; after its cut-off → `BOOKING_ADD_ON_CUTOFF_PASSED`;
 * 7. pricing (see `Pricing.ts`) → `BOOKING_PRICE_RULE_AMBIGUOUS` / `BOOKING_PRICE_RULE_NOT_APPLICABLE`;
 * 8. the command's currency, or an add-on product's, is not the resource's → `BOOKING_RESOURCE_CURRENCY_MISMATCH`.
 *
 * Every refusal is 400 except `BOOKING_SLOT_TAKEN` and `BOOKING_LATE_CANCELLATION_ITEMS_CHANGED` (409).
 *
 * @since 0.1.0
 */
export const checkBooking = (
  state: BookingState,
  command: BookingCommand,
  now: Date
): Either.Either<CheckedBooking, BookingCheckRefusal> => {
  const { resource } = state
  if (command.change !== undefined) {
    const changed = changeCheck(resource, { ...command.change, _tag: "Reschedule" }, now.getTime())
    if (Either.isLeft(changed)) return Either.left(changed.left)
  }
  const resolved = resolveTime(resource, command.time)
  if (Either.isLeft(resolved)) return Either.left(resolved.left)
  const asked = resolved.right
  const products = new Map(state.offeredAddOns.map((product) => [product.id, product]))
  const context: Context = {
    state,
    command,
    resource,
    asked,
    now: now.getTime(),
    products
  }
  for (const check of TIME_CHECKS) {
    const refusal = check(context)
    if (refusal !== undefined) return Either.left(refusal)
  }
  const resourceLines = asked.stay === undefined
    ? pricePeriod(resource, new Date(asked.period.start), new Date(asked.period.end))
    : priceStay(resource, asked.stay.checkInDate, asked.stay.checkOutDate)
  if (Either.isLeft(resourceLines)) return Either.left(resourceLines.left)
  const currencies = [
    ...(command.currency === undefined ? [] : [command.currency]),
    ...command.addOns.flatMap((line) => {
      const product = products.get(line.addOnProductId)
      return product === undefined ? [] : [product.currency]
    })
  ]
  const mismatch = currencies.find((currency) => currency !== resource.currency)
  if (mismatch !== undefined) {
    return Either.left(
      new ResourceCurrencyMismatch({
        resourceCurrency: resource.currency,
        currency: mismatch,
        detail: `The resource is sold in ${resource.currency}, not ${mismatch}.`
      })
    )
  }
  const span = bufferedSpan(resource, asked.period)
  return Either.right({
    start: new Date(asked.period.start),
    end: new Date(asked.period.end),
    blockedStart: new Date(span.start),
    blockedEnd: new Date(span.end),
    ...(asked.stay === undefined ? {} : { nights: asked.stay.nights }),
    price: breakdown(resource.currency, [...resourceLines.right, ...priceAddOns(command.addOns, products)])
  })
}
