/**
 * The production layout on one machine (issue 23, item 5), for `pnpm scale:demo`, `pnpm bench:scale` and the
 * scale-out test: every host in processes of its own (`HOSTS=api`, `auth`, `admin`, `worker`; by default 3 API,
 * 2 identity, 1 console, 2 workers), each on its own port of 127.0.0.1, all on one PostgreSQL, behind Debian's
 * `haproxy` (`/usr/sbin/haproxy`): one frontend per public address (identity, API, console), round robin over the
 * instances, each instance health-checked on `/readyz` every second; optionally through PgBouncer
 * (`/usr/sbin/pgbouncer`) in transaction pooling mode, with `DATABASE_DIRECT_URL` naming PostgreSQL itself for the
 * migrations. Documents go to one S3-compatible store (s3rver, in this process) so that every instance reads what
 * another wrote: `STORAGE=local-disk` is per instance.
 *
 * PostgreSQL only: PGlite is one process's database and cannot be shared between processes.
 *
 * The first console instance starts alone: it migrates the database, seeds the demo data when it is empty and writes
 * the demo files (`demo-credentials.json` …, naming the load balancer's addresses) into its DATA_DIR
 * ({@link ScaleLayout.dataDir}); then the others start side by side (a start on a seeded database writes no demo
 * files). Resolves when every instance answers `/readyz` (a worker: printed its start line) and every frontend
 * answers. Each process's output goes to `<directory>/logs/<name>.log`; the generated haproxy and PgBouncer
 * configurations are in `<directory>`.
 */
import { freePort } from "@propline/db/FreePort"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import S3rver from "s3rver"

/** The product's entry as `pnpm start` runs it (source maps for our own files only, then `main.js`). */
const START = fileURLToPath(new URL("../../../apps/api/dist/start.js", import.meta.url))
const ROTATE = fileURLToPath(new URL("../../../apps/api/dist/rotate-signing-key.js", import.meta.url))

/** Debian's packages (`apt-get install haproxy pgbouncer`). */
export const HAPROXY = process.env["HAPROXY_PATH"] ?? "/usr/sbin/haproxy"
export const PGBOUNCER = process.env["PGBOUNCER_PATH"] ?? "/usr/sbin/pgbouncer"

export type Role = "api" | "auth" | "admin" | "worker"

/** How many processes of each host. */
export interface InstanceCounts {
  readonly api: number
  readonly auth: number
  readonly admin: number
  readonly worker: number
}

export const DEFAULT_COUNTS: InstanceCounts = { api: 3, auth: 2, admin: 1, worker: 2 }

export interface LayoutOptions {
  /** PostgreSQL, required (PGlite can't be shared between processes). */
  readonly databaseUrl: string
  /** Put PgBouncer (transaction pooling) between the instances and PostgreSQL. */
  readonly pgbouncer?: boolean
  readonly counts?: InstanceCounts
  /** Where the configurations, data directories and logs go (emptied first); a new temporary directory otherwise. */
  readonly directory?: string
  /** Every instance's KEY_ENCRYPTION_KEYS (all must open each other's keys); a new key otherwise. */
  readonly keyEncryptionKeys?: string
  /** Added to every instance's environment (e.g. `LOG_LEVEL`, `WEBHOOK_RETRY_SCALE`). */
  readonly env?: Readonly<Record<string, string>>
  /** The load balancer's ports (identity, API, console); free ones otherwise. */
  readonly ports?: { readonly auth: number; readonly api: number; readonly admin: number }
  /** Called with a line of progress. */
  readonly progress?: (line: string) => void
  /** How long to wait for the instances (default 240 s: starts on a busy 2-core machine are slow). */
  readonly timeoutMs?: number
}

export interface Instance {
  readonly name: string
  readonly role: Role
  /** Its own listener, `http://127.0.0.1:<port>` (none for a worker). */
  readonly url: string | undefined
  readonly logPath: string
  readonly process: ChildProcess
}

export interface ScaleLayout {
  /** The load balancer's public addresses. */
  readonly urls: { readonly auth: string; readonly api: string; readonly admin: string }
  readonly instances: ReadonlyArray<Instance>
  /** The seeding console instance's DATA_DIR: the demo files. */
  readonly dataDir: string
  readonly directory: string
  /** PgBouncer's admin console (`SHOW STATS`) and process, with `pgbouncer`. */
  readonly pgbouncer: { readonly adminUrl: string; readonly pid: number } | undefined
  /** What the instances were given as DATABASE_URL (PgBouncer's address with `pgbouncer`). */
  readonly databaseUrl: string
  /** The environment every instance shares (database, keys, storage, public addresses). */
  readonly env: Readonly<Record<string, string>>
  /** Every line an instance logged at level `error` (JSON logs), prefixed with the instance's name. */
  readonly errors: () => ReadonlyArray<string>
  /** Rotates the signing key as `pnpm signing-key:rotate` does; resolves to its JSON output. */
  readonly rotateSigningKey: () => Promise<{ readonly kid: string; readonly activatesAt?: string }>
  /** SIGTERM to every instance (awaited), then the load balancer, PgBouncer and the store; removes a temporary directory. */
  readonly stop: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** SIGTERM, then SIGKILL after `graceMs`. */
const stopChild = async (child: ChildProcess, graceMs = 15_000): Promise<void> => {
  if (exited(child)) return
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
  await done
  clearTimeout(timer)
}

const logTail = (file: string, lines = 40): string => {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

/** Spawns `command` with output appended to `logPath`, in a process group of its own (a terminal's Ctrl-C reaches only us, and we stop the children in order). */
const spawnLogged = (command: string, args: ReadonlyArray<string>, env: Record<string, string>, logPath: string) => {
  const log = openSync(logPath, "a")
  try {
    const child = spawn(command, [...args], { env, stdio: ["ignore", log, log], detached: true })
    child.on("error", () => {})
    return child
  } finally {
    closeSync(log)
  }
}

const until = async (what: string, ready: () => Promise<boolean> | boolean, deadline: number, failed?: () => string | undefined) => {
  for (;;) {
    const failure = failed?.()
    if (failure !== undefined) throw new Error(failure)
    if (await ready()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

const answers = async (url: string, status = 200): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    await response.arrayBuffer()
    return response.status === status
  } catch {
    return false
  }
}

/** The haproxy configuration: one frontend per public address, round robin, `/readyz` checks each second. */
export const haproxyConfig = (
  ports: { readonly auth: number; readonly api: number; readonly admin: number },
  instances: ReadonlyArray<{ readonly name: string; readonly role: Role; readonly port: number | undefined }>
): string => {
  const backend = (role: Role) =>
    instances
      .filter((instance) => instance.role === role && instance.port !== undefined)
      .map((instance) => `  server ${instance.name} 127.0.0.1:${instance.port}`)
      .join("\n")
  const surface = (role: "auth" | "api" | "admin", port: number, extra = "") => `
frontend ${role}
  bind 127.0.0.1:${port}
  default_backend ${role}_instances

backend ${role}_instances
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # Which instance answered (the scale-out test spreads its requests and checks where they went).
  http-response set-header X-Served-By %[srv_name]${extra}
${backend(role)}
`
  return `# Generated by tooling/scripts/src/ScaleLayout.ts (pnpm scale:demo); rewritten at every start.
global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  # An instance that closed an idle connection as a request arrived, or is draining (SIGTERM: it refuses new
  # connections), gets the request retried on another instance.
  retries 3
  retry-on conn-failure empty-response
  option redispatch
  # An instance leaves the rotation after 2 failed checks (its /readyz answers 503 from SIGTERM on), and comes back after 1.
  # A check may take 5 s: a saturated instance answers /readyz late (its database check waits for a pooled connection
  # behind the requests), and dropping it for being busy would only pile its load on the others (or answer 503).
  default-server check inter 1s fall 2 rise 1
  timeout check 5s
${surface("auth", ports.auth)}${surface("api", ports.api)}${surface("admin", ports.admin, "\n  # The console's sign-in throttle and audit log read the client address from it (TRUSTED_PROXIES=127.0.0.1).\n  option forwardfor")}`
}

/**
 * Writes `<directory>/<name>.cfg` ({@link haproxyConfig}) and runs haproxy on it in the foreground; resolves once every
 * frontend with instances behind it answers `/readyz`. Stop it with SIGTERM.
 */
export const startHaproxy = async (input: {
  readonly directory: string
  readonly name: string
  readonly ports: { readonly auth: number; readonly api: number; readonly admin: number }
  readonly instances: ReadonlyArray<{ readonly name: string; readonly role: Role; readonly port: number | undefined }>
  readonly deadline: number
}): Promise<ChildProcess> => {
  const config = path.join(input.directory, `${input.name}.cfg`)
  const log = path.join(input.directory, "logs", `${input.name}.log`)
  writeFileSync(config, haproxyConfig(input.ports, input.instances))
  const haproxy = spawnLogged(HAPROXY, ["-f", config, "-db"], { PATH: process.env["PATH"] ?? "" }, log)
  for (const role of ["auth", "api", "admin"] as const) {
    if (!input.instances.some((instance) => instance.role === role)) continue
    const url = `http://127.0.0.1:${input.ports[role]}`
    await until(`the load balancer at ${url}`, () => answers(`${url}/readyz`), input.deadline, () =>
      exited(haproxy) ? `haproxy exited:\n${logTail(log)}` : undefined
    )
  }
  return haproxy
}

/** PgBouncer's configuration: transaction pooling in front of the database `url` names. */
const pgbouncerFiles = (directory: string, url: URL, port: number) => {
  const user = decodeURIComponent(url.username || "postgres")
  const password = decodeURIComponent(url.password)
  const database = decodeURIComponent(url.pathname.slice(1) || "postgres")
  const userlist = path.join(directory, "pgbouncer-users.txt")
  writeFileSync(userlist, `"${user}" "${password.replace(/"/g, '""')}"\n`, { mode: 0o600 })
  const ini = path.join(directory, "pgbouncer.ini")
  writeFileSync(
    ini,
    `; Generated by tooling/scripts/src/ScaleLayout.ts; rewritten at every start.
[databases]
${database} = host=${url.hostname} port=${url.port || "5432"} dbname=${database} user=${user}${password === "" ? "" : ` password=${password}`}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${userlist}
pool_mode = transaction
; Server connections per database and user: fewer than the instances' pools together (8 × 10), which is the point.
default_pool_size = 20
max_client_conn = 500
; SHOW STATS on the admin console (database pgbouncer) for this user: pnpm bench:scale counts statements with it.
stats_users = ${user}
ignore_startup_parameters = extra_float_digits,options
; No logfile or pidfile: it logs to stderr (logs/pgbouncer.log), runs in the foreground, and writes nothing itself.
`,
    { mode: 0o600 }
  )
  const through = new URL(url.toString())
  through.hostname = "127.0.0.1"
  through.port = String(port)
  return { ini, url: through.toString() }
}

const canConnect = async (connectionString: string): Promise<boolean> => {
  const pg = await import("pg")
  const client = new pg.default.Client({ connectionString, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query("select 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

const names = (counts: InstanceCounts) => {
  const list: Array<{ name: string; role: Role }> = []
  const label: Record<Role, string> = { admin: "console", auth: "identity", api: "api", worker: "worker" }
  for (const role of ["admin", "auth", "api", "worker"] as const) {
    for (let i = 1; i <= counts[role]; i++) list.push({ name: `${label[role]}-${i}`, role })
  }
  return list
}

/** Starts the layout (see the module comment); everything started is stopped again if a step fails. */
export const startScaleLayout = async (options: LayoutOptions): Promise<ScaleLayout> => {
  const progress = options.progress ?? (() => {})
  const counts = options.counts ?? DEFAULT_COUNTS
  if (counts.admin < 1) throw new Error("the layout needs a console instance: it seeds the database")
  const databaseUrl = new URL(options.databaseUrl)
  if (databaseUrl.protocol !== "postgres:" && databaseUrl.protocol !== "postgresql:") {
    throw new Error("DATABASE_URL must name PostgreSQL (postgres://…): PGlite is one process's database")
  }
  for (const [binary, needed] of [[HAPROXY, true], [PGBOUNCER, options.pgbouncer === true]] as const) {
    if (needed && !existsSync(binary)) throw new Error(`${binary} is missing: apt-get install -y haproxy pgbouncer`)
  }
  const temporary = options.directory === undefined
  const directory = options.directory ?? mkdtempSync(path.join(tmpdir(), "propline-scale-"))
  rmSync(directory, { recursive: true, force: true })
  mkdirSync(path.join(directory, "logs"), { recursive: true })

  const children: Array<ChildProcess> = []
  const instances: Array<Instance> = []
  let s3: S3rver | undefined
  const stop = async () => {
    await Promise.all(instances.map((instance) => stopChild(instance.process)))
    // haproxy and PgBouncer last, once nothing uses them.
    for (const child of children) await stopChild(child, 5_000)
    await s3?.close().catch(() => undefined)
    if (temporary) rmSync(directory, { recursive: true, force: true })
  }
  // Stop the children if this process goes without calling stop (a crash).
  const orphanGuard = () => {
    for (const child of [...instances.map((instance) => instance.process), ...children]) if (!exited(child)) child.kill("SIGKILL")
  }
  process.once("exit", orphanGuard)

  try {
    const bucket = "propline-documents"
    s3 = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: path.join(directory, "s3"),
      configureBuckets: [{ name: bucket }]
    })
    const s3Address = await s3.run()
    progress(`S3-compatible store (s3rver) on http://127.0.0.1:${s3Address.port}, bucket ${bucket}`)

    let instanceDatabaseUrl = options.databaseUrl
    let pgbouncer: { adminUrl: string; pid: number } | undefined
    if (options.pgbouncer === true) {
      const port = await freePort()
      const files = pgbouncerFiles(directory, databaseUrl, port)
      // PgBouncer refuses to run as root (a CI container's user): it then drops to `nobody` after reading its files.
      const asRoot = process.getuid?.() === 0 ? ["-u", "nobody"] : []
      children.push(spawnLogged(PGBOUNCER, [...asRoot, files.ini], { PATH: process.env["PATH"] ?? "" }, path.join(directory, "logs", "pgbouncer.log")))
      instanceDatabaseUrl = files.url
      const admin = new URL(files.url)
      admin.pathname = "/pgbouncer"
      pgbouncer = { adminUrl: admin.toString(), pid: children[0]!.pid! }
      await until("PgBouncer", () => canConnect(files.url), Date.now() + 20_000, () =>
        exited(children[0]!) ? `PgBouncer exited:\n${logTail(path.join(directory, "logs", "pgbouncer.log"))}` : undefined
      )
      progress(`PgBouncer (transaction pooling) on 127.0.0.1:${port}`)
    }

    const ports = options.ports ?? { auth: await freePort(), api: await freePort(), admin: await freePort() }
    const urls = {
      auth: `http://127.0.0.1:${ports.auth}`,
      api: `http://127.0.0.1:${ports.api}`,
      admin: `http://127.0.0.1:${ports.admin}`
    }
    const keyEncryptionKeys = options.keyEncryptionKeys ?? `scale:${randomBytes(32).toString("base64url")}`
    const shared: Record<string, string> = {
      PATH: process.env["PATH"] ?? "",
      HOST: "127.0.0.1",
      AUTH_URL: urls.auth,
      BASE_URL: urls.api,
      ADMIN_URL: urls.admin,
      DATABASE_URL: instanceDatabaseUrl,
      ...(options.pgbouncer === true ? { DATABASE_DIRECT_URL: options.databaseUrl } : {}),
      KEY_ENCRYPTION_KEYS: keyEncryptionKeys,
      STORAGE: "s3",
      S3_BUCKET: bucket,
      S3_ENDPOINT: `http://127.0.0.1:${s3Address.port}`,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      TRUSTED_PROXIES: "127.0.0.1",
      // Local receivers (the example webhook receiver, the test's) on this machine.
      WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "true",
      LOG_FORMAT: "json",
      // Every instance's pool together must fit PostgreSQL's max_connections (100 by default, shared here with whatever
      // else uses the server): 8 × 4 directly. Through PgBouncer the instances' connections are cheap client slots and
      // PgBouncer holds default_pool_size (20) server connections.
      DATABASE_POOL_SIZE: options.pgbouncer === true ? "10" : "4",
      ...options.env
    }

    const planned: Array<{ readonly name: string; readonly role: Role; readonly port: number | undefined }> = []
    for (const { name, role } of names(counts)) planned.push({ name, role, port: role === "worker" ? undefined : await freePort() })
    const deadline = Date.now() + (options.timeoutMs ?? 240_000)
    const start = (entry: (typeof planned)[number], seeds: boolean): Instance => {
      const dataDir = path.join(directory, entry.name)
      // A worker binds nothing; its ports are only read.
      const port = String(entry.port ?? 1)
      const logPath = path.join(directory, "logs", `${entry.name}.log`)
      const child = spawnLogged(
        process.execPath,
        ["--max-old-space-size=192", "--max-semi-space-size=8", START],
        {
          ...shared,
          HOSTS: entry.role,
          API_PORT: port,
          AUTH_PORT: port,
          ADMIN_PORT: port,
          DATA_DIR: dataDir,
          DEMO_DATA: seeds ? "true" : "false",
          // A worker has no listener: its start line (an info line) is how the layout sees it is up.
          ...(entry.role === "worker" ? { LOG_LEVEL: "info" } : {})
        },
        logPath
      )
      const instance = { name: entry.name, role: entry.role, url: entry.port === undefined ? undefined : `http://127.0.0.1:${entry.port}`, logPath, process: child }
      instances.push(instance)
      return instance
    }
    const ready = async (instance: Instance) => {
      await until(
        `${instance.name}`,
        () =>
          instance.url === undefined
            ? logTail(instance.logPath, 1_000).includes("Propline listening")
            : answers(`${instance.url}/readyz`),
        deadline,
        () => (exited(instance.process) ? `${instance.name} exited:\n${logTail(instance.logPath)}` : undefined)
      )
      progress(`${instance.name.padEnd(11)} ${instance.url ?? "(no listener)"} ready (HOSTS=${instance.role}, pid ${instance.process.pid})`)
    }

    // The seeding instance alone (it migrates and seeds), then the rest side by side.
    const [seeder, ...rest] = planned
    const first = start(seeder!, true)
    const dataDir = path.join(directory, seeder!.name)
    await ready(first)
    await until("the demo files", () => existsSync(path.join(dataDir, "demo-credentials.json")), deadline)
    await Promise.all(rest.map((entry) => ready(start(entry, false))))

    const haproxy = await startHaproxy({ directory, name: "haproxy", ports, instances: planned, deadline })
    children.unshift(haproxy)
    progress(`haproxy: identity ${urls.auth}, API ${urls.api}, console ${urls.admin}`)

    const rotateSigningKey = () =>
      new Promise<{ kid: string; activatesAt?: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [ROTATE], { env: { ...shared, DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "pipe"] })
        let output = ""
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
        child.on("exit", (code) => {
          const line = output.split("\n").find((candidate) => candidate.startsWith("{\"kid\""))
          if (code === 0 && line !== undefined) resolve(JSON.parse(line) as { kid: string; activatesAt?: string })
          else reject(new Error(`signing-key:rotate failed (${code}):\n${output}`))
        })
      })

    return {
      urls,
      instances,
      dataDir,
      directory,
      databaseUrl: instanceDatabaseUrl,
      pgbouncer,
      env: shared,
      rotateSigningKey,
      errors: () =>
        instances.flatMap((instance) =>
          logTail(instance.logPath, 100_000)
            .split("\n")
            .filter((line) => line.includes('"level":"error"'))
            .map((line) => `${instance.name}: ${line}`)
        ),
      stop: async () => {
        process.off("exit", orphanGuard)
        await stop()
      }
    }
  } catch (error) {
    process.off("exit", orphanGuard)
    await stop()
    throw error
  }
}
