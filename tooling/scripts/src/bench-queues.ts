/**
 * `pnpm bench:queues` (issue 22, item 5: "graphile-worker or pg-boss, whichever serves better measured here"): the
 * same job volume through both PostgreSQL job queues, dev-only (graphile-worker is a devDependency of this package,
 * never of the product).
 *
 * Each round takes one queue on a fresh database of the PostgreSQL server `DATABASE_URL` names (default
 * postgres://postgres@127.0.0.1:5432/postgres; loopback only), dropped after:
 *
 * 1. **Enqueue.** `BENCH_QUEUES_BACKLOG` jobs (default 20,000) inserted in batches of 1,000 as each library offers
 *    it — pg-boss `insert` (as the product's fan-out does), graphile-worker `addJobs` — with no worker running:
 *    jobs per second.
 * 2. **Drain.** A worker process starts (`internal/QueueWorker.ts`: `BENCH_QUEUES_CONCURRENCY` jobs at once, default
 *    10; pg-boss as the product configures it, graphile-worker's `run` with `concurrency`) and performs the backlog:
 *    from the first job's start to the last one's, jobs per second, and the worker's CPU (user + system) per job.
 * 3. **Steady rate.** `BENCH_QUEUES_RATE` jobs per second (default 100) for `BENCH_QUEUES_SECONDS` (default 10), each
 *    enqueued alone (pg-boss `send`, graphile-worker `addJob`): enqueue → start p50 / p99, and the worker's CPU per
 *    job (its idle polling included).
 *
 * The work per job is the same for both: one HTTP POST of the job to a receiver in this process through a keep-alive
 * undici pool, as a webhook delivery is (without the signing and the delivery log, which are the same for either
 * queue). Rounds alternate (pg-boss, graphile-worker, graphile-worker, pg-boss, …: `BENCH_QUEUES_ROUNDS` pairs,
 * default 2) and the report gives each figure's median. The table goes into `docs/performance.md` between its markers
 * (unless `BENCH_README=false`) and, with every round, into `tooling/scripts/bench-queues-results.json`.
 * `BENCH_QUEUES_NOTE` is printed in bold above the table (e.g. "small run on a loaded machine").
 */
import { makeWorkerUtils } from "graphile-worker"
import { type ChildProcess, fork } from "node:child_process"
import { randomUUID } from "node:crypto"
import { writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { availableParallelism, cpus, loadavg, totalmem } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { PgBoss } from "pg-boss"
import { benchServerUrl, intFrom } from "./internal/BenchEnv.js"
import { type BenchJob, PG_BOSS_QUEUE_OPTIONS, QUEUE_NAME } from "./internal/QueueJobs.js"
import { interleaved, percentile, type QueueName, queuesTable, type RoundFigures } from "./internal/QueueReport.js"
import { QUEUES_MARKERS, writeResultsSection } from "./internal/ResultsSection.js"

const HERE = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = resolve(HERE, "../../..")
const WORKER_ENTRY = join(HERE, "internal/QueueWorker.js")
const RESULTS_JSON = join(REPO_ROOT, "tooling/scripts/bench-queues-results.json")
const PERFORMANCE_PAGE = join(REPO_ROOT, "docs/performance.md")
const BATCH = 1000

const settings = {
  serverUrl: benchServerUrl(),
  backlog: intFrom("BENCH_QUEUES_BACKLOG", 20_000, 100, 1_000_000),
  rate: intFrom("BENCH_QUEUES_RATE", 100, 1, 2000),
  seconds: intFrom("BENCH_QUEUES_SECONDS", 10, 1, 300),
  concurrency: intFrom("BENCH_QUEUES_CONCURRENCY", 10, 1, 200),
  rounds: intFrom("BENCH_QUEUES_ROUNDS", 2, 1, 20),
  timeoutSeconds: intFrom("BENCH_QUEUES_TIMEOUT_SECONDS", 600, 10, 86_400)
}

/** The receiver: each job's start time (the worker's `x-started-at`) by id, and how many came twice. */
interface Receipts {
  readonly started: Map<string, number>
  duplicates: number
}

const startReceiver = async (receipts: Receipts): Promise<{ readonly server: Server; readonly url: string }> => {
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const job = JSON.parse(Buffer.concat(chunks).toString("utf8")) as BenchJob
      if (receipts.started.has(job.id)) receipts.duplicates++
      else receipts.started.set(job.id, Number(request.headers["x-started-at"]))
      response.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolveListening) => server.listen(0, "127.0.0.1", resolveListening))
  const { port } = server.address() as { port: number }
  return { server, url: `http://127.0.0.1:${port}/jobs` }
}

/** How the bench puts jobs in: a batch, or one alone. */
interface Enqueuer {
  readonly batch: (jobs: ReadonlyArray<BenchJob>) => Promise<void>
  readonly one: (job: BenchJob) => Promise<void>
  readonly close: () => Promise<void>
}

const pgBossEnqueuer = async (connectionString: string): Promise<Enqueuer> => {
  // Installs pg-boss's schema and the queue; no supervision or scheduling in this process (the worker's does it).
  const boss = new PgBoss({ connectionString, schema: "pgboss", supervise: false, schedule: false, max: 2 })
  boss.on("error", (error) => console.error("pg-boss (enqueuer):", error))
  await boss.start()
  await boss.createQueue(QUEUE_NAME, PG_BOSS_QUEUE_OPTIONS)
  return {
    batch: async (jobs) => void (await boss.insert(QUEUE_NAME, jobs.map((data) => ({ data })))),
    one: async (job) => void (await boss.send(QUEUE_NAME, job)),
    close: () => boss.stop({ graceful: false, timeout: 1000 })
  }
}

const graphileEnqueuer = async (connectionString: string): Promise<Enqueuer> => {
  // A pool of our own, ended here: the database is dropped (`with (force)`) right after the round.
  const pgPool = new pg.Pool({ connectionString, max: 2 })
  pgPool.on("error", () => {})
  pgPool.on("connect", (client) => client.on("error", () => {}))
  const utils = await makeWorkerUtils({ pgPool })
  await utils.migrate()
  return {
    batch: async (jobs) => void (await utils.addJobs(jobs.map((payload) => ({ identifier: QUEUE_NAME, payload })))),
    one: async (job) => void (await utils.addJob(QUEUE_NAME, job)),
    close: async () => {
      await utils.release()
      await pgPool.end()
    }
  }
}

/** Waits for `predicate` every 50 ms; fails after {@link settings.timeoutSeconds} naming `what`. */
const until = async (what: string, predicate: () => boolean) => {
  const deadline = Date.now() + settings.timeoutSeconds * 1000
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((wake) => setTimeout(wake, 50))
  }
}

/** The worker process of `queue`, once it works; its CPU time on request. */
const startWorker = async (queue: QueueName, databaseUrl: string, receiverUrl: string) => {
  const child: ChildProcess = fork(WORKER_ENTRY, [], {
    env: {
      PATH: process.env["PATH"] ?? "",
      QUEUE_KIND: queue,
      DATABASE_URL: databaseUrl,
      QUEUE_RECEIVER_URL: receiverUrl,
      QUEUE_CONCURRENCY: String(settings.concurrency)
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const reply = <A>(pick: (message: Record<string, unknown>) => A | undefined) =>
    new Promise<A>((resolveReply, reject) => {
      const onMessage = (message: unknown) => {
        const picked = pick(message as Record<string, unknown>)
        if (picked === undefined) return
        child.off("message", onMessage)
        child.off("exit", onExit)
        resolveReply(picked)
      }
      const onExit = (code: number | null) => reject(new Error(`the ${queue} worker exited with ${code}`))
      child.on("message", onMessage)
      child.once("exit", onExit)
    })
  await reply((message) => (message["ready"] === true ? true : undefined))
  const cpuMs = () => {
    const answer = reply((message) => (typeof message["cpuMs"] === "number" ? message["cpuMs"] : undefined))
    child.send("cpu")
    return answer
  }
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((resolveExit) => child.once("exit", resolveExit))
    child.send("stop")
    await exited
  }
  return { cpuMs, stop, kill: () => child.kill("SIGKILL") }
}

const withDatabase = async <A>(use: (url: string) => Promise<A>): Promise<A> => {
  const server = new URL(settings.serverUrl)
  const name = `bench_queues_${Date.now()}`
  const admin = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 5_000 })
  await admin.connect()
  try {
    await admin.query(`create database "${name}"`)
    const url = new URL(server.toString())
    url.pathname = `/${name}`
    return await use(url.toString())
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`).catch((error: unknown) => console.error(error))
    await admin.end()
  }
}

const jobs = (count: number): Array<BenchJob> => Array.from({ length: count }, () => ({ id: randomUUID(), enqueuedAt: Date.now() }))

/** One round of `queue` on a fresh database. */
const round = (queue: QueueName, receipts: Receipts, receiverUrl: string): Promise<RoundFigures> =>
  withDatabase(async (databaseUrl) => {
    const enqueuer = await (queue === "pg-boss" ? pgBossEnqueuer(databaseUrl) : graphileEnqueuer(databaseUrl))
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined
    try {
      const backlog = jobs(settings.backlog)
      const enqueueStarted = performance.now()
      for (let i = 0; i < backlog.length; i += BATCH) await enqueuer.batch(backlog.slice(i, i + BATCH))
      const enqueueMs = performance.now() - enqueueStarted

      worker = await startWorker(queue, databaseUrl, receiverUrl)
      const cpuBefore = await worker.cpuMs()
      await until(`${queue}'s backlog`, () => backlog.every((job) => receipts.started.has(job.id)))
      const cpuDrained = await worker.cpuMs()
      const starts = backlog.map((job) => receipts.started.get(job.id)!)
      const drainMs = Math.max(1, Math.max(...starts) - Math.min(...starts))

      const steady: Array<BenchJob> = []
      const total = settings.rate * settings.seconds
      const begun = Date.now()
      const writes: Array<Promise<void>> = []
      for (let i = 0; i < total; i++) {
        const wait = begun + (i * 1000) / settings.rate - Date.now()
        if (wait > 0) await new Promise((wake) => setTimeout(wake, wait))
        const job = { id: randomUUID(), enqueuedAt: Date.now() }
        steady.push(job)
        writes.push(enqueuer.one(job))
      }
      await Promise.all(writes)
      await until(`${queue}'s steady jobs`, () => steady.every((job) => receipts.started.has(job.id)))
      const cpuSteady = await worker.cpuMs()
      const latencies = steady.map((job) => receipts.started.get(job.id)! - job.enqueuedAt).sort((a, b) => a - b)
      const figures: RoundFigures = {
        queue,
        backlog: backlog.length,
        enqueuePerSecond: (backlog.length * 1000) / enqueueMs,
        drainMs,
        drainPerSecond: (backlog.length * 1000) / drainMs,
        drainCpuMsPerJob: (cpuDrained - cpuBefore) / backlog.length,
        steadyJobs: total,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        steadyCpuMsPerJob: (cpuSteady - cpuDrained) / total
      }
      console.error(
        `${queue}: enqueue ${Math.round(figures.enqueuePerSecond)}/s, drain ${(drainMs / 1000).toFixed(1)} s ` +
          `(${Math.round(figures.drainPerSecond)}/s, ${figures.drainCpuMsPerJob.toFixed(3)} ms CPU/job), ` +
          `p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms`
      )
      return figures
    } finally {
      await worker?.stop().catch(() => worker?.kill())
      await enqueuer.close().catch(() => undefined)
    }
  })

const main = async () => {
  const server = new URL(settings.serverUrl)
  if (!["127.0.0.1", "localhost", "[::1]"].includes(server.hostname)) throw new Error("DATABASE_URL must name a loopback server")
  const receipts: Receipts = { started: new Map(), duplicates: 0 }
  const receiver = await startReceiver(receipts)
  const load = loadavg()[0]!.toFixed(1)
  try {
    const rounds: Array<RoundFigures> = []
    for (const queue of interleaved<QueueName>("pg-boss", "graphile-worker", settings.rounds)) {
      rounds.push(await round(queue, receipts, receiver.url))
    }
    const machine =
      `${cpus()[0]?.model.split(" ").slice(0, 2).join(" ") ?? "unknown CPU"}, ${availableParallelism()} cores available, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, load average ${load} at the start; PostgreSQL on the same machine`
    const note = process.env["BENCH_QUEUES_NOTE"]
    const table = queuesTable(
      {
        date: new Date().toISOString().slice(0, 10),
        machine,
        concurrency: settings.concurrency,
        work: "one HTTP POST (undici, keep-alive) to a receiver on 127.0.0.1",
        rate: settings.rate,
        seconds: settings.seconds,
        ...(note === undefined || note === "" ? {} : { caveat: note })
      },
      rounds
    )
    console.log(table)
    if (receipts.duplicates > 0) console.error(`${receipts.duplicates} jobs were performed twice`)
    await writeFile(
      RESULTS_JSON,
      `${JSON.stringify({ settings: { ...settings, serverUrl: undefined }, duplicates: receipts.duplicates, rounds }, null, 2)}\n`
    )
    if (process.env["BENCH_README"] !== "false") await writeResultsSection(PERFORMANCE_PAGE, table, QUEUES_MARKERS)
  } finally {
    receiver.server.closeAllConnections()
    await new Promise((closed) => receiver.server.close(closed))
  }
}

main().catch((error: unknown) => {
  console.error("bench:queues failed:", error)
  process.exit(1)
})
