/**
 * How many times one request sets a FiberRef (issue 27): each set (`Effect.locally`, `provideService`, a pre-response
 * handler, a parent span) copies the fiber's FiberRefs map, so the request pipeline's cost grows with them.
 *
 * A token request on the identity host and a send-queue page on the API host, through the real hosts (`TestApp`),
 * with telemetry off as `main.ts` runs it (spans switched off, the HTTP platform's tracer middleware disabled). The
 * count is taken on the fiber runtime itself: its `setFiberRef` (the one path every FiberRef write takes) is wrapped
 * while the test runs, and only the sets made by fibers that serve the request (their Context holds the request,
 * marked by its X-Request-Id) are counted, so the worker's and the pool's fibers do not disturb it.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Context, Effect, type FiberRef, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { basicToken, call, start, token, type TestApp } from "../support/TestApp.js"

/**
 * At most this many FiberRef sets per request (issue 27; each is a copy of the fiber's FiberRefs map).
 *
 * A token request, 6: the node handler's `provideService(HttpServerRequest)` (set and restore), `HttpApp.toHandled`'s
 * request Scope (set and restore), the request state
 * (`RequestLog.CurrentRequest` and the route recorder, one set; the Scope's restore drops it) and the access-log
 * line (Effect's logger reads the fiber's FiberRefs, which writes its runtime flags into them). The identity host sets
 * `X-Request-Id` on its answer itself (`RequestId.requestIdInApp`), without the pre-response handler the other hosts'
 * `requestId` registers (one update more).
 *
 * A send-queue page, 13: those 6, the pre-response handler, and the HttpApi's own pairs: the router's parameters and route, the security
 * middleware's `Principal`, and the handler group's services merged into the request's Context.
 *
 * A report-payment (a write with a body), 15: those 13 and the transaction (`Db.transaction`, set and unset). The
 * checked body is installed on the request itself (`RequestBody.checkBody`), not provided as a copy of it (which was
 * two more: set and restore).
 */
const TOKEN_REQUEST_SETS = 6
const SEND_QUEUE_REQUEST_SETS = 13
const REPORT_PAYMENT_REQUEST_SETS = 15

/**
 * At most this many services in a report-payment's Context at any FiberRef set (each Context copy of the request is a
 * copy of that map). The API host serves with only the services its app reads at request time
 * (`ServeOnly.serveOnly`: 8–13 entries where every service of the process made 26–31), and each handler group is built
 * with only the services it requires (`ServeOnly.buildOnly`), so the group's Context that the platform merges into
 * every request's adds 6 entries, not 31: 19 in all, 44 before.
 */
const REPORT_PAYMENT_LARGEST_CONTEXT = 19

interface Probed {
  readonly setFiberRef: (this: Probed, ref: FiberRef.FiberRef<unknown>, value: unknown) => void
  readonly currentContext: Context.Context<never>
}

/**
 * The FiberRef sets of the fibers serving the request whose X-Request-Id is `marker`, while `run` runs, and the most
 * services their Context held at a set (the size of the map each Context copy of the request copies).
 */
const countSetsAndContext = async (
  marker: string,
  run: () => Promise<unknown>
): Promise<{ readonly sets: number; readonly largestContext: number }> => {
  const prototype = Effect.runSync(Effect.withFiberRuntime<Probed>((fiber) => Effect.succeed(Object.getPrototypeOf(fiber) as Probed)))
  const original = prototype.setFiberRef
  const sets = new Map<Probed, number>()
  const serving = new Set<Probed>()
  let largestContext = 0
  const mutable = prototype as { setFiberRef: Probed["setFiberRef"] }
  mutable.setFiberRef = function (this: Probed, ref, value) {
    sets.set(this, (sets.get(this) ?? 0) + 1)
    original.call(this, ref, value)
    const request = Context.getOption(this.currentContext, HttpServerRequest.HttpServerRequest)
    if (request._tag === "Some" && request.value.headers["x-request-id"] === marker) {
      serving.add(this)
      largestContext = Math.max(largestContext, this.currentContext.unsafeMap.size)
    }
  }
  try {
    await run()
  } finally {
    mutable.setFiberRef = original
  }
  let total = 0
  for (const fiber of serving) total += sets.get(fiber) ?? 0
  return { sets: total, largestContext }
}

/** The FiberRef sets of the fibers serving the request whose X-Request-Id is `marker`, while `run` runs. */
const countSets = async (marker: string, run: () => Promise<unknown>): Promise<number> =>
  (await countSetsAndContext(marker, run)).sets

describe.each(TestDatabase.kinds())("FiberRef sets per request with telemetry off on %s", (kind) => {
  let app: TestApp
  let client: { readonly clientId: string; readonly secret: string }
  let bearer: string
  let org: Fixtures.OrganizationFixture

  beforeAll(async () => {
    app = await start(kind, {
      // What `Telemetry.fromEnv` and `main.ts` do without OTEL_EXPORTER_OTLP_ENDPOINT.
      logger: Layer.mergeAll(
        Layer.setTracerEnabled(false),
        Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)
      )
    })
    org = await app.run(Fixtures.organization({ name: "Counted" }))
    client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    bearer = await token(app.authUrl, client.clientId, client.secret)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it(`a token request sets at most ${TOKEN_REQUEST_SETS}`, async () => {
    await basicToken(app.authUrl, client.clientId, client.secret)
    const sets = await countSets("count-token", async () => {
      const issued = await fetch(`${app.authUrl}/oauth/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
          "x-request-id": "count-token"
        },
        body: "grant_type=client_credentials"
      })
      expect(issued.status).toBe(200)
      await issued.text()
    })
    console.log(`token request: ${sets} FiberRef sets`)
    expect(sets).toBeGreaterThan(0)
    expect(sets).toBeLessThanOrEqual(TOKEN_REQUEST_SETS)
  })

  it(`a send-queue request sets at most ${SEND_QUEUE_REQUEST_SETS}`, async () => {
    await call(`${app.apiUrl}/v1/billing/send-queue?limit=50`, { token: bearer })
    const sets = await countSets("count-send-queue", async () => {
      const answer = await call(`${app.apiUrl}/v1/billing/send-queue?limit=50`, {
        token: bearer,
        headers: { "x-request-id": "count-send-queue" }
      })
      expect(answer.status).toBe(200)
    })
    console.log(`send-queue request: ${sets} FiberRef sets`)
    expect(sets).toBeGreaterThan(0)
    expect(sets).toBeLessThanOrEqual(SEND_QUEUE_REQUEST_SETS)
  })

  it(`a report-payment request sets at most ${REPORT_PAYMENT_REQUEST_SETS}`, async () => {
    const invoiceId = await app.run(Fixtures.approvedInvoice(org))
    const sent = await call(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-sent`, {
      token: bearer,
      body: { issuedInvoiceNumber: "F-1", issuedInvoiceDate: "2026-11-20", dueDate: "2026-12-20", issuedTotalGrossMinorUnits: 1_250_000 }
    })
    expect(sent.status).toBe(201)
    const pay = (paymentId: string, headers?: Record<string, string>) =>
      call(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-payment`, {
        token: bearer,
        body: { paymentId, amountMinorUnits: 100, paidOn: "2026-11-21" },
        ...(headers === undefined ? {} : { headers })
      })
    await pay("warm-up")
    const { sets, largestContext } = await countSetsAndContext("count-report-payment", async () => {
      const answer = await pay("counted", { "x-request-id": "count-report-payment" })
      expect(answer.status).toBe(200)
    })
    console.log(`report-payment request: ${sets} FiberRef sets, Context of at most ${largestContext} services`)
    expect(sets).toBeGreaterThan(0)
    expect(sets).toBeLessThanOrEqual(REPORT_PAYMENT_REQUEST_SETS)
    expect(largestContext).toBeLessThanOrEqual(REPORT_PAYMENT_LARGEST_CONTEXT)
  })
})
