/**
 * Branded identifiers (spec 2: "All identifiers marked uuid are strings in UUID format").
 * Path parameters decode through these, so a malformed id is a 400 VALIDATION_FAILED, never a lookup.
 */
import { Schema } from "effect"

/** An invoice's id (spec 2.1 `id`). */
export const InvoiceId = Schema.UUID.pipe(Schema.brand("InvoiceId"))
export type InvoiceId = typeof InvoiceId.Type

/** An invoice proposal's id (spec 2.2 `id`). */
export const ProposalId = Schema.UUID.pipe(Schema.brand("ProposalId"))
export type ProposalId = typeof ProposalId.Type

/** An operational context's id. */
export const OperationalContextId = Schema.UUID.pipe(Schema.brand("OperationalContextId"))
export type OperationalContextId = typeof OperationalContextId.Type

/** An organization's id. */
export const OrganizationId = Schema.UUID.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type
