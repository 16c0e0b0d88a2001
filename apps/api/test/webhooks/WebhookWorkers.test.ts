/**
 * Many workers, one queue (issue 22, items 3 and 5), on PostgreSQL with real worker processes (`HOSTS=worker`,
 * the built `dist/main.js`): with no faults, 3 workers — each of them sending — deliver each event to each endpoint
 * exactly once (duplicates counted: 0); killed with SIGKILL mid-delivery 5 times (a kill counts when the worker had
 * a request the receiver had not answered yet — the receiver tells a request's worker by the process owning its
 * connection, under /proc) while events keep coming, every event still reaches every subscribed
 * endpoint at least once, and every request cut off is made again (a killed worker's claimed jobs are taken over
 * when their claim expires).
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { PublishedEvent } from "../../src/events/PublishedEvent.js"
import * as Fixtures from "../support/Fixtures.js"
import { testKeyEntry } from "../support/KeyEncryptionFixtures.js"
import { createEndpoint, publish, publishedEvent, type Received, type Receiver, receiver, startWebhooks, testSettings, waitFor, type Webhooks } from "./WebhookFixtures.js"

const apiRoot = path.resolve(import.meta.dirname, "../..")

/** A request's delivery: its `webhook-id` and the endpoint's path. */
const keyOf = (request: Received) => `${String(request.headers["webhook-id"])} ${request.path}`

/** Whether this system shows sockets and their processes under /proc (Linux). */
const procFs = existsSync("/proc/net/tcp")

/** A 127.0.0.1 address and port as /proc/net/tcp writes it. */
const loopback = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`

/**
 * Which of `pids` owns the TCP connection from 127.0.0.1:`port` to 127.0.0.1:`to` (the sending side of a
 * connection to a receiver): the socket's inode from /proc/net/tcp, then the process whose descriptors link to it;
 * undefined when not found.
 */
const ownerOf = (port: number, to: number, pids: ReadonlyArray<number>): number | undefined => {
  if (!procFs) return undefined
  const columns = readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1] === loopback(port) && fields[2] === loopback(to))
  if (columns === undefined) return undefined
  const link = `socket:[${columns[9]}]`
  for (const pid of pids) {
    const descriptors = (() => {
      try {
        return readdirSync(`/proc/${pid}/fd`)
      } catch {
        return []
      }
    })()
    for (const fd of descriptors) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined
}

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

  /** The workers that said they are running, oldest first. */
  const running: Array<ChildProcess> = []
  /** Whether the kill test's producer keeps publishing (stopped by the test, or after it when it failed). */
  let loading = false

  /**
   * Starts a worker process; resolves once it says it is running. `timeoutSeconds` is its attempts' timeout; a
   * claimed job expires after twice that plus 5 s (`WebhookSettings`), when another worker takes it over.
   */
  const startWorker = (timeoutSeconds = 2) =>
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
          WEBHOOK_TIMEOUT_SECONDS: String(timeoutSeconds),
          WEBHOOK_RETRY_SCALE: "0.0002",
          WEBHOOK_CONCURRENCY: "8"
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      workers.add(child)
      child.on("exit", () => {
        workers.delete(child)
        const index = running.indexOf(child)
        if (index >= 0) running.splice(index, 1)
      })
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("listening") && !running.includes(child) && child.exitCode === null) {
          running.push(child)
          resolve(child)
        }
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

  const distinct = () => new Set(hook.received.map(keyOf))
  const receiverPort = () => Number(new URL(hook.url()).port)

  beforeAll(async () => {
    await buildApi()
    dataDir = await mkdtemp(path.join(tmpdir(), "propline-workers-"))
    database = await TestDatabase.create("postgres")
    publisher = await startWebhooks(database.config, testSettings(), { worker: false })
    org = await publisher.run(Fixtures.organization({ name: "Nordhavn" }))
    hook = await receiver()
  }, 240_000)

  afterEach(async () => {
    loading = false
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
    const paths = ["/once-a", "/once-b", "/once-c"]
    for (const p of paths) await publisher.run(createEndpoint(org.organizationId, { url: hook.url(p) }))
    // No faults: the product's default 10 s timeout (claims of 25 s), so that a slow moment of a loaded machine is
    // neither a timed-out attempt nor an expired claim — both of which are retried, at least once.
    const started = await Promise.all([startWorker(10), startWorker(10), startWorker(10)])
    const pids = started.map((child) => child.pid!)
    // Which worker sent each request: the process owning the connection's other end, looked up when it first speaks.
    const owners = new Map<number, number | undefined>()
    hook.answer = (request) => {
      if (!owners.has(request.remotePort)) owners.set(request.remotePort, ownerOf(request.remotePort, receiverPort(), pids))
      return { status: 200, body: "ok", delayMs: 5 + Math.floor(Math.random() * 20) }
    }
    const events = Array.from({ length: 150 }, () => publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId }))
    for (let i = 0; i < events.length; i += 25) await publisher.run(publish(events.slice(i, i + 25)))
    const expected = events.length * paths.length
    await waitFor(() => distinct().size === expected, 60_000, `${expected} deliveries`)
    await new Promise((resolve) => setTimeout(resolve, 2000)) // anything late would be a duplicate
    const duplicates = hook.received.length - distinct().size
    expect(duplicates).toBe(0)
    expect(hook.received).toHaveLength(expected)
    // All three took part (each sent deliveries on connections of its own).
    if (procFs) expect(new Set([...owners.values()].filter((pid) => pid !== undefined))).toEqual(new Set(pids))
    const pending = await publisher.run(
      Db.query((db) => db.selectFrom("webhookDeliveries").select("id").where("status", "<>", "delivered").execute())
    )
    expect(pending).toHaveLength(0)
    // Each attempt was recorded once: one attempt per delivery.
    const attempts = await publisher.run(Db.query((db) => db.selectFrom("webhookAttempts").select("deliveryId").execute()))
    expect(attempts).toHaveLength(expected)
    await publisher.run(Db.query((db) => db.deleteFrom("webhookEndpoints").execute()))
  }, 180_000)

  it("kill -9 of a worker mid-delivery, 5 times under load: every event reaches every subscribed endpoint at least once", async () => {
    hook.received.length = 0
    // Slow enough answers that a worker always has deliveries in flight while there is a backlog.
    // Each request not yet answered, with the worker that sent it (the process owning its connection).
    const pending = new Map<Received, number | undefined>()
    // Requests a kill is about to cut off: never answered, so the victim can't record them delivered in the moments
    // between the choice of the victim and its death (the kill signal is not instant).
    const withheld = new Set<Received>()
    const owners = new Map<number, number | undefined>()
    hook.answer = (request, response) => {
      const pids = [...workers].map((child) => child.pid!)
      const known = owners.get(request.remotePort)
      // Looked up again when the port's process is gone (a new connection reusing a dead worker's port).
      if (known === undefined || !pids.includes(known)) owners.set(request.remotePort, ownerOf(request.remotePort, receiverPort(), pids))
      pending.set(request, owners.get(request.remotePort))
      // Answered by hand: the request stops being pending before a byte of its answer is written.
      setTimeout(
        () => {
          pending.delete(request)
          if (response.destroyed) return
          if (withheld.has(request)) {
            response.destroy()
            return
          }
          response.writeHead(200, { "content-type": "text/plain" })
          response.end("ok")
        },
        150 + Math.floor(Math.random() * 250)
      ).unref()
      return "handled"
    }
    const paths = ["/crash-a", "/crash-b"]
    for (const p of paths) await publisher.run(createEndpoint(org.organizationId, { url: hook.url(p) }))
    await Promise.all([startWorker(), startWorker(), startWorker()])
    const events: Array<PublishedEvent> = []
    const publishMore = async (count: number) => {
      const batch = Array.from({ length: count }, () => publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId }))
      events.push(...batch)
      await publisher.run(publish(batch))
    }
    for (let i = 0; i < 60; i += 20) await publishMore(20)
    // Under load: more events keep coming while the workers are killed.
    loading = true
    const load = (async () => {
      while (loading) {
        await publishMore(2)
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    })()
    // A kill counts when it cut off a request in flight: one the victim sent that the receiver had not answered yet.
    // A worker with one is killed (and a new one started beside the others) until 5 kills did, at most 12 in all.
    let kills = 0
    let midDelivery = 0
    const cutOff: Array<Received> = []
    const replacements: Array<Promise<ChildProcess>> = []
    try {
      while (midDelivery < 5) {
        expect(kills, `only ${midDelivery} of ${kills} kills landed mid-delivery`).toBeLessThan(12)
        await new Promise((resolve) => setTimeout(resolve, 1200))
        // The longest-running worker with a request in flight (waiting for one, on a slow machine).
        const sending = () => running.find((child) => [...pending.values()].includes(child.pid))
        await waitFor(() => sending() !== undefined, 120_000, "a worker with a request in flight")
        const victim = sending()!
        const inFlight = [...pending].filter(([, pid]) => pid === victim.pid).map(([request]) => request)
        for (const request of inFlight) withheld.add(request)
        await new Promise<void>((resolve) => {
          victim.once("exit", () => resolve())
          victim.kill("SIGKILL")
        })
        kills++
        if (inFlight.length > 0) midDelivery++
        cutOff.push(...inFlight)
        console.log(`kill ${kills}: ${inFlight.length} of its requests in flight; ${hook.received.length} received`)
        const replacement = startWorker()
        replacement.catch(() => undefined) // awaited below; stopped by afterEach when the test fails first
        replacements.push(replacement)
      }
    } finally {
      loading = false
      await load
    }
    await Promise.all(replacements)
    const expected = events.length * paths.length
    await waitFor(() => distinct().size === expected, 240_000, `${expected} deliveries after the kills`)
    for (const event of events) for (const p of paths) expect(distinct().has(`${event.id} ${p}`)).toBe(true)
    // Each request a kill cut off is made again (the killed worker's claim expires and another worker takes it).
    // Waited for: the cut-off request itself already counts among the distinct deliveries, so when the last kill
    // leaves no backlog, the distinct count is complete before the claim expires (up to 9 s after the kill).
    const receipts = () => {
      const counts = new Map<string, number>()
      for (const request of hook.received) counts.set(keyOf(request), (counts.get(keyOf(request)) ?? 0) + 1)
      return counts
    }
    expect(cutOff.length).toBeGreaterThanOrEqual(5)
    await waitFor(
      () => cutOff.every((cut) => (receipts().get(keyOf(cut)) ?? 0) > 1),
      120_000,
      "every request a kill cut off made again"
    )
    for (const cut of cutOff) expect(receipts().get(keyOf(cut)), `${keyOf(cut)} again`).toBeGreaterThan(1)
    const duplicates = hook.received.length - distinct().size
    console.log(
      `kill -9 ×${kills} (${midDelivery} mid-delivery, ${cutOff.length} requests cut off): ${expected} deliveries, ${hook.received.length} requests, duplicates ${duplicates}`
    )
    await waitFor(
      async () =>
        (await publisher.run(Db.query((db) => db.selectFrom("webhookDeliveries").select("id").where("status", "<>", "delivered").execute()))).length === 0,
      60_000,
      "every delivery recorded as delivered"
    )
  }, 480_000)
})
