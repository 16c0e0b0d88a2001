/**
 * `pnpm bench`: measures the product against a plain baseline in the same run and reports ratios (performance is
 * benchmarked here, never asserted in tests).
 *
 * 1. Creates a fresh database `bench_<timestamp>` on the PostgreSQL server `DATABASE_URL` names (default
 *    postgres://postgres@127.0.0.1:5432/postgres; loopback only).
 * 2. Starts the product (`node apps/api/dist/main.js`, built beforehand) on free ports of 127.0.0.1 with demo data,
 *    and waits for DATA_DIR/demo-credentials.json, the identity host's JWKS and the API host's OpenAPI document.
 * 3. Adds fixtures with pg: copies of the demo's approved invoices (a full send-queue page needs 51) and
 *    {@link tokenClientCount} Applications, because the token endpoint allows 60 requests per 60 s per client
 *    (spec 8) and the benchmark must stay under it.
 * 4. Starts the baseline server (`internal/BaselineServer.ts`, its own process) and checks that it answers what
 *    the product answers (same page size; a verifiable ES256 token).
 * 5. Runs autocannon against each target with the same settings, one after another: the send-queue page on the API
 *    and on the baseline, then the token endpoint on the identity host and on the baseline, then a booking room's
 *    availability (a week, start times for an hour) and a priced booking preview on the API and on the baseline.
 * 6. Prints a Markdown table (target, req/s, p50, p99, non-2xx, ratios ours / baseline) and writes it to
 *    `tooling/scripts/bench-results.md`, the figures also to `bench-results.json`.
 *
 * Every wait is bounded; the child processes are stopped and the database dropped when the run ends, fails or is
 * interrupted (SIGINT/SIGTERM). Exits non-zero on failure, including any non-2xx answer or connection error.
 *
 * Environment: DATABASE_URL; BENCH_DURATION_SECONDS (1..120, default 10), BENCH_WARMUP_SECONDS (0..30, default 2),
 * BENCH_CONNECTIONS (1..100, default 10), BENCH_TOKEN_CLIENTS (default: see {@link tokenClientCount}),
 * BENCH_API_NODE_ARGS (extra node flags for the API process, e.g. for a CPU profile).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Config, Duration, Effect, Exit, Option } from "effect"
import { createPublicKey, verify, type JsonWebKey } from "node:crypto"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  benchPool,
  fillSendQueue,
  freshDatabase,
  insertTokenClients,
  parseServerUrl,
  readDemoGrant,
  type ClientCredentials
} from "./internal/BenchDatabase.js"
import {
  BenchFailure,
  firstStdoutLine,
  freePorts,
  hasExited,
  logTail,
  spawnNode,
  type RunningChild
} from "./internal/ChildProcesses.js"
import { measure, type LoadSettings, type Measurement } from "./internal/LoadRun.js"
import { jsonDocument, markdownDocument, markdownTable, type Comparison } from "./internal/Report.js"

const processStart = Date.now()
const HERE = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = resolve(HERE, "../../..")
const API_ENTRY = join(REPO_ROOT, "apps/api/dist/main.js")
const BASELINE_ENTRY = join(HERE, "internal/BaselineServer.js")
const RESULTS_MD = join(REPO_ROOT, "tooling/scripts/bench-results.md")
const RESULTS_JSON = join(REPO_ROOT, "tooling/scripts/bench-results.json")

/** Token requests per client the run may spend: the limit is 60 per 60 s; the margin keeps every client well under it. */
const PER_CLIENT_BUDGET = 50
/** A token rate no 2-core machine reaches with this stack; sizing the clients for it leaves a wide margin. */
const EXPECTED_MAX_TOKEN_RATE = 5_000
/** A full page (limit 50) needs 51 approved invoices; three pages' worth keeps the keyset query honest. */
const SEND_QUEUE_MIN_INVOICES = 150
/** The demo token lives 600 s; the send-queue runs that use it must end well before. */
const TOKEN_LIFETIME_BUDGET_MS = 400_000
/** Busier than this (share of all cores) in the second before a target, and the report says the machine wasn't idle. */
const BUSY_THRESHOLD = 0.15
/** The whole run, set-up and clean-up included, is bounded by this. */
const RUN_TIMEOUT = Duration.minutes(15)

/** Clients for the token benchmark: enough that none exceeds {@link PER_CLIENT_BUDGET} at the expected rate. */
const tokenClientCount = (settings: LoadSettings): number =>
  Math.max(2_000, Math.ceil(((settings.warmupSeconds + settings.durationSeconds) * EXPECTED_MAX_TOKEN_RATE) / PER_CLIENT_BUDGET))

const boundedInt = (name: string, fallback: number, min: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be an integer from ${min} to ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

const benchConfig = Config.all({
  databaseUrl: Config.string("DATABASE_URL").pipe(Config.withDefault("postgres://postgres@127.0.0.1:5432/postgres")),
  durationSeconds: boundedInt("BENCH_DURATION_SECONDS", 10, 1, 120),
  warmupSeconds: boundedInt("BENCH_WARMUP_SECONDS", 2, 0, 30),
  connections: boundedInt("BENCH_CONNECTIONS", 10, 1, 100),
  tokenClients: Config.option(boundedInt("BENCH_TOKEN_CLIENTS", 2_000, 100, 50_000))
}).pipe(Effect.mapError((error) => new BenchFailure({ message: `configuration: ${String(error)}` })))

const progress = (message: string) => Effect.sync(() => console.error(`[bench] ${message}`))

/** Resolves to the response when `fetch` answers 2xx within 5 s, undefined otherwise. */
const fetchOk = (url: string, init: RequestInit = {}): Promise<Response | undefined> =>
  fetch(url, { ...init, signal: AbortSignal.timeout(5_000) }).then(
    (response) => (response.ok ? response : response.body?.cancel().then(() => undefined)),
    () => undefined
  )

/** Polls `attempt` every 250 ms until it yields a value, the child exits, or `timeoutMs` passes. */
const poll = <A>(what: string, child: RunningChild, timeoutMs: number, attempt: () => Promise<A | undefined>) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (hasExited(child)) {
        return yield* new BenchFailure({
          message: `${child.name} exited (code ${child.process.exitCode}) while waiting for ${what}`
        })
      }
      const result = yield* Effect.promise(() => attempt().catch(() => undefined))
      if (result !== undefined) return result
      yield* Effect.sleep(Duration.millis(250))
    }
    return yield* new BenchFailure({ message: `${what} not ready within ${timeoutMs / 1000} s` })
  })

const attempt = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new BenchFailure({ message: `${what}: ${String(error)}` }) })

interface DemoCredentials {
  readonly client_id: string
  readonly client_secret: string
  readonly auth_url: string
  readonly base_url: string
}

const readCredentials = async (path: string): Promise<DemoCredentials | undefined> => {
  if (!existsSync(path)) return undefined
  const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<DemoCredentials>
  return typeof parsed.client_id === "string" &&
    typeof parsed.client_secret === "string" &&
    typeof parsed.auth_url === "string" &&
    typeof parsed.base_url === "string"
    ? (parsed as DemoCredentials)
    : undefined
}

/** RFC 6749 2.3.1: both parts form-urlencoded, then Base64. */
const basicAuthorization = (client: ClientCredentials): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString("base64")}`

const TOKEN_FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" } as const
const TOKEN_FORM_BODY = "grant_type=client_credentials"

const requestToken = (tokenUrl: string, client: ClientCredentials) =>
  attempt(`token from ${tokenUrl}`, async () => {
    const response = await fetch(tokenUrl, {
      method: "POST",
      headers: { ...TOKEN_FORM_HEADERS, authorization: basicAuthorization(client) },
      body: TOKEN_FORM_BODY,
      signal: AbortSignal.timeout(5_000)
    })
    const body = (await response.json()) as { access_token?: unknown }
    if (!response.ok || typeof body.access_token !== "string") {
      throw new Error(`HTTP ${response.status} ${JSON.stringify(body)}`)
    }
    return body.access_token
  })

const pageSize = (url: string, headers: Record<string, string>) =>
  attempt(`GET ${url}`, async () => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) })
    const text = await response.text()
    if (!response.ok) throw new Error(`HTTP ${response.status} ${text.slice(0, 500)}`)
    const body = JSON.parse(text) as { items?: unknown; nextCursor?: unknown }
    if (!Array.isArray(body.items)) throw new Error(`no items: ${text.slice(0, 500)}`)
    return { items: body.items.length, hasNext: typeof body.nextCursor === "string", bytes: Buffer.byteLength(text) }
  })

const jwtHeader = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8")) as Record<string, unknown>

/** Whether an ES256 JWT verifies with the public JWK. */
const verifiesWith = (token: string, publicJwk: JsonWebKey): boolean => {
  const [header, payload, signature] = token.split(".")
  if (header === undefined || payload === undefined || signature === undefined) return false
  return verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: publicJwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url")
  )
}

/** Round-robin over the clients' prepared headers; `issued` counts the headers handed out. */
const rotation = (clients: ReadonlyArray<ClientCredentials>) => {
  const headers = clients.map((client) => ({ authorization: basicAuthorization(client) }))
  let issued = 0
  return {
    next: () => headers[issued++ % headers.length] as { authorization: string },
    issued: () => issued
  }
}

/** A temporary directory for DATA_DIR and the children's logs; on failure their tails are shown, then it goes. */
const workDirectory = Effect.acquireRelease(
  attempt("temporary directory", () => mkdtemp(join(tmpdir(), "propline-bench-"))),
  (dir, exit) =>
    Effect.promise(async () => {
      if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) {
        for (const name of ["api.log", "baseline.log"]) {
          console.error(`--- last lines of ${name} ---\n${await logTail(join(dir, name))}`)
        }
      }
      await rm(dir, { recursive: true, force: true })
    })
)

const ensureRunning = (...children: ReadonlyArray<RunningChild>) =>
  Effect.forEach(children, (child) =>
    hasExited(child)
      ? Effect.fail(new BenchFailure({ message: `${child.name} exited (code ${child.process.exitCode})` }))
      : Effect.void
  )

const program = Effect.gen(function* () {
  const startedAt = new Date()
  const config = yield* benchConfig
  const settings: LoadSettings = {
    connections: config.connections,
    durationSeconds: config.durationSeconds,
    warmupSeconds: config.warmupSeconds,
    pipelining: 1
  }
  const clientCount = config.tokenClients._tag === "Some" ? config.tokenClients.value : tokenClientCount(settings)
  const serverUrl = yield* parseServerUrl(config.databaseUrl)
  if (!existsSync(API_ENTRY)) {
    return yield* new BenchFailure({
      message: `${API_ENTRY} is missing: build the product first (pnpm turbo run build --filter=@propline/api)`
    })
  }

  const database = yield* freshDatabase(serverUrl)
  yield* progress(`created database ${database.name}`)
  const dir = yield* workDirectory
  const [apiPort, authPort] = yield* attempt("free ports", () => freePorts(2))
  const baseUrl = `http://127.0.0.1:${apiPort}`
  const authUrl = `http://127.0.0.1:${authPort}`
  const dataDir = join(dir, "data")

  const api = yield* spawnNode({
    name: "api",
    // BENCH_API_NODE_ARGS: extra node flags for the API process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    args: [...(process.env["BENCH_API_NODE_ARGS"] ?? "").split(" ").filter((arg) => arg.length > 0), API_ENTRY],
    env: {
      API_PORT: String(apiPort),
      AUTH_PORT: String(authPort),
      BASE_URL: baseUrl,
      AUTH_URL: authUrl,
      // The benchmark measures the API and identity hosts; the admin console would only take a port.
      HOSTS: "api,auth",
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      DEMO_DATA: "true"
    },
    cwd: REPO_ROOT,
    logPath: join(dir, "api.log")
  })
  yield* progress(`started the product (pid ${api.process.pid}) on ${baseUrl} and ${authUrl}`)
  const credentials = yield* poll("demo-credentials.json", api, 120_000, () =>
    readCredentials(join(dataDir, "demo-credentials.json"))
  )
  if (credentials.base_url !== baseUrl || credentials.auth_url !== authUrl) {
    return yield* new BenchFailure({
      message: `demo-credentials.json names ${credentials.base_url} and ${credentials.auth_url}, not ${baseUrl} and ${authUrl}`
    })
  }
  yield* poll("identity host", api, 30_000, () => fetchOk(`${authUrl}/.well-known/jwks.json`))
  yield* poll("API host", api, 30_000, () => fetchOk(`${baseUrl}/openapi.json`))
  yield* progress("the product is up")

  const pool = yield* benchPool(database.url)
  const postgresVersion = yield* attempt("server version", () =>
    pool.query<{ server_version: string }>("show server_version").then(({ rows }) => rows[0]?.server_version ?? "?")
  )
  const grant = yield* attempt("demo Application", () => readDemoGrant(pool, credentials.client_id))
  const approvedInvoices = yield* attempt("send-queue fixture", () =>
    fillSendQueue(pool, grant.organizationId, SEND_QUEUE_MIN_INVOICES)
  )
  const clients = yield* attempt("token clients", () => insertTokenClients(pool, grant, clientCount))
  yield* attempt("analyze", () => pool.query("analyze")) // fresh statistics for the planner, for both targets
  yield* progress(`${approvedInvoices} approved invoices in the send queue; ${clients.length} token clients inserted`)

  const baseline = yield* spawnNode({
    name: "baseline",
    args: ["--enable-source-maps", BASELINE_ENTRY],
    env: {
      DATABASE_URL: database.url,
      ORGANIZATION_ID: grant.organizationId,
      GRANTED_CONTEXT_IDS: JSON.stringify(grant.contextIds),
      APPLICATION_ID: grant.applicationId,
      ISSUER: authUrl,
      AUDIENCE: baseUrl,
      POOL_MAX: "10"
    },
    cwd: REPO_ROOT,
    logPath: join(dir, "baseline.log"),
    pipeStdout: true
  })
  const announced = JSON.parse(yield* firstStdoutLine(baseline, 15_000)) as { port: number; publicJwk: JsonWebKey }
  const baselineUrl = `http://127.0.0.1:${announced.port}`
  yield* progress(`started the baseline (pid ${baseline.process.pid}) on ${baselineUrl}`)

  // Sanity: both send-queue targets answer the same page; both token targets issue ES256 tokens.
  const demoToken = yield* requestToken(`${authUrl}/oauth/token`, {
    clientId: credentials.client_id,
    secret: credentials.client_secret
  })
  const demoTokenAt = Date.now()
  const bearer = { authorization: `Bearer ${demoToken}` }
  const sendQueuePath = "send-queue?limit=50"
  const apiPage = yield* pageSize(`${baseUrl}/v1/billing/${sendQueuePath}`, bearer)
  const baselinePage = yield* pageSize(`${baselineUrl}/${sendQueuePath}`, {})
  if (apiPage.items !== baselinePage.items || apiPage.hasNext !== baselinePage.hasNext) {
    return yield* new BenchFailure({
      message: `the send-queue pages differ: API ${JSON.stringify(apiPage)}, baseline ${JSON.stringify(baselinePage)}`
    })
  }
  const baselineToken = yield* requestToken(`${baselineUrl}/oauth/token`, clients[0] as ClientCredentials)
  if (!verifiesWith(baselineToken, announced.publicJwk) || jwtHeader(demoToken)["alg"] !== "ES256") {
    return yield* new BenchFailure({ message: "the tokens are not both ES256 (or the baseline's does not verify)" })
  }
  yield* progress(
    `send-queue page: ${apiPage.items} items (${apiPage.bytes} bytes from the API, ${baselinePage.bytes} from the baseline)`
  )

  const measureOne = (name: string, target: Parameters<typeof measure>[1]) =>
    Effect.gen(function* () {
      yield* ensureRunning(api, baseline)
      yield* progress(`measuring ${name}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured`)
      const result = yield* measure(name, target, settings)
      yield* progress(
        `${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx} (CPU busy before: ${(result.busyBefore * 100).toFixed(0)}%)`
      )
      return result
    })

  const sendQueueOurs = yield* measureOne("send-queue: API", {
    url: `${baseUrl}/v1/billing/${sendQueuePath}`,
    method: "GET",
    headers: bearer
  })
  const sendQueueBaseline = yield* measureOne("send-queue: baseline", {
    url: `${baselineUrl}/${sendQueuePath}`,
    method: "GET"
  })
  if (Date.now() - demoTokenAt > TOKEN_LIFETIME_BUDGET_MS) {
    return yield* new BenchFailure({ message: "the send-queue runs outlasted the demo token's budget" })
  }

  const apiClients = rotation(clients)
  const tokenOurs = yield* measureOne("token: API", {
    url: `${authUrl}/oauth/token`,
    method: "POST",
    headers: TOKEN_FORM_HEADERS,
    body: TOKEN_FORM_BODY,
    nextHeaders: apiClients.next
  })
  const tokenBaseline = yield* measureOne("token: baseline", {
    url: `${baselineUrl}/oauth/token`,
    method: "POST",
    headers: TOKEN_FORM_HEADERS,
    body: TOKEN_FORM_BODY,
    nextHeaders: rotation(clients).next
  })
  // Booking: a week of a demo room's free time with start times for an hour, and a priced preview of one of them.
  const bookingToken = yield* requestToken(`${authUrl}/oauth/token`, {
    clientId: credentials.client_id,
    secret: credentials.client_secret
  })
  const bookingBearer = { authorization: `Bearer ${bookingToken}` }
  const room = yield* attempt("a demo room", async () => {
    const response = await fetch(`${baseUrl}/v1/booking/resources`, { headers: bookingBearer })
    const body = (await response.json()) as { items: Array<{ id: string; kind: string; pricing: string }> }
    const found = body.items.find((r) => r.kind === "room" && r.pricing === "time")
    if (found === undefined) throw new Error("the demo Application sells no room priced by time")
    return found.id
  })
  const windowFrom = new Date(Math.ceil((Date.now() + 2 * 86_400_000) / 3_600_000) * 3_600_000)
  const windowQuery = `from=${windowFrom.toISOString()}&to=${new Date(windowFrom.getTime() + 7 * 86_400_000).toISOString()}&durationMinutes=60`
  const availabilityUrl = `${baseUrl}/v1/booking/resources/${room}/availability?${windowQuery}`
  const baselineAvailabilityUrl = `${baselineUrl}/availability?resourceId=${room}&${windowQuery}`
  const starts = yield* attempt("availability", async () => {
    const [ours, base] = await Promise.all([
      fetch(availabilityUrl, { headers: bookingBearer }).then((r) => r.json() as Promise<{ startTimes: Array<string> }>),
      fetch(baselineAvailabilityUrl).then((r) => r.json() as Promise<{ startTimes: Array<string> }>)
    ])
    if (ours.startTimes.length === 0 || ours.startTimes.length !== base.startTimes.length) {
      throw new Error(`start times differ: API ${ours.startTimes.length}, baseline ${base.startTimes.length}`)
    }
    return ours.startTimes
  })
  const previewBody = JSON.stringify({
    resourceId: room,
    period: { start: starts[0], end: new Date(Date.parse(starts[0] as string) + 3_600_000).toISOString() }
  })
  const jsonHeaders = { "content-type": "application/json" }
  const availabilityOurs = yield* measureOne("availability: API", { url: availabilityUrl, method: "GET", headers: bookingBearer })
  const availabilityBaseline = yield* measureOne("availability: baseline", { url: baselineAvailabilityUrl, method: "GET" })
  const previewOurs = yield* measureOne("preview: API", {
    url: `${baseUrl}/v1/booking/booking-requests/preview`,
    method: "POST",
    headers: { ...bookingBearer, ...jsonHeaders },
    body: previewBody
  })
  const previewBaseline = yield* measureOne("preview: baseline", {
    url: `${baselineUrl}/preview`,
    method: "POST",
    headers: jsonHeaders,
    body: previewBody
  })

  const rateWindows = yield* attempt("token_rate_windows", () =>
    pool
      .query<{ max: number | null; rows: string }>(
        "select max(request_count)::int as max, count(*) as rows from token_rate_windows"
      )
      .then(({ rows }) => ({ maxPerWindow: rows[0]?.max ?? 0, rows: Number(rows[0]?.rows ?? 0) }))
  )

  const comparisons: ReadonlyArray<Comparison> = [
    { operation: "send-queue", ours: sendQueueOurs, baseline: sendQueueBaseline },
    { operation: "token", ours: tokenOurs, baseline: tokenBaseline },
    { operation: "availability", ours: availabilityOurs, baseline: availabilityBaseline },
    { operation: "preview", ours: previewOurs, baseline: previewBaseline }
  ]
  const cpu = cpus()
  const cores = availableParallelism()
  const measurements = comparisons.flatMap(({ ours, baseline: base }) => [ours, base])
  const busy = measurements.some((m) => m.busyBefore > BUSY_THRESHOLD)
  const info = {
    startedAt,
    wallSeconds: (Date.now() - startedAt.getTime()) / 1000,
    settings,
    machine: `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cores} cores available, ${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.versions.node,
    postgres: postgresVersion,
    notes: [
      `send-queue: API = \`GET {base_url}/v1/billing/send-queue?limit=50\` with a demo token (token verification, then the integration check, the visible-contexts CTE and the page query). Baseline = a plain node:http process with a pg.Pool of 10 (the API's pool size) running the same three SQL statements, rows serialized with JSON.stringify, no token verification. Page: ${apiPage.items} invoices with a next cursor; the demo's approved invoices were copied to ${approvedInvoices} so a full page exists.`,
      `token: API = \`POST {auth_url}/oauth/token\`, client_credentials with HTTP Basic, rotating over ${clients.length} extra Applications inserted for the run (the endpoint allows 60 requests per 60 s per client; ${apiClients.issued()} requests were prepared, at most ${Math.ceil(apiClients.issued() / clients.length)} per client; the highest count in one one-second rate bucket was ${rateWindows.maxPerWindow}). Baseline = a plain node:http process: parse Basic, one SELECT of the Application, its active secret digests and granted contexts by client_id, SHA-256 compared in constant time, the same claims signed ES256 with node:crypto. After authenticating, the baseline runs the same rate-limit statement as the API (bucket upsert, stale-bucket delete, \`last_used_at\`), so the ratio measures everything else.`,
      `availability: API = \`GET {base_url}/v1/booking/resources/{room}/availability\` for a week with \`durationMinutes=60\` (${starts.length} start times), preview: API = \`POST {base_url}/v1/booking/booking-requests/preview\` of one hour of the demo room, each with a demo token. Baseline = the same plain node:http process running the same SQL (the sellable resource with its rules through the visible-contexts CTE and the Application's grant, offered add-ons, live bookings) and the same pure functions of @propline/booking, no token verification.`,
      "Non-2xx must be 0 for the run to pass (a 429 would mean the client rotation failed).",
      `CPU busy in the idle second before each target (other processes): ${measurements.map((m) => `${m.target} ${(m.busyBefore * 100).toFixed(0)}%`).join(", ")}${busy ? " -- the machine was not idle, so these figures are noisy; rerun on an idle machine" : ""}.`
    ]
  }
  const table = markdownTable(comparisons)
  yield* attempt("results", async () => {
    await writeFile(RESULTS_MD, markdownDocument(comparisons, info))
    await writeFile(RESULTS_JSON, jsonDocument(comparisons, info))
  })
  yield* Effect.sync(() => {
    console.log(table)
    console.log("")
    for (const { ours, baseline: base } of comparisons) {
      for (const m of [ours, base]) {
        console.log(
          `${m.target}: ${m.totalRequests} requests, status codes ${JSON.stringify(m.statusCodes)}, non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}, warm-up failures ${m.warmupFailures}, CPU busy before ${(m.busyBefore * 100).toFixed(0)}%`
        )
      }
    }
    console.log(`token clients: ${clients.length}; highest request count in one one-second rate bucket: ${rateWindows.maxPerWindow} (limit 60)`)
    console.log(`machine: ${info.machine}; the load generator shares these cores with the servers and PostgreSQL`)
    if (busy) console.log(`warning: over ${BUSY_THRESHOLD * 100}% CPU busy before a target: the machine was not idle, figures are noisy`)
    console.log(`wrote ${RESULTS_MD} and ${RESULTS_JSON}`)
  })
  const failed = measurements.filter((m: Measurement) => m.non2xx > 0 || m.errors > 0 || m.warmupFailures > 0)
  if (failed.length > 0) {
    return yield* new BenchFailure({
      message: `non-2xx answers or connection errors: ${failed.map((m) => `${m.target} (${m.non2xx} non-2xx, ${m.errors} errors, ${m.warmupFailures} in warm-up)`).join("; ")}`
    })
  }
  return info.wallSeconds
})

program.pipe(
  Effect.scoped,
  Effect.timeoutFail({ duration: RUN_TIMEOUT, onTimeout: () => new BenchFailure({ message: "the run took too long" }) }),
  Effect.onExit((exit) =>
    Effect.sync(() => {
      const seconds = ((Date.now() - processStart) / 1000).toFixed(0)
      if (Exit.isSuccess(exit)) console.error(`[bench] done in ${seconds} s, clean-up included`)
      else if (Cause.isInterruptedOnly(exit.cause)) console.error(`[bench] interrupted after ${seconds} s; cleaned up`)
      else {
        const failure = Cause.failureOption(exit.cause)
        console.error(
          Option.isSome(failure)
            ? `[bench] failed after ${seconds} s: ${failure.value.message}`
            : `[bench] failed after ${seconds} s:\n${Cause.pretty(exit.cause)}`
        )
      }
    })
  ),
  // Nothing should keep the process alive after the scope closed; if something does, this unref'd timer ends it.
  Effect.ensuring(Effect.sync(() => setTimeout(() => process.exit(process.exitCode ?? 0), 5_000).unref())),
  (effect) =>
    NodeRuntime.runMain(effect, {
      disableErrorReporting: true,
      // 130 after SIGINT/SIGTERM (the shell's convention), 1 after a failure.
      teardown: (exit, onExit) =>
        onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
    })
)
