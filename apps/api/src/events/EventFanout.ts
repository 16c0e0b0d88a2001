/**
 * The port through which published events leave the events capability (issue 22, item 5): the publisher calls
 * `fanOut` with each batch it publishes, in the SAME transaction that marks the outbox rows published, so whatever
 * the provider makes of them (webhooks: one delivery job per event and endpoint) is made exactly once — both commit
 * or neither does. The provider's statements run on the fiber's transaction (`platform/Sql`); an infrastructure
 * failure is a defect, which rolls the batch back and leaves its rows for the next claim.
 *
 * Provided by the webhooks capability (`webhooks/WebhookFanout.ts`); {@link EventFanoutNone} until then, and where
 * no deliveries are wanted. Wired in `WorkerHost.ts`.
 */
import type * as Db from "@propline/db/Db"
import { Context, Effect, Layer } from "effect"
import type { PublishedEvent } from "./PublishedEvent.js"

export interface EventFanoutShape {
  /** Makes what follows from `events` (one batch, oldest first), in the publisher's transaction. */
  readonly fanOut: (events: ReadonlyArray<PublishedEvent>) => Effect.Effect<void, never, Db.Db>
}

export class EventFanout extends Context.Tag("@propline/api/events/EventFanout")<EventFanout, EventFanoutShape>() {}

/** Fans out to nothing: events are published to the feed only. */
export const EventFanoutNone: Layer.Layer<EventFanout> = Layer.succeed(EventFanout, { fanOut: () => Effect.void })
