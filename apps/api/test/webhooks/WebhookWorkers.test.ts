/**
 * Many workers, one queue (issue 22, items 3 and 5), on PostgreSQL with real worker processes (`HOSTS=worker`,
 * the built `dist/main.js`): with no faults, 3 workers deliver each event to each endpoint exactly once (duplicates
 * counted: 0); killed with SIGKILL mid-delivery 5 times under load, every event still reaches every subscribed
 * endpoint at least once (a killed worker's claimed jobs are taken over when their claim expires).
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { testKeyEntry } from "../support/KeyEncryptionFixtures.js"
import { createEndpoint, publish, publishedEvent, type Receiver, receiver, startWebhooks, testSettings, waitFor, type Webhooks } from "./WebhookFixtures.js"

const apiRoot = path.resolve(import.meta.dirname, "../..")

/**
 * Builds `dist/` from the current sources (tsc is incremental: quick when nothing changed); asynchronously, so the
 * test runner's own messages are not held up meanwhile.
 */
const buildApi = async () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  await promisify(execFile)(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: apiRoot })
}

/** This process's environment without what vitest (vite) adds, such as `BASE_URL=/`, which the product would read. */
const parentEnvironment = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !["BASE_URL", "MODE", "DEV", "PROD", "SSR", "NODE_ENV"].includes(name) && !name.startsWith("VITEST"))
  )

describe.skipIf(TestDatabase.postgresUrl() === undefined)("webhook workers (postgres, processes)", () => {
  let database: TestDatabase.TestDatabase
  let publisher: Webhooks
  let hook: Receiver
  let org: Fixtures.OrganizationFixture
  let dataDir: string
  const workers = new Set<ChildProcess>()

  /** Starts a worker process; resolves once it says it is running. */
  const startWorker = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      if (database.config._tag !== "postgres") return reject(new Error("postgres only"))
      const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.js"], {
        cwd: apiRoot,
        env: {
          ...parentEnvironment(),
          HOSTS: "worker",
          DATABASE_URL: database.config.connectionString,
          KEY_ENCRYPTION_KEYS: testKeyEntry,
          DEMO_DATA: "false",
          DATA_DIR: dataDir,
          WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "true",
          WEBHOOK_TIMEOUT_SECONDS: "2",
          WEBHOOK_RETRY_SCALE: "0.0002",
          WEBHOOK_CONCURRENCY: "8"
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      workers.add(child)
      child.on("exit", () => workers.delete(child))
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("listening")) resolve(child)
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.on("exit", (code) => reject(new Error(`worker exited (${code}) before starting: ${output}`)))
    })

  const stopAll = async () => {
    await Promise.all(
      [...workers].map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once("exit", () => resolve())
            child.kill("SIGKILL")
          })
      )
    )
  }

  const distinct = () => new Set(hook.received.map((request) => `${String(request.headers["webhook-id"])} ${request.path}`))

  beforeAll(async () => {
    await buildApi()
    dataDir = await mkdtemp(path.join(tmpdir(), "propline-workers-"))
    database = await TestDatabase.create("postgres")
    publisher = await startWebhooks(database.config, testSettings(), { worker: false })
    org = await publisher.run(Fixtures.organization({ name: "Nordhavn" }))
    hook = await receiver()
  }, 240_000)

  afterEach(async () => {
    await stopAll()
  })

  afterAll(async () => {
    await stopAll()
    await hook?.close()
    await publisher?.dispose()
    await database?.drop()
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  })

  it("3 workers without faults deliver each event to each endpoint exactly once", async () => {
    hook.received.length = 0
    hook.answer = () => ({ status: 200, body: "ok", delayMs: 5 + Math.floor(Math.random() * 20) })
    const paths = ["/once-a", "/once-b", "/once-c"]
    for (const p of paths) await publisher.run(createEndpoint(org.organizationId, { url: hook.url(p) }))
    await Promise.all([startWorker(), startWorker(), startWorker()])
    const events = Array.from({ length: 150 }, () => publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId }))
    for (let i = 0; i < events.length; i += 25) await publisher.run(publish(events.slice(i, i + 25)))
    const expected = events.length * paths.length
    await waitFor(() => distinct().size === expected, 60_000, `${expected} deliveries`)
    await new Promise((resolve) => setTimeout(resolve, 2000)) // anything late would be a duplicate
    const duplicates = hook.received.length - distinct().size
    expect(duplicates).toBe(0)
    expect(hook.received).toHaveLength(expected)
    const pending = await publisher.run(
      Db.query((db) => db.selectFrom("webhookDeliveries").select("id").where("status", "<>", "delivered").execute())
    )
    expect(pending).toHaveLength(0)
    // Each attempt was recorded once: one attempt per delivery.
    const attempts = await publisher.run(Db.query((db) => db.selectFrom("webhookAttempts").select("deliveryId").execute()))
    expect(attempts).toHaveLength(expected)
    await publisher.run(Db.query((db) => db.deleteFrom("webhookEndpoints").execute()))
  }, 180_000)

  it("5 kill -9 of a worker mid-delivery under load: every event reaches every subscribed endpoint at least once", async () => {
    hook.received.length = 0
    // Slow enough answers that every kill lands while deliveries are in flight.
    hook.answer = () => ({ status: 200, body: "ok", delayMs: 150 + Math.floor(Math.random() * 250) })
    const paths = ["/crash-a", "/crash-b"]
    for (const p of paths) await publisher.run(createEndpoint(org.organizationId, { url: hook.url(p) }))
    await Promise.all([startWorker(), startWorker(), startWorker()])
    const events = Array.from({ length: 200 }, () => publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId }))
    for (let i = 0; i < events.length; i += 20) await publisher.run(publish(events.slice(i, i + 20)))
    let kills = 0
    let killedInFlight = 0
    while (kills < 5) {
      await new Promise((resolve) => setTimeout(resolve, 1200))
      const victim = [...workers][Math.floor(Math.random() * workers.size)]!
      const before = hook.received.length
      await new Promise<void>((resolve) => {
        victim.once("exit", () => resolve())
        victim.kill("SIGKILL")
      })
      kills++
      if (distinct().size < events.length * paths.length && hook.received.length > before - 1) killedInFlight++
      await startWorker()
    }
    expect(killedInFlight).toBeGreaterThan(0)
    const expected = events.length * paths.length
    await waitFor(() => distinct().size === expected, 120_000, `${expected} deliveries after the kills`)
    for (const event of events) for (const p of paths) expect(distinct().has(`${event.id} ${p}`)).toBe(true)
    const duplicates = hook.received.length - distinct().size
    console.log(`kill -9 ×5: ${expected} deliveries, ${hook.received.length} requests, duplicates ${duplicates}`)
    await waitFor(
      async () =>
        (await publisher.run(Db.query((db) => db.selectFrom("webhookDeliveries").select("id").where("status", "<>", "delivered").execute()))).length === 0,
      60_000,
      "every delivery recorded as delivered"
    )
  }, 300_000)
})
