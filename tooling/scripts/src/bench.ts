/**
 * `pnpm bench`: measures the product's hot paths against same-work baselines in one run, interleaved, and reports
 * the ratios (performance is benchmarked here, never asserted in tests).
 *
 * Paths (`BENCH_TARGETS`, comma-separated, default all):
 * - `token`: `POST {auth_url}/oauth/token`, client_credentials with HTTP Basic, rotating over many Applications
 *   (the endpoint allows 60 requests per 60 s per client, spec 8).
 * - `installation-token`: the installation-token grant (spec 5.3) with a fresh client assertion per request,
 *   rotating over copies of the demo connector (the grant allows 60 requests per 60 s per app).
 * - `send-queue`: `GET /v1/billing/send-queue?limit=50`, the first page, with `BENCH_INVOICES` approved invoices
 *   (default 1,000,000) in the queue.
 * - `send-queue-deep`: the same, with the cursor of the page `BENCH_DEEP_ROWS` rows deep (default half the queue).
 * - `pass`: `POST /v1/billing/invoice-proposals/{id}/pass`, every request on a different proposal (seeded in bulk).
 * - `report-payment`: `POST /v1/billing/invoices/{id}/report-payment`, every request a distinct payment (its own
 *   paymentId) of 1.00, rotating over `BENCH_PAYABLE_INVOICES` sent invoices (default 10,000, seeded in bulk).
 * - `availability` and `preview`: a booking room's free time for a week (start times for an hour) and a priced
 *   preview of one hour of it.
 * The RSS of the product's process is sampled under every load.
 *
 * 1. Creates a fresh database `bench_<timestamp>` on the PostgreSQL server `DATABASE_URL` names (default
 *    postgres://postgres@127.0.0.1:5432/postgres; loopback only).
 * 2. Starts the product as `pnpm start` does (`node <the start script's flags> apps/api/dist/start.js`, flags and
 *    entry read from the script; built beforehand) on free ports of 127.0.0.1 with demo data, and waits for DATA_DIR/demo-credentials.json, the
 *    identity host's JWKS and the API host's OpenAPI document.
 * 3. Adds what the selected paths need with pg (`internal/BenchDatabase.ts`): approved invoices, proposals, token
 *    clients; then `vacuum analyze`.
 * 4. Starts the baseline server (`internal/BaselineServer.ts`) and the conventional peer (`bench-peer/PeerServer.ts`:
 *    Fastify 5 + jose + kysely, issue 27), each its own process with the heap probe (`internal/HeapProbe.ts`) like
 *    the product, and checks that all three answer alike (same pages, a 201 pass, verifiable ES256 tokens).
 * 5. `BENCH_ROUNDS` rounds: in each, every path is measured on the product, the peer and the baseline, one after the
 *    other, the order rotating by round (so drift of the machine falls on all alike); the heap probe's window covers
 *    each side's measured run.
 * 6. Prints a Markdown table (per path: req/s, latencies, ours / baseline, the issue's threshold and whether it
 *    holds) and writes it to `tooling/scripts/bench-results.md` (with the rounds), the figures also to
 *    `bench-results.json`; when every path ran, also into `docs/performance.md` between its markers (unless
 *    `BENCH_README=false`, a name from when the table was in the README).
 *
 * Every wait is bounded; the child processes are stopped and the database dropped when the run ends, fails or is
 * interrupted (SIGINT/SIGTERM). Exits non-zero on failure, including any non-2xx answer or connection error. A
 * missed threshold is reported, not a failure.
 *
 * Environment: DATABASE_URL; BENCH_TARGETS; BENCH_ROUNDS (1..10, default 3); BENCH_DURATION_SECONDS (1..120,
 * default 10); BENCH_PAYABLE_INVOICES (100..1,000,000, default 10,000); BENCH_WARMUP_SECONDS (0..30, default 2); BENCH_CONNECTIONS (1..100, default 10); BENCH_INVOICES;
 * BENCH_HEAP_PROFILE_DIR (a directory for the API's sampling heap profiles, one per measured side: where its
 * allocations come from); BENCH_DEEP_ROWS; BENCH_PASS_PROPOSALS (default: enough for every round at {@link EXPECTED_MAX_PASS_RATE});
 * BENCH_TOKEN_CLIENTS (default: see {@link tokenClientCount}); BENCH_README; BENCH_TELEMETRY (`true`: the product exports
 * its spans and metrics to a local OTLP receiver; the results are not written to docs/performance.md); BENCH_API_ROOT (another checkout whose built
 * product is measured, with its start script's flags and entry: a before/after pair of runs, with BENCH_README=false
 * so that the earlier build's figures stay out of docs/performance.md); BENCH_KEEP_LOGS (`true` keeps the run's
 * directory with the children's logs); BENCH_API_NODE_ARGS (extra node flags
 * for the API process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`); BENCH_PEER_NODE_ARGS and BENCH_BASELINE_NODE_ARGS (the same
 * for the conventional peer and the plain baseline, to profile them beside the product).
 */
import { NodeRuntime } from "@effect/platform-node"
import { freePorts } from "@propline/db/FreePort"
import { Cause, Config, Duration, Effect, Exit, Option } from "effect"
import { createPublicKey, randomBytes, verify, type JsonWebKey } from "node:crypto"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { type AssertionMinter, type ConnectorCredentials, createAssertionMinter } from "./InstallationAssertion.js"
import {
  benchPool,
  freshDatabase,
  insertConnectorInstallations,
  insertTokenClients,
  parseServerUrl,
  readDemoGrant,
  seedProposals,
  seedSendQueue,
  seedSentInvoices,
  type PayableInvoice,
  sendQueuePosition,
  visibleContextIds,
  type ClientCredentials
} from "./internal/BenchDatabase.js"
import {
  BenchFailure,
  firstStdoutLine,
  hasExited,
  logTail,
  spawnNode,
  type RunningChild
} from "./internal/ChildProcesses.js"
import { measure, type LoadSettings, type LoadTarget, type Measurement } from "./internal/LoadRun.js"
import { sampledWhile, type UsageFigures } from "./internal/ProcessUsage.js"
import { heapProbeArgs, probedWhile, type HeapWindow } from "./internal/HeapFigures.js"
import { writeResultsSection } from "./internal/ResultsSection.js"
import {
  jsonDocument,
  markdownDocument,
  markdownTable,
  method,
  verdicts,
  type Comparison,
  type Requirement,
  type Side
} from "./internal/Report.js"

/** Extra node flags for a measured process from the variable `name` (space-separated, e.g. `--cpu-prof`). */
const extraNodeArgs = (name: string): Array<string> =>
  (process.env[name] ?? "").split(" ").filter((arg) => arg.length > 0)

const processStart = Date.now()
const HERE = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = resolve(HERE, "../../..")
/**
 * The checkout whose built product is measured (`BENCH_API_ROOT`, default this one): another build of the product,
 * e.g. an earlier commit's worktree, measured by this benchmark, as a before/after pair of runs.
 */
const PRODUCT_ROOT = resolve(process.env["BENCH_API_ROOT"] ?? REPO_ROOT)
const BASELINE_ENTRY = join(HERE, "internal/BaselineServer.js")
const PEER_ENTRY = join(HERE, "bench-peer/PeerServer.js")
const ROOT_PACKAGE = join(PRODUCT_ROOT, "package.json")
const RESULTS_MD = join(REPO_ROOT, "tooling/scripts/bench-results.md")
const RESULTS_JSON = join(REPO_ROOT, "tooling/scripts/bench-results.json")
const PERFORMANCE_PAGE = join(REPO_ROOT, "docs/performance.md")

/** Every path the benchmark knows, in the order a round measures them. */
export const TARGETS = [
  "token",
  "installation-token",
  "send-queue",
  "send-queue-deep",
  "pass",
  "report-payment",
  "availability",
  "preview"
] as const
export type Target = (typeof TARGETS)[number]

/**
 * Issue 27's thresholds: ours at least the conventional peer (req/s and CPU per request) and at least 0.7 of the
 * plain baseline's req/s.
 */
const AGAINST_PEER_AND_LIMIT: Requirement = { peer: 1.0, baseline: 0.7 }
const REQUIREMENTS: Readonly<Record<Target, Requirement | undefined>> = {
  token: AGAINST_PEER_AND_LIMIT,
  "installation-token": undefined,
  "send-queue": AGAINST_PEER_AND_LIMIT,
  "send-queue-deep": undefined,
  pass: AGAINST_PEER_AND_LIMIT,
  "report-payment": AGAINST_PEER_AND_LIMIT,
  availability: undefined,
  preview: undefined
}

/** Token requests per client the run may spend in any 60 s: the limit is 60; the margin keeps every client under it. */
const PER_CLIENT_BUDGET = 50
/** A token rate no 2-core machine reaches with this stack; sizing the clients for it leaves a wide margin. */
const EXPECTED_MAX_TOKEN_RATE = 5_000
/** A pass rate no 2-core machine reaches (each pass is five round trips in one transaction). */
const EXPECTED_MAX_PASS_RATE = 1_500
/** The send queue's size in the issue: a million approved invoices. */
const DEFAULT_INVOICES = 1_000_000
/** Busier than this (share of all cores) in the second before a target, and the report says the machine wasn't idle. */
const BUSY_THRESHOLD = 0.15
/** Seconds a run may spend beyond its measurements (start-up, seeding, clean-up). */
const SETUP_BUDGET_SECONDS = 15 * 60

/**
 * Clients for the token benchmark: enough that none exceeds {@link PER_CLIENT_BUDGET} in any 60 s at the expected
 * rate, the baseline's requests included (they are counted in the same table).
 */
const tokenClientCount = (): number => Math.ceil((60 * EXPECTED_MAX_TOKEN_RATE) / PER_CLIENT_BUDGET)

const integerIn = (name: string, min: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be an integer from ${min} to ${max}`, validation: (n) => n >= min && n <= max })
  )

const boundedInt = (name: string, fallback: number, min: number, max: number) =>
  integerIn(name, min, max).pipe(Config.withDefault(fallback))

const targetList = Config.string("BENCH_TARGETS").pipe(
  Config.withDefault(TARGETS.join(",")),
  Config.map((text) => text.split(",").map((name) => name.trim()).filter((name) => name.length > 0)),
  Config.validate({
    message: `BENCH_TARGETS must name some of ${TARGETS.join(", ")}`,
    validation: (names) => names.length > 0 && names.every((name) => (TARGETS as ReadonlyArray<string>).includes(name))
  }),
  Config.map((names) => TARGETS.filter((target) => names.includes(target)))
)

const benchConfig = Config.all({
  databaseUrl: Config.string("DATABASE_URL").pipe(Config.withDefault("postgres://postgres@127.0.0.1:5432/postgres")),
  targets: targetList,
  rounds: boundedInt("BENCH_ROUNDS", 3, 1, 10),
  durationSeconds: boundedInt("BENCH_DURATION_SECONDS", 10, 1, 120),
  warmupSeconds: boundedInt("BENCH_WARMUP_SECONDS", 2, 0, 30),
  connections: boundedInt("BENCH_CONNECTIONS", 10, 1, 100),
  invoices: boundedInt("BENCH_INVOICES", DEFAULT_INVOICES, 200, 5_000_000),
  deepRows: Config.option(integerIn("BENCH_DEEP_ROWS", 100, 4_999_000)),
  payableInvoices: boundedInt("BENCH_PAYABLE_INVOICES", 10_000, 100, 1_000_000),
  passProposals: Config.option(integerIn("BENCH_PASS_PROPOSALS", 10, 2_000_000)),
  tokenClients: Config.option(integerIn("BENCH_TOKEN_CLIENTS", 100, 50_000)),
  readme: Config.boolean("BENCH_README").pipe(Config.withDefault(true)),
  telemetry: Config.boolean("BENCH_TELEMETRY").pipe(Config.withDefault(false))
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
const JSON_HEADERS = { "content-type": "application/json" } as const

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

interface PageSummary {
  readonly items: number
  readonly ids: ReadonlyArray<string>
  readonly hasNext: boolean
  readonly bytes: number
}

const getPage = (url: string, headers: Record<string, string>) =>
  attempt(`GET ${url}`, async (): Promise<PageSummary> => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) })
    const text = await response.text()
    if (!response.ok) throw new Error(`HTTP ${response.status} ${text.slice(0, 500)}`)
    const body = JSON.parse(text) as { items?: unknown; nextCursor?: unknown }
    if (!Array.isArray(body.items)) throw new Error(`no items: ${text.slice(0, 500)}`)
    const ids = (body.items as Array<{ id?: unknown }>).map((item) => String(item.id))
    return { items: ids.length, ids, hasNext: typeof body.nextCursor === "string", bytes: Buffer.byteLength(text) }
  })

const postJson = (url: string, headers: Record<string, string>, body: string, expectedStatus = 201) =>
  attempt(`POST ${url}`, async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...headers },
      body,
      signal: AbortSignal.timeout(30_000)
    })
    const text = await response.text()
    if (response.status !== expectedStatus) throw new Error(`HTTP ${response.status} ${text.slice(0, 500)}`)
    return text
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
    next: () => ({ headers: headers[issued++ % headers.length]! }),
    issued: () => issued
  }
}

/**
 * Hands out each proposal once, to whichever side asks next, with a fresh externalReference. Past the last one it
 * repeats it (those requests fail and the run reports them) and counts the shortfall.
 */
const proposalQueue = (ids: ReadonlyArray<string>) => {
  let taken = 0
  let shortfall = 0
  const take = () => {
    if (taken >= ids.length) shortfall++
    const n = taken++
    return { id: ids[Math.min(n, ids.length - 1)]!, body: JSON.stringify({ externalReference: `BENCH-${n}` }) }
  }
  return { take, taken: () => Math.min(taken, ids.length), shortfall: () => shortfall }
}

/**
 * Hands out distinct payments of 1.00 (100 minor units) in each invoice's currency, to whichever side asks next:
 * payment `n` goes to invoice `n mod count` with paymentId `BENCH-PAY-<n>`, so no two requests carry one payment
 * and each invoice's ledger grows alike on both sides.
 */
const paymentQueue = (invoices: ReadonlyArray<PayableInvoice>, paidOn: string) => {
  let taken = 0
  const take = () => {
    const n = taken++
    const invoice = invoices[n % invoices.length]!
    return {
      id: invoice.id,
      body: JSON.stringify({ paymentId: `BENCH-PAY-${n}`, amountMinorUnits: 100, paidOn, currency: invoice.currency })
    }
  }
  return { take, taken: () => taken }
}

/**
 * The API's send-queue cursor (`platform/CursorPage.ts`: base64url of `{k, t, i}`, `t` in UTC with microseconds),
 * for a position read from the database.
 */
const sendQueueCursor = (position: { readonly at: string; readonly id: string }): string =>
  Buffer.from(JSON.stringify({ k: "send-queue", t: position.at, i: position.id })).toString("base64url")

/**
 * With BENCH_TELEMETRY=true, a local OTLP/HTTP receiver for the product's telemetry (issue 23, "Must hold": a row for
 * telemetry on): it answers every export 200 and counts them and their bytes, as a collector on the same machine
 * would take them. Closed when the scope closes.
 */
const otlpSink = Effect.acquireRelease(
  attempt("the OTLP receiver", async () => {
    const { createServer } = await import("node:http")
    const received = { exports: 0, bytes: 0 }
    const server = createServer((request, response) => {
      request.on("data", (chunk: Buffer) => (received.bytes += chunk.length))
      request.on("end", () => {
        received.exports++
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return { endpoint: `http://127.0.0.1:${port}`, received, server }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

/** A temporary directory for DATA_DIR and the children's logs; on failure their tails are shown, then it goes. */
const workDirectory = Effect.acquireRelease(
  attempt("temporary directory", () => mkdtemp(join(tmpdir(), "propline-bench-"))),
  (dir, exit) =>
    Effect.promise(async () => {
      if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) {
        for (const name of ["api.log", "peer.log", "baseline.log"]) {
          console.error(`--- last lines of ${name} ---\n${await logTail(join(dir, name))}`)
        }
      }
      if (process.env["BENCH_KEEP_LOGS"] === "true") {
        console.error(`kept the run's directory (DATA_DIR and the children's logs): ${dir}`)
      } else {
        await rm(dir, { recursive: true, force: true })
      }
    })
)

const ensureRunning = (...children: ReadonlyArray<RunningChild>) =>
  Effect.forEach(children, (child) =>
    hasExited(child)
      ? Effect.fail(new BenchFailure({ message: `${child.name} exited (code ${child.process.exitCode})` }))
      : Effect.void
  )

/**
 * How `pnpm start` runs the product (the root package.json's `start` script: `… && node <flags> apps/api/dist/<entry>.js`,
 * e.g. `apps/api/dist/start.js`, or `main.js` in a checkout from before issue 27's start shim), so the benchmark
 * measures the product as it is started, memory bound and source-map setting included: the node flags, and the
 * entry's absolute path in the measured checkout.
 */
const productStart = attempt("the start script's node flags and entry", async () => {
  const manifest = JSON.parse(await readFile(ROOT_PACKAGE, "utf8")) as { scripts?: Record<string, string> }
  const match = /(?:^|&&)\s*node((?:\s+--\S+)*)\s+(apps\/api\/dist\/[\w./-]+\.js)\s*$/.exec(manifest.scripts?.["start"] ?? "")
  if (match === null) throw new Error("the start script does not end with `node [--flags] apps/api/dist/<entry>.js`")
  return {
    flags: (match[1] ?? "").split(/\s+/).filter((flag) => flag.length > 0),
    entry: join(PRODUCT_ROOT, match[2] ?? "")
  }
})

/**
 * How one path is loaded on each side; `ours` and `peer` are built per round (they may need a fresh token). The
 * peer serves the product's paths, so its target is the product's with the peer's origin.
 */
interface TargetPlan {
  readonly target: Target
  readonly label: string
  readonly ours: Effect.Effect<LoadTarget, BenchFailure>
  readonly peer: Effect.Effect<LoadTarget, BenchFailure>
  readonly baseline: LoadTarget
}

/** The product's target sent to another origin (the peer's): same path, headers, body and variations. */
const onOrigin = (origin: string) => (target: LoadTarget): LoadTarget => {
  const url = new URL(target.url)
  return { ...target, url: `${origin}${url.pathname}${url.search}` }
}

const program = Effect.gen(function* () {
  const startedAt = new Date()
  const config = yield* benchConfig
  const selected = new Set<Target>(config.targets)
  const settings: LoadSettings = {
    connections: config.connections,
    durationSeconds: config.durationSeconds,
    warmupSeconds: config.warmupSeconds,
    pipelining: 1
  }
  const sideSeconds = settings.warmupSeconds + settings.durationSeconds
  const serverUrl = yield* parseServerUrl(config.databaseUrl)
  const deepRows = Option.getOrElse(config.deepRows, () => Math.floor(config.invoices / 2))
  if ((selected.has("send-queue-deep") || selected.has("send-queue")) && deepRows + 51 > config.invoices) {
    return yield* new BenchFailure({ message: "BENCH_DEEP_ROWS must leave a full page after it (BENCH_INVOICES - 51 at most)" })
  }
  const start = yield* productStart
  if (!existsSync(start.entry)) {
    return yield* new BenchFailure({
      message: `${start.entry} is missing: build the product first (pnpm turbo run build --filter=@propline/api)`
    })
  }

  const database = yield* freshDatabase(serverUrl)
  yield* progress(`created database ${database.name}; paths: ${config.targets.join(", ")}; ${config.rounds} rounds`)
  const dir = yield* workDirectory
  const [apiPort, authPort] = yield* attempt("free ports", () => freePorts(2))
  const baseUrl = `http://127.0.0.1:${apiPort}`
  const authUrl = `http://127.0.0.1:${authPort}`
  const dataDir = join(dir, "data")

  const sink = config.telemetry ? yield* otlpSink : undefined
  const api = yield* spawnNode({
    name: "api",
    args: [
      ...extraNodeArgs("BENCH_API_NODE_ARGS"),
      ...heapProbeArgs(),
      ...start.flags,
      start.entry
    ],
    env: {
      API_PORT: String(apiPort),
      AUTH_PORT: String(authPort),
      BASE_URL: baseUrl,
      AUTH_URL: authUrl,
      // The benchmark measures the API and identity hosts; the admin console would only take a port.
      HOSTS: "api,auth",
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      // The product seals its signing keys under this (required with DATABASE_URL); a fresh database each run.
      KEY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString("base64url")}`,
      DATA_DIR: dataDir,
      DEMO_DATA: "true",
      HEAP_PROBE_FILE: join(dir, "heap-api.jsonl"),
      HEAP_PROBE_PROFILE_DIR: process.env["BENCH_HEAP_PROFILE_DIR"] ?? "",
      // Telemetry on: spans and metrics exported over OTLP/HTTP (protobuf) to the local receiver, every 5 s.
      ...(sink === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint })
    },
    cwd: PRODUCT_ROOT,
    logPath: join(dir, "api.log")
  })
  yield* progress(`started the product (pid ${api.process.pid}, node ${[...start.flags, relative(PRODUCT_ROOT, start.entry)].join(" ")}) on ${baseUrl} and ${authUrl}`)
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

  const demoClient: ClientCredentials = { clientId: credentials.client_id, secret: credentials.client_secret }
  /** A fresh demo token: the demo token lives 600 s and a run lasts longer, so each round asks for one. */
  const demoBearer = Effect.map(requestToken(`${authUrl}/oauth/token`, demoClient), (token) => ({
    authorization: `Bearer ${token}`
  }))
  const bearer = yield* demoBearer

  const pool = yield* benchPool(database.url)
  const postgresVersion = yield* attempt("server version", () =>
    pool.query<{ server_version: string }>("show server_version").then(({ rows }) => rows[0]?.server_version ?? "?")
  )
  const grant = yield* attempt("demo Application", () => readDemoGrant(pool, credentials.client_id))
  const visible = yield* attempt("visible contexts", () => visibleContextIds(pool, grant))

  // Fixtures, only for the selected paths.
  const sendQueueUrl = `${baseUrl}/v1/billing/send-queue?limit=50`
  let approvedInvoices = 0
  let deepCursor: string | undefined
  let deepFirstId: string | undefined
  if (selected.has("send-queue") || selected.has("send-queue-deep")) {
    const demoPage = yield* getPage(sendQueueUrl, bearer)
    const seedStart = Date.now()
    approvedInvoices = yield* attempt("send-queue fixture", () =>
      seedSendQueue(
        pool,
        grant.organizationId,
        demoPage.ids,
        Math.max(0, config.invoices - demoPage.items),
        new Date(Date.UTC(2025, 0, 1))
      )
    )
    yield* progress(`${approvedInvoices} approved invoices in the send queue (${((Date.now() - seedStart) / 1000).toFixed(0)} s)`)
    const position = yield* attempt("deep position", () => sendQueuePosition(pool, grant.organizationId, visible, deepRows))
    deepCursor = sendQueueCursor(position)
    deepFirstId = position.nextId
  }
  let proposals: ReturnType<typeof proposalQueue> | undefined
  if (selected.has("pass")) {
    const queue = yield* getPage(`${baseUrl}/v1/billing/verification-queue?limit=100`, bearer)
    const count = Option.getOrElse(
      config.passProposals,
      () => config.rounds * 3 * sideSeconds * EXPECTED_MAX_PASS_RATE + 10
    )
    const seedStart = Date.now()
    const ids = yield* attempt("proposals", () => seedProposals(pool, grant.organizationId, queue.ids, count))
    if (ids.length < count) {
      return yield* new BenchFailure({ message: `only ${ids.length} of ${count} proposals could be seeded (no passable template?)` })
    }
    proposals = proposalQueue(ids)
    yield* progress(`${ids.length} proposals to pass (${((Date.now() - seedStart) / 1000).toFixed(0)} s)`)
  }
  let payments: ReturnType<typeof paymentQueue> | undefined
  if (selected.has("report-payment")) {
    const templates = yield* getPage(`${baseUrl}/v1/billing/send-queue?limit=100`, bearer)
    const seedStart = Date.now()
    const invoices = yield* attempt("sent invoices", () =>
      seedSentInvoices(pool, grant.organizationId, templates.ids, config.payableInvoices, new Date())
    )
    if (invoices.length < config.payableInvoices) {
      return yield* new BenchFailure({ message: `only ${invoices.length} of ${config.payableInvoices} sent invoices could be seeded` })
    }
    payments = paymentQueue(invoices, new Date().toISOString().slice(0, 10))
    yield* progress(`${invoices.length} sent invoices to pay (${((Date.now() - seedStart) / 1000).toFixed(0)} s)`)
  }
  let clients: ReadonlyArray<ClientCredentials> = []
  if (selected.has("token")) {
    const clientCount = Option.getOrElse(config.tokenClients, tokenClientCount)
    clients = yield* attempt("token clients", () => insertTokenClients(pool, grant, clientCount))
    yield* progress(`${clients.length} token clients inserted`)
  }
  let connectors: ReadonlyArray<AssertionMinter> = []
  if (selected.has("installation-token")) {
    const connector = yield* attempt("demo-connector.json", async () =>
      JSON.parse(await readFile(join(dataDir, "demo-connector.json"), "utf8")) as ConnectorCredentials
    )
    const copies = yield* attempt("connector installations", () =>
      insertConnectorInstallations(
        pool,
        { appId: connector.app_id, installationId: connector.installation_id, kid: connector.private_jwk.kid },
        Option.getOrElse(config.tokenClients, tokenClientCount)
      )
    )
    connectors = copies.map((copy) =>
      createAssertionMinter({ ...connector, app_id: copy.appId, installation_id: copy.installationId })
    )
    yield* progress(`${connectors.length} connector installations inserted`)
  }
  const analyzeStart = Date.now()
  // Settled tables, as in a database that has been running: statistics for the planner, hint bits and the
  // visibility map set, so neither side pays for the bulk load during its rounds.
  yield* attempt("vacuum analyze", () => pool.query("vacuum analyze"))
  yield* progress(`vacuum analyze (${((Date.now() - analyzeStart) / 1000).toFixed(0)} s)`)

  const baseline = yield* spawnNode({
    name: "baseline",
    args: ["--enable-source-maps", ...extraNodeArgs("BENCH_BASELINE_NODE_ARGS"), ...heapProbeArgs(), BASELINE_ENTRY],
    env: {
      DATABASE_URL: database.url,
      ORGANIZATION_ID: grant.organizationId,
      GRANTED_CONTEXT_IDS: JSON.stringify(grant.contextIds),
      APPLICATION_ID: grant.applicationId,
      ISSUER: authUrl,
      AUDIENCE: baseUrl,
      POOL_MAX: "10",
      HEAP_PROBE_FILE: join(dir, "heap-baseline.jsonl")
    },
    cwd: REPO_ROOT,
    logPath: join(dir, "baseline.log"),
    pipeStdout: true
  })
  const announced = JSON.parse(yield* firstStdoutLine(baseline, 15_000)) as { port: number; publicJwk: JsonWebKey }
  const baselineUrl = `http://127.0.0.1:${announced.port}`
  yield* progress(`started the baseline (pid ${baseline.process.pid}) on ${baselineUrl}`)
  // The conventional peer (issue 27): Fastify 5 + jose + kysely, verifying the product's tokens against its JWKS.
  const peer = yield* spawnNode({
    name: "peer",
    args: ["--enable-source-maps", ...extraNodeArgs("BENCH_PEER_NODE_ARGS"), ...heapProbeArgs(), PEER_ENTRY],
    env: {
      DATABASE_URL: database.url,
      APPLICATION_ID: grant.applicationId,
      ISSUER: authUrl,
      AUDIENCE: baseUrl,
      POOL_MAX: "10",
      NODE_ENV: "production",
      HEAP_PROBE_FILE: join(dir, "heap-peer.jsonl")
    },
    cwd: REPO_ROOT,
    logPath: join(dir, "peer.log"),
    pipeStdout: true
  })
  const peerAnnounced = JSON.parse(yield* firstStdoutLine(peer, 30_000)) as { port: number; publicJwk: JsonWebKey }
  const peerUrl = `http://127.0.0.1:${peerAnnounced.port}`
  const toPeer = onOrigin(peerUrl)
  yield* progress(`started the peer (pid ${peer.process.pid}) on ${peerUrl}`)

  // Sanity: both sides answer alike before either is measured.
  const plans: Array<TargetPlan> = []
  const notes: Array<string> = []
  if (selected.has("token")) {
    const demoToken = yield* requestToken(`${authUrl}/oauth/token`, clients[0]!)
    const baselineToken = yield* requestToken(`${baselineUrl}/oauth/token`, clients[1] ?? clients[0]!)
    const peerToken = yield* requestToken(`${peerUrl}/oauth/token`, clients[2] ?? clients[0]!)
    if (
      !verifiesWith(baselineToken, announced.publicJwk) ||
      !verifiesWith(peerToken, peerAnnounced.publicJwk) ||
      jwtHeader(demoToken)["alg"] !== "ES256"
    ) {
      return yield* new BenchFailure({ message: "the tokens are not all ES256 (or the baseline's or the peer's does not verify)" })
    }
    const apiClients = rotation(clients)
    const peerClients = rotation(clients)
    const baselineClients = rotation(clients)
    const tokenTarget = (url: string, next: ReturnType<typeof rotation>["next"]): LoadTarget => ({
      url,
      method: "POST",
      headers: TOKEN_FORM_HEADERS,
      body: TOKEN_FORM_BODY,
      nextRequest: next
    })
    plans.push({
      target: "token",
      label: "token issuance (client_credentials)",
      ours: Effect.succeed(tokenTarget(`${authUrl}/oauth/token`, apiClients.next)),
      peer: Effect.succeed(tokenTarget(`${peerUrl}/oauth/token`, peerClients.next)),
      baseline: tokenTarget(`${baselineUrl}/oauth/token`, baselineClients.next)
    })
    notes.push(
      `token: the product's \`POST {auth_url}/oauth/token\`, client_credentials with HTTP Basic, rotating over ${clients.length} Applications inserted for the run (60 requests per 60 s per client are allowed). Baseline: plain node:http that parses Basic, runs the API's one statement (the active Application with the secret's SHA-256 digest and its contexts, the rate-limit bookkeeping, the secret's last use; the counts not judged) and signs the same claims ES256 with node:crypto. Peer: Fastify with a form parser, the same statement through kysely, the claims signed with jose's SignJWT.`
    )
  }
  if (selected.has("installation-token")) {
    // Both sides get an assertion minted for the product's token endpoint (its `aud`), each a fresh jti.
    const installationToken = (url: string, body: string) =>
      attempt(`installation token from ${url}`, async () => {
        const response = await fetch(url, { method: "POST", headers: TOKEN_FORM_HEADERS, body, signal: AbortSignal.timeout(5_000) })
        const answer = (await response.json()) as { access_token?: unknown }
        if (!response.ok || typeof answer.access_token !== "string") throw new Error(`HTTP ${response.status} ${JSON.stringify(answer)}`)
        return answer.access_token
      })
    yield* installationToken(`${authUrl}/oauth/token`, connectors[0]!.requestBody())
    yield* installationToken(`${baselineUrl}/oauth/token`, connectors[1 % connectors.length]!.requestBody())
    yield* installationToken(`${peerUrl}/oauth/token`, connectors[2 % connectors.length]!.requestBody())
    const minting = (offset: number) => {
      let issued = offset
      return () => ({ body: connectors[issued++ % connectors.length]!.requestBody() })
    }
    plans.push({
      target: "installation-token",
      label: "token issuance (installation-token grant)",
      ours: Effect.succeed({ url: `${authUrl}/oauth/token`, method: "POST", headers: TOKEN_FORM_HEADERS, nextRequest: minting(0) }),
      peer: Effect.succeed({ url: `${peerUrl}/oauth/token`, method: "POST", headers: TOKEN_FORM_HEADERS, nextRequest: minting(0) }),
      baseline: { url: `${baselineUrl}/oauth/token`, method: "POST", headers: TOKEN_FORM_HEADERS, nextRequest: minting(0) }
    })
    notes.push(
      `installation-token: the product's \`POST {auth_url}/oauth/token\` with the installation-token grant and a client assertion minted per request (ES256, a fresh jti), rotating over ${connectors.length} copies of the demo connector app and installation (60 requests per 60 s per app are allowed). Baseline: \`InstallationGrantBaseline.ts\` on plain node:http: the app's key and the installation in one read, the signature verified with node:crypto, the jti consumed and the app's rate limit judged in the product's one statement (\`CONSUME_ADMIT_SQL\`), the same claims signed. Peer: the same statements through kysely, the assertion verified and the token signed with jose.`
    )
  }
  if (selected.has("send-queue")) {
    const ours = yield* getPage(sendQueueUrl, bearer)
    const base = yield* getPage(`${baselineUrl}/send-queue?limit=50`, {})
    const peerPage = yield* getPage(`${peerUrl}/v1/billing/send-queue?limit=50`, bearer)
    if (
      ours.items !== 50 ||
      ours.ids.join() !== base.ids.join() ||
      ours.ids.join() !== peerPage.ids.join() ||
      ours.hasNext !== base.hasNext ||
      ours.hasNext !== peerPage.hasNext
    ) {
      return yield* new BenchFailure({
        message: `the send-queue first pages differ: API ${ours.ids.length} items, peer ${peerPage.ids.length}, baseline ${base.ids.length}`
      })
    }
    yield* progress(
      `send-queue page: 50 items (${ours.bytes} bytes from the API, ${peerPage.bytes} from the peer, ${base.bytes} from the baseline)`
    )
    plans.push({
      target: "send-queue",
      label: `GET send-queue?limit=50, first page (${approvedInvoices.toLocaleString("en-US")} approved invoices)`,
      ours: Effect.map(demoBearer, (headers) => ({ url: sendQueueUrl, method: "GET", headers })),
      peer: Effect.map(demoBearer, (headers) => toPeer({ url: sendQueueUrl, method: "GET", headers })),
      baseline: { url: `${baselineUrl}/send-queue?limit=50`, method: "GET" }
    })
  }
  if (selected.has("send-queue-deep") && deepCursor !== undefined) {
    const deepUrl = `${sendQueueUrl}&cursor=${deepCursor}`
    const baselineDeepUrl = `${baselineUrl}/send-queue?limit=50&cursor=${deepCursor}`
    const ours = yield* getPage(deepUrl, bearer)
    const base = yield* getPage(baselineDeepUrl, {})
    const peerPage = yield* getPage(toPeer({ url: deepUrl, method: "GET" }).url, bearer)
    if (
      ours.items !== 50 ||
      ours.ids[0] !== deepFirstId ||
      ours.ids.join() !== base.ids.join() ||
      ours.ids.join() !== peerPage.ids.join()
    ) {
      return yield* new BenchFailure({
        message: `the deep pages differ: API starts at ${ours.ids[0]}, baseline at ${base.ids[0]}, expected ${deepFirstId}`
      })
    }
    plans.push({
      target: "send-queue-deep",
      label: `GET send-queue?limit=50, a page ${deepRows.toLocaleString("en-US")} rows deep`,
      ours: Effect.map(demoBearer, (headers) => ({ url: deepUrl, method: "GET", headers })),
      peer: Effect.map(demoBearer, (headers) => toPeer({ url: deepUrl, method: "GET", headers })),
      baseline: { url: baselineDeepUrl, method: "GET" }
    })
  }
  if (selected.has("send-queue") || selected.has("send-queue-deep")) {
    notes.push(
      `send-queue: the product's \`GET {base_url}/v1/billing/send-queue?limit=50\` with a demo token (token verification, the billing scope with the page in one statement) on ${approvedInvoices.toLocaleString("en-US")} approved invoices, seeded by \`insert … select generate_series\` (approval times two per second, so ties are broken by id); the deep page uses the cursor after row ${deepRows.toLocaleString("en-US")}. Baseline: plain node:http with a pg.Pool of 10 (the API's pool size) running the API's one statement (the scope and the page), rows as pg returns them serialized with JSON.stringify, no token check and no schema. Peer: the bearer token verified with jose against the identity host's JWKS, the same one statement through kysely (CamelCasePlugin), the page through Fastify's response schema.`
    )
  }
  if (selected.has("pass") && proposals !== undefined) {
    const queue = proposals
    const first = queue.take()
    yield* postJson(`${baseUrl}/v1/billing/invoice-proposals/${first.id}/pass`, bearer, first.body)
    const second = queue.take()
    yield* postJson(`${baselineUrl}/pass/${second.id}`, {}, second.body)
    const third = queue.take()
    yield* postJson(`${peerUrl}/v1/billing/invoice-proposals/${third.id}/pass`, bearer, third.body)
    const passTarget = (headers: Record<string, string>): LoadTarget => ({
      url: `${baseUrl}/v1/billing/invoice-proposals/${first.id}/pass`,
      method: "POST",
      headers: { ...JSON_HEADERS, ...headers },
      nextRequest: () => {
        const next = queue.take()
        return { path: `/v1/billing/invoice-proposals/${next.id}/pass`, body: next.body }
      }
    })
    plans.push({
      target: "pass",
      label: "POST invoice-proposals/{id}/pass",
      ours: Effect.map(demoBearer, passTarget),
      peer: Effect.map(demoBearer, (headers) => toPeer(passTarget(headers))),
      baseline: {
        url: `${baselineUrl}/pass/${second.id}`,
        method: "POST",
        headers: JSON_HEADERS,
        nextRequest: () => {
          const next = queue.take()
          return { path: `/pass/${next.id}`, body: next.body }
        }
      }
    })
  }

  if (selected.has("report-payment") && payments !== undefined) {
    const queue = payments
    const paymentPath = (id: string) => `/v1/billing/invoices/${id}/report-payment`
    const first = queue.take()
    yield* postJson(`${baseUrl}${paymentPath(first.id)}`, bearer, first.body, 200)
    const second = queue.take()
    yield* postJson(`${baselineUrl}/report-payment/${second.id}`, {}, second.body, 200)
    const third = queue.take()
    yield* postJson(`${peerUrl}${paymentPath(third.id)}`, bearer, third.body, 200)
    const paymentTarget = (headers: Record<string, string>): LoadTarget => ({
      url: `${baseUrl}${paymentPath(first.id)}`,
      method: "POST",
      headers: { ...JSON_HEADERS, ...headers },
      nextRequest: () => {
        const next = queue.take()
        return { path: paymentPath(next.id), body: next.body }
      }
    })
    plans.push({
      target: "report-payment",
      label: "POST invoices/{id}/report-payment (distinct payments)",
      ours: Effect.map(demoBearer, paymentTarget),
      peer: Effect.map(demoBearer, (headers) => toPeer(paymentTarget(headers))),
      baseline: {
        url: `${baselineUrl}/report-payment/${second.id}`,
        method: "POST",
        headers: JSON_HEADERS,
        nextRequest: () => {
          const next = queue.take()
          return { path: `/report-payment/${next.id}`, body: next.body }
        }
      }
    })
  }

  if (selected.has("availability") || selected.has("preview")) {
    // Booking: a week of a demo room's free time with start times for an hour, and a priced preview of one of them.
    const room = yield* attempt("a demo room", async () => {
      const response = await fetch(`${baseUrl}/v1/booking/resources`, { headers: bearer })
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
      const [ours, base, peerAnswer] = await Promise.all([
        fetch(availabilityUrl, { headers: bearer }).then((r) => r.json() as Promise<{ startTimes: Array<string> }>),
        fetch(baselineAvailabilityUrl).then((r) => r.json() as Promise<{ startTimes: Array<string> }>),
        fetch(toPeer({ url: availabilityUrl, method: "GET" }).url, { headers: bearer }).then(
          (r) => r.json() as Promise<{ startTimes: Array<string> }>
        )
      ])
      if (
        ours.startTimes.length === 0 ||
        ours.startTimes.length !== base.startTimes.length ||
        ours.startTimes.length !== peerAnswer.startTimes?.length
      ) {
        throw new Error(
          `start times differ: API ${ours.startTimes.length}, peer ${peerAnswer.startTimes?.length}, baseline ${base.startTimes.length}`
        )
      }
      return ours.startTimes
    })
    const previewBody = JSON.stringify({
      resourceId: room,
      period: { start: starts[0], end: new Date(Date.parse(starts[0] as string) + 3_600_000).toISOString() }
    })
    if (selected.has("availability")) {
      plans.push({
        target: "availability",
        label: "GET booking resources/{id}/availability (a week, start times for an hour)",
        ours: Effect.map(demoBearer, (headers) => ({ url: availabilityUrl, method: "GET", headers })),
        peer: Effect.map(demoBearer, (headers) => toPeer({ url: availabilityUrl, method: "GET", headers })),
        baseline: { url: baselineAvailabilityUrl, method: "GET" }
      })
    }
    if (selected.has("preview")) {
      const previewTarget = (headers: Record<string, string>): LoadTarget => ({
        url: `${baseUrl}/v1/booking/booking-requests/preview`,
        method: "POST",
        headers: { ...JSON_HEADERS, ...headers },
        body: previewBody
      })
      yield* postJson(toPeer(previewTarget({})).url, bearer, previewBody, 200)
      plans.push({
        target: "preview",
        label: "POST booking-requests/preview (one hour of a room, priced)",
        ours: Effect.map(demoBearer, previewTarget),
        peer: Effect.map(demoBearer, (headers) => toPeer(previewTarget(headers))),
        baseline: { url: `${baselineUrl}/preview`, method: "POST", headers: JSON_HEADERS, body: previewBody }
      })
    }
    notes.push(
      `availability: the product's \`GET {base_url}/v1/booking/resources/{room}/availability\` for a week with \`durationMinutes=60\` (${starts.length} start times); preview: \`POST {base_url}/v1/booking/booking-requests/preview\` of one hour of the demo room; each with a demo token. Baseline: the same plain node:http process running the same SQL (the sellable resource with its rules through the visible-contexts CTE and the Application's grant, offered add-ons, live bookings) and the same pure functions of @propline/booking, no token verification. Peer: the token verified with jose, the same statements through kysely, the answers through Fastify's response schemas.`
    )
  }

  type Rounds = { ours: Side; peer: Side; baseline: Side }
  const emptySide = (): Side => ({ runs: [], memory: [], heap: [] })
  const results = new Map<Target, Rounds>(
    plans.map((plan) => [plan.target, { ours: emptySide(), peer: emptySide(), baseline: emptySide() }])
  )
  const heapFiles = new Map<RunningChild, string>([
    [api, join(dir, "heap-api.jsonl")],
    [peer, join(dir, "heap-peer.jsonl")],
    [baseline, join(dir, "heap-baseline.jsonl")]
  ])
  const measureSide = (name: string, child: RunningChild, target: LoadTarget, into: Side) =>
    Effect.gen(function* () {
      yield* ensureRunning(api, peer, baseline)
      const [[result, heap], memory] = yield* sampledWhile(
        child.process.pid,
        measure(name, target, settings, (measured) => probedWhile(child.process.pid, heapFiles.get(child)!, measured))
      )
      const requests = result.totalRequests + result.warmupRequests
      yield* progress(
        `${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, peak RSS ${memory.peakMiB?.toFixed(0) ?? "?"} MiB, CPU ${memory.cpuMs === undefined ? "?" : (memory.cpuMs / requests).toFixed(2)} ms/request, PostgreSQL ${memory.databaseCpuMs === undefined ? "?" : (memory.databaseCpuMs / requests).toFixed(2)} ms/request, ${heap === undefined ? "?" : (heap.allocatedBytes / 1024 / result.totalRequests).toFixed(0)} KiB allocated/request, GC ${heap === undefined ? "?" : (heap.gcMs / result.totalRequests).toFixed(2)} ms/request (${heap === undefined ? "?" : ((heap.gcMs / heap.wallMs) * 100).toFixed(0)} % of the main thread) (CPU busy before: ${(result.busyBefore * 100).toFixed(0)}%)`
      )
      ;(into.runs as Array<Measurement>).push(result)
      ;(into.memory as Array<UsageFigures>).push(memory)
      ;(into.heap as Array<HeapWindow | undefined>).push(heap)
    })

  for (let round = 1; round <= config.rounds; round++) {
    for (const plan of plans) {
      const rounds = results.get(plan.target)!
      const sides = [
        Effect.flatMap(plan.ours, (target) => measureSide(`${plan.target}: API (round ${round})`, api, target, rounds.ours)),
        Effect.flatMap(plan.peer, (target) => measureSide(`${plan.target}: peer (round ${round})`, peer, target, rounds.peer)),
        measureSide(`${plan.target}: baseline (round ${round})`, baseline, plan.baseline, rounds.baseline)
      ]
      // The order rotates by round (API, peer, baseline; then peer, baseline, API; …), so drift falls on all alike.
      const shift = (round - 1) % sides.length
      for (const side of [...sides.slice(shift), ...sides.slice(0, shift)]) yield* side
    }
  }

  const rateWindows = selected.has("token") || selected.has("installation-token")
    ? yield* attempt("token_rate_limits", () =>
        pool
          .query<{ max: number | null }>("select max(cardinality(admitted_at))::int as max from token_rate_limits")
          .then(({ rows }) => rows[0]?.max ?? 0)
      )
    : undefined
  if (rateWindows !== undefined) {
    notes.push(`token: the most requests one client had in its sliding window at the end was ${rateWindows} (limit 60 per 60 s).`)
  }
  if (proposals !== undefined) {
    notes.push(
      `pass: the product's \`POST {base_url}/v1/billing/invoice-proposals/{id}/pass\` with a demo token, each request on a different proposal (${proposals.taken().toLocaleString("en-US")} passed or tried, seeded in bulk with their lines and charges). Baseline: one hand-written pg transaction of the product's statements in its order (the billing scope with the proposal locked, its charges locked with the externalReference check, one statement writing the invoice, its lines, the charges, three events, the audit entry and the proposal: 5 round trips with \`begin\` and \`commit\`), the rows serialized with JSON.stringify. Peer: the same statements in the same order inside \`db.transaction()\`, the scope with the lock as the shared SQL text and the rest with kysely's query builder (the one write, events and audit entry included, as data-modifying CTEs, the proposal returned by its update, \`returning *\`), the answer through Fastify's response schema.`
    )
  }

  if (payments !== undefined) {
    notes.push(
      `report-payment: the product's \`POST {base_url}/v1/billing/invoices/{id}/report-payment\` with a demo token, ${payments.taken().toLocaleString("en-US")} distinct payments of 1.00 spread over ${config.payableInvoices.toLocaleString("en-US")} sent invoices (seeded in bulk). Baseline: one hand-written pg transaction of the product's statements in its order (the billing scope with the invoice locked, its ledger of payments and write-offs in one read, one statement inserting the payment, its event and the audit entry and updating the invoice: 5 round trips), the row serialized with JSON.stringify. Peer: the same statements in \`db.transaction()\`, the scope with the lock as the shared SQL text and the rest with kysely's query builder (the payment, its event and the audit entry as data-modifying CTEs of the invoice's update, the invoice returned by it), the answer through Fastify's response schema.`
    )
  }

  const comparisons: ReadonlyArray<Comparison> = plans.map((plan) => {
    const rounds = results.get(plan.target)!
    return { target: plan.target, label: plan.label, requirement: REQUIREMENTS[plan.target], ...rounds }
  })
  const cpu = cpus()
  const measurements = comparisons.flatMap((c) => [...c.ours.runs, ...(c.peer?.runs ?? []), ...c.baseline.runs])
  const busy = measurements.filter((m) => m.busyBefore > BUSY_THRESHOLD)
  notes.push(
    "RSS: VmRSS of the product's process (both hosts in one process, as `pnpm start` runs them), sampled every 200 ms under load; the baseline's for comparison.",
    `CPU busy in the idle second before a measurement (other processes): at most ${(Math.max(...measurements.map((m) => m.busyBefore)) * 100).toFixed(0)}%${busy.length > 0 ? ` -- over ${BUSY_THRESHOLD * 100}% before ${busy.length} of ${measurements.length} measurements, so the machine was not idle and these figures are noisy` : ""}.`
  )
  const info = {
    startedAt,
    wallSeconds: (Date.now() - startedAt.getTime()) / 1000,
    settings,
    rounds: config.rounds,
    machine: `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${availableParallelism()} cores available, ${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.versions.node,
    postgres: postgresVersion,
    notes
  }
  if (sink !== undefined) {
    notes.push(
      `Telemetry ON (BENCH_TELEMETRY=true): the product ran with OTEL_EXPORTER_OTLP_ENDPOINT at a local OTLP/HTTP receiver, which took ${sink.received.exports} exports (${(sink.received.bytes / 2 ** 20).toFixed(1)} MiB); the baseline has none.`
    )
  }
  const table = markdownTable(comparisons)
  // A run with telemetry on is its own row, never the page's table of the default (telemetry off) product.
  const everyTarget = TARGETS.every((target) => selected.has(target)) && sink === undefined
  yield* attempt("results", async () => {
    await writeFile(RESULTS_MD, markdownDocument(comparisons, info))
    await writeFile(RESULTS_JSON, jsonDocument(comparisons, info))
    if (everyTarget && config.readme) {
      await writeResultsSection(
        PERFORMANCE_PAGE,
        [`Last run: ${startedAt.toISOString().slice(0, 10)}, ${info.machine}.`, "", table, "", ...method(info)].join("\n")
      )
    }
  })
  yield* Effect.sync(() => {
    console.log(table)
    console.log("")
    for (const m of measurements) {
      console.log(
        `${m.target}: ${m.totalRequests} requests, status codes ${JSON.stringify(m.statusCodes)}, errors ${m.errors}, timeouts ${m.timeouts}, warm-up failures ${m.warmupFailures}`
      )
    }
    for (const v of verdicts(comparisons)) console.log(`${v.met ? "holds " : "MISSED"}  ${v.what}: ${v.value} (${v.limit})`)
    console.log(`wrote ${RESULTS_MD} and ${RESULTS_JSON}${everyTarget && config.readme ? ` and ${PERFORMANCE_PAGE}` : ""}`)
  })
  if (proposals !== undefined && proposals.shortfall() > 0) {
    return yield* new BenchFailure({
      message: `the pass runs needed ${proposals.shortfall()} more proposals than were seeded: raise BENCH_PASS_PROPOSALS`
    })
  }
  const failed = measurements.filter((m) => m.non2xx > 0 || m.errors > 0 || m.warmupFailures > 0)
  if (failed.length > 0) {
    return yield* new BenchFailure({
      message: `non-2xx answers or connection errors: ${failed.map((m) => `${m.target} (${m.non2xx} non-2xx, ${m.errors} errors, ${m.warmupFailures} in warm-up)`).join("; ")}`
    })
  }
  return info.wallSeconds
})

/** The run's bound: its measurements plus {@link SETUP_BUDGET_SECONDS}; read before the config is validated. */
const runTimeout = (): Duration.Duration => {
  const int = (name: string, fallback: number) => {
    const value = Number(process.env[name])
    return Number.isFinite(value) && value > 0 ? value : fallback
  }
  const targets = (process.env["BENCH_TARGETS"] ?? TARGETS.join(",")).split(",").length
  const perSide = int("BENCH_WARMUP_SECONDS", 2) + int("BENCH_DURATION_SECONDS", 10) + 5
  return Duration.seconds(SETUP_BUDGET_SECONDS + int("BENCH_ROUNDS", 3) * targets * 3 * perSide)
}

program.pipe(
  Effect.scoped,
  Effect.timeoutFail({ duration: runTimeout(), onTimeout: () => new BenchFailure({ message: "the run took too long" }) }),
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
      teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
    })
)
