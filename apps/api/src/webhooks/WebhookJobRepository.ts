/**
 * The delivery jobs, on pg-boss (issue 22, item 5): a PostgreSQL job queue in its own schema (`pgboss`), which pg-boss
 * creates and migrates at start. Any number of processes work the one queue: a job is claimed with `for update skip
 * locked`, and a claim not completed within `jobExpireSeconds` (a worker killed mid-delivery) is taken over by
 * another. pg-boss runs on kysely's connections (`Db.scriptRunner`): a pool of PostgreSQL, or the one connection of
 * embedded PGlite, where it takes turns with every other statement.
 *
 * A job is `{ deliveryId, attempt }`: the attempt it makes of one delivery. Its id is derived from both, so
 * scheduling the same attempt twice makes one job; jobs are inserted on the caller's transaction, so a delivery
 * and its job commit together or not at all.
 */
import * as Db from "@propline/db/Db"
import { Context, Effect, Layer, type Scope } from "effect"
import { createHash } from "node:crypto"
import { fromKysely, PgBoss } from "pg-boss"
import * as Sql from "../platform/Sql.js"
import { WebhookSettings } from "./WebhookSettings.js"

/** The queue's name. */
export const QUEUE = "webhook-delivery"

/** One attempt of one delivery. */
export interface DeliveryJob {
  readonly deliveryId: string
  readonly attempt: number
}

/** A UUID made from the delivery and attempt (the job's id: the same attempt is queued at most once). */
const jobIdOf = (job: DeliveryJob): string => {
  const hex = createHash("sha256").update(`${job.deliveryId}:${job.attempt}`).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

export interface WebhookJobsShape {
  readonly boss: PgBoss
  /** Queues `jobs`, each at its time, on the fiber's transaction. */
  readonly enqueue: (jobs: ReadonlyArray<DeliveryJob & { readonly startAfter: Date }>) => Effect.Effect<void, never, Db.Db>
  /**
   * Calls `listener` after each transaction of this process that enqueued jobs commits, while the scope lasts: a
   * hint for this process's delivery loop to fetch now instead of at its next poll (other processes' jobs are found
   * by polling). `listener` must be cheap and must not throw.
   */
  readonly onEnqueued: (listener: () => void) => Effect.Effect<void, never, Scope.Scope>
}

export class WebhookJobRepository extends Context.Tag("@propline/api/webhooks/WebhookJobRepository")<WebhookJobRepository, WebhookJobsShape>() {
  /** Starts pg-boss (installing or migrating its schema, creating the queue) and stops it with the scope. */
  static readonly layer: Layer.Layer<WebhookJobRepository, never, Db.Db | WebhookSettings> = Layer.scoped(
    WebhookJobRepository,
    Effect.gen(function* () {
      const db = yield* Db.Db
      const settings = yield* WebhookSettings
      const boss = new PgBoss({
        db: { executeSql: Db.scriptRunner(db) },
        ...(db.dialect === "pglite" ? { backend: "pglite" as const } : {}),
        schema: "pgboss",
        superviseIntervalSeconds: settings.superviseSeconds,
        schedule: false
      })
      boss.on("error", (error) => Effect.runFork(Effect.logWarning(`pg-boss: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)))
      yield* Effect.acquireRelease(
        Effect.promise(async () => {
          await boss.start()
          const options = {
            // Our own schedule retries a failed HTTP attempt (a new job); pg-boss retries only a job whose worker died.
            retryLimit: 1000,
            retryDelay: 1,
            expireInSeconds: settings.jobExpireSeconds
          }
          if ((await boss.getQueue(QUEUE)) === null) {
            await boss.createQueue(QUEUE, options).catch(async (error) => {
              if ((await boss.getQueue(QUEUE)) === null) throw error // another instance made it first otherwise
            })
          } else {
            await boss.updateQueue(QUEUE, options)
          }
        }),
        () => Effect.promise(() => boss.stop({ graceful: true, timeout: 5000 }))
      )
      const listeners = new Set<() => void>()
      const enqueued = () => {
        for (const listener of listeners) listener()
      }
      const onEnqueued: WebhookJobsShape["onEnqueued"] = (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => listeners.add(listener)),
          () => Effect.sync(() => listeners.delete(listener))
        )
      const enqueue: WebhookJobsShape["enqueue"] = (jobs) =>
        jobs.length === 0
          ? Effect.void
          : Sql.query((trx) =>
              boss.insert(
                QUEUE,
                jobs.map((job) => ({
                  id: jobIdOf(job),
                  data: { deliveryId: job.deliveryId, attempt: job.attempt },
                  startAfter: job.startAfter
                })),
                { db: fromKysely(trx.withoutPlugins()) }
              )
            ).pipe(
              Effect.zipRight(Db.afterCommit(enqueued)),
              Effect.withSpan("WebhookJobRepository.enqueue", { captureStackTrace: false })
            )
      return { boss, enqueue, onEnqueued }
    })
  )
}
