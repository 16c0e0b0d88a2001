/**
 * A database that can't be had is 503, not 500 (issue 23; `platform/Unavailable`): on PostgreSQL, with every
 * connection of a tiny pool held by open transactions, a request waits `connectionTimeoutMillis` and is answered 503
 * with `Retry-After` and a problem body that names the request id and nothing of the cause; its access-log line says
 * why; it changed nothing, and the same request succeeds once a connection is free. The token endpoint answers
 * `temporarily_unavailable`. With the server gone (a proxy in front of it closed), requests are 503 and `/readyz`
 * not ready, until it is back. On PGlite (one connection, no pool) a request waits for the connection instead.
 */
import { databaseUnavailable } from "@propline/db/DatabaseUnavailable"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Deferred, Effect, LogLevel, Ref } from "effect"
import { sql } from "kysely"
import { createServer, connect, type Server, type Socket } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Logging from "../../src/platform/Logging.js"
import * as Fixtures from "../support/Fixtures.js"
import { basicToken, call, start, type TestApp } from "../support/TestApp.js"

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read the parsed lines
type Line = Record<string, any>

const POOL = 3
const WAIT_MS = 500

/**
 * Holds `count` connections in open transactions until `gate` completes; resolves once all are held. A holder that
 * meets a connection the worker is using waits for it again.
 */
const holdConnections = (count: number, gate: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const held = yield* Ref.make(0)
    const all = yield* Deferred.make<void>()
    const holder = Db.transaction(
      Db.query((db) => sql`select 1`.execute(db)).pipe(
        Effect.zipRight(Ref.updateAndGet(held, (n) => n + 1)),
        Effect.flatMap((n) => (n === count ? Deferred.succeed(all, undefined) : Effect.void)),
        Effect.zipRight(Deferred.await(gate))
      )
    ).pipe(Effect.retry({ while: (error) => databaseUnavailable(error) !== undefined }))
    yield* Effect.forkDaemon(Effect.forEach(Array.from({ length: count }), () => holder, { concurrency: "unbounded", discard: true }))
    yield* Deferred.await(all)
  })

const invoiceStatus = (id: string) =>
  Db.query((db) => db.selectFrom("invoices").select("status").where("id", "=", id).executeTakeFirstOrThrow()).pipe(
    Effect.map((row) => row.status)
  )

describe.runIf(TestDatabase.kinds().includes("postgres"))("every connection of the pool busy (PostgreSQL)", () => {
  let app: TestApp
  let raw: Array<string> = []
  const requestLines = (): Array<Line> => raw.map((line) => JSON.parse(line) as Line).filter((line) => line["msg"] === "request")
  let client: { readonly clientId: string; readonly secret: string }
  let bearer: string
  let invoiceId: string

  beforeAll(async () => {
    app = await start("postgres", {
      logger: Logging.layer("json", LogLevel.Info, (line) => raw.push(line)),
      pool: { maxConnections: POOL, connectionTimeoutMillis: WAIT_MS }
    })
    const org = await app.run(Fixtures.organization({ name: "Busy" }))
    client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    invoiceId = await app.run(Fixtures.approvedInvoice(org))
    bearer = (await basicToken(app.authUrl, client.clientId, client.secret)).body["access_token"] as string
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })
  beforeEach(() => {
    raw = []
  })

  it("a write → 503 after the wait, Retry-After 1, a problem naming only the request id; it changed nothing", async () => {
    const before = await app.run(Fixtures.counts)
    const gate = await app.run(Deferred.make<void>())
    await app.run(holdConnections(POOL, gate))
    let answer
    try {
      const sent = Date.now()
      answer = await call(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-failed`, {
        token: bearer,
        body: { reason: "pool test" },
        headers: { "x-request-id": "busy-pool-1" }
      })
      expect(Date.now() - sent).toBeGreaterThanOrEqual(WAIT_MS - 50)
    } finally {
      await app.run(Deferred.succeed(gate, undefined))
    }
    expect(answer.status).toBe(503)
    expect(answer.headers.get("retry-after")).toBe("1")
    expect(answer.headers.get("content-type")).toContain("application/problem+json")
    expect(answer.headers.get("x-request-id")).toBe("busy-pool-1")
    expect(answer.body).toEqual({
      type: "about:blank",
      title: "Service Unavailable",
      status: 503,
      detail: "The service is temporarily unavailable; retry in 1 s. Request id: busy-pool-1."
    })
    const [line] = requestLines().filter((one) => one["requestId"] === "busy-pool-1")
    expect(line).toMatchObject({ level: "error", status: 503, route: "/v1/billing/invoices/:invoiceId/report-failed" })
    expect(line!["reason"]).toMatch(/^database exhausted: /)

    expect(await app.run(invoiceStatus(invoiceId))).toBe("approved")
    expect(await app.run(Fixtures.counts)).toEqual(before)
    // A connection is free again: the same request is carried out.
    const again = await call(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-failed`, {
      token: bearer,
      body: { reason: "pool test" }
    })
    expect(again.status).toBe(201)
    expect(await app.run(invoiceStatus(invoiceId))).not.toBe("approved")
  }, 60_000)

  it("a read → 503; the token endpoint → 503 temporarily_unavailable with Retry-After, no-store", async () => {
    const gate = await app.run(Deferred.make<void>())
    await app.run(holdConnections(POOL, gate))
    try {
      const read = await call(`${app.apiUrl}/v1/billing/send-queue`, { token: bearer })
      expect([read.status, read.headers.get("retry-after"), read.body.title]).toEqual([503, "1", "Service Unavailable"])
      const token = await fetch(`${app.authUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", client_id: client.clientId, client_secret: client.secret })
      })
      expect(token.status).toBe(503)
      expect(token.headers.get("retry-after")).toBe("1")
      expect(token.headers.get("cache-control")).toBe("no-store")
      expect(((await token.json()) as Record<string, unknown>)["error"]).toBe("temporarily_unavailable")
    } finally {
      await app.run(Deferred.succeed(gate, undefined))
    }
    const lines = requestLines().filter((line) => line["status"] === 503)
    expect(lines.map((line) => line["route"]).sort()).toEqual(["/oauth/token", "/v1/billing/send-queue"])
    for (const line of lines) expect(line["reason"]).toMatch(/^database exhausted: /)
  }, 60_000)
})

/** A TCP proxy to PostgreSQL that the test can take down (refusing connections, dropping open ones) and bring back. */
const proxyTo = async (target: URL) => {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const up = () =>
    new Promise<void>((resolve, reject) => {
      if (server?.listening === true) return resolve()
      server = createServer((socket) => {
        const upstream = connect(Number(target.port || 5432), target.hostname)
        for (const one of [socket, upstream]) {
          sockets.add(one)
          one.on("error", () => one.destroy())
          one.on("close", () => sockets.delete(one))
        }
        socket.on("close", () => upstream.destroy())
        upstream.on("close", () => socket.destroy())
        socket.pipe(upstream).pipe(socket)
      })
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (server?.listening === true) server.close(() => resolve())
      else resolve()
    })
  await up()
  return { port: () => port, up, down }
}

describe.runIf(TestDatabase.kinds().includes("postgres"))("the database unreachable (PostgreSQL behind a proxy)", () => {
  let app: TestApp
  let proxy: Awaited<ReturnType<typeof proxyTo>>
  let bearer: string

  beforeAll(async () => {
    proxy = await proxyTo(new URL(TestDatabase.postgresUrl()!))
    app = await start("postgres", {
      pool: {
        connectionTimeoutMillis: 2_000,
        through: (connectionString) => {
          const url = new URL(connectionString)
          url.host = `127.0.0.1:${proxy.port()}`
          return url.toString()
        }
      }
    })
    const org = await app.run(Fixtures.organization({ name: "Unreachable" }))
    const client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    bearer = (await basicToken(app.authUrl, client.clientId, client.secret)).body["access_token"] as string
  }, 120_000)
  afterAll(async () => {
    await proxy?.up()
    await app?.dispose()
    await proxy?.down()
  }, 60_000)

  it("requests → 503 with Retry-After 5 and /readyz → 503 database unreachable; both recover when it is back", async () => {
    await proxy.down()
    const answer = await call(`${app.apiUrl}/v1/billing/send-queue`, { token: bearer })
    expect([answer.status, answer.headers.get("retry-after"), answer.body.title]).toEqual([503, "5", "Service Unavailable"])
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i)
    const ready = await call(`${app.apiUrl}/readyz`)
    expect(ready.status).toBe(503)
    expect(ready.body.checks.database).toBe("unreachable")

    await proxy.up()
    await expect.poll(async () => (await call(`${app.apiUrl}/readyz`)).status, { timeout: 15_000, interval: 250 }).toBe(200)
    expect((await call(`${app.apiUrl}/v1/billing/send-queue`, { token: bearer })).status).toBe(200)
  }, 60_000)
})

describe("the one connection busy (PGlite)", () => {
  let app: TestApp
  let bearer: string
  let invoiceId: string

  beforeAll(async () => {
    app = await start("pglite")
    const org = await app.run(Fixtures.organization({ name: "Embedded" }))
    const client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    invoiceId = await app.run(Fixtures.approvedInvoice(org))
    bearer = (await basicToken(app.authUrl, client.clientId, client.secret)).body["access_token"] as string
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("a write waits for the connection (PGlite has no pool to time out) and is carried out: never a 500", async () => {
    const gate = await app.run(Deferred.make<void>())
    await app.run(holdConnections(1, gate))
    const answer = call(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-failed`, { token: bearer, body: { reason: "queued" } })
    await new Promise((resolve) => setTimeout(resolve, 700))
    await app.run(Deferred.succeed(gate, undefined))
    expect((await answer).status).toBe(201)
  }, 60_000)
})
