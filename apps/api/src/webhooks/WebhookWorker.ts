/**
 * The webhook delivery loop of the worker role (issue 22, item 5): about `WEBHOOK_CONCURRENCY` attempts at once in
 * this process — pg-boss workers each claiming up to 5 jobs from the shared queue and performing them side by side
 * (`WebhookDeliveryService`), fetching again at once while batches come back full and woken after this process's
 * fan-out commits (`onEnqueued`). Any number
 * of processes run it against one database. Stops with its scope: pg-boss stops fetching and waits for the
 * attempts in flight.
 */
import type * as Db from "@propline/db/Db"
import { Effect, Layer, Option, Runtime } from "effect"
import type { KeyEncryption } from "../platform/KeyEncryption.js"
import { Shutdown } from "../platform/Shutdown.js"
import { WebhookDeliveryService } from "./WebhookDeliveryService.js"
import { type DeliveryJob, QUEUE, WebhookJobRepository } from "./WebhookJobRepository.js"
import { WebhookSettings } from "./WebhookSettings.js"

/** The most jobs one pg-boss worker claims at a time. */
const BATCH = 5

export const WebhookWorkerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { boss, onEnqueued } = yield* WebhookJobRepository
    const settings = yield* WebhookSettings
    const service = yield* WebhookDeliveryService
    const run = Runtime.runPromise(yield* Effect.runtime<Db.Db | KeyEncryption>())
    const workerId = yield* Effect.promise(() =>
      boss.work<DeliveryJob>(
        QUEUE,
        {
          // Batches of up to 5 jobs, attempted side by side; pg-boss fetches the next batch at once after a full one.
          batchSize: Math.min(settings.concurrency, BATCH),
          localConcurrency: Math.ceil(settings.concurrency / Math.min(settings.concurrency, BATCH)),
          pollingIntervalSeconds: settings.pollingSeconds,
          // A full batch means a backlog: fetch again at once rather than after the polling interval.
          burstWhenBatchFull: true
        },
        async (jobs) => {
          await Promise.all(jobs.map((job) => run(service.perform(job.data))))
        }
      )
    )
    // Jobs this process enqueued are fetched as soon as their transaction commits, not at the next poll.
    yield* onEnqueued(() => boss.notifyWorker(workerId))
    // On SIGTERM the drain waits (within SHUTDOWN_GRACE_SECONDS) for the attempts in flight, and fetches no more.
    const stop = Effect.promise(() => boss.offWork(QUEUE, { id: workerId, wait: true }).catch(() => undefined))
    const shutdown = yield* Effect.serviceOption(Shutdown)
    if (Option.isSome(shutdown)) yield* shutdown.value.onDrain("webhook deliveries", stop)
    yield* Effect.addFinalizer(() => stop)
  })
)
