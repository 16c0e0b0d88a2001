/**
 * Events (issue 22; decisions 9): the catalog of event types, their payloads, the `webhooks` section of the OpenAPI
 * document and the events feed (`GET /v1/events`, `GET /v1/events/{eventId}`).
 */

/**
 * An event's JSON body, as the feed serves it and webhooks deliver it: `id`, the dotted `type`, `createdAt` (the
 * time of the change, ISO 8601), the organization, the operational context (null for a resource of none) and
 * `data`: `object`, the resource as the API returns it, rendered when the event was published (moments after the
 * change committed), plus the event's own ids (`paymentId`, …).
 */
export interface EventEnvelope {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly organizationId: string
  readonly operationalContextId: string | null
  readonly data: { readonly object: unknown } & { readonly [field: string]: unknown }
}
