/** What `pnpm bench:queues` and its worker process (`QueueWorker.ts`) share: the queue, its options, a job. */

/** The queue (pg-boss) or task (graphile-worker) name. */
export const QUEUE_NAME = "bench-delivery"

/** A job's payload: its id and when it was enqueued (epoch ms). */
export interface BenchJob {
  readonly id: string
  readonly enqueuedAt: number
}

/** The options pg-boss's queue is made with: the product's (`WebhookJobRepository`), for a 10 s attempt timeout. */
export const PG_BOSS_QUEUE_OPTIONS = { retryLimit: 1000, retryDelay: 1, expireInSeconds: 25 } as const
