/**
 * The event outbox (decisions 9): every state change's events are written in the transaction of the change, so
 * an event exists exactly when its change committed. The worker's publisher (`events/EventPublisher.ts`) publishes
 * them moments later and hands them to webhooks (at-least-once, unordered); nothing else is done in the change's
 * transaction.
 */
import { Effect } from "effect"
import { sql } from "kysely"
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

/**
 * Appends events in the caller's transaction, in one plain statement (pass writes three per request); the payload
 * is the event with `at` as ISO 8601, sent as text and cast to jsonb in SQL (so pg and PGlite store the same).
 */
export const append = (events: ReadonlyArray<OutboxEvent>) =>
  events.length === 0
    ? Effect.void
    : Sql.rows(
        sql`
          insert into events (id, organization_id, type, payload, occurred_at)
          values ${sql.join(
            events.map(
              (event) =>
                sql`(${randomUUID()}, ${event.organizationId}, ${event._tag},
                     ${JSON.stringify({ ...event, at: event.at.toISOString() })}::text::jsonb, ${event.at})`
            )
          )}`
      ).pipe(Effect.asVoid)
