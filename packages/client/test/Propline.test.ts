/**
 * The Promise API and the Effect API's transport against a tiny local HTTP server that answers as scripted (the
 * API itself is exercised by apps/harness's ClientAgainstProduct.test.ts): retries of operations safe to repeat on
 * 429 (after Retry-After), 503 and timeouts, none for the others; tokens of both grants cached and renewed before
 * they expire; tagged errors with code, issues and the request id; every page of a cursor list.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream, TestClock } from "effect"
import { exportJWK, generateKeyPair, jwtVerify } from "jose"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach } from "vitest"
import * as Client from "../src/Client.js"
import {
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  parseRetryAfter,
  ProplineError,
  RateLimitError,
  ServerError,
  TimeoutError,
  TokenError
} from "../src/Errors.js"
import { Propline } from "../src/Propline.js"

interface Seen {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: string
}

type Answer = (request: Seen, res: ServerResponse) => void

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

const servers: Array<{ close: () => void }> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** A server answering `/oauth/token` with a fresh token (`expiresIn` seconds) and anything else by `answers`, in turn. */
const serve = async (answers: ReadonlyArray<Answer>, options: { readonly expiresIn?: number } = {}) => {
  const seen: Array<Seen> = []
  const tokens: Array<Seen> = []
  let next = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ""
    req.on("data", (chunk: Buffer) => (body += chunk.toString()))
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "", authorization: req.headers.authorization, body }
      if (request.path === "/oauth/token") {
        tokens.push(request)
        return json(res, 200, { access_token: `token-${tokens.length}`, token_type: "Bearer", expires_in: options.expiresIn ?? 600 })
      }
      seen.push(request)
      const answer = answers[Math.min(next++, answers.length - 1)]
      answer?.(request, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push({ close: () => server.close() })
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { baseUrl, seen, tokens }
}

const emptyPage: Answer = (_, res) => json(res, 200, { items: [], nextCursor: null }, { "x-request-id": "req-ok" })
const problem =
  (status: number, code?: string, headers: Record<string, string> = {}, issues?: unknown): Answer =>
  (_, res) => {
    res.writeHead(status, { "content-type": "application/problem+json", "x-request-id": `req-${status}`, ...headers })
    res.end(JSON.stringify({ type: "about:blank", title: "t", status, detail: `detail ${status}`, code, issues }))
  }

const credentials = { clientId: "app_1", clientSecret: "s3cret" }
const fast = { retryDelayMs: 1 }
const invoiceId = "0b6f7e0e-3c1f-4d7a-9f2e-6a1d2c3b4a5f"
const payment = {
  path: { invoiceId: invoiceId as never },
  payload: { paymentId: "p-1", amountMinorUnits: 100, paidOn: "2026-11-20" } as never
}

describe("retries", () => {
  it("retries a GET after 503 and after 429's Retry-After, then answers", async () => {
    const { baseUrl, seen } = await serve([problem(503), problem(429, undefined, { "retry-after": "0" }), emptyPage])
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    expect(await propline.billing.getSendQueue({ urlParams: {} })).toEqual({ items: [], nextCursor: null })
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill("GET /v1/billing/send-queue"))
  })

  it.effect("waits Retry-After seconds (by the Effect clock) before the next attempt", () =>
    Effect.gen(function* () {
      const { baseUrl, seen } = yield* Effect.promise(() =>
        serve([problem(429, undefined, { "retry-after": "30" }), emptyPage])
      )
      const api = yield* Client.make({ baseUrl, ...credentials, ...fast })
      const fiber = yield* Effect.fork(api.billing.getSendQueue({ urlParams: {} }))
      yield* Effect.promise(() => waitFor(() => seen.length === 1))
      yield* TestClock.adjust("29 seconds")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(seen.length).toBe(1)
      yield* TestClock.adjust("1 second")
      expect(yield* fiber.await.pipe(Effect.flatten)).toEqual({ items: [], nextCursor: null })
      expect(seen.length).toBe(2)
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it("gives up after maxRetries with the last error, its status and request id", async () => {
    const { baseUrl, seen } = await serve([problem(503)])
    const propline = new Propline({ baseUrl, ...credentials, ...fast, maxRetries: 3 })
    const error = await propline.billing.getSendQueue({ urlParams: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerError)
    expect(error).toMatchObject({ _tag: "ServerError", status: 503, requestId: "req-503" })
    expect(seen.length).toBe(4)
  })

  it("retries the money reports (idempotent by paymentId) and booking requests (by requestId)", async () => {
    const { baseUrl, seen } = await serve([problem(502), problem(404)])
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    const error = await propline.billing.reportPayment(payment).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    expect(seen.map((r) => r.method + " " + r.path)).toEqual(
      Array(2).fill(`POST /v1/billing/invoices/${invoiceId}/report-payment`)
    )
  })

  it("never retries an operation that is refused when repeated (pass), even on 503", async () => {
    const { baseUrl, seen } = await serve([problem(503), emptyPage])
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    const error = await propline.billing
      .passProposal({ path: { proposalId: invoiceId as never }, payload: { externalReference: "X-1" } as never })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerError)
    expect(seen.length).toBe(1)
  })

  it("times an attempt out, and retries a GET that timed out", async () => {
    const hang: Answer = () => undefined
    const { baseUrl, seen } = await serve([hang, hang, emptyPage])
    // Long enough for the answering attempt on a loaded machine; the hanging ones use all of it.
    const propline = new Propline({ baseUrl, ...credentials, ...fast, timeoutMs: 1500 })
    expect(await propline.billing.getSendQueue({ urlParams: {} })).toEqual({ items: [], nextCursor: null })
    expect(seen.length).toBe(3)
    const hanging = await serve([hang])
    const once = new Propline({ baseUrl: hanging.baseUrl, ...credentials, ...fast, timeoutMs: 200, maxRetries: 0 })
    const error = await once.billing.getSendQueue({ urlParams: {} }).catch((e: unknown) => e)
    expect(hanging.seen.length).toBe(1)
    expect(error).toBeInstanceOf(TimeoutError)
  })
})

const waitFor = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

describe("errors", () => {
  it("rejects with the status's class: _tag, code, issues, detail and X-Request-Id", async () => {
    const issues = [{ path: "/paymentReference", message: "check digit" }]
    const { baseUrl } = await serve([
      problem(400, "VALIDATION_FAILED", {}, issues),
      problem(409, "BILLING_EXTERNAL_REFERENCE_ALREADY_USED")
    ])
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    const invalid = await propline.billing.reportPayment(payment).catch((e: unknown) => e)
    expect(invalid).toBeInstanceOf(BadRequestError)
    expect(invalid).toBeInstanceOf(ProplineError)
    expect(invalid).toBeInstanceOf(Error)
    expect(invalid).toMatchObject({
      _tag: "BadRequestError",
      status: 400,
      code: "VALIDATION_FAILED",
      issues,
      detail: "detail 400",
      requestId: "req-400"
    })
    const conflict = await propline.billing.reportPayment(payment).catch((e: unknown) => e)
    expect(conflict).toBeInstanceOf(ConflictError)
    expect(conflict).toMatchObject({ code: "BILLING_EXTERNAL_REFERENCE_ALREADY_USED", requestId: "req-409" })
  })

  it.effect("fails the Effect API with tagged errors that catchTag narrows", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Effect.promise(() => serve([problem(404), problem(429, undefined, { "retry-after": "3600" })]))
      const api = yield* Client.make({ baseUrl, ...credentials, ...fast })
      const requestId = yield* api.booking
        .getBookingRequest({ path: { bookingId: invoiceId as never } })
        .pipe(
          Effect.as("found"),
          Effect.catchTag("NotFoundError", (error) => Effect.succeed(error.requestId))
        )
      expect(requestId).toBe("req-404")
      // A Retry-After longer than maxRetryAfterMs fails at once, with retryAfter in seconds.
      const limited = yield* Effect.either(api.billing.getSendQueue({ urlParams: {} }))
      expect(Either.isLeft(limited) && limited.left).toBeInstanceOf(RateLimitError)
      expect(Either.isLeft(limited) && limited.left.retryAfter).toBe(3600)
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
})

describe("tokens", () => {
  it.effect("client_credentials: one token for many calls, renewed 60 s before expires_in runs out", () =>
    Effect.gen(function* () {
      const { baseUrl, seen, tokens } = yield* Effect.promise(() => serve([emptyPage], { expiresIn: 600 }))
      const api = yield* Client.make({ baseUrl, ...credentials })
      yield* api.billing.getSendQueue({ urlParams: {} })
      yield* api.billing.getSendQueue({ urlParams: {} })
      yield* TestClock.adjust("539 seconds")
      yield* api.billing.getSendQueue({ urlParams: {} })
      expect(tokens.length).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* api.billing.getSendQueue({ urlParams: {} })
      expect(tokens.length).toBe(2)
      expect(seen.map((r) => r.authorization)).toEqual([
        "Bearer token-1",
        "Bearer token-1",
        "Bearer token-1",
        "Bearer token-2"
      ])
      expect(tokens[0]?.authorization).toBe(`Basic ${btoa("app_1:s3cret")}`)
      expect(new URLSearchParams(tokens[0]?.body).get("grant_type")).toBe("client_credentials")
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it.effect("installation grant: an ES256 client assertion (RFC 7523) per token, cached and renewed", () =>
    Effect.gen(function* () {
      const { publicKey, privateKey } = yield* Effect.promise(() => generateKeyPair("ES256", { extractable: true }))
      const jwk = { ...(yield* Effect.promise(() => exportJWK(privateKey))), kid: "key-1" }
      const { baseUrl, tokens } = yield* Effect.promise(() => serve([emptyPage], { expiresIn: 600 }))
      const api = yield* Client.make({ baseUrl, appId: "app_9", installationId: "inst_1", privateKey: jwk })
      yield* api.billing.getSendQueue({ urlParams: {} })
      yield* api.billing.getSendQueue({ urlParams: {} })
      yield* TestClock.adjust("540 seconds")
      yield* api.billing.getSendQueue({ urlParams: {} })
      expect(tokens.length).toBe(2)
      const form = new URLSearchParams(tokens[0]?.body)
      expect(form.get("grant_type")).toBe("urn:service:params:oauth:grant-type:installation-token")
      expect(form.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      expect(form.get("installation_id")).toBe("inst_1")
      const verified = yield* Effect.promise(() =>
        jwtVerify(form.get("client_assertion") ?? "", publicKey, { audience: `${baseUrl}/oauth/token` })
      )
      expect(verified.protectedHeader).toMatchObject({ alg: "ES256", typ: "JWT", kid: "key-1" })
      expect(verified.payload).toMatchObject({ iss: "app_9", sub: "app_9" })
      expect((verified.payload.exp ?? 0) - (verified.payload.iat ?? 0)).toBe(300)
      expect(new URLSearchParams(tokens[1]?.body).get("client_assertion")).not.toBe(form.get("client_assertion"))
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it("a refused token request rejects with TokenError carrying the OAuth error", async () => {
    const { createServer: make } = await import("node:http")
    const server = make((_, res) => json(res, 401, { error: "invalid_client" }, { "x-request-id": "req-tok" }))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push({ close: () => server.close() })
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const error = await new Propline({ baseUrl, ...credentials }).billing.getSendQueue({ urlParams: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TokenError)
    expect(error).toMatchObject({ code: "invalid_client", status: 401, requestId: "req-tok" })
  })
})

describe("pagination", () => {
  const context = (id: string) => ({
    id,
    organizationId: invoiceId,
    parentId: null,
    kind: "property",
    name: `Context ${id.slice(0, 4)}`,
    createdAt: "2026-11-01T08:00:00.000Z",
    updatedAt: "2026-11-01T08:00:00.000Z"
  })
  const ids = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"]
  const pages: Answer = (request, res) => {
    const cursor = new URL(request.path, "http://x").searchParams.get("cursor")
    const at = cursor === null ? 0 : Number(cursor)
    json(res, 200, { items: [context(ids[at] ?? "")], nextCursor: at + 1 < ids.length ? String(at + 1) : null })
  }

  it("for await walks every page of a list, carrying the query's other members", async () => {
    const { baseUrl, seen } = await serve([pages])
    const propline = new Propline({ baseUrl, ...credentials })
    const walked: Array<string> = []
    for await (const item of propline.paginate(propline.operationalContexts.list, { urlParams: { limit: 1 } }))
      walked.push(item.id)
    expect(walked).toEqual(ids)
    expect(seen.map((r) => r.path)).toEqual([
      "/v1/operational-contexts?limit=1",
      "/v1/operational-contexts?limit=1&cursor=1",
      "/v1/operational-contexts?limit=1&cursor=2"
    ])
  })

  it.effect("Client.paginate streams the same items", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Effect.promise(() => serve([pages]))
      const api = yield* Client.make({ baseUrl, ...credentials })
      const items = yield* Stream.runCollect(Client.paginate(api.operationalContexts.list, { urlParams: { cursor: "1" } }))
      expect([...items].map((item) => item.id)).toEqual(ids.slice(1))
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it("stops the events feed when hasMore is false, though nextCursor stays set", async () => {
    const feed: Answer = (_, res) => json(res, 200, { items: [], nextCursor: "end", hasMore: false })
    const { baseUrl, seen } = await serve([feed])
    const propline = new Propline({ baseUrl, ...credentials })
    const events: Array<unknown> = []
    for await (const event of propline.paginate(propline.events.listEvents, { urlParams: { cursor: "c" } }))
      events.push(event)
    expect(events).toEqual([])
    expect(seen.map((r) => r.path)).toEqual(["/v1/events?cursor=c"])
  })
})

describe("the Promise API's own transport", () => {
  it("client_credentials: one token shared by concurrent calls, asked again once expires_in − 60 s has passed", async () => {
    const { baseUrl, seen, tokens } = await serve([emptyPage], { expiresIn: 600 })
    const propline = new Propline({ baseUrl, ...credentials })
    await Promise.all([1, 2, 3].map(() => propline.billing.getSendQueue({ urlParams: {} })))
    expect(tokens.length).toBe(1)
    expect(tokens[0]?.authorization).toBe(`Basic ${btoa("app_1:s3cret")}`)
    // A token that lives 60 s is renewed at once: every call asks again.
    const short = await serve([emptyPage], { expiresIn: 60 })
    const renewing = new Propline({ baseUrl: short.baseUrl, ...credentials })
    await renewing.billing.getSendQueue({ urlParams: {} })
    await renewing.billing.getSendQueue({ urlParams: {} })
    expect(short.tokens.length).toBe(2)
    expect(short.seen.map((r) => r.authorization)).toEqual(["Bearer token-1", "Bearer token-2"])
    expect(seen.every((r) => r.authorization === "Bearer token-1")).toBe(true)
  })

  it("installation grant: a verified ES256 assertion per token request", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true })
    const jwk = { ...(await exportJWK(privateKey)), kid: "key-2" }
    const { baseUrl, tokens } = await serve([emptyPage], { expiresIn: 60 })
    const propline = new Propline({ baseUrl, appId: "app_7", installationId: "inst_2", privateKey: jwk })
    await propline.billing.getSendQueue({ urlParams: {} })
    await propline.billing.getSendQueue({ urlParams: {} })
    expect(tokens.length).toBe(2)
    const form = new URLSearchParams(tokens[0]?.body)
    expect(form.get("installation_id")).toBe("inst_2")
    const verified = await jwtVerify(form.get("client_assertion") ?? "", publicKey, { audience: `${baseUrl}/oauth/token` })
    expect(verified.payload).toMatchObject({ iss: "app_7", sub: "app_7" })
    expect(new URLSearchParams(tokens[1]?.body).get("client_assertion")).not.toBe(form.get("client_assertion"))
  })

  it("accessToken() gives the token the operations send (one request), a new one once renewed, its refusal as TokenError", async () => {
    const { baseUrl, seen, tokens } = await serve([emptyPage], { expiresIn: 600 })
    const propline = new Propline({ baseUrl, ...credentials })
    expect(await Promise.all([propline.accessToken(), propline.accessToken()])).toEqual(["token-1", "token-1"])
    await propline.billing.getSendQueue({ urlParams: {} })
    expect(tokens.length).toBe(1)
    expect(seen[0]?.authorization).toBe("Bearer token-1")
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true })
    const short = await serve([emptyPage], { expiresIn: 60 })
    const installed = new Propline({
      baseUrl: short.baseUrl,
      appId: "app_7",
      installationId: "inst_2",
      privateKey: { ...(await exportJWK(privateKey)), kid: "key-2" }
    })
    expect([await installed.accessToken(), await installed.accessToken()]).toEqual(["token-1", "token-2"])
    const form = new URLSearchParams(short.tokens[1]?.body)
    expect(form.get("installation_id")).toBe("inst_2")
    await jwtVerify(form.get("client_assertion") ?? "", publicKey, { audience: `${short.baseUrl}/oauth/token` })
    expect(await new Propline({ baseUrl, accessToken: "mine" }).accessToken()).toBe("mine")
    const server = createServer((_, res) => json(res, 401, { error: "invalid_client" }, { "x-request-id": "req-t" }))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push({ close: () => server.close() })
    const refused = await new Propline({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ...credentials })
      .accessToken()
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TokenError)
    expect(refused).toMatchObject({ code: "invalid_client", status: 401, requestId: "req-t" })
  })

  it("retries a token request refused with 429 slow_down after its Retry-After, even for a POST not safe to repeat", async () => {
    let asked = 0
    const server = createServer((req, res) => {
      if (req.url === "/oauth/token")
        return asked++ === 0
          ? json(res, 429, { error: "slow_down" }, { "retry-after": "0" })
          : json(res, 200, { access_token: "t", token_type: "Bearer", expires_in: 600 })
      json(res, 201, { id: "p" })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push({ close: () => server.close() })
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    const passed = await propline.billing.passProposal({
      path: { proposalId: invoiceId as never },
      payload: { externalReference: "X-1" } as never
    })
    expect(passed).toEqual({ id: "p" })
    expect(asked).toBe(2)
  })

  it("sends path, query (numbers, lists, dates as text) and a JSON body as given; answers the JSON as sent", async () => {
    const answer: Answer = (_, res) => json(res, 200, { items: [{ createdAt: "2026-11-20T10:00:00.000Z" }], nextCursor: null })
    const { baseUrl, seen } = await serve([answer])
    const requests: Array<string> = []
    const propline = new Propline({
      baseUrl: `${baseUrl}/`,
      accessToken: async () => "own-token",
      fetch: (input, init) => {
        requests.push(String(input))
        return fetch(input, init)
      }
    })
    const page = await propline.events.listEvents({ urlParams: { limit: 2, types: "invoice.sent,invoice.paid" } as never })
    // Timestamps arrive as ISO strings (the type says so: Json<Date> is string).
    const createdAt: string | undefined = page.items[0]?.createdAt
    expect(createdAt).toBe("2026-11-20T10:00:00.000Z")
    await propline.billing.reportPayment({
      path: { invoiceId: invoiceId as never },
      payload: { paymentId: "p-1", paidAt: new Date("2026-11-20T10:00:00Z") } as never
    })
    expect(seen[0]).toMatchObject({ method: "GET", path: "/v1/events?limit=2&types=invoice.sent%2Cinvoice.paid" })
    expect(seen[0]?.authorization).toBe("Bearer own-token")
    expect(seen[1]).toMatchObject({ method: "POST", path: `/v1/billing/invoices/${invoiceId}/report-payment` })
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({ paymentId: "p-1", paidAt: "2026-11-20T10:00:00.000Z" })
    expect(requests).toHaveLength(2)
  })

  it("a network failure is ConnectionError, retried for a GET", async () => {
    const propline = new Propline({ baseUrl: "http://127.0.0.1:9", accessToken: "t", ...fast, maxRetries: 1 })
    const error = await propline.billing.getSendQueue({ urlParams: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError)._tag).toBe("ConnectionError")
  })
})

describe("Retry-After", () => {
  it("reads delay-seconds and an HTTP-date (RFC 9110 10.2.3), and nothing else", () => {
    const now = Date.parse("2026-11-26T10:00:00Z")
    expect(parseRetryAfter("120", now)).toBe(120)
    expect(parseRetryAfter("Thu, 26 Nov 2026 10:00:30 GMT", now)).toBe(30)
    expect(parseRetryAfter("Thu, 26 Nov 2026 09:59:00 GMT", now)).toBe(0)
    expect(parseRetryAfter("soon", now)).toBeUndefined()
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
  })

  it("waits an HTTP-date Retry-After before retrying a GET (Promise API)", async () => {
    // Two seconds ahead, to the second (toUTCString drops milliseconds): a wait of 1 to 2 whole seconds.
    const inTwoSeconds = new Date(Date.now() + 2_000).toUTCString()
    const { baseUrl, seen } = await serve([problem(503, undefined, { "retry-after": inTwoSeconds }), emptyPage])
    const propline = new Propline({ baseUrl, ...credentials, ...fast })
    const started = Date.now()
    expect(await propline.billing.getSendQueue({ urlParams: {} })).toEqual({ items: [], nextCursor: null })
    expect(seen.length).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
  })
})
