import type { JSONColumnType } from "kysely"

/** A weekly opening period in local time (`HH:MM`, `24:00` allowed as a close). */
export interface WeeklyOpeningJson {
  readonly weekday: 1 | 2 | 3 | 4 | 5 | 6 | 7
  readonly opens: string
  readonly closes: string
}

/** `opening_hours`: the weekly schedule and whole-day closures (ISO dates, both included). */
export interface OpeningHoursJson {
  readonly weekly: ReadonlyArray<WeeklyOpeningJson>
  readonly closures: ReadonlyArray<{ readonly fromDate: string; readonly toDate: string }>
}

/** `night_stays`: check-in/out local times and the nights allowed, for a resource priced by the night. */
export interface NightStaysJson {
  readonly checkInTime: string
  readonly checkOutTime: string
  readonly minNights: number
  readonly maxNights: number
}

/**
 * `booking_resources`: a bookable room, desk or parking space in an operational context (decisions 7). Local
 * times are read in `timeZone` (IANA); durations are minutes; `horizonDays` local days.
 */
export interface BookingResourceTable {
  readonly id: string
  readonly organizationId: string
  operationalContextId: string
  kind: "room" | "desk" | "parking"
  name: string
  description: string | null
  timeZone: string
  /** People it seats. */
  capacity: number
  /** ISO 4217 code of its prices. */
  currency: string
  openingHours: JSONColumnType<OpeningHoursJson>
  minDurationMinutes: number
  maxDurationMinutes: number
  durationIncrementMinutes: number
  startIncrementMinutes: number
  minimumNoticeMinutes: number
  horizonDays: number
  bufferBeforeMinutes: number
  bufferAfterMinutes: number
  /** How long a pending request holds its slot. */
  holdMinutes: number
  /** Set exactly when the resource is priced by the night. */
  nightStays: JSONColumnType<NightStaysJson> | null
  status: "active" | "retired"
  /** Minutes before its start an approved booking is cancelled free; null reads 0. */
  cancellationNoticeMinutes: number | null
  /** The late-cancellation charge, basis points of the price; null: a late cancellation is refused. */
  lateCancellationChargeBasisPoints: number | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `booking_price_rules`: a resource's price rules, in `position` order; net amounts in minor units. */
export interface BookingPriceRuleTable {
  readonly id: string
  readonly resourceId: string
  position: number
  name: string
  unit: "hour" | "half-day" | "day" | "session" | "night"
  amountMinorUnits: number
  vatRateBasisPoints: number
  /** ISO weekdays, 1 Monday … 7 Sunday. */
  weekdays: Array<number>
  /** Local `HH:MM`; both null for the whole day. */
  windowFrom: string | null
  windowTo: string | null
  readonly createdAt: Date
}

/** `booking_add_on_products`: extras (catering, equipment) of an operational context. */
export interface BookingAddOnProductTable {
  readonly id: string
  readonly organizationId: string
  operationalContextId: string
  name: string
  description: string | null
  category: "catering" | "equipment" | "service"
  currency: string
  unitPriceMinorUnits: number
  vatRateBasisPoints: number
  leadTimeMinutes: number
  /** Order by `cutOffTime` (local `HH:MM`) this many days before delivery; both null without a cut-off. */
  cutOffDaysBefore: number | null
  cutOffTime: string | null
  maxQuantityPerLine: number
  specialPortions: boolean
  deliveryHours: JSONColumnType<ReadonlyArray<WeeklyOpeningJson>>
  /** Set when no longer sold. */
  retiredAt: Date | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `booking_resource_add_on_products`: which add-on products a resource offers, in `position` order. */
export interface BookingResourceAddOnProductTable {
  readonly resourceId: string
  readonly addOnProductId: string
  position: number
}

/** `booking_application_resources`: the resources an Application may sell (spec 4.2 resources list). */
export interface BookingApplicationResourceTable {
  readonly applicationId: string
  readonly resourceId: string
  readonly createdAt: Date
}

/** One add-on line as requested, stored with its request. Instants as ISO 8601 UTC strings. */
export interface BookingAddOnLineJson {
  readonly addOnProductId: string
  readonly quantity: number
  readonly deliverAt: string
  readonly specialPortions: ReadonlyArray<{ readonly label: string; readonly quantity: number }>
}

/**
 * `booking_requests`: a booking request (decisions 7). `blocked` is the PostgreSQL `tstzrange`
 * `[startsAt − buffer before, endsAt + buffer after)` that the exclusion constraint keeps apart for live
 * (`pending`, `approved`) requests of one resource; read it as text. `price` is the priced breakdown as the API
 * shows it (lines, VAT per rate, totals); the totals are repeated as columns for reporting.
 */
export interface BookingRequestTable {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly resourceId: string
  readonly applicationId: string
  /** The caller's idempotency key, unique per Application. */
  readonly requestId: string
  /** Identity of the body the request was made with. */
  readonly fingerprint: string
  status: "pending" | "approved" | "declined" | "expired" | "cancelled"
  /** ISO dates of a stay; null for a period. */
  checkInDate: string | null
  checkOutDate: string | null
  startsAt: Date
  endsAt: Date
  blocked: string
  nights: number | null
  readonly guestName: string
  readonly guestEmail: string
  readonly guestPhone: string | null
  readonly companyCountry: string | null
  readonly companyOrganisationNumber: string | null
  readonly companyName: string | null
  readonly message: string | null
  addOns: JSONColumnType<ReadonlyArray<BookingAddOnLineJson>>
  price: JSONColumnType<Record<string, unknown>>
  readonly currency: string
  totalNetMinorUnits: number
  totalVatMinorUnits: number
  totalGrossMinorUnits: number
  holdExpiresAt: Date
  approvedAt: Date | null
  declinedAt: Date | null
  declineReason: string | null
  expiredAt: Date | null
  cancelledAt: Date | null
  cancelledBy: "application" | "operator" | null
  cancellationReason: string | null
  /** The late-cancellation charge as the API shows it (decision, basis points, currency, net, VAT, gross). */
  lateCancellation: JSONColumnType<Record<string, unknown>> | null
  rescheduledAt: Date | null
  readonly createdAt: Date
  updatedAt: Date
}

/**
 * `booking_request_changes`: the caller's own id of a cancellation or reschedule (issue 26), unique per
 * Application, with the request it changed and the body's fingerprint (idempotency).
 */
export interface BookingRequestChangeTable {
  readonly applicationId: string
  readonly changeId: string
  readonly bookingId: string
  readonly kind: "cancel" | "reschedule"
  readonly fingerprint: string
  readonly createdAt: Date
}
