/**
 * The publisher (issue 22, item 5): turns the outbox rows of `events` into published events, exactly once, with any
 * number of publishers (processes of the worker role, or fibers) on one database. One batch is one transaction:
 * claim up to `limit` unpublished rows, oldest first, with `for update skip locked` (concurrent publishers claim
 * disjoint rows and never wait for each other), render each one's envelope (`EventObjects.renderAll`: the resource as
 * the API returns it, read now — moments after its change committed), stamp the rows published, and hand the
 * batch to {@link EventFanout} in the same transaction, so what it makes (webhook deliveries) exists exactly when
 * the rows are published. A failure or an interruption rolls the batch back; its rows wait for the next claim.
 *
 * A batch must finish within {@link PUBLISH_BUDGET} (its transaction is interrupted and rolled back otherwise, and
 * the next one is smaller): the feed lists an event only `FEED_SETTLE_SECONDS` after its publication, which is
 * longer, so a reader's cursor never passes an event a slower publisher commits later.
 */
import { type EventEnvelope, FEED_SETTLE_SECONDS } from "@propline/contract/Events"
import { Duration, Effect, Option } from "effect"
import * as Sql from "../platform/Sql.js"
import { EventFanout } from "./EventFanout.js"
import { renderAll } from "./EventObjects.js"
import { EventRepository } from "./EventRepository.js"
import type { PublishedEvent } from "./PublishedEvent.js"

/** The longest a batch's transaction may take; less than the feed's settle time. */
export const PUBLISH_BUDGET = Duration.seconds(Math.min(3, FEED_SETTLE_SECONDS - 1))

/**
 * Publishes one batch of at most `limit` outbox rows in one transaction; resolves to how many rows it published
 * (0 when none waited), or `Option.none()` when the batch overran {@link PUBLISH_BUDGET} and was rolled back.
 */
export const publishBatch = (limit: number) =>
  Sql.transaction(
    Effect.gen(function* () {
      const events = yield* EventRepository
      const fanout = yield* EventFanout
      const rows = yield* events.claim(limit)
      if (rows.length === 0) return 0
      const now = yield* Sql.now
      const renderings = yield* renderAll(rows, now)
      const published: Array<PublishedEvent> = []
      for (const [index, row] of rows.entries()) {
        const rendered = renderings[index]!
        const envelope: EventEnvelope = {
          id: row.id,
          type: row.type,
          createdAt: row.occurredAt.toISOString(),
          organizationId: row.organizationId,
          operationalContextId: rendered.operationalContextId,
          data: rendered.data as EventEnvelope["data"]
        }
        published.push({
          id: row.id,
          type: row.type,
          createdAt: row.occurredAt,
          organizationId: row.organizationId,
          operationalContextId: rendered.operationalContextId,
          ...(rendered.installationId === null ? {} : { installationId: rendered.installationId }),
          envelope
        })
      }
      yield* events.markPublished(
        published.map((event) => ({
          id: event.id,
          operationalContextId: event.operationalContextId,
          installationId: event.installationId ?? null,
          envelope: JSON.stringify(event.envelope)
        }))
      )
      yield* fanout.fanOut(published)
      return rows.length
    })
  ).pipe(Effect.timeoutOption(PUBLISH_BUDGET), Effect.withSpan("EventPublisher.publishBatch", { captureStackTrace: false }))

/** The largest batch; a batch that overruns its budget halves the next ones, down to one row. */
export const MAX_BATCH = 100

/**
 * Publishes until no row waits (a batch smaller than asked for), adapting the batch size to the budget; resolves
 * to the batch size to start the next drain with.
 */
export const drain = (startLimit: number = MAX_BATCH) =>
  Effect.iterate(
    { limit: startLimit, more: true },
    {
      while: (state) => state.more,
      body: (state) =>
        Effect.map(publishBatch(state.limit), (published) =>
          Option.match(published, {
            onNone: () => ({ limit: Math.max(1, Math.floor(state.limit / 2)), more: true }),
            onSome: (count) => ({ limit: Math.min(MAX_BATCH, state.limit * 2), more: count === state.limit })
          })
        )
    }
  ).pipe(Effect.map((state) => state.limit))
