/**
 * The webhooks benchmark's baseline (`pnpm bench:webhooks`): the same work as the product's delivery with nothing
 * else — plain pg and undici, in its own process. Its outbox is one table of ready JSON bodies
 * (`bench_webhook_outbox`); a loop claims up to `BASELINE_CONCURRENCY` undelivered rows for 30 s (`for update skip
 * locked` in one short statement, so another instance takes over a dead one's claims), signs each as Standard Webhooks does (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the
 * secret's key), POSTs them at once through one keep-alive undici pool with a 10 s timeout and no redirects, writes
 * an attempt row (status, latency) and marks the row delivered on a 2xx. Idle, it polls every `BASELINE_POLL_MS`
 * (default 1000: the product's publisher finds other processes' commits at the same interval).
 *
 * Environment: DATABASE_URL, BASELINE_RECEIVER_URL, BASELINE_SECRET (`whsec_…`), BASELINE_CONCURRENCY (default 10),
 * BASELINE_POLL_MS. Prints "ready" once its tables exist; stops on SIGTERM.
 */
import { createHmac } from "node:crypto"
import pg from "pg"
import { Pool } from "undici"

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`${name} is required`)
  return value
}

const receiver = new URL(env("BASELINE_RECEIVER_URL"))
const key = Buffer.from(env("BASELINE_SECRET").replace(/^whsec_/, ""), "base64")
const concurrency = Number(env("BASELINE_CONCURRENCY", "10"))
const pollMs = Number(env("BASELINE_POLL_MS", "1000"))
const db = new pg.Pool({ connectionString: env("DATABASE_URL"), max: concurrency + 2 })
const http = new Pool(receiver.origin, { connections: concurrency, headersTimeout: 10_000, bodyTimeout: 10_000 })

/** The baseline's tables (made once; the bench fills the outbox). */
export const BASELINE_TABLES = `
  create table if not exists bench_webhook_outbox (
    id uuid primary key,
    payload text not null,
    created_at timestamptz not null default now(),
    claimed_until timestamptz,
    delivered_at timestamptz
  );
  create index if not exists bench_webhook_outbox_undelivered on bench_webhook_outbox (created_at) where delivered_at is null;
  create table if not exists bench_webhook_attempts (
    outbox_id uuid not null references bench_webhook_outbox (id),
    started_at timestamptz not null,
    latency_ms integer not null,
    status_code integer
  );`

const sign = (id: string, timestamp: number, body: string) =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`

const deliver = async (row: { readonly id: string; readonly payload: string }) => {
  const started = new Date()
  const timestamp = Math.floor(started.getTime() / 1000)
  let status: number | null
  try {
    const response = await http.request({
      method: "POST",
      path: receiver.pathname,
      headers: {
        "content-type": "application/json",
        "webhook-id": row.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": sign(row.id, timestamp, row.payload)
      },
      body: row.payload
    })
    status = response.statusCode
    await response.body.text()
  } catch {
    status = null
  }
  const latency = Date.now() - started.getTime()
  await db.query(
    `with attempt as (insert into bench_webhook_attempts (outbox_id, started_at, latency_ms, status_code) values ($1, $2, $3, $4))
     update bench_webhook_outbox set delivered_at = now() where id = $1 and $5`,
    [row.id, started, latency, status, status !== null && status >= 200 && status < 300]
  )
}

let running = true
const loop = async () => {
  while (running) {
    let rows: Array<{ id: string; payload: string }> = []
    try {
      rows = (
        await db.query<{ id: string; payload: string }>(
          `update bench_webhook_outbox set claimed_until = now() + interval '30 seconds'
           where id in (
             select id from bench_webhook_outbox
             where delivered_at is null and (claimed_until is null or claimed_until < now())
             order by created_at limit $1 for update skip locked)
           returning id, payload`,
          [concurrency]
        )
      ).rows
      await Promise.all(rows.map(deliver))
    } catch (error) {
      console.error(error)
    }
    if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

await db.query(BASELINE_TABLES)
console.log("ready")
process.once("SIGTERM", () => {
  running = false
  setTimeout(() => process.exit(0), 200)
})
await loop()
await http.close()
await db.end()
