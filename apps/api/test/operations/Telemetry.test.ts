/**
 * Traces and metrics (issue 23, item 4; `platform/Telemetry`): the built product with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * pointing at a local OTLP/HTTP receiver (a node:http server keeping the JSON posts) exports one trace for a billing
 * pass — the request's span continuing the caller's `traceparent`, the service's span, the SQL statements' spans,
 * each a child of the one before — and the request count, latency histogram and pool gauges. Without the variable,
 * nothing is sent (the other suites' children, and `startChild` here with no endpoint).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { freePort } from "@propline/db/FreePort"
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { afterAll, describe, expect, it } from "vitest"
import { type ChildProduct, sharedDatabase, startChild, waitUntil } from "../support/ChildProduct.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, token } from "../support/TestApp.js"

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OTLP JSON, read field by field
type Json = any

interface Received {
  readonly path: string
  readonly body: Json
}

const receiver = async (): Promise<{ readonly url: string; readonly posts: Array<Received>; readonly server: Server }> => {
  const posts: Array<Received> = []
  const server = createServer((request, response) => {
    let text = ""
    request.on("data", (chunk: Buffer) => (text += chunk.toString()))
    request.on("end", () => {
      posts.push({ path: request.url ?? "", body: JSON.parse(text) })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${port}`, posts, server }
}

const attribute = (span: Json, key: string): unknown => {
  const value = span.attributes?.find((entry: Json) => entry.key === key)?.value
  return value === undefined ? undefined : (value.stringValue ?? value.intValue ?? value.boolValue)
}

describe.runIf(TestDatabase.kinds().includes("postgres"))("telemetry over OTLP/HTTP (PostgreSQL)", () => {
  let database: TestDatabase.TestDatabase | undefined
  let child: ChildProduct | undefined
  let collector: Awaited<ReturnType<typeof receiver>> | undefined

  afterAll(async () => {
    child?.kill()
    collector?.server.close()
    await database?.drop()
  }, 60_000)

  it(
    "a billing pass: the request's, the service's and the SQL statements' spans in the caller's trace; request and pool metrics",
    async () => {
      collector = await receiver()
      const shared = await sharedDatabase()
      database = shared.database
      const { connectionString, fixtures } = shared
      const org = await fixtures.runPromise(Fixtures.organization({ name: "Traced" }))
      const client = await fixtures.runPromise(Fixtures.application(org, { roles: ["billing"] }))
      const proposalId = await fixtures.runPromise(Fixtures.proposal(org))
      await fixtures.dispose()

      child = await startChild({
        DATABASE_URL: connectionString,
        KEY_ENCRYPTION_KEYS: `otel:${randomBytes(32).toString("base64url")}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "propline-test",
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_METRIC_EXPORT_INTERVAL: "300"
      })
      const bearer = await token(child.authUrl, client.clientId, client.secret)
      const traceId = randomBytes(16).toString("hex")
      const callerSpanId = randomBytes(8).toString("hex")
      const passed = await call(`${child.apiUrl}/v1/billing/invoice-proposals/${proposalId}/pass`, {
        token: bearer,
        body: { externalReference: "ERP-TRACED" },
        headers: { traceparent: `00-${traceId}-${callerSpanId}-01` }
      })
      expect(passed.status).toBe(201)

      const posts = collector.posts
      const spans = (): Array<Json> =>
        posts
          .filter((post) => post.path === "/v1/traces")
          .flatMap((post) => post.body.resourceSpans.flatMap((resource: Json) => resource.scopeSpans.flatMap((scope: Json) => scope.spans)))
          .filter((span: Json) => span.traceId === traceId)
      await waitUntil("the pass's spans", 30_000, () => spans().some((span) => span.name === "sql.transaction"), child.output)
      await waitUntil("the request's span", 30_000, () => spans().some((span) => span.name === "http.server POST"), child.output)

      const trace = spans()
      const server = trace.find((span) => span.name === "http.server POST")
      expect(server.parentSpanId).toBe(callerSpanId)
      expect(attribute(server, "http.route")).toBe("/v1/billing/invoice-proposals/:proposalId/pass")
      expect(String(attribute(server, "http.response.status_code"))).toBe("201")
      const byId = new Map(trace.map((span) => [span.spanId, span]))
      const ancestors = (span: Json): Array<string> => {
        const parent = byId.get(span.parentSpanId)
        return parent === undefined ? [] : [parent.name, ...ancestors(parent)]
      }
      const service = trace.find((span) => span.name.startsWith("BillingService."))
      expect(service).toBeDefined()
      expect(ancestors(service)).toContain("http.server POST")
      const statements = trace.filter((span) => span.name === "sql.query")
      expect(statements.length).toBeGreaterThan(1)
      for (const statement of statements) {
        expect(ancestors(statement)).toContain(service.name)
        expect(attribute(statement, "db.system")).toBe("postgresql")
      }
      expect(statements.some((statement) => /\bfor update\b/i.test(String(attribute(statement, "db.query.text"))))).toBe(true)
      // Every span of the trace hangs off the caller's span through the request's.
      for (const span of trace) if (span !== server) expect(ancestors(span)).toContain("http.server POST")
      const resource = posts.find((post) => post.path === "/v1/traces")!.body.resourceSpans[0].resource
      expect(resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "propline-test" } })

      const metricNames = () =>
        new Set(
          posts
            .filter((post) => post.path === "/v1/metrics")
            .flatMap((post) => post.body.resourceMetrics.flatMap((resource: Json) => resource.scopeMetrics.flatMap((scope: Json) => scope.metrics)))
            .map((metric: Json) => metric.name as string)
        )
      await waitUntil("the metrics", 30_000, () => metricNames().has("http.server.request.duration"), child.output)
      expect([...metricNames()]).toEqual(
        expect.arrayContaining([
          "http.server.requests",
          "http.server.request.duration",
          "db.client.connections.usage",
          "db.client.connections.pending_requests"
        ])
      )
      const passCounted = () =>
        posts
          .filter((post) => post.path === "/v1/metrics")
          .flatMap((post) => post.body.resourceMetrics.flatMap((resource: Json) => resource.scopeMetrics.flatMap((scope: Json) => scope.metrics)))
          .filter((metric: Json) => metric.name === "http.server.requests")
          .flatMap((metric: Json) => metric.sum.dataPoints)
          .some(
            (point: Json) =>
              attribute(point, "http.route") === "/v1/billing/invoice-proposals/:proposalId/pass" &&
              attribute(point, "http.response.status_code") === "201"
          )
      await waitUntil("the pass counted", 30_000, passCounted, () => JSON.stringify(posts.filter((post) => post.path === "/v1/metrics").at(-1)))

      child.process.kill("SIGTERM")
      expect(await child.exited).toBe(0)
    },
    360_000
  )
})
