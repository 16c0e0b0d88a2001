/**
 * `pnpm bench:scale` (issue 23, item 8): what one PostgreSQL serves, measured on the production layout
 * (`ScaleLayout.ts`) on this machine.
 *
 * 1. Creates a fresh database `bench_<timestamp>` on the server `DATABASE_URL` names (default
 *    postgres://postgres@127.0.0.1:5432/postgres) and starts the layout through PgBouncer (transaction pooling) with
 *    3 API, 1 identity and 1 console process and no worker (nothing polls the database in the background but the
 *    instances' signing-key refresh every 5 s). Seeds `BENCH_PAYABLE_INVOICES` sent invoices (default 5,000).
 * 2. **Statements per operation**: runs each operation 20 times one after the other through the load balancer and
 *    reads PgBouncer's `SHOW STATS` before and after (`total_query_count`: statements, each one round trip, `begin`
 *    and `commit` included; `total_xact_count`: transactions), minus what the idle layout does in the same time.
 * 3. **Throughput with 1, 2 and 3 API instances**: an haproxy whose API backend holds the first n instances; for
 *    each path and n, autocannon (`BENCH_CONNECTIONS`, default 10, for `BENCH_DURATION_SECONDS`, default 10, after
 *    a 2 s warm-up), with the CPU time the API processes, haproxy, PgBouncer and the PostgreSQL backends serving this
 *    database (by pid: other databases on the server don't count) spent, per request.
 * 4. Prints Markdown tables and writes them to `tooling/scripts/bench-scale-results.md`.
 *
 * Every process runs on this machine's cores (2 here) beside the load generator: the figures say how the CPU divides
 * between the tiers, not what separate machines would do. Exits non-zero on a non-2xx answer or a failed start.
 */
import { freePort } from "@propline/db/FreePort"
import autocannon from "autocannon"
import { randomUUID } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { cpuMs } from "./internal/ProcessUsage.js"
import { readDemoGrant, seedSentInvoices } from "./internal/BenchDatabase.js"
import { type ScaleLayout, startHaproxy, startScaleLayout } from "./ScaleLayout.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const serverUrl = new URL(process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres")
const durationSeconds = Number(process.env["BENCH_DURATION_SECONDS"] ?? 10)
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 10)
const payable = Number(process.env["BENCH_PAYABLE_INVOICES"] ?? 5_000)
const COUNTED = 20

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const withClient = async <A>(url: string, run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** PgBouncer's totals for one database: statements and transactions. */
const pgbouncerTotals = (adminUrl: string, database: string) =>
  withClient(adminUrl, async (client) => {
    // The admin console speaks the simple protocol only: a query without parameters.
    const result = await client.query<Record<string, string>>("SHOW STATS")
    const row = result.rows.find((candidate) => candidate["database"] === database)
    return { queries: Number(row?.["total_query_count"] ?? 0), transactions: Number(row?.["total_xact_count"] ?? 0) }
  })

/**
 * CPU time (ms) of the PostgreSQL backends serving `database` (by pid, from pg_stat_activity): other databases on the
 * same server (another run's, another test's) don't count. Through PgBouncer the backends live across the run.
 */
const backendsCpu = async (directUrl: string, database: string): Promise<Map<number, number>> => {
  const { rows } = await withClient(directUrl, (client) =>
    client.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [database])
  )
  return new Map(rows.map((row) => [row.pid, cpuMs(row.pid) ?? 0]))
}

const cpuBetween = (before: Map<number, number>, after: Map<number, number>): number => {
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

interface Operation {
  readonly name: string
  readonly send: (i: number) => Promise<Response>
}

const main = async () => {
  const name = `bench_${Date.now()}`
  await withClient(serverUrl.toString(), (client) => client.query(`create database "${name}"`))
  const databaseUrl = new URL(serverUrl.toString())
  databaseUrl.pathname = `/${name}`
  let layout: ScaleLayout | undefined
  const extra: Array<{ kill: (signal: NodeJS.Signals) => boolean }> = []
  const cleanup = async () => {
    for (const child of extra) child.kill("SIGTERM")
    await layout?.stop().catch(() => undefined)
    await withClient(serverUrl.toString(), (client) => client.query(`drop database if exists "${name}" with (force)`)).catch(() => undefined)
  }
  process.once("SIGINT", () => void cleanup().then(() => process.exit(130)))
  try {
    console.log(`database ${name}; starting the layout through PgBouncer…`)
    layout = await startScaleLayout({
      databaseUrl: databaseUrl.toString(),
      pgbouncer: true,
      counts: { api: 3, auth: 1, admin: 1, worker: 0 },
      env: { LOG_LEVEL: "warn" },
      progress: (line) => console.log(`  ${line}`)
    })
    const credentials = JSON.parse(readFileSync(path.join(layout.dataDir, "demo-credentials.json"), "utf8")) as {
      client_id: string
      client_secret: string
    }
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(credentials.client_id)}:${encodeURIComponent(credentials.client_secret)}`).toString("base64")}`
    const tokenRequest = () =>
      fetch(`${layout!.urls.auth}/oauth/token`, {
        method: "POST",
        headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials"
      })
    const token = ((await (await tokenRequest()).json()) as { access_token: string }).access_token
    const bearer = { authorization: `Bearer ${token}` }
    const queue = (await (await fetch(`${layout.urls.api}/v1/billing/send-queue?limit=50`, { headers: bearer })).json()) as {
      items: Array<{ id: string; documentKind: string }>
    }
    const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 2 })
    const grant = await readDemoGrant(pool, credentials.client_id)
    const invoices = await seedSentInvoices(
      pool,
      grant.organizationId,
      queue.items.filter((item) => item.documentKind === "invoice").map((item) => item.id),
      payable,
      new Date()
    )
    await pool.query("vacuum analyze")
    await pool.end()
    console.log(`seeded ${invoices.length} sent invoices`)
    let next = 0
    const paymentBody = () => JSON.stringify({ paymentId: randomUUID(), amountMinorUnits: 100, paidOn: new Date().toISOString().slice(0, 10) })
    const paymentPath = () => `/v1/billing/invoices/${invoices[next++ % invoices.length]!.id}/report-payment`

    const operations: Array<Operation> = [
      { name: "token (client_credentials)", send: () => tokenRequest() },
      { name: "GET /v1/operational-contexts", send: () => fetch(`${layout!.urls.api}/v1/operational-contexts?limit=50`, { headers: bearer }) },
      { name: "GET /v1/billing/send-queue (50)", send: () => fetch(`${layout!.urls.api}/v1/billing/send-queue?limit=50`, { headers: bearer }) },
      {
        name: "POST report-payment",
        send: () =>
          fetch(`${layout!.urls.api}${paymentPath()}`, { method: "POST", headers: { ...bearer, "content-type": "application/json" }, body: paymentBody() })
      }
    ]

    // 2. Statements per operation.
    const admin = layout.pgbouncer!.adminUrl
    const statements: Array<string> = []
    const idleBefore = await pgbouncerTotals(admin, name)
    const idleStarted = Date.now()
    await sleep(3_000)
    const idleAfter = await pgbouncerTotals(admin, name)
    const idleQueriesPerMs = (idleAfter.queries - idleBefore.queries) / (Date.now() - idleStarted)
    const idleXactsPerMs = (idleAfter.transactions - idleBefore.transactions) / (Date.now() - idleStarted)
    for (const operation of operations) {
      // The token endpoint admits 60 a minute per client: 20 here, the load below uses other paths only.
      const before = await pgbouncerTotals(admin, name)
      const started = Date.now()
      for (let i = 0; i < COUNTED; i++) {
        const response = await operation.send(i)
        await response.arrayBuffer()
        if (response.status >= 300) throw new Error(`${operation.name} answered ${response.status}`)
      }
      const after = await pgbouncerTotals(admin, name)
      const elapsed = Date.now() - started
      const queries = (after.queries - before.queries - idleQueriesPerMs * elapsed) / COUNTED
      const transactions = (after.transactions - before.transactions - idleXactsPerMs * elapsed) / COUNTED
      statements.push(`| ${operation.name} | ${queries.toFixed(1)} | ${transactions.toFixed(1)} |`)
      console.log(statements.at(-1))
    }

    // 3. Throughput with 1, 2 and 3 API instances.
    const apis = layout.instances.filter((instance) => instance.role === "api")
    const pgbouncerPid = layout.pgbouncer!.pid
    const rows: Array<string> = []
    const loaded: Array<string> = []
    for (let n = 1; n <= apis.length; n++) {
      const ports = { auth: await freePort(), api: await freePort(), admin: await freePort() }
      const haproxy = await startHaproxy({
        directory: layout.directory,
        name: `haproxy-${n}`,
        ports,
        instances: apis.slice(0, n).map((instance) => ({ name: instance.name, role: "api" as const, port: Number(new URL(instance.url!).port) })),
        deadline: Date.now() + 30_000
      })
      extra.push(haproxy)
      for (const operation of operations.slice(1)) {
        const isPayment = operation.name.startsWith("POST")
        const run = (duration: number) =>
          new Promise<autocannon.Result>((resolve, reject) => {
            autocannon(
              {
                url: `http://127.0.0.1:${ports.api}`,
                connections,
                duration,
                timeout: 10,
                headers: { ...bearer, ...(isPayment ? { "content-type": "application/json" } : {}) },
                requests: [
                  isPayment
                    ? { method: "POST", setupRequest: (request: autocannon.Request) => ({ ...request, path: paymentPath(), body: paymentBody() }) }
                    : { method: "GET", path: operation.name.includes("contexts") ? "/v1/operational-contexts?limit=50" : "/v1/billing/send-queue?limit=50" }
                ]
              },
              (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result))
            )
          })
        await run(2)
        const cpuBefore = { api: apis.map((instance) => cpuMs(instance.process.pid!) ?? 0), haproxy: cpuMs(haproxy.pid!) ?? 0, pgbouncer: cpuMs(pgbouncerPid) ?? 0, postgres: await backendsCpu(databaseUrl.toString(), name) }
        const result = await run(durationSeconds)
        const cpuAfter = { api: apis.map((instance) => cpuMs(instance.process.pid!) ?? 0), haproxy: cpuMs(haproxy.pid!) ?? 0, pgbouncer: cpuMs(pgbouncerPid) ?? 0, postgres: await backendsCpu(databaseUrl.toString(), name) }
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${operation.name} with ${n} API: ${result.non2xx} non-2xx, ${result.errors} errors: ${JSON.stringify(result.statusCodeStats)}`)
        const total = result.requests.total
        const perRequest = (before: number, after: number) => ((after - before) / total).toFixed(2)
        const postgresCpu = cpuBetween(cpuBefore.postgres, cpuAfter.postgres)
        const apiCpu = cpuAfter.api.reduce((sum, value, i) => sum + value - cpuBefore.api[i]!, 0)
        rows.push(
          `| ${operation.name} | ${n} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${(apiCpu / total).toFixed(2)} | ${perRequest(cpuBefore.haproxy, cpuAfter.haproxy)} | ${perRequest(cpuBefore.pgbouncer, cpuAfter.pgbouncer)} | ${(postgresCpu / total).toFixed(2)} | ${((apiCpu + cpuAfter.haproxy - cpuBefore.haproxy + cpuAfter.pgbouncer - cpuBefore.pgbouncer + postgresCpu) / (durationSeconds * 1000)).toFixed(2)} |`
        )
        console.log(rows.at(-1))
        loaded.push(loadavg()[0]!.toFixed(2))
      }
      haproxy.kill("SIGTERM")
    }

    const report = `## pnpm bench:scale, ${new Date().toISOString()}

Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), shared with other work: 1-minute load average
during the runs ${loaded.join(", ")}. Layout: n API instances behind haproxy, PgBouncer (transaction pooling), one
PostgreSQL; autocannon with ${connections} connections, ${durationSeconds} s per row after a 2 s warm-up, on the same cores.

Statements per operation (${COUNTED} sequential requests through the load balancer, PgBouncer's SHOW STATS; each
statement is one round trip, \`begin\`/\`commit\` included):

| operation | statements | transactions |
| --- | --- | --- |
${statements.join("\n")}

Throughput (CPU in ms per request, per tier; "cores busy": all four tiers' CPU time per second of the run):

| path | API instances | req/s | p50 ms | p99 ms | API CPU | haproxy CPU | PgBouncer CPU | PostgreSQL CPU (this database's backends) | cores busy |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`
    console.log(`\n${report}`)
    writeFileSync(path.join(root, "tooling", "scripts", "bench-scale-results.md"), report)
  } finally {
    await cleanup()
  }
}

main().catch((error: unknown) => {
  console.error(`pnpm bench:scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  process.exit(1)
})
