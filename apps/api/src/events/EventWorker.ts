/**
 * The events capability's loops in the worker role (`WorkerHost.ts`):
 *
 * - the publisher ({@link drain}): woken at once after a transaction of this process appends events
 *   (`Outbox.onAppended`, after its commit, so no statement is added to the request's transaction), and otherwise
 *   every {@link POLL_INTERVAL} for other processes' events; every worker instance runs one, and they share the
 *   rows through `for update skip locked`;
 * - retention: every {@link PURGE_INTERVAL}, deletes the events published more than `EVENT_RETENTION_DAYS` (30)
 *   days ago, {@link PURGE_CHUNK} rows per transaction.
 *
 * A loop that meets a failure (the database unreachable) logs it and tries again after the interval.
 */
import { EVENT_RETENTION_DAYS } from "@propline/contract/Events"
import { Duration, Effect, Layer, Queue } from "effect"
import * as Outbox from "../platform/Outbox.js"
import * as Sql from "../platform/Sql.js"
import { drain, MAX_BATCH } from "./EventPublisher.js"
import { EventRepository } from "./EventRepository.js"

/** How often a publisher looks for events when it was not woken. */
export const POLL_INTERVAL = Duration.seconds(1)

/** How often retention runs. */
export const PURGE_INTERVAL = Duration.hours(1)

/** Rows one purge transaction deletes at most. */
export const PURGE_CHUNK = 1000

/** Deletes every event published more than 30 days ago, in chunks; resolves to how many it deleted. */
export const purgeExpired = Effect.gen(function* () {
  const events = yield* EventRepository
  let total = 0
  for (;;) {
    const deleted = yield* Sql.transaction(events.purge(EVENT_RETENTION_DAYS, PURGE_CHUNK))
    total += deleted
    if (deleted < PURGE_CHUNK) return total
  }
})

const logged = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed; trying again`, cause)))

const publisherLoop = Effect.gen(function* () {
  const wake = yield* Queue.sliding<void>(1)
  yield* Outbox.onAppended(() => void Queue.unsafeOffer(wake, undefined))
  let limit = MAX_BATCH
  for (;;) {
    yield* logged(
      "publishing events",
      Effect.map(drain(limit), (next) => {
        limit = next
      })
    )
    yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(POLL_INTERVAL))
  }
})

const retentionLoop = Effect.forever(
  Effect.zipRight(logged("purging old events", purgeExpired), Effect.sleep(PURGE_INTERVAL))
)

/** The publisher and retention loops, forked for the life of the layer's scope. */
export const EventWorkerLive = Layer.scopedDiscard(
  Effect.all([Effect.forkScoped(publisherLoop), Effect.forkScoped(retentionLoop)], { discard: true })
)
