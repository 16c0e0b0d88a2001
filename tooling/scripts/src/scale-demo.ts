/**
 * `pnpm scale:demo`: the production layout on this machine (issue 23, item 5; `ScaleLayout.ts`): 3 API, 2 identity,
 * 1 console and 2 worker processes on one PostgreSQL, behind haproxy, documents in an S3-compatible store (s3rver).
 * Prints the load balancer's addresses and the demo credentials, then runs until Ctrl-C (SIGINT) or SIGTERM, which
 * stops every instance (each drains, see docs/operations.md), then haproxy, PgBouncer and the store, and exits 0.
 *
 * Environment: `DATABASE_URL` (required: PostgreSQL; PGlite can't be shared between processes); `SCALE_PGBOUNCER=true`
 * puts PgBouncer in transaction pooling mode between the instances and PostgreSQL; `SCALE_INSTANCES`
 * (`api=3,auth=2,admin=1,worker=2`); `SCALE_AUTH_PORT`, `SCALE_API_PORT`, `SCALE_ADMIN_PORT` (the load balancer's
 * ports; default 4000, 3000, 5000, as `pnpm start`); `KEY_ENCRYPTION_KEYS` (default: the one in
 * `.data/scale-demo-key-encryption-keys`, made on the first run, so a later run opens the keys an earlier one sealed
 * in the same database); `LOG_LEVEL`. Configurations, data directories and
 * every process's log are under `.data/scale-demo/` (emptied at each start, kept after it).
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { DEFAULT_COUNTS, type InstanceCounts, type ScaleLayout, startScaleLayout } from "./ScaleLayout.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

const fail = (message: string): never => {
  console.error(message)
  process.exit(1)
}

const parseCounts = (text: string | undefined): InstanceCounts => {
  if (text === undefined || text.trim() === "") return DEFAULT_COUNTS
  const counts: Record<string, number> = { ...DEFAULT_COUNTS }
  for (const part of text.split(",")) {
    const match = /^\s*(api|auth|admin|worker)=(\d{1,2})\s*$/.exec(part)
    if (match === null) return fail(`SCALE_INSTANCES: expected e.g. api=3,auth=2,admin=1,worker=2, got ${JSON.stringify(part)}`)
    counts[match[1]!] = Number(match[2])
  }
  return counts as unknown as InstanceCounts
}

const port = (name: string, fallback: number): number => {
  const value = process.env[name]
  if (value === undefined || value === "") return fallback
  const parsed = Number(value)
  return Number.isInteger(parsed) && parsed > 0 && parsed < 65536 ? parsed : fail(`${name}: not a port: ${value}`)
}

const main = async () => {
  const databaseUrl = process.env["DATABASE_URL"]
  if (databaseUrl === undefined || databaseUrl === "") {
    fail(
      "pnpm scale:demo needs DATABASE_URL=postgres://…: its processes share one PostgreSQL (PGlite is one process's database and can't be shared)."
    )
  }
  const directory = path.join(root, ".data", "scale-demo")
  const keyFile = path.join(root, ".data", "scale-demo-key-encryption-keys")
  let keyEncryptionKeys = process.env["KEY_ENCRYPTION_KEYS"]
  if (keyEncryptionKeys === undefined || keyEncryptionKeys === "") {
    if (!existsSync(keyFile)) {
      mkdirSync(path.dirname(keyFile), { recursive: true })
      writeFileSync(keyFile, `scale:${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 })
    }
    keyEncryptionKeys = readFileSync(keyFile, "utf8").trim()
  }
  // Set once the layout is up; a signal before that stops what has started when startScaleLayout returns.
  const running: { layout?: ScaleLayout } = {}
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`\n${signal}: stopping every instance (each drains), then haproxy${running.layout?.env["DATABASE_DIRECT_URL"] === undefined ? "" : ", PgBouncer"} and the store…`)
    void (running.layout?.stop() ?? Promise.resolve()).then(
      () => {
        console.log("All stopped.")
        process.exit(0)
      },
      (error: unknown) => fail(`stopping failed: ${String(error)}`)
    )
  }
  process.on("SIGINT", () => shutdown("SIGINT"))
  process.on("SIGTERM", () => shutdown("SIGTERM"))

  const layout = await startScaleLayout({
    databaseUrl: databaseUrl!,
    pgbouncer: process.env["SCALE_PGBOUNCER"] === "true",
    counts: parseCounts(process.env["SCALE_INSTANCES"]),
    directory,
    keyEncryptionKeys,
    ports: { auth: port("SCALE_AUTH_PORT", 4000), api: port("SCALE_API_PORT", 3000), admin: port("SCALE_ADMIN_PORT", 5000) },
    env: { LOG_LEVEL: process.env["LOG_LEVEL"] ?? "info" },
    progress: (line) => console.log(line)
  })
  running.layout = layout
  if (stopping) {
    await layout.stop()
    process.exit(0)
  }
  const seeder = layout.instances[0]!
  const banner = readFileSync(seeder.logPath, "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("{"))
    .join("\n")
  console.log(`
${banner}

The production layout is up (${layout.instances.length} processes on one PostgreSQL${layout.env["DATABASE_DIRECT_URL"] === undefined ? "" : " through PgBouncer"}):
  identity (auth_url)  ${layout.urls.auth}   → ${layout.instances.filter((i) => i.role === "auth").length} instances
  API (base_url)       ${layout.urls.api}   → ${layout.instances.filter((i) => i.role === "api").length} instances
  admin console        ${layout.urls.admin}   → ${layout.instances.filter((i) => i.role === "admin").length} instance(s)
  workers              ${layout.instances.filter((i) => i.role === "worker").length} (outbox, events feed, webhooks)
Every answer names its instance in X-Served-By. Demo files: ${layout.dataDir} (the example scripts read them with
DATA_DIR=${path.relative(root, layout.dataDir)}); logs: ${path.join(directory, "logs")}.
Ctrl-C stops everything.`)
}

main().catch((error: unknown) => fail(`pnpm scale:demo failed: ${error instanceof Error ? error.message : String(error)}`))
