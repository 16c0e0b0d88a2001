/**
 * `pnpm bench:webhooks` (issue 22, must hold): webhook deliveries to a local receiver, the product against a
 * same-work baseline (plain pg + undici doing the same signing and POST: `internal/WebhookBaseline.ts`).
 *
 * 1. Creates a fresh database on the PostgreSQL server `DATABASE_URL` names (default
 *    postgres://postgres@127.0.0.1:5432/postgres; loopback only) and starts the built product on it as `pnpm start`
 *    does (every host, the worker included; demo data; WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS=true;
 *    WEBHOOK_CONCURRENCY = `BENCH_WEBHOOK_CONCURRENCY`).
 * 2. Subscribes a receiver in this process (node:http; it verifies every delivery with the `standardwebhooks`
 *    reference library and counts duplicate `webhook-id`s) to every event type, as the demo operator through the
 *    console's API.
 * 3. Commit to receipt: commits `billing.invoice.approved` outbox rows of the demo's invoices one per transaction at
 *    `BENCH_WEBHOOK_RATE` per second for `BENCH_WEBHOOK_SECONDS`, as the billing service writes them, and takes, per
 *    event, the time from its commit returning to its receipt (p50, p99). The product's publisher finds another
 *    process's commits by polling every second (its own process's commits wake it at once).
 * 4. Backlog: commits `BENCH_WEBHOOK_BACKLOG` events (default 100,000) in one transaction and times the drain, from
 *    the commit to the last receipt; deliveries per second are the backlog over that time.
 * 5. The same two runs against the baseline (its own process, `BENCH_WEBHOOK_CONCURRENCY` requests at once, idle
 *    polling every second like the publisher), whose outbox rows hold the envelope the product delivered (the
 *    rendered invoice) with their own ids.
 * 6. Prints a Markdown table and writes it into `docs/performance.md` between its markers (unless
 *    `BENCH_README=false`), the figures also to `tooling/scripts/bench-webhooks-results.json`.
 *
 * Every wait is bounded; the processes are stopped and the database dropped when the run ends or fails.
 */
import { freePort } from "@propline/db/FreePort"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { availableParallelism, cpus, totalmem } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { benchServerUrl, intFrom } from "./internal/BenchEnv.js"
import { writeResultsSection, WEBHOOKS_MARKERS } from "./internal/ResultsSection.js"
import { startWebhookReceiver, type WebhookReceiver } from "./WebhookReceiver.js"
import { type DemoOperator, ensureSubscription } from "./WebhookSubscription.js"

const HERE = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = resolve(HERE, "../../..")
const BASELINE_ENTRY = join(HERE, "internal/WebhookBaseline.js")
const RESULTS_JSON = join(REPO_ROOT, "tooling/scripts/bench-webhooks-results.json")
const PERFORMANCE_PAGE = join(REPO_ROOT, "docs/performance.md")

const settings = {
  serverUrl: benchServerUrl(),
  backlog: intFrom("BENCH_WEBHOOK_BACKLOG", 100_000, 100, 1_000_000),
  rate: intFrom("BENCH_WEBHOOK_RATE", 50, 1, 1000),
  seconds: intFrom("BENCH_WEBHOOK_SECONDS", 20, 1, 300),
  concurrency: intFrom("BENCH_WEBHOOK_CONCURRENCY", 10, 1, 200),
  drainTimeoutSeconds: intFrom("BENCH_WEBHOOK_DRAIN_TIMEOUT_SECONDS", 3600, 10, 86_400)
}

/** What the receiver saw: each `webhook-id`'s first receipt time, how many arrived again, and any refused. */
interface Receipts {
  readonly at: Map<string, number>
  duplicates: number
  refused: number
}

/** A verifying receiver on `port` (default: a free one). */
const receive = async (secret: string, port?: number): Promise<{ readonly receiver: WebhookReceiver; readonly receipts: Receipts }> => {
  const receipts: Receipts = { at: new Map(), duplicates: 0, refused: 0 }
  const receiver = await startWebhookReceiver({
    secret,
    port: port ?? (await freePort()),
    onDelivery: (delivery) => {
      if (delivery.duplicate) receipts.duplicates++
      else receipts.at.set(delivery.webhookId, delivery.receivedAt.getTime())
    },
    onRejected: () => void receipts.refused++
  })
  return { receiver, receipts }
}

/** Waits until every id has arrived; fails after `timeoutMs` naming how many are missing. */
const arrived = async (receipts: Receipts, ids: ReadonlyArray<string>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const missing = ids.filter((id) => !receipts.at.has(id)).length
    if (missing === 0) return
    if (receipts.refused > 0) throw new Error(`${what}: the receiver refused ${receipts.refused} deliveries (signatures that do not verify)`)
    if (Date.now() > deadline) throw new Error(`${what}: ${missing} of ${ids.length} deliveries never arrived`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** Writes events: one per transaction (`one`), or many in one transaction (`many`). */
interface Producer {
  readonly one: (id: string) => Promise<void>
  readonly many: (ids: ReadonlyArray<string>) => Promise<void>
}

interface Figures {
  readonly latencyEvents: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly backlog: number
  readonly drainSeconds: number
  readonly deliveriesPerSecond: number
  readonly duplicates: number
}

/** Both runs against one side: commit → receipt at the set rate, then the backlog drained. */
const measureSide = async (name: string, producer: Producer, receipts: Receipts): Promise<Figures> => {
  const total = settings.rate * settings.seconds
  const committed = new Map<string, number>()
  const started = Date.now()
  const writes: Array<Promise<void>> = []
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / settings.rate
    const wait = due - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const id = randomUUID()
    writes.push(producer.one(id).then(() => void committed.set(id, Date.now())))
  }
  await Promise.all(writes)
  const ids = [...committed.keys()]
  await arrived(receipts, ids, 120_000, `${name}, commit to receipt`)
  const latencies = ids.map((id) => receipts.at.get(id)! - committed.get(id)!).sort((a, b) => a - b)
  console.error(`${name}: ${total} events at ${settings.rate}/s, p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`)

  const backlog = Array.from({ length: settings.backlog }, () => randomUUID())
  await producer.many(backlog)
  const committedAt = Date.now()
  await arrived(receipts, backlog, settings.drainTimeoutSeconds * 1000, `${name}, backlog`)
  const last = Math.max(...backlog.map((id) => receipts.at.get(id)!))
  const drainSeconds = (last - committedAt) / 1000
  console.error(`${name}: ${settings.backlog} events drained in ${drainSeconds.toFixed(1)} s`)
  return {
    latencyEvents: total,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    backlog: settings.backlog,
    drainSeconds,
    deliveriesPerSecond: settings.backlog / drainSeconds,
    duplicates: receipts.duplicates
  }
}

/** Inserts rows in chunks of 5,000 inside one transaction. */
const inOneTransaction = async (pool: pg.Pool, ids: ReadonlyArray<string>, insert: (client: pg.PoolClient, chunk: ReadonlyArray<string>) => Promise<unknown>) => {
  const client = await pool.connect()
  try {
    await client.query("begin")
    for (let i = 0; i < ids.length; i += 5000) await insert(client, ids.slice(i, i + 5000))
    await client.query("commit")
  } catch (error) {
    await client.query("rollback").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

/** The product's producer: outbox rows as the billing service writes them, for the demo's invoices in turn. */
const productProducer = async (pool: pg.Pool, organizationId: string): Promise<Producer> => {
  const invoices = (
    await pool.query<{ id: string; contextId: string }>(
      `select id, operational_context_id as "contextId" from invoices where organization_id = $1 order by id limit 100`,
      [organizationId]
    )
  ).rows
  if (invoices.length === 0) throw new Error("the demo organization has no invoices")
  let next = 0
  const payload = () => {
    const invoice = invoices[next++ % invoices.length]!
    return JSON.stringify({
      _tag: "billing.invoice.approved",
      invoiceId: invoice.id,
      organizationId,
      operationalContextId: invoice.contextId,
      at: new Date().toISOString()
    })
  }
  const insert = `insert into events (id, organization_id, type, payload, occurred_at)
                  select id, $2, 'billing.invoice.approved', p::jsonb, now() from unnest($1::uuid[], $3::text[]) as t(id, p)`
  return {
    one: async (id) => void (await pool.query(insert, [[id], organizationId, [payload()]])),
    many: (ids) => inOneTransaction(pool, ids, (client, chunk) => client.query(insert, [chunk, organizationId, chunk.map(payload)]))
  }
}

/** The baseline's producer: its outbox rows hold `envelope` (as the product delivered it) with their own ids. */
const baselineProducer = (pool: pg.Pool, envelope: Record<string, unknown>): Producer => {
  const insert = `insert into bench_webhook_outbox (id, payload) select * from unnest($1::uuid[], $2::text[])`
  const body = (id: string) => JSON.stringify({ ...envelope, id })
  return {
    one: async (id) => void (await pool.query(insert, [[id], [body(id)]])),
    many: (ids) => inOneTransaction(pool, ids, (client, chunk) => client.query(insert, [chunk, chunk.map(body)]))
  }
}

const startBaseline = (databaseUrl: string, receiverUrl: string, secret: string): Promise<ChildProcess> =>
  new Promise((resolveStarted, reject) => {
    const child = spawn(process.execPath, [BASELINE_ENTRY], {
      env: {
        PATH: process.env["PATH"] ?? "",
        DATABASE_URL: databaseUrl,
        BASELINE_RECEIVER_URL: receiverUrl,
        BASELINE_SECRET: secret,
        BASELINE_CONCURRENCY: String(settings.concurrency)
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    const timer = setTimeout(() => reject(new Error("the baseline did not start within 30 s")), 30_000)
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) {
        clearTimeout(timer)
        resolveStarted(child)
      }
    })
    child.once("exit", (code) => reject(new Error(`the baseline exited with ${code}`)))
  })

const stopChild = async (child: ChildProcess | undefined) => {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolveExit) => child.once("exit", resolveExit))
  child.kill("SIGTERM")
  await exited
}

const ms = (value: number) => `${Math.round(value)} ms`

const report = (ours: Figures, baseline: Figures, machine: string): string => {
  const reduced = settings.backlog < 100_000 ? ` (reduced from the issue's 100,000: BENCH_WEBHOOK_BACKLOG=${settings.backlog})` : ""
  return [
    `Last run: ${new Date().toISOString().slice(0, 10)}, ${machine}. Receiver on 127.0.0.1 verifying every delivery with`,
    `\`standardwebhooks\`; ${settings.concurrency} deliveries at once on each side; PostgreSQL on the same machine.`,
    "",
    "| | product | baseline (pg + undici) | product / baseline |",
    "| --- | ---: | ---: | ---: |",
    `| commit → receipt p50 (${ours.latencyEvents} events at ${settings.rate}/s) | ${ms(ours.p50Ms)} | ${ms(baseline.p50Ms)} | ${(ours.p50Ms / baseline.p50Ms).toFixed(2)} |`,
    `| commit → receipt p99 | ${ms(ours.p99Ms)} | ${ms(baseline.p99Ms)} | ${(ours.p99Ms / baseline.p99Ms).toFixed(2)} |`,
    `| backlog of ${ours.backlog.toLocaleString("en")} events${reduced}: drained in | ${ours.drainSeconds.toFixed(1)} s | ${baseline.drainSeconds.toFixed(1)} s | ${(ours.drainSeconds / baseline.drainSeconds).toFixed(2)} |`,
    `| deliveries per second (backlog) | ${ours.deliveriesPerSecond.toFixed(0)} | ${baseline.deliveriesPerSecond.toFixed(0)} | ${(ours.deliveriesPerSecond / baseline.deliveriesPerSecond).toFixed(2)} |`,
    `| duplicate deliveries (no faults) | ${ours.duplicates} | ${baseline.duplicates} | |`
  ].join("\n")
}

const main = async () => {
  const server = new URL(settings.serverUrl)
  if (!["127.0.0.1", "localhost", "[::1]"].includes(server.hostname)) throw new Error("DATABASE_URL must name a loopback server")
  const name = `bench_webhooks_${Date.now()}`
  const admin = new pg.Client({ connectionString: server.toString() })
  await admin.connect()
  await admin.query(`create database "${name}"`)
  const databaseUrl = new URL(server.toString())
  databaseUrl.pathname = `/${name}`
  let product: StartedProduct | undefined
  let baseline: ChildProcess | undefined
  const receivers: Array<WebhookReceiver> = []
  const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 20 })
  try {
    product = await startProduct({
      databaseUrl: databaseUrl.toString(),
      env: { WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "true", WEBHOOK_CONCURRENCY: String(settings.concurrency) }
    })
    const operator = JSON.parse(readFileSync(join(product.dataDir, "demo-operator.json"), "utf8")) as DemoOperator
    const port = await freePort()
    const subscription = await Effect.runPromise(
      ensureSubscription({ operator, url: `http://127.0.0.1:${port}/webhooks`, dataDir: product.dataDir })
    )
    const ourReceiver = await receive(subscription.secret, port)
    receivers.push(ourReceiver.receiver)
    const organizationId = (await pool.query<{ id: string }>(`select organization_id as id from webhook_endpoints where id = $1`, [subscription.endpoint.id])).rows[0]!.id
    const ours = await measureSide("product", await productProducer(pool, organizationId), ourReceiver.receipts)
    const envelope = (await pool.query<{ envelope: Record<string, unknown> }>(`select envelope from events where envelope is not null limit 1`)).rows[0]!.envelope
    await product.stop()
    product = undefined

    const secret = `whsec_${randomBytes(32).toString("base64")}`
    const theirs = await receive(secret)
    receivers.push(theirs.receiver)
    baseline = await startBaseline(databaseUrl.toString(), theirs.receiver.url, secret)
    const base = await measureSide("baseline", baselineProducer(pool, envelope), theirs.receipts)

    const machine = `${cpus()[0]?.model.split(" ").slice(0, 2).join(" ") ?? "unknown CPU"}, ${availableParallelism()} cores available, ${Math.round(totalmem() / 2 ** 30)} GiB`
    const table = report(ours, base, machine)
    console.log(table)
    await writeFile(RESULTS_JSON, `${JSON.stringify({ settings: { ...settings, serverUrl: undefined }, product: ours, baseline: base }, null, 2)}\n`)
    if (process.env["BENCH_README"] !== "false") await writeResultsSection(PERFORMANCE_PAGE, table, WEBHOOKS_MARKERS)
  } finally {
    for (const receiver of receivers) await receiver.close()
    await stopChild(baseline)
    await product?.stop()
    await pool.end()
    await admin.query(`drop database if exists "${name}" with (force)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  console.error("bench:webhooks failed:", error)
  process.exit(1)
})
