/**
 * Branded identifiers (spec 2: "All identifiers marked uuid are strings in UUID format").
 * Path parameters decode through these, so a malformed id is a 400 VALIDATION_FAILED, never a lookup.
 */
import { Schema } from "effect"

/** A UUID with one message for whatever is sent instead ("must be a UUID"). */
export const Uuid = Schema.UUID.annotations({ message: () => ({ message: "must be a UUID", override: true }) })

/** An invoice's id (spec 2.1 `id`). */
export const InvoiceId = Uuid.pipe(Schema.brand("InvoiceId"))
export type InvoiceId = typeof InvoiceId.Type

/** An invoice proposal's id (spec 2.2 `id`). */
export const ProposalId = Uuid.pipe(Schema.brand("ProposalId"))
export type ProposalId = typeof ProposalId.Type

/** An operational context's id. */
export const OperationalContextId = Uuid.pipe(Schema.brand("OperationalContextId"))
export type OperationalContextId = typeof OperationalContextId.Type

/** An organization's id. */
export const OrganizationId = Uuid.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type

/** A bookable resource's id (spec 4.2 `resourceId`). */
export const BookableResourceId = Uuid.pipe(Schema.brand("BookableResourceId"))
export type BookableResourceId = typeof BookableResourceId.Type

/** A booking request's id (spec 4.2 `bookingId`). */
export const BookingId = Uuid.pipe(Schema.brand("BookingId"))
export type BookingId = typeof BookingId.Type

/** An add-on product's id. */
export const AddOnProductId = Uuid.pipe(Schema.brand("AddOnProductId"))
export type AddOnProductId = typeof AddOnProductId.Type
