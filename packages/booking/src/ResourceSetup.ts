/**
 * The operator's setup of resources and add-on products (decisions.md sections 1 and 7: the admin console sets
 * them up through operator services): which values are valid (answered as `VALIDATION_FAILED` issues) and the
 * setup's business rules (refusals). Valid setup keeps every booking's price inside the spec's integer range.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import {
  type AddOnProduct,
  ADD_ON_CATEGORIES,
  MAX_QUANTITY_PER_LINE
} from "./AddOnProduct.js"
import { PriceRuleAmbiguous, ResourceBufferNotOnIncrement, ResourceCurrencyMismatch } from "./BookingRefusal.js"
import {
  type BookableResource,
  isIsoDate,
  MAX_AMOUNT_MINOR_UNITS,
  MAX_DURATION_MINUTES,
  MAX_HOLD_MINUTES,
  MAX_HORIZON_DAYS,
  MAX_NIGHTS,
  minutesOfLocalTime,
  type PriceRule,
  RESOURCE_KINDS,
  type TimeWindow,
  type WeeklyOpening
} from "./Resource.js"
import { isIanaTimeZone } from "./internal/zoned.js"

/**
 * One invalid value: `path`, a JSON Pointer (RFC 6901) into the setup body, and a `message`.
 *
 * @since 0.1.0
 */
export interface SetupIssue {
  readonly path: string
  readonly message: string
}

const MAX_NOTICE_MINUTES = 365 * 24 * 60
const MAX_BUFFER_MINUTES = 24 * 60
const MAX_CAPACITY = 10_000
const MAX_LEAD_MINUTES = 365 * 24 * 60
const MAX_CUT_OFF_DAYS = 60

const intIn = (issues: Array<SetupIssue>, path: string, value: number, min: number, max: number): void => {
  if (!Number.isInteger(value) || value < min || value > max) {
    issues.push({ path, message: `must be an integer from ${min} to ${max}` })
  }
}

const window = (
  issues: Array<SetupIssue>,
  path: string,
  [fromName, from]: readonly [string, string],
  [toName, to]: readonly [string, string]
): void => {
  const start = minutesOfLocalTime(from)
  const end = minutesOfLocalTime(to, true)
  if (start === undefined) issues.push({ path: `${path}/${fromName}`, message: "must be a local time HH:MM" })
  if (end === undefined) issues.push({ path: `${path}/${toName}`, message: "must be a local time HH:MM (24:00 allowed)" })
  if (start !== undefined && end !== undefined && end <= start) {
    issues.push({ path: `${path}/${toName}`, message: `must be later than ${fromName}` })
  }
}

const weeklyIssues = (issues: Array<SetupIssue>, path: string, weekly: ReadonlyArray<WeeklyOpening>): void => {
  weekly.forEach((opening, index) => {
    intIn(issues, `${path}/${index}/weekday`, opening.weekday, 1, 7)
    window(issues, `${path}/${index}`, ["opens", opening.opens], ["closes", opening.closes])
  })
}

const ruleIssues = (issues: Array<SetupIssue>, path: string, rule: PriceRule, byNight: boolean): void => {
  intIn(issues, `${path}/amountMinorUnits`, rule.amountMinorUnits, 0, MAX_AMOUNT_MINOR_UNITS)
  intIn(issues, `${path}/vatRateBasisPoints`, rule.vatRateBasisPoints, 0, 10_000)
  if (rule.weekdays.length === 0 || new Set(rule.weekdays).size !== rule.weekdays.length) {
    issues.push({ path: `${path}/weekdays`, message: "must list one or more weekdays, each once" })
  }
  rule.weekdays.forEach((weekday, index) => intIn(issues, `${path}/weekdays/${index}`, weekday, 1, 7))
  if (rule.window !== undefined) window(issues, `${path}/window`, ["from", rule.window.from], ["to", rule.window.to])
  if (rule.unit === "session" && rule.window === undefined) {
    issues.push({ path: `${path}/window`, message: "a session rule needs a window" })
  }
  if (rule.unit === "night" && rule.window !== undefined) {
    issues.push({ path: `${path}/window`, message: "a night rule has no window" })
  }
  if ((rule.unit === "night") !== byNight) {
    issues.push({
      path: `${path}/unit`,
      message: byNight
        ? "a resource with nightStays is priced only by the night"
        : "a night rule needs the resource's nightStays"
    })
  }
}

/**
 * The invalid values of a resource's setup, each with its JSON Pointer: time zone not an IANA name; opening
 * hours, rule windows, check-in/out times not `HH:MM` or ending before they start; closures not ISO dates or
 * ending before they start; integers outside their bounds (capacity 1–10000; durations 1–44640 minutes and
 * min ≤ max, both multiples of the duration increment; start increment a divisor of 1440; notice 0–525600;
 * horizon 0–730 days; buffers 0–1440; hold 1–43200 minutes; amounts 0–10000000000; VAT 0–10000 basis points;
 * nights 1–366, min ≤ max); night rules exactly when `nightStays` is set. Empty when valid.
 *
 * @since 0.1.0
 */
export const resourceSetupIssues = (resource: BookableResource): ReadonlyArray<SetupIssue> => {
  const issues: Array<SetupIssue> = []
  if (!RESOURCE_KINDS.includes(resource.kind)) issues.push({ path: "/kind", message: "must be room, desk or parking" })
  if (!isIanaTimeZone(resource.timeZone)) issues.push({ path: "/timeZone", message: "must be an IANA time zone name" })
  intIn(issues, "/capacity", resource.capacity, 1, MAX_CAPACITY)
  weeklyIssues(issues, "/openingHours/weekly", resource.openingHours.weekly)
  resource.openingHours.closures.forEach((closure, index) => {
    const path = `/openingHours/closures/${index}`
    if (!isIsoDate(closure.fromDate)) issues.push({ path: `${path}/fromDate`, message: "must be a date YYYY-MM-DD" })
    if (!isIsoDate(closure.toDate)) issues.push({ path: `${path}/toDate`, message: "must be a date YYYY-MM-DD" })
    if (closure.toDate < closure.fromDate) issues.push({ path, message: "must end on or after its first date" })
  })
  intIn(issues, "/durationIncrementMinutes", resource.durationIncrementMinutes, 1, MAX_DURATION_MINUTES)
  intIn(issues, "/minDurationMinutes", resource.minDurationMinutes, 1, MAX_DURATION_MINUTES)
  intIn(issues, "/maxDurationMinutes", resource.maxDurationMinutes, 1, MAX_DURATION_MINUTES)
  if (resource.maxDurationMinutes < resource.minDurationMinutes) {
    issues.push({ path: "/maxDurationMinutes", message: "must be at least minDurationMinutes" })
  }
  for (const field of ["minDurationMinutes", "maxDurationMinutes"] as const) {
    if (resource.durationIncrementMinutes > 0 && resource[field] % resource.durationIncrementMinutes !== 0) {
      issues.push({ path: `/${field}`, message: "must be a multiple of durationIncrementMinutes" })
    }
  }
  intIn(issues, "/startIncrementMinutes", resource.startIncrementMinutes, 1, 1440)
  if (resource.startIncrementMinutes > 0 && 1440 % resource.startIncrementMinutes !== 0) {
    issues.push({ path: "/startIncrementMinutes", message: "must divide a day (1440 minutes) evenly" })
  }
  intIn(issues, "/minimumNoticeMinutes", resource.minimumNoticeMinutes, 0, MAX_NOTICE_MINUTES)
  intIn(issues, "/horizonDays", resource.horizonDays, 0, MAX_HORIZON_DAYS)
  intIn(issues, "/bufferBeforeMinutes", resource.bufferBeforeMinutes, 0, MAX_BUFFER_MINUTES)
  intIn(issues, "/bufferAfterMinutes", resource.bufferAfterMinutes, 0, MAX_BUFFER_MINUTES)
  intIn(issues, "/holdMinutes", resource.holdMinutes, 1, MAX_HOLD_MINUTES)
  if (resource.cancellationNoticeMinutes !== undefined) {
    intIn(issues, "/cancellationNoticeMinutes", resource.cancellationNoticeMinutes, 0, MAX_HORIZON_DAYS * 24 * 60)
  }
  if (resource.lateCancellationChargeBasisPoints !== undefined) {
    intIn(issues, "/lateCancellationChargeBasisPoints", resource.lateCancellationChargeBasisPoints, 0, 10_000)
  }
  const stays = resource.nightStays
  if (stays !== undefined) {
    const checkIn = minutesOfLocalTime(stays.checkInTime)
    const checkOut = minutesOfLocalTime(stays.checkOutTime)
    if (checkIn === undefined) issues.push({ path: "/nightStays/checkInTime", message: "must be a local time HH:MM" })
    if (checkOut === undefined) issues.push({ path: "/nightStays/checkOutTime", message: "must be a local time HH:MM" })
    if (checkIn !== undefined && checkOut !== undefined && checkOut > checkIn) {
      issues.push({ path: "/nightStays/checkOutTime", message: "must not be later than checkInTime" })
    }
    intIn(issues, "/nightStays/minNights", stays.minNights, 1, MAX_NIGHTS)
    intIn(issues, "/nightStays/maxNights", stays.maxNights, 1, MAX_NIGHTS)
    if (stays.maxNights < stays.minNights) issues.push({ path: "/nightStays/maxNights", message: "must be at least minNights" })
  }
  if (resource.priceRules.length === 0) issues.push({ path: "/priceRules", message: "must hold at least one rule" })
  resource.priceRules.forEach((rule, index) => ruleIssues(issues, `/priceRules/${index}`, rule, stays !== undefined))
  return issues
}

const span = (window: TimeWindow | undefined): readonly [number, number] => [
  window === undefined ? 0 : minutesOfLocalTime(window.from) ?? 0,
  window === undefined ? 1440 : minutesOfLocalTime(window.to, true) ?? 1440
]

const clash = (a: PriceRule, b: PriceRule): boolean => {
  if (a.unit !== b.unit || !a.weekdays.some((weekday) => b.weekdays.includes(weekday))) return false
  if (a.unit === "night") return true
  const [aFrom, aTo] = span(a.window)
  const [bFrom, bTo] = span(b.window)
  return a.unit === "session" ? aFrom === bFrom && aTo === bTo : aFrom < bTo && bFrom < aTo
}

/**
 * The business rules of a valid setup ({@link resourceSetupIssues} empty), checked in this order:
 * 1. each buffer is a multiple of the start increment, else `ResourceBufferNotOnIncrement`
 *    (`BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT`, 400);
 * 2. no two rules of one unit share a weekday with overlapping windows (identical windows for sessions; any
 *    shared weekday for nights), else `PriceRuleAmbiguous` (`BOOKING_PRICE_RULE_AMBIGUOUS`, 400);
 * 3. every add-on product offered is in the resource's currency, else `ResourceCurrencyMismatch`
 *    (`BOOKING_RESOURCE_CURRENCY_MISMATCH`, 400).
 *
 * @since 0.1.0
 */
export const checkResourceSetup = (
  resource: BookableResource,
  offered: ReadonlyArray<AddOnProduct>
): Either.Either<void, ResourceBufferNotOnIncrement | PriceRuleAmbiguous | ResourceCurrencyMismatch> => {
  const increment = resource.startIncrementMinutes
  if (resource.bufferBeforeMinutes % increment !== 0 || resource.bufferAfterMinutes % increment !== 0) {
    return Either.left(
      new ResourceBufferNotOnIncrement({
        startIncrementMinutes: increment,
        detail: `Buffers must be multiples of the start increment (${increment} minutes).`
      })
    )
  }
  for (const [index, rule] of resource.priceRules.entries()) {
    const other = resource.priceRules.slice(index + 1).find((candidate) => clash(rule, candidate))
    if (other !== undefined) {
      return Either.left(
        new PriceRuleAmbiguous({
          unit: rule.unit,
          detail: `Two ${rule.unit} price rules claim the same time on one weekday.`
        })
      )
    }
  }
  const foreign = offered.find((product) => product.currency !== resource.currency)
  return foreign === undefined
    ? Either.void
    : Either.left(
        new ResourceCurrencyMismatch({
          resourceCurrency: resource.currency,
          currency: foreign.currency,
          detail: `The resource is sold in ${resource.currency}; an add-on product in ${foreign.currency} cannot be offered with it.`
        })
      )
}

/**
 * The invalid values of an add-on product's setup, each with its JSON Pointer: category unknown; price
 * 0–10000000000 minor units; VAT 0–10000 basis points; lead time 0–525600 minutes; cut-off 0–60 days before at a
 * local `HH:MM`; max quantity per line 1–10000; delivery hours as opening hours. Empty when valid.
 *
 * @since 0.1.0
 */
export const addOnProductSetupIssues = (product: AddOnProduct): ReadonlyArray<SetupIssue> => {
  const issues: Array<SetupIssue> = []
  if (!ADD_ON_CATEGORIES.includes(product.category)) {
    issues.push({ path: "/category", message: "must be catering, equipment or service" })
  }
  intIn(issues, "/unitPriceMinorUnits", product.unitPriceMinorUnits, 0, MAX_AMOUNT_MINOR_UNITS / MAX_QUANTITY_PER_LINE)
  intIn(issues, "/vatRateBasisPoints", product.vatRateBasisPoints, 0, 10_000)
  intIn(issues, "/leadTimeMinutes", product.leadTimeMinutes, 0, MAX_LEAD_MINUTES)
  intIn(issues, "/maxQuantityPerLine", product.maxQuantityPerLine, 1, MAX_QUANTITY_PER_LINE)
  if (product.cutOff !== undefined) {
    intIn(issues, "/cutOff/daysBefore", product.cutOff.daysBefore, 0, MAX_CUT_OFF_DAYS)
    if (minutesOfLocalTime(product.cutOff.time) === undefined) {
      issues.push({ path: "/cutOff/time", message: "must be a local time HH:MM" })
    }
  }
  weeklyIssues(issues, "/deliveryHours", product.deliveryHours)
  return issues
}
