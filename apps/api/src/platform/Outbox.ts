/**
 * The event outbox (decisions 9): every state change's events are written in the transaction of the change, so
 * an event exists exactly when its change committed. A relay delivers them later (at-least-once, unordered).
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Sql from "./Sql.js"

/**
 * What every domain event carries: its type as `_tag` (e.g. `billing.invoice.approved`), the organization it
 * belongs to and `at`, the time of the change. Other fields are the event's payload.
 */
export interface OutboxEvent {
  readonly _tag: string
  readonly organizationId: string
  readonly at: Date
}

/** Appends events in the caller's transaction; the payload is the event with `at` as ISO 8601. */
export const append = (events: ReadonlyArray<OutboxEvent>) =>
  events.length === 0
    ? Effect.void
    : Sql.query((db) =>
        db
          .insertInto("events")
          .values(
            events.map((event) => ({
              id: randomUUID(),
              organizationId: event.organizationId,
              type: event._tag,
              payload: { ...event, at: event.at.toISOString() },
              occurredAt: event.at,
              deliveredAt: null
            }))
          )
          .execute()
      ).pipe(Effect.asVoid)
