/**
 * The booking request and its lifecycle (spec section 4.2, `POST /v1/booking/booking-requests`,
 * `GET /v1/booking/booking-requests/{bookingId}`; decisions.md section 7):
 *
 * `pending` (holds its slot) → `approved` (an operator approves) | `declined` (an operator declines) |
 * `expired` (the hold ran out first); `pending` or `approved` → `cancelled` (the website or an operator cancels
 * it; the slot is free at once). A live (`pending`, `approved`) request may be rescheduled: it keeps its status
 * and moves to a new time the check accepts. A request is idempotent by the caller's `requestId`: the same body again
 * gives the same record; another body is `BOOKING_REQUEST_ID_ALREADY_USED` (409).
 *
 * @since 0.1.0
 */
import { Either, Option } from "effect"
import type { AddOnLineCommand } from "./AddOnProduct.js"
import {
  type BookingCommand,
  type BookingState,
  type BookingTime,
  checkBooking,
  checkCancellation,
  type CheckedBooking,
  type LateCancellationCharge,
  type LateCancellationDecision
} from "./BookingCheck.js"
import type { BookingEvent, BookingEventType } from "./BookingEvent.js"
import {
  ApprovalWindowPassed,
  type BookingCheckRefusal,
  NotPendingApproval,
  RequestIdAlreadyUsed
} from "./BookingRefusal.js"
import type { RegistryCountry } from "./OrganisationNumber.js"
import type { PriceBreakdown } from "./Pricing.js"
import { minutesMs } from "./internal/zoned.js"

/**
 * Stored status of a booking request. A `pending` request whose hold has expired reads as `expired`
 * ({@link statusAt}) even before the service writes it so.
 *
 * @since 0.1.0
 */
export type BookingRequestStatus = "pending" | "approved" | "declined" | "expired" | "cancelled"

/**
 * The guest the booking is for: `name` (1 to 200 characters), `email`, optional `phone`.
 *
 * @since 0.1.0
 */
export interface Guest {
  readonly name: string
  readonly email: string
  readonly phone?: string
}

/**
 * The guest's company: a checked organisation number of `country` (canonical form) and the name the website
 * shows.
 *
 * @since 0.1.0
 */
export interface GuestCompany {
  readonly country: RegistryCountry
  readonly organisationNumber: string
  readonly name: string
}

/**
 * A booking request as stored. Ids are UUID strings; `requestId` is the caller's idempotency key;
 * `fingerprint` identifies the body it came with ({@link requestFingerprint}). `start`/`end` is the held
 * period; `blockedStart`/`blockedEnd` the period widened by the resource's buffers; `holdExpiresAt` the end of
 * the approval window.
 *
 * @since 0.1.0
 */
export interface BookingRequestRecord {
  readonly id: string
  readonly requestId: string
  readonly fingerprint: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly resourceId: string
  readonly requestedBy: string
  readonly status: BookingRequestStatus
  readonly time: BookingTime
  readonly start: Date
  readonly end: Date
  readonly blockedStart: Date
  readonly blockedEnd: Date
  readonly nights?: number
  readonly guest: Guest
  readonly company?: GuestCompany
  readonly message?: string
  readonly addOns: ReadonlyArray<AddOnLineCommand>
  readonly price: PriceBreakdown
  readonly holdExpiresAt: Date
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly approvedAt?: Date
  readonly declinedAt?: Date
  readonly declineReason?: string
  readonly expiredAt?: Date
  readonly cancelledAt?: Date
  readonly cancelledBy?: "application" | "operator"
  readonly cancellationReason?: string
  readonly lateCancellation?: LateCancellationCharge
  readonly rescheduledAt?: Date
}

/**
 * A new booking request: the booking itself ({@link BookingCommand}), who it is for, the caller's `requestId`
 * and the body's `fingerprint`, the id to give the record and `requestedBy` (the Application's client id).
 *
 * @since 0.1.0
 */
export interface BookingRequestCommand extends BookingCommand {
  readonly id: string
  readonly requestId: string
  readonly fingerprint: string
  readonly requestedBy: string
  readonly guest: Guest
  readonly company?: GuestCompany
  readonly message?: string
}

/**
 * A booking-request transition: the record as it now is, and the events to write.
 *
 * @since 0.1.0
 */
export interface BookingRequestTransition {
  readonly record: BookingRequestRecord
  readonly events: ReadonlyArray<BookingEvent>
}

const event = (type: BookingEventType, record: BookingRequestRecord, at: Date): BookingEvent => ({
  _tag: type,
  bookingId: record.id,
  organizationId: record.organizationId,
  operationalContextId: record.operationalContextId,
  resourceId: record.resourceId,
  at
})

/** A record's booked time as the check read it: the asked time, the held period, its buffered span and nights. */
const bookedTime = (time: BookingTime, checked: CheckedBooking) => ({
  time,
  start: checked.start,
  end: checked.end,
  blockedStart: checked.blockedStart,
  blockedEnd: checked.blockedEnd,
  ...(checked.nights === undefined ? {} : { nights: checked.nights })
})

const canonical = (value: unknown): unknown => {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, member]) => [key, canonical(member)])
    )
  }
  return value
}

/**
 * A stable identity of a decoded request body for idempotency: its JSON with object keys sorted, absent members
 * dropped and instants written as ISO 8601 UTC, so the same request written differently (key order, `Z` or
 * `+00:00`, with or without milliseconds) has the same fingerprint.
 *
 * @since 0.1.0
 */
export const requestFingerprint = (body: unknown): string => JSON.stringify(canonical(body))

/**
 * The status a record reads as at `now`: `expired` for a `pending` one whose hold has run out, else its stored
 * status.
 *
 * @since 0.1.0
 */
export const statusAt = (record: Pick<BookingRequestRecord, "status" | "holdExpiresAt">, now: Date): BookingRequestStatus =>
  record.status === "pending" && now.getTime() >= record.holdExpiresAt.getTime() ? "expired" : record.status

/**
 * Makes a booking request (`POST /v1/booking/booking-requests`): runs {@link checkBooking} on the state and
 * command and, when it passes, creates the record `pending` with the priced breakdown, holding its slot until
 * `holdExpiresAt` = the earlier of `now` + the resource's `holdMinutes` and the booking's start. Emits
 * `booking.booking_request.created`. Refuses with the check's first refusal (see `BookingCheck.ts`).
 *
 * @since 0.1.0
 */
export const requestBooking = (
  state: BookingState,
  command: BookingRequestCommand,
  now: Date
): Either.Either<BookingRequestTransition, BookingCheckRefusal> =>
  Either.map(checkBooking(state, command, now), (checked) => {
    const holdEnd = Math.min(now.getTime() + minutesMs(state.resource.holdMinutes), checked.start.getTime())
    const record: BookingRequestRecord = {
      id: command.id,
      requestId: command.requestId,
      fingerprint: command.fingerprint,
      organizationId: state.resource.organizationId,
      operationalContextId: state.resource.operationalContextId,
      resourceId: state.resource.id,
      requestedBy: command.requestedBy,
      status: "pending",
      ...bookedTime(command.time, checked),
      guest: command.guest,
      ...(command.company === undefined ? {} : { company: command.company }),
      ...(command.message === undefined ? {} : { message: command.message }),
      addOns: command.addOns,
      price: checked.price,
      holdExpiresAt: new Date(holdEnd),
      createdAt: now,
      updatedAt: now
    }
    return { record, events: [event("booking.booking_request.created", record, now)] }
  })

/**
 * The same `requestId` again (decisions.md sections 4 and 7): the existing record when `fingerprint` matches
 * the one it was made with, else `RequestIdAlreadyUsed` (`BOOKING_REQUEST_ID_ALREADY_USED`, 409).
 *
 * @since 0.1.0
 */
export const replayBookingRequest = (
  existing: BookingRequestRecord,
  fingerprint: string
): Either.Either<BookingRequestRecord, RequestIdAlreadyUsed> =>
  existing.fingerprint === fingerprint
    ? Either.right(existing)
    : Either.left(
        new RequestIdAlreadyUsed({ detail: "This requestId was already used for a booking request with another body." })
      )

const decidable = (
  record: BookingRequestRecord,
  now: Date
): Either.Either<void, NotPendingApproval | ApprovalWindowPassed> => {
  if (record.status !== "pending") {
    return Either.left(
      new NotPendingApproval({
        bookingStatus: record.status,
        detail: `The booking request is ${record.status}; only a pending request can be approved or declined.`
      })
    )
  }
  return statusAt(record, now) === "expired"
    ? Either.left(
        new ApprovalWindowPassed({
          holdExpiresAt: record.holdExpiresAt,
          detail: "The booking request's hold has expired; it can no longer be approved or declined."
        })
      )
    : Either.void
}

/**
 * An operator approves a pending request: `pending` → `approved`, `approvedAt` = `updatedAt` = `now`; emits
 * `booking.booking_request.approved`. Refuses a request that is not `pending` with `NotPendingApproval`
 * (`BOOKING_NOT_PENDING_APPROVAL`, 400) and one whose hold expired with `ApprovalWindowPassed`
 * (`BOOKING_APPROVAL_WINDOW_PASSED`, 400).
 *
 * @since 0.1.0
 */
export const approve = (
  record: BookingRequestRecord,
  now: Date
): Either.Either<BookingRequestTransition, NotPendingApproval | ApprovalWindowPassed> =>
  Either.map(decidable(record, now), () => {
    const approved: BookingRequestRecord = { ...record, status: "approved", approvedAt: now, updatedAt: now }
    return { record: approved, events: [event("booking.booking_request.approved", approved, now)] }
  })

/**
 * An operator declines a pending request with a `reason` (1 to 1000 characters): `pending` → `declined`,
 * `declinedAt` = `updatedAt` = `now`; the slot is free again. Emits `booking.booking_request.declined`. Refuses as
 * {@link approve} does.
 *
 * @since 0.1.0
 */
export const decline = (
  record: BookingRequestRecord,
  command: { readonly reason: string },
  now: Date
): Either.Either<BookingRequestTransition, NotPendingApproval | ApprovalWindowPassed> =>
  Either.map(decidable(record, now), () => {
    const declined: BookingRequestRecord = {
      ...record,
      status: "declined",
      declinedAt: now,
      declineReason: command.reason,
      updatedAt: now
    }
    return { record: declined, events: [event("booking.booking_request.declined", declined, now)] }
  })

/**
 * Writes down an expired hold: a `pending` request whose `holdExpiresAt` is not after `now` becomes `expired`
 * (`expiredAt` = the hold's end, `updatedAt` = `now`) and emits `booking.booking_request.expired`. None for any
 * other request.
 *
 * @since 0.1.0
 */
export const expire = (record: BookingRequestRecord, now: Date): Option.Option<BookingRequestTransition> => {
  if (statusAt(record, now) !== "expired" || record.status !== "pending") return Option.none()
  const expired: BookingRequestRecord = {
    ...record,
    status: "expired",
    expiredAt: record.holdExpiresAt,
    updatedAt: now
  }
  return Option.some({ record: expired, events: [event("booking.booking_request.expired", expired, now)] })
}

/**
 * A cancellation: who asks (`application` — the website that made it — or `operator`), an optional `reason`
 * (1 to 1000 characters) and, for a late one, the caller's decision.
 *
 * @since 0.2.0
 */
export interface CancelCommand {
  readonly by: "application" | "operator"
  readonly reason?: string
  readonly lateCancellation?: LateCancellationDecision
}

/**
 * Cancels a live booking request (issue 26): `pending`/`approved` → `cancelled`, `cancelledAt` = `updatedAt` =
 * `now`, with the late-cancellation charge when it was late; the slot is free at once. Emits
 * `booking.booking_request.cancelled`. Refusals come from the check ({@link checkCancellation}, in
 * `CHECK_ORDER`): `BOOKING_NOT_RESCHEDULABLE`, `BOOKING_ALREADY_STARTED`, `BOOKING_NOT_PAST_CANCELLATION_DEADLINE`,
 * `BOOKING_CANCELLATION_NOTICE_EXPIRED`, `BOOKING_LATE_CANCELLATION_DECISION_REQUIRED` (400) and
 * `BOOKING_LATE_CANCELLATION_ITEMS_CHANGED` (409).
 *
 * @since 0.2.0
 */
export const cancel = (
  state: Pick<BookingState, "resource">,
  record: BookingRequestRecord,
  command: CancelCommand,
  now: Date
): Either.Either<BookingRequestTransition, BookingCheckRefusal> =>
  Either.map(
    checkCancellation(
      state.resource,
      {
        _tag: "Cancel",
        booking: { status: statusAt(record, now), start: record.start, price: record.price },
        by: command.by,
        ...(command.lateCancellation === undefined ? {} : { lateCancellation: command.lateCancellation })
      },
      now
    ),
    (checked) => {
      const cancelled: BookingRequestRecord = {
        ...record,
        status: "cancelled",
        cancelledAt: now,
        cancelledBy: command.by,
        ...(command.reason === undefined ? {} : { cancellationReason: command.reason }),
        ...(checked.lateCancellation === undefined ? {} : { lateCancellation: checked.lateCancellation }),
        updatedAt: now
      }
      return { record: cancelled, events: [event("booking.booking_request.cancelled", cancelled, now)] }
    }
  )

/**
 * Moves a live booking request to the command's time (and add-ons), through the very check a new request runs
 * ({@link checkBooking} with the change first); `state.otherBookings` must leave this request out. The request
 * keeps its id, requestId and status; its period, buffered span, nights, add-ons and price become the new ones,
 * `rescheduledAt` = `updatedAt` = `now`, and a pending request's hold never outlasts its new start. Emits
 * `booking.booking_request.rescheduled`. Refusals: the check's, in `CHECK_ORDER`.
 *
 * @since 0.2.0
 */
export const reschedule = (
  state: BookingState,
  record: BookingRequestRecord,
  command: BookingCommand & { readonly by: "application" | "operator" },
  now: Date
): Either.Either<BookingRequestTransition, BookingCheckRefusal> =>
  Either.map(
    checkBooking(
      state,
      {
        time: command.time,
        addOns: command.addOns,
        ...(command.currency === undefined ? {} : { currency: command.currency }),
        change: {
          _tag: "Reschedule",
          booking: { status: statusAt(record, now), start: record.start, price: record.price },
          by: command.by
        }
      },
      now
    ),
    (checked) => {
      const { nights: _nights, ...rest } = record
      const moved: BookingRequestRecord = {
        ...rest,
        ...bookedTime(command.time, checked),
        addOns: command.addOns,
        price: checked.price,
        holdExpiresAt: new Date(Math.min(record.holdExpiresAt.getTime(), checked.start.getTime())),
        rescheduledAt: now,
        updatedAt: now
      }
      return { record: moved, events: [event("booking.booking_request.rescheduled", moved, now)] }
    }
  )
