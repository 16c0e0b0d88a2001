/**
 * The business-rule refusals of booking, one class per code of spec section 7.3 that this package decides, on
 * the one refusal shape of `@propline/refusal` (code, HTTP status, detail, facts). 409 for
 * `BOOKING_SLOT_TAKEN` and `BOOKING_REQUEST_ID_ALREADY_USED` (a conflict with state another request made), 400
 * for every other (decisions.md section 4).
 *
 * Facts use this package's units: minutes, local ISO dates, `Date` instants; `line` is the 0-based index of an
 * add-on line in the request.
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"
import { Refusal } from "@propline/refusal/Refusal"
import type { PriceUnit } from "./Resource.js"

/**
 * `VALIDATION_FAILED`, 400: a query this package bounds asks too much, such as prices for more start times than
 * {@link MAX_PRICED_STARTS}; `issues` names the field (JSON Pointer) and why.
 *
 * @since 0.2.0
 */
export class QueryTooLarge extends Refusal("QueryTooLarge", "VALIDATION_FAILED", 400)<{
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
}> {}

/**
 * The most start times one availability answer prices (`prices=true`): each is one run of the preview's check.
 *
 * @since 0.2.0
 */
export const MAX_PRICED_STARTS = 5000

/**
 * `BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING`, 400: a stay (check-in and check-out dates) was asked of a
 * resource priced by time; ask a period (start and end) instead.
 *
 * @since 0.1.0
 */
export class DateIntervalRequiresNightPricing extends Refusal(
  "DateIntervalRequiresNightPricing",
  "BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING",
  400
) {}

/**
 * `BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL`, 400: a period was asked of a resource priced by the night;
 * ask a stay (check-in and check-out dates) instead.
 *
 * @since 0.1.0
 */
export class NightPricingRequiresDateInterval extends Refusal(
  "NightPricingRequiresDateInterval",
  "BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL",
  400
) {}

/**
 * `BOOKING_DATE_INTERVAL_EMPTY`, 400: the check-out date is not after the check-in date.
 *
 * @since 0.1.0
 */
export class DateIntervalEmpty extends Refusal("DateIntervalEmpty", "BOOKING_DATE_INTERVAL_EMPTY", 400)<{
  readonly checkInDate: string
  readonly checkOutDate: string
}> {}

/**
 * `BOOKING_IN_THE_PAST`, 400: the booking starts before now.
 *
 * @since 0.1.0
 */
export class InThePast extends Refusal("InThePast", "BOOKING_IN_THE_PAST", 400)<{ readonly start: Date }> {}

/**
 * `BOOKING_NOTICE_TOO_SHORT`, 400: the booking starts sooner than the resource's minimum notice from now.
 *
 * @since 0.1.0
 */
export class NoticeTooShort extends Refusal("NoticeTooShort", "BOOKING_NOTICE_TOO_SHORT", 400)<{
  readonly minimumNoticeMinutes: number
}> {}

/**
 * `BOOKING_HORIZON_EXCEEDED`, 400: the booking starts after `lastDate`, the last local date the resource's
 * horizon reaches.
 *
 * @since 0.1.0
 */
export class HorizonExceeded extends Refusal("HorizonExceeded", "BOOKING_HORIZON_EXCEEDED", 400)<{
  readonly horizonDays: number
  readonly lastDate: string
}> {}

/**
 * `BOOKING_START_NOT_ON_INCREMENT`, 400: the start is not a local wall-clock multiple of the start increment
 * after midnight (or not on a whole minute).
 *
 * @since 0.1.0
 */
export class StartNotOnIncrement extends Refusal("StartNotOnIncrement", "BOOKING_START_NOT_ON_INCREMENT", 400)<{
  readonly startIncrementMinutes: number
}> {}

/**
 * `BOOKING_DURATION_TOO_SHORT`, 400: shorter than the resource's minimum (including an end not after the start).
 *
 * @since 0.1.0
 */
export class DurationTooShort extends Refusal("DurationTooShort", "BOOKING_DURATION_TOO_SHORT", 400)<{
  readonly minDurationMinutes: number
  readonly durationMinutes: number
}> {}

/**
 * `BOOKING_DURATION_TOO_LONG`, 400: longer than the resource's maximum.
 *
 * @since 0.1.0
 */
export class DurationTooLong extends Refusal("DurationTooLong", "BOOKING_DURATION_TOO_LONG", 400)<{
  readonly maxDurationMinutes: number
  readonly durationMinutes: number
}> {}

/**
 * `BOOKING_DURATION_NOT_ON_INCREMENT`, 400: the elapsed duration is not a whole multiple of the duration
 * increment.
 *
 * @since 0.1.0
 */
export class DurationNotOnIncrement extends Refusal(
  "DurationNotOnIncrement",
  "BOOKING_DURATION_NOT_ON_INCREMENT",
  400
)<{ readonly durationIncrementMinutes: number; readonly durationMinutes: number }> {}

/**
 * `BOOKING_STAY_TOO_SHORT`, 400: fewer nights than the resource's minimum.
 *
 * @since 0.1.0
 */
export class StayTooShort extends Refusal("StayTooShort", "BOOKING_STAY_TOO_SHORT", 400)<{
  readonly minNights: number
  readonly nights: number
}> {}

/**
 * `BOOKING_STAY_TOO_LONG`, 400: more nights than the resource's maximum.
 *
 * @since 0.1.0
 */
export class StayTooLong extends Refusal("StayTooLong", "BOOKING_STAY_TOO_LONG", 400)<{
  readonly maxNights: number
  readonly nights: number
}> {}

/**
 * `BOOKING_OUTSIDE_OPEN_HOURS`, 400: part of the booking lies outside the resource's opening hours, or on a
 * closure.
 *
 * @since 0.1.0
 */
export class OutsideOpenHours extends Refusal("OutsideOpenHours", "BOOKING_OUTSIDE_OPEN_HOURS", 400) {}

/**
 * `BOOKING_BUFFER_CONFLICT`, 400: the booking does not overlap another, but leaves less than the resource's
 * buffers (after the earlier, before the later) between them.
 *
 * @since 0.1.0
 */
export class BufferConflict extends Refusal("BufferConflict", "BOOKING_BUFFER_CONFLICT", 400)<{
  readonly bufferBeforeMinutes: number
  readonly bufferAfterMinutes: number
}> {}

/**
 * `BOOKING_SLOT_TAKEN`, 409: another pending or approved booking holds part of the time.
 *
 * @since 0.1.0
 */
export class SlotTaken extends Refusal("SlotTaken", "BOOKING_SLOT_TAKEN", 409) {}

/**
 * `BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED`, 400: more add-on lines than {@link MAX_ADD_ON_LINES} (`line` absent), or
 * a line orders more than its product's `maxQuantityPerLine`.
 *
 * @since 0.1.0
 */
export class AddOnLineLimitExceeded extends Refusal(
  "AddOnLineLimitExceeded",
  "BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED",
  400
)<{ readonly line?: number; readonly limit: number }> {}

/**
 * `BOOKING_ADD_ON_NOT_OFFERED`, 400: the resource does not offer this product.
 *
 * @since 0.1.0
 */
export class AddOnNotOffered extends Refusal("AddOnNotOffered", "BOOKING_ADD_ON_NOT_OFFERED", 400)<{
  readonly line: number
  readonly addOnProductId: string
}> {}

/**
 * `BOOKING_ADD_ON_PRODUCT_RETIRED`, 400: the product is no longer sold.
 *
 * @since 0.1.0
 */
export class AddOnProductRetired extends Refusal("AddOnProductRetired", "BOOKING_ADD_ON_PRODUCT_RETIRED", 400)<{
  readonly line: number
  readonly addOnProductId: string
}> {}

/**
 * `BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID`, 400: special portions on a product without them, more special
 * portions than the line's quantity, or one label given twice.
 *
 * @since 0.1.0
 */
export class AddOnSpecialPortionsInvalid extends Refusal(
  "AddOnSpecialPortionsInvalid",
  "BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID",
  400
)<{ readonly line: number }> {}

/**
 * `BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING`, 400: the delivery time is not inside the booking
 * (`start` ≤ `deliverAt` < `end`).
 *
 * @since 0.1.0
 */
export class AddOnDeliveryOutsideBooking extends Refusal(
  "AddOnDeliveryOutsideBooking",
  "BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING",
  400
)<{ readonly line: number }> {}

/**
 * `BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY`, 400: the product is not delivered at that local time.
 *
 * @since 0.1.0
 */
export class AddOnDeliveryOutsideAvailability extends Refusal(
  "AddOnDeliveryOutsideAvailability",
  "BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY",
  400
)<{ readonly line: number }> {}

/**
 * `BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT`, 400: the delivery is sooner than the product's lead time from now.
 *
 * @since 0.1.0
 */
export class AddOnOrderLeadTooShort extends Refusal(
  "AddOnOrderLeadTooShort",
  "BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT",
  400
)<{ readonly line: number; readonly leadTimeMinutes: number }> {}

/**
 * `BOOKING_ADD_ON_CUTOFF_PASSED`, 400: now is past the product's order deadline for that delivery date.
 *
 * @since 0.1.0
 */
export class AddOnCutOffPassed extends Refusal("AddOnCutOffPassed", "BOOKING_ADD_ON_CUTOFF_PASSED", 400)<{
  readonly line: number
  readonly deadline: Date
}> {}

/**
 * `BOOKING_PRICE_RULE_AMBIGUOUS`, 400: two price rules of the same unit claim the same time of `localDate`
 * (or the same night), so the price is not determined. An operator must correct the rules. At setup (no booking
 * yet) `localDate` is absent.
 *
 * @since 0.1.0
 */
export class PriceRuleAmbiguous extends Refusal("PriceRuleAmbiguous", "BOOKING_PRICE_RULE_AMBIGUOUS", 400)<{
  readonly localDate?: string
  readonly unit: PriceUnit
}> {}

/**
 * `BOOKING_PRICE_RULE_NOT_APPLICABLE`, 400: no price rule prices the part of the booking on `localDate`.
 *
 * @since 0.1.0
 */
export class PriceRuleNotApplicable extends Refusal(
  "PriceRuleNotApplicable",
  "BOOKING_PRICE_RULE_NOT_APPLICABLE",
  400
)<{ readonly localDate: string }> {}

/**
 * `BOOKING_RESOURCE_CURRENCY_MISMATCH`, 400: the request's currency, or an add-on product's, is not the
 * resource's.
 *
 * @since 0.1.0
 */
export class ResourceCurrencyMismatch extends Refusal(
  "ResourceCurrencyMismatch",
  "BOOKING_RESOURCE_CURRENCY_MISMATCH",
  400
)<{ readonly resourceCurrency: Currency; readonly currency: Currency }> {}

/**
 * `BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT`, 400 (resource setup): a buffer is not a multiple of the start
 * increment, so bookings around it could not start on the grid.
 *
 * @since 0.1.0
 */
export class ResourceBufferNotOnIncrement extends Refusal(
  "ResourceBufferNotOnIncrement",
  "BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT",
  400
)<{ readonly startIncrementMinutes: number }> {}

/**
 * `BOOKING_REQUEST_ID_ALREADY_USED`, 409: the `requestId` was used before with another body
 * (decisions.md section 7).
 *
 * @since 0.1.0
 */
export class RequestIdAlreadyUsed extends Refusal("RequestIdAlreadyUsed", "BOOKING_REQUEST_ID_ALREADY_USED", 409) {}

/**
 * `BOOKING_NOT_PENDING_APPROVAL`, 400: approve or decline of a booking request that is not pending.
 *
 * @since 0.1.0
 */
export class NotPendingApproval extends Refusal("NotPendingApproval", "BOOKING_NOT_PENDING_APPROVAL", 400)<{
  readonly bookingStatus: string
}> {}

/**
 * `BOOKING_APPROVAL_WINDOW_PASSED`, 400: approve or decline after the request's hold expired.
 *
 * @since 0.1.0
 */
export class ApprovalWindowPassed extends Refusal("ApprovalWindowPassed", "BOOKING_APPROVAL_WINDOW_PASSED", 400)<{
  readonly holdExpiresAt: Date
}> {}

/**
 * Any refusal of the ordered booking check ({@link checkBooking} in `BookingCheck.ts`).
 *
 * @since 0.1.0
 */
export type BookingCheckRefusal =
  | DateIntervalRequiresNightPricing
  | NightPricingRequiresDateInterval
  | DateIntervalEmpty
  | InThePast
  | NoticeTooShort
  | HorizonExceeded
  | StartNotOnIncrement
  | DurationTooShort
  | DurationTooLong
  | DurationNotOnIncrement
  | StayTooShort
  | StayTooLong
  | OutsideOpenHours
  | BufferConflict
  | SlotTaken
  | AddOnLineLimitExceeded
  | AddOnNotOffered
  | AddOnProductRetired
  | AddOnSpecialPortionsInvalid
  | AddOnDeliveryOutsideBooking
  | AddOnDeliveryOutsideAvailability
  | AddOnOrderLeadTooShort
  | AddOnCutOffPassed
  | PriceRuleAmbiguous
  | PriceRuleNotApplicable
  | ResourceCurrencyMismatch
  | BookingChangeRefusal

/**
 * `BOOKING_NOT_RESCHEDULABLE`, 400: the booking request is no longer live (`declined`, `expired` or `cancelled`),
 * so it can be neither moved nor cancelled.
 *
 * @since 0.2.0
 */
export class NotReschedulable extends Refusal("NotReschedulable", "BOOKING_NOT_RESCHEDULABLE", 400)<{
  readonly bookingStatus: string
}> {}

/**
 * `BOOKING_ALREADY_STARTED`, 400: the booking has started; it can be neither moved nor cancelled.
 *
 * @since 0.2.0
 */
export class AlreadyStarted extends Refusal("AlreadyStarted", "BOOKING_ALREADY_STARTED", 400)<{ readonly start: Date }> {}

/**
 * `BOOKING_NOT_PAST_CANCELLATION_DEADLINE`, 400: a late-cancellation decision was given for a booking that can
 * still be cancelled free (before `deadline`, or a pending request); cancel it without one.
 *
 * @since 0.2.0
 */
export class NotPastCancellationDeadline extends Refusal(
  "NotPastCancellationDeadline",
  "BOOKING_NOT_PAST_CANCELLATION_DEADLINE",
  400
)<{ readonly deadline: Date }> {}

/**
 * `BOOKING_CANCELLATION_NOTICE_EXPIRED`, 400: the approved booking's cancellation deadline (`deadline` = start −
 * the resource's cancellation notice) has passed and the resource has no late-cancellation terms (a cancellation),
 * or a reschedule was asked after it.
 *
 * @since 0.2.0
 */
export class CancellationNoticeExpired extends Refusal(
  "CancellationNoticeExpired",
  "BOOKING_CANCELLATION_NOTICE_EXPIRED",
  400
)<{ readonly deadline: Date; readonly cancellationNoticeMinutes: number }> {}

/**
 * `BOOKING_LATE_CANCELLATION_DECISION_REQUIRED`, 400: the cancellation is late and the resource charges for it;
 * repeat with the decision to be charged `chargeGrossMinorUnits` (of `currency`).
 *
 * @since 0.2.0
 */
export class LateCancellationDecisionRequired extends Refusal(
  "LateCancellationDecisionRequired",
  "BOOKING_LATE_CANCELLATION_DECISION_REQUIRED",
  400
)<{ readonly deadline: Date; readonly currency: Currency; readonly chargeGrossMinorUnits: number }> {}

/**
 * `BOOKING_LATE_CANCELLATION_ITEMS_CHANGED`, 409: the charge the caller accepted is not the charge now (the
 * booking was rescheduled or its price changed since); `chargeGrossMinorUnits` is the charge now.
 *
 * @since 0.2.0
 */
export class LateCancellationItemsChanged extends Refusal(
  "LateCancellationItemsChanged",
  "BOOKING_LATE_CANCELLATION_ITEMS_CHANGED",
  409
)<{ readonly chargeGrossMinorUnits: number }> {}

/**
 * The refusals of a change to a booking (cancel, reschedule), in the order the check tries them.
 *
 * @since 0.2.0
 */
export type BookingChangeRefusal =
  | NotReschedulable
  | AlreadyStarted
  | NotPastCancellationDeadline
  | CancellationNoticeExpired
  | LateCancellationDecisionRequired
  | LateCancellationItemsChanged

/**
 * Any refusal of this package.
 *
 * @since 0.1.0
 */
export type BookingRefusal =
  | BookingCheckRefusal
  | ResourceBufferNotOnIncrement
  | RequestIdAlreadyUsed
  | NotPendingApproval
  | ApprovalWindowPassed
