/**
 * The access log (issue 23, item 2; `platform/RequestLog`, `platform/Logging`): one JSON line per request on every
 * host with the request id, method, route template, status, duration and who the request acted for; never the
 * bearer token, the client secret or a body; a 500's line carries the request id its problem body tells the caller
 * to quote. The lines are captured from the product's own logger.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, LogLevel } from "effect"
import { sql } from "kysely"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Logging from "../../src/platform/Logging.js"
import * as Fixtures from "../support/Fixtures.js"
import { basicToken, call, start, type TestApp } from "../support/TestApp.js"

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read the parsed lines
type Line = Record<string, any>

describe.each(TestDatabase.kinds())("the access log on %s", (kind) => {
  let app: TestApp
  let raw: Array<string> = []
  const lines = (): Array<Line> => raw.map((line) => JSON.parse(line) as Line)
  const requestLines = () => lines().filter((line) => line["msg"] === "request")
  let client: { readonly id: string; readonly clientId: string; readonly secret: string }
  let organizationId: string
  let bearer: string

  beforeAll(async () => {
    app = await start(kind, { logger: Logging.layer("json", LogLevel.Info, (line) => raw.push(line)) })
    const org = await app.run(Fixtures.organization({ name: "Logged" }))
    organizationId = org.organizationId
    client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    const issued = await basicToken(app.authUrl, client.clientId, client.secret)
    bearer = issued.body["access_token"] as string
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })
  beforeEach(() => {
    raw = []
  })

  it("a token request: one line with the route, 200, the grantee, and neither the secret nor the token", async () => {
    const issued = await basicToken(app.authUrl, client.clientId, client.secret)
    expect(issued.status).toBe(200)
    const [line, ...others] = requestLines()
    expect(others).toEqual([])
    expect(line).toMatchObject({
      level: "info",
      method: "POST",
      route: "/oauth/token",
      status: 200,
      organizationId,
      principalId: client.id
    })
    expect(typeof line!["requestId"]).toBe("string")
    expect(line!["durationMs"]).toBeGreaterThan(0)
    expect(new Date(line!["time"] as string).toISOString()).toBe(line!["time"])
    const text = raw.join("\n")
    expect(text).not.toContain(client.secret)
    expect(text).not.toContain(issued.body["access_token"] as string)
    expect(text).not.toContain(Buffer.from(`${client.clientId}:${client.secret}`).toString("base64"))
  })

  it("an API request: the route template (not the path), the status, the token's organization and subject, no token", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000"
    const answer = await call(`${app.apiUrl}/v1/billing/invoices/${unknown}/report-failed?x=1`, {
      token: bearer,
      body: { reason: "printer-on-fire" },
      headers: { "x-request-id": "caller-correlation-1" }
    })
    expect(answer.status).toBe(404)
    const [line] = requestLines()
    expect(line).toEqual({
      time: line!["time"],
      level: "info",
      msg: "request",
      requestId: "caller-correlation-1",
      method: "POST",
      route: "/v1/billing/invoices/:invoiceId/report-failed",
      status: 404,
      durationMs: line!["durationMs"],
      organizationId,
      principalId: client.id
    })
    expect(raw.join("\n")).not.toContain(bearer)
    expect(raw.join("\n")).not.toContain("printer-on-fire")
  })

  it("no route matched: route null; no token: no organization; a 401 keeps the token out of the line", async () => {
    await call(`${app.apiUrl}/nowhere/${"a".repeat(8)}`)
    await call(`${app.apiUrl}/v1/billing/send-queue`, { token: "not.a.token" })
    const [missing, refused] = requestLines()
    expect(missing).toMatchObject({ method: "GET", route: null, status: 404 })
    expect(missing).not.toHaveProperty("organizationId")
    expect(refused).toMatchObject({ route: "/v1/billing/send-queue", status: 401 })
    expect(refused).not.toHaveProperty("principalId")
    expect(raw.join("\n")).not.toContain("not.a.token")
  })

  it("the probes are not logged", async () => {
    await call(`${app.apiUrl}/healthz`)
    await call(`${app.authUrl}/readyz`)
    expect(requestLines()).toEqual([])
  })

  it("a 500: the error line and the access line carry the request id the problem body names", async () => {
    await app.run(Db.query((db) => sql`alter table invoices rename to invoices_away`.execute(db)))
    let answer
    try {
      answer = await call(`${app.apiUrl}/v1/billing/send-queue`, { token: bearer })
    } finally {
      await app.run(Db.query((db) => sql`alter table invoices_away rename to invoices`.execute(db)))
    }
    expect(answer.status).toBe(500)
    const requestId = answer.headers.get("x-request-id")!
    expect(answer.body.detail).toContain(`Request id: ${requestId}.`)
    const access = requestLines()
    expect(access).toHaveLength(1)
    expect(access[0]).toMatchObject({ level: "error", requestId, route: "/v1/billing/send-queue", status: 500, organizationId })
    const failure = lines().find((line) => line["msg"] === "unexpected failure")
    expect(failure).toMatchObject({ level: "error", requestId })
    expect(typeof failure!["error"]).toBe("string")
    expect(raw.join("\n")).not.toContain(bearer)
  })
})

describe("the logger (Logging.layer)", () => {
  const written = (format: Logging.LogFormat, level: LogLevel.LogLevel, effect: Effect.Effect<void>) => {
    const out: Array<string> = []
    Effect.runSync(effect.pipe(Effect.provide(Logging.layer(format, level, (line) => out.push(line)))))
    return out
  }

  it("LOG_LEVEL: lines less severe than the level are not written", () => {
    const logs = Effect.all([Effect.logDebug("d"), Effect.logInfo("i"), Effect.logWarning("w"), Effect.logError("e")])
    expect(written("json", LogLevel.Warning, Effect.asVoid(logs)).map((line) => JSON.parse(line).level)).toEqual(["warn", "error"])
    expect(written("json", LogLevel.Debug, Effect.asVoid(logs))).toHaveLength(4)
    expect(written("json", LogLevel.None, Effect.asVoid(logs))).toEqual([])
  })

  it("LOG_FORMAT=pretty: one line, time, level, message and fields as key=value", () => {
    const [line] = written("pretty", LogLevel.Info, Effect.logInfo({ msg: "request", status: 201, route: "/v1/x" }))
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request status=201 route=\/v1\/x$/)
  })
})
