/**
 * The event outbox (decisions 9): every state change's events are written in the transaction of the change, so
 * an event exists exactly when its change committed. The worker's publisher (`events/EventPublisher.ts`) publishes
 * them moments later and hands them to webhooks (at-least-once, unordered); nothing else is done in the change's
 * transaction.
 */
import * as Db from "@propline/db/Db"
import { Effect, type Scope } from "effect"
import { type RawBuilder, sql } from "kysely"
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

/** This process's listeners to appends (the publisher's wake-up), called after the appending transaction commits. */
const listeners = new Set<() => void>()

const appended = () => {
  for (const listener of listeners) listener()
}

/**
 * Calls `listener` after each transaction of this process that appended events commits, while the scope lasts: a
 * hint to publish now instead of at the next poll (other processes' appends are found by polling). `listener` must
 * be cheap and must not throw.
 */
export const onAppended = (listener: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => listeners.add(listener)),
    () => Effect.sync(() => listeners.delete(listener))
  )

/** An event's values in the order {@link insertOf} places them: a random id, its organization, type, payload, time. */
export const eventValues = (event: OutboxEvent): ReadonlyArray<unknown> => [
  randomUUID(),
  event.organizationId,
  event._tag,
  JSON.stringify({ ...event, at: event.at.toISOString() }),
  event.at
]

/** How many values {@link eventValues} gives per event. */
export const EVENT_VALUES = 5

/**
 * The insert of `count` events (at least one) whose values ({@link eventValues}, one event after another) are
 * `values` from `from` on: real values, or a prepared statement's stand-ins (`Sql.prepare`), which is why the text
 * depends on `count` only.
 */
export const insertOf = (values: ReadonlyArray<unknown>, count: number, from = 0): RawBuilder<unknown> =>
  sql`
    insert into events (id, organization_id, type, payload, occurred_at)
    values ${sql.join(
      Array.from({ length: count }, (_, index) => {
        const at = from + index * EVENT_VALUES
        return sql`(${values[at]}, ${values[at + 1]}, ${values[at + 2]},
               ${values[at + 3]}::text::jsonb, ${values[at + 4]})`
      })
    )}`

/**
 * The insert appending `events` (at least one) to the outbox: the statement {@link append} runs, or a
 * data-modifying CTE of the change's own statement (`Sql.cte`), which then runs {@link appendedIn} once that
 * statement succeeded. The payload is the event with `at` as ISO 8601, sent as text and cast to jsonb in SQL (so pg
 * and PGlite store the same); each row gets a random id.
 */
export const insert = (events: ReadonlyArray<OutboxEvent>): RawBuilder<unknown> =>
  insertOf(events.flatMap(eventValues), events.length)

/**
 * What {@link append} does after its insert, for a statement that carried {@link insert} as a CTE: once the
 * transaction commits, this process's publisher is woken ({@link onAppended}); nothing when `events` is empty.
 */
export const appendedIn = (events: ReadonlyArray<OutboxEvent>): Effect.Effect<void> =>
  events.length === 0 ? Effect.void : Db.afterCommit(appended)

/**
 * Appends events in the caller's transaction, in one plain statement ({@link insert}). Once the transaction
 * commits, this process's publisher is woken ({@link onAppended}); nothing else is added to it.
 */
export const append = (events: ReadonlyArray<OutboxEvent>) =>
  events.length === 0 ? Effect.void : Sql.rows(insert(events)).pipe(Effect.zipRight(appendedIn(events)))
