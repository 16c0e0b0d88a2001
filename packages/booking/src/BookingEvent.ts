/**
 * The events booking-request state changes produce, written by the service in the same transaction as the change
 * (outbox) and delivered to webhooks (decisions.md section 9). Each names the record that changed and when;
 * receivers re-read the record.
 *
 * @since 0.1.0
 */

/**
 * Fields every booking-request event carries: the request's id, organization, operational context and resource
 * (for routing and visibility), and `at`, the time of the change.
 *
 * @since 0.1.0
 */
export interface BookingRequestEventFields {
  readonly bookingId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly resourceId: string
  readonly at: Date
}

/**
 * A booking request was made; it is pending and holds its slot.
 *
 * @since 0.1.0
 */
export interface BookingRequestCreated extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.created"
}

/**
 * An operator approved a pending booking request.
 *
 * @since 0.1.0
 */
export interface BookingRequestApproved extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.approved"
}

/**
 * An operator declined a pending booking request; its slot is free again.
 *
 * @since 0.1.0
 */
export interface BookingRequestDeclined extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.declined"
}

/**
 * A pending booking request's hold expired before an operator decided; its slot is free again.
 *
 * @since 0.1.0
 */
export interface BookingRequestExpired extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.expired"
}

/**
 * The website or an operator cancelled a booking request; its slot is free again.
 *
 * @since 0.2.0
 */
export interface BookingRequestCancelled extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.cancelled"
}

/**
 * A booking request was moved to another time (its price may have changed).
 *
 * @since 0.2.0
 */
export interface BookingRequestRescheduled extends BookingRequestEventFields {
  readonly _tag: "booking.booking_request.rescheduled"
}

/**
 * Any booking event; `_tag` is the event type as webhooks name it.
 *
 * @since 0.1.0
 */
export type BookingEvent =
  | BookingRequestCreated
  | BookingRequestApproved
  | BookingRequestDeclined
  | BookingRequestExpired
  | BookingRequestCancelled
  | BookingRequestRescheduled

/**
 * A booking event type name, such as `booking.booking_request.approved`.
 *
 * @since 0.1.0
 */
export type BookingEventType = BookingEvent["_tag"]

// Keyed by every event type, so adding an event without listing it here fails to compile.
const eventTypes: { readonly [Type in BookingEventType]: null } = {
  "booking.booking_request.created": null,
  "booking.booking_request.approved": null,
  "booking.booking_request.declined": null,
  "booking.booking_request.expired": null,
  "booking.booking_request.cancelled": null,
  "booking.booking_request.rescheduled": null
}

/**
 * Every booking event type, for webhook subscription choices.
 *
 * @since 0.1.0
 */
export const BOOKING_EVENT_TYPES = Object.keys(eventTypes) as ReadonlyArray<BookingEventType>
