/**
 * The bookable resource: a room, desk or parking space that a booking website sells (spec sections 1 and 4.2,
 * Booking; decisions.md section 7). Plain data, as the service loads it and as the operator sets it up.
 *
 * Units, as everywhere in this package:
 * - instants are `Date`s (the API writes them as ISO 8601 in UTC);
 * - local dates are ISO `YYYY-MM-DD` strings and local times `HH:MM` strings (`24:00` allowed where a period
 *   ends), both read in the resource's IANA `timeZone`;
 * - durations are whole minutes; the horizon is whole local days;
 * - money is an integer number of minor units of the resource's `currency`, excluding VAT; VAT rates are basis
 *   points (2500 = 25 %).
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"

/**
 * What a resource is: a meeting room, a desk or a parking space.
 *
 * @since 0.1.0
 */
export type ResourceKind = "room" | "desk" | "parking"

/**
 * Every resource kind, in the order the API lists them.
 *
 * @since 0.1.0
 */
export const RESOURCE_KINDS: ReadonlyArray<ResourceKind> = ["room", "desk", "parking"]

/**
 * ISO weekday: 1 Monday … 7 Sunday.
 *
 * @since 0.1.0
 */
export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7

/**
 * One opening period of a weekday, in local wall-clock time: from `opens` (`HH:MM`) up to, not including,
 * `closes` (`HH:MM`, `24:00` for midnight at the day's end); `opens` < `closes`. A day may have several periods;
 * periods that touch across midnight (Monday `…–24:00`, Tuesday `00:00–…`) join into one.
 *
 * @since 0.1.0
 */
export interface WeeklyOpening {
  readonly weekday: IsoWeekday
  readonly opens: string
  readonly closes: string
}

/**
 * Local dates the resource is closed all day, `fromDate` to `toDate`, both included.
 *
 * @since 0.1.0
 */
export interface Closure {
  readonly fromDate: string
  readonly toDate: string
}

/**
 * Opening hours: a weekly schedule in the resource's time zone, less closures (decisions.md section 7).
 *
 * @since 0.1.0
 */
export interface OpeningHours {
  readonly weekly: ReadonlyArray<WeeklyOpening>
  readonly closures: ReadonlyArray<Closure>
}

/**
 * How a price rule counts:
 * - `hour`: `amountMinorUnits` per hour, pro rata to the minute, over the part of the booking inside the rule's
 *   window; several hourly rules split a booking between them (08–17 day rate, 17–22 evening rate);
 * - `half-day`, `day`: a flat `amountMinorUnits` for the part of a local day that lies wholly inside the
 *   rule's window (its whole day when it has none);
 * - `session`: a flat amount for exactly the rule's window;
 * - `night`: a flat amount per night of a stay, by the weekday of the night's check-in date.
 *
 * @since 0.1.0
 */
export type PriceUnit = "hour" | "half-day" | "day" | "session" | "night"

/**
 * Every price unit.
 *
 * @since 0.1.0
 */
export const PRICE_UNITS: ReadonlyArray<PriceUnit> = ["hour", "half-day", "day", "session", "night"]

/**
 * A local time window of a day, `from` (`HH:MM`) up to `to` (`HH:MM` or `24:00`), `from` < `to`.
 *
 * @since 0.1.0
 */
export interface TimeWindow {
  readonly from: string
  readonly to: string
}

/**
 * A price rule of a resource: on the local `weekdays`, inside the local `window` (the whole day when absent;
 * required for `session`, not allowed for `night`), the resource costs `amountMinorUnits` (net, integer minor
 * units of the resource's currency, 0 to {@link MAX_AMOUNT_MINOR_UNITS}) per `unit`, with VAT at
 * `vatRateBasisPoints` (0 to 10000).
 *
 * @since 0.1.0
 */
export interface PriceRule {
  readonly id: string
  readonly name: string
  readonly unit: PriceUnit
  readonly amountMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly weekdays: ReadonlyArray<IsoWeekday>
  readonly window?: TimeWindow
}

/**
 * Stays of whole nights, for a resource priced by the night: a stay holds the resource from `checkInTime` on
 * the check-in date to `checkOutTime` on the check-out date (local times), for `minNights` to `maxNights` nights.
 *
 * @since 0.1.0
 */
export interface NightStays {
  readonly checkInTime: string
  readonly checkOutTime: string
  readonly minNights: number
  readonly maxNights: number
}

/**
 * A bookable resource (decisions.md section 7). Ids are UUID strings.
 *
 * - `timeZone`: IANA name (`Europe/Stockholm`); opening hours, windows, increments and the horizon are read in it.
 * - `capacity`: how many people it seats (1 for a desk or a parking space); it is sold to one booking at a time.
 * - `minDurationMinutes` ≤ `maxDurationMinutes`; a booking's length is a multiple of `durationIncrementMinutes`
 *   and it starts on a local wall-clock multiple of `startIncrementMinutes` after midnight.
 * - `minimumNoticeMinutes`: how long before its start a booking may be made.
 * - `horizonDays`: a booking may start at most this many local days after today's local date.
 * - `bufferBeforeMinutes`, `bufferAfterMinutes`: set-up and clearing time; two bookings leave at least
 *   `bufferAfterMinutes` + `bufferBeforeMinutes` between them; both are multiples of `startIncrementMinutes`.
 * - `holdMinutes`: how long a pending booking request holds its slot for an operator's decision (never past the
 *   booking's start).
 * - `nightStays`: present exactly when the resource is priced by the night (its rules are all `night`); the
 *   duration and increment fields then do not apply.
 *
 * @since 0.1.0
 */
export interface BookableResource {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly kind: ResourceKind
  readonly name: string
  readonly description?: string
  readonly timeZone: string
  readonly capacity: number
  readonly currency: Currency
  readonly openingHours: OpeningHours
  readonly minDurationMinutes: number
  readonly maxDurationMinutes: number
  readonly durationIncrementMinutes: number
  readonly startIncrementMinutes: number
  readonly minimumNoticeMinutes: number
  readonly horizonDays: number
  readonly bufferBeforeMinutes: number
  readonly bufferAfterMinutes: number
  readonly holdMinutes: number
  readonly nightStays?: NightStays
  readonly priceRules: ReadonlyArray<PriceRule>
  /**
   * Cancellation terms (issue 26): an approved booking is cancelled or rescheduled free until this many minutes
   * before its start (0 when absent: until it starts).
   */
  readonly cancellationNoticeMinutes?: number
  /**
   * After that deadline, an approved booking may still be cancelled by a caller who accepts a charge of this share
   * of its price, in basis points (0..10000); absent: a late cancellation is refused.
   */
  readonly lateCancellationChargeBasisPoints?: number
}

/**
 * Whether a resource is priced by the night (bookings of it are stays, asked as a date interval) rather than by
 * time (bookings are periods).
 *
 * @since 0.1.0
 */
export const isPricedByNight = (resource: Pick<BookableResource, "nightStays">): boolean =>
  resource.nightStays !== undefined

/**
 * Largest net amount of a price rule or an add-on product, in minor units (100 000 000.00 of the currency):
 * with the other setup bounds it keeps every priced booking within the spec's integer range (section 8).
 *
 * @since 0.1.0
 */
export const MAX_AMOUNT_MINOR_UNITS = 10_000_000_000

/**
 * Longest duration a resource may allow: 31 days, in minutes.
 *
 * @since 0.1.0
 */
export const MAX_DURATION_MINUTES = 31 * 24 * 60

/**
 * Longest stay a resource may allow, in nights.
 *
 * @since 0.1.0
 */
export const MAX_NIGHTS = 366

/**
 * Furthest horizon a resource may have, in days.
 *
 * @since 0.1.0
 */
export const MAX_HORIZON_DAYS = 730

/**
 * Longest hold a resource may give a pending request: 30 days, in minutes.
 *
 * @since 0.1.0
 */
export const MAX_HOLD_MINUTES = 30 * 24 * 60

/**
 * Minutes after midnight a local time `HH:MM` names (`00:00` … `23:59`, and `24:00` when `allowEndOfDay`), or
 * `undefined` when it is not such a time.
 *
 * @since 0.1.0
 */
export const minutesOfLocalTime = (time: string, allowEndOfDay = false): number | undefined => {
  const match = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(time)
  if (match === null) return undefined
  const minutes = Number(match[1]) * 60 + Number(match[2])
  if (minutes > 1440 || (minutes === 1440 && !allowEndOfDay)) return undefined
  return minutes
}

/**
 * Whether `date` is an ISO calendar date `YYYY-MM-DD` that exists.
 *
 * @since 0.1.0
 */
export const isIsoDate = (date: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const probe = new Date(Date.UTC(year, month - 1, day))
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
}
