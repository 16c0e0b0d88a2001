/**
 * The webhook delivery loop of the worker role (issue 22, item 5): `WEBHOOK_CONCURRENCY` pg-boss workers in this
 * process, each claiming one job at a time from the shared queue and performing it (`WebhookDeliveryService`). Any
 * number of processes run it against one database. Stops with its scope: pg-boss stops fetching and waits for the
 * attempts in flight.
 */
import type * as Db from "@propline/db/Db"
import { Effect, Layer, Runtime } from "effect"
import type { KeyEncryption } from "../platform/KeyEncryption.js"
import { WebhookDeliveryService } from "./WebhookDeliveryService.js"
import { type DeliveryJob, QUEUE, WebhookJobRepository } from "./WebhookJobRepository.js"
import { WebhookSettings } from "./WebhookSettings.js"

export const WebhookWorkerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { boss } = yield* WebhookJobRepository
    const settings = yield* WebhookSettings
    const service = yield* WebhookDeliveryService
    const run = Runtime.runPromise(yield* Effect.runtime<Db.Db | KeyEncryption>())
    const workerId = yield* Effect.promise(() =>
      boss.work<DeliveryJob>(
        QUEUE,
        { batchSize: 1, localConcurrency: settings.concurrency, pollingIntervalSeconds: settings.pollingSeconds },
        async (jobs) => {
          for (const job of jobs) await run(service.perform(job.data))
        }
      )
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => boss.offWork(QUEUE, { id: workerId, wait: true }).catch(() => undefined)))
  })
)
