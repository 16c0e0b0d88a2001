/**
 * An event as the publisher published it (issue 22): what the events feed serves and webhooks deliver. Made by
 * `EventPublisher` from an outbox row of `events` once its change committed; handed to {@link EventFanout} in the
 * transaction that publishes it.
 */
import type { EventEnvelope } from "@propline/contract/Events"

export interface PublishedEvent {
  /** The event's id (the outbox row's; `webhook-id` and the feed's `id`). */
  readonly id: string
  /** The dotted event type, such as `billing.invoice.approved`. */
  readonly type: string
  /** When the change happened (the envelope's `createdAt`). */
  readonly createdAt: Date
  readonly organizationId: string
  /** The operational context of the event's resource; null for an event of no context (an installation's). */
  readonly operationalContextId: string | null
  /** The installation an `integrations.*` event belongs to (only it may read the event); absent otherwise. */
  readonly installationId?: string | undefined
  /** The JSON body exactly as the feed serves it and webhooks deliver it. */
  readonly envelope: EventEnvelope
}
