/**
 * A write's events and its audit entry carried as CTEs of the write's one statement (`appended`: the outbox rows
 * `Outbox.insertOf` writes, none without events; `audited`: the entry `Audit.insertOf` writes), as values: a
 * repository places them in its statement's text, which then depends on the number of events only, so the statement
 * can be compiled once per shape (`Sql.prepare`, `Sql.preparedByShape`) instead of built and compiled per request.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Effect } from "effect"
import type { RawBuilder } from "kysely"
import * as Audit from "./Audit.js"
import * as Outbox from "./Outbox.js"
import * as Sql from "./Sql.js"

/** A write's events and audit entry: the events' values one after another, then the entry's (see {@link ctes}). */
export interface EventsAndAudit {
  readonly eventCount: number
  /** `eventCount` × `Outbox.EVENT_VALUES` values, then `Audit.ENTRY_VALUES`. */
  readonly values: ReadonlyArray<unknown>
}

/** How many values {@link EventsAndAudit} holds for `eventCount` events. */
export const valueCount = (eventCount: number): number => eventCount * Outbox.EVENT_VALUES + Audit.ENTRY_VALUES

/**
 * The events and the audit entry of a change made by `principal` (the current request's id read now). Once the
 * write carrying them succeeded, the caller runs `Outbox.appendedIn(events)` (the publisher's wake-up after commit).
 */
export const of = (
  principal: PrincipalShape,
  events: ReadonlyArray<Outbox.OutboxEvent>,
  change: Audit.Change
): Effect.Effect<EventsAndAudit> =>
  Effect.map(Audit.entryByPrincipal(principal, change), (entry) => {
    const values: Array<unknown> = []
    for (const event of events) values.push(...Outbox.eventValues(event))
    values.push(...Audit.entryValues(entry))
    return { eventCount: events.length, values }
  })

/**
 * The CTEs `appended` (when `eventCount` > 0) and `audited`, their values `values` from `from` on ({@link
 * EventsAndAudit}'s order): real values, or a prepared statement's stand-ins.
 */
export const ctes = (eventCount: number, values: ReadonlyArray<unknown>, from = 0): Array<RawBuilder<unknown>> =>
  eventCount === 0
    ? [Sql.cte("audited", Audit.insertOf(values, from))]
    : [
        Sql.cte("appended", Outbox.insertOf(values, eventCount, from)),
        Sql.cte("audited", Audit.insertOf(values, from + eventCount * Outbox.EVENT_VALUES))
      ]
