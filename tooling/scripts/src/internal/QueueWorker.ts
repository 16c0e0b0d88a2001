/**
 * The worker process of `pnpm bench:queues`: one queue's worker, used the way its documentation recommends and, for
 * pg-boss, as the product configures it (`apps/api/src/webhooks/WebhookWorker.ts`, `WebhookJobRepository.ts`):
 *
 * - pg-boss: `boss.work` with batches of up to 5 jobs performed side by side, `localConcurrency` workers making up
 *   `QUEUE_CONCURRENCY` jobs at once, polling every 0.5 s, fetching again at once after a full batch
 *   (`burstWhenBatchFull`); the queue made with the product's options (`retryLimit`, `expireInSeconds` 25).
 * - graphile-worker: `run` with `concurrency: QUEUE_CONCURRENCY` and one task; it is woken by LISTEN/NOTIFY on a
 *   connection of its own, and polls every 2 s (its default) besides. Its logger keeps warnings and errors (the
 *   default writes a line per job, which the product's worker would not).
 *
 * Each job is the same work: one HTTP POST of the job's payload to `QUEUE_RECEIVER_URL` through one keep-alive
 * undici pool (as a webhook delivery is), with the time the handler began in `x-started-at`; a non-2xx fails the
 * job. Runs as a forked child: sends `{ ready: true }` once working, answers `"cpu"` with its `process.cpuUsage()`
 * (user + system, ms), and stops on `"stop"` (waiting for the jobs in flight).
 *
 * Environment: QUEUE_KIND (`pg-boss` | `graphile-worker`), DATABASE_URL, QUEUE_RECEIVER_URL, QUEUE_CONCURRENCY.
 */
import { consoleLogFactory, Logger, run } from "graphile-worker"
import { PgBoss } from "pg-boss"
import { Pool } from "undici"
import { type BenchJob, PG_BOSS_QUEUE_OPTIONS, QUEUE_NAME } from "./QueueJobs.js"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is required`)
  return value
}

const main = async () => {
  const kind = env("QUEUE_KIND")
  const connectionString = env("DATABASE_URL")
  const receiver = new URL(env("QUEUE_RECEIVER_URL"))
  const concurrency = Number(env("QUEUE_CONCURRENCY"))
  const http = new Pool(receiver.origin, { connections: concurrency, headersTimeout: 10_000, bodyTimeout: 10_000 })

  const perform = async (job: BenchJob) => {
    const startedAt = Date.now()
    const response = await http.request({
      method: "POST",
      path: receiver.pathname,
      headers: { "content-type": "application/json", "x-started-at": String(startedAt) },
      body: JSON.stringify(job)
    })
    await response.body.text()
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`receiver answered ${response.statusCode}`)
  }

  let stop: () => Promise<void>
  if (kind === "pg-boss") {
    const boss = new PgBoss({ connectionString, schema: "pgboss", superviseIntervalSeconds: 9, schedule: false })
    boss.on("error", (error) => console.error("pg-boss:", error))
    await boss.start()
    if ((await boss.getQueue(QUEUE_NAME)) === null) await boss.createQueue(QUEUE_NAME, PG_BOSS_QUEUE_OPTIONS)
    const batchSize = Math.min(concurrency, 5)
    await boss.work<BenchJob>(
      QUEUE_NAME,
      { batchSize, localConcurrency: Math.ceil(concurrency / batchSize), pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
      async (jobs) => {
        await Promise.all(jobs.map((job) => perform(job.data)))
      }
    )
    stop = () => boss.stop({ graceful: true, timeout: 10_000 })
  } else if (kind === "graphile-worker") {
    const runner = await run({
      connectionString,
      concurrency,
      noHandleSignals: true,
      // Its default logger writes a line per job at info; warnings and errors only, as pg-boss's worker here.
      logger: new Logger((scope) => {
        const log = consoleLogFactory(scope)
        return (level, message, meta) => {
          if (level === "error" || level === "warning") log(level, message, meta)
        }
      }),
      taskList: { [QUEUE_NAME]: async (payload) => perform(payload as BenchJob) }
    })
    stop = () => runner.stop()
  } else {
    throw new Error(`QUEUE_KIND must be pg-boss or graphile-worker, not ${kind}`)
  }

  process.on("message", (message) => {
    if (message === "cpu") {
      const usage = process.cpuUsage()
      process.send?.({ cpuMs: (usage.user + usage.system) / 1000 })
    } else if (message === "stop") {
      void stop()
        .catch((error: unknown) => console.error(error))
        .finally(() => http.close().finally(() => process.exit(0)))
    }
  })
  process.send?.({ ready: true })
}

main().catch((error: unknown) => {
  console.error(`${process.env["QUEUE_KIND"]} worker failed:`, error)
  process.exit(1)
})
