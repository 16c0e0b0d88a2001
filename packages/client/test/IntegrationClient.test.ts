/**
 * The derived client against a server built from the same contract (HttpApiBuilder.toWebHandler, no sockets):
 * success bodies decode into the contract's classes, problems decode into their status's class with `code`, and
 * the bearer token is sent. The server's handlers here are fixed answers; the real server is tested in apps/api.
 */
import { FetchHttpClient, HttpApiBuilder, HttpServer } from "@effect/platform"
import { IntegrationApi } from "@propline/contract/Api"
import { Authentication, Principal } from "@propline/contract/Authentication"
import { problem } from "@propline/contract/Problem"
import { describe, expect, it } from "@effect/vitest"
import { BillingRole, BookingRole, IntegrationsRole, SigningRole } from "@propline/contract/Roles"
import { JsonBody } from "@propline/contract/JsonBody"
import { Chunk, Effect, Layer, Redacted, Stream, TestClock } from "effect"
import * as Events from "../src/Events.js"
import * as IntegrationClient from "../src/IntegrationClient.js"
import * as TokenClient from "../src/TokenClient.js"

const proposalId = "0b6f7e0e-3c1f-4d7a-9f2e-6a1d2c3b4a5f"
const organizationId = "5d7c3a2b-1e0f-4a9b-8c7d-6e5f4a3b2c1d"

const proposalJson = {
  id: proposalId,
  invoiceRunId: organizationId,
  invoiceNumber: 1042,
  organizationId,
  operationalContextId: organizationId,
  contractId: organizationId,
  recipientAgentId: organizationId,
  recipientAgentName: "Ljusgården Konsult AB",
  billingAccountId: organizationId,
  documentKind: "invoice" as const,
  billingStream: "contractual" as const,
  requestedInvoiceDate: "2026-11-01",
  requestedDueDate: "2026-12-01",
  paymentTermsDays: 30,
  status: "proposed" as const,
  currency: "SEK" as const,
  totalNetMinorUnits: 1_000_000,
  totalVatMinorUnits: 250_000,
  totalGrossMinorUnits: 1_250_000,
  createdAt: new Date("2026-11-01T08:00:00.000Z"),
  updatedAt: new Date("2026-11-01T08:00:00.000Z")
}

const AuthenticationTest = Layer.succeed(
  Authentication,
  Authentication.of({
    bearer: (token) =>
      Redacted.value(token) === "good-token"
        ? Effect.succeed({ clientId: "app_1", subject: "s", organizationId, roles: ["billing"], contexts: [], expiresAt: 0 })
        : Effect.fail(problem.unauthorized("bad token"))
  })
)

const BillingTest = HttpApiBuilder.group(IntegrationApi, "billing", (handlers) =>
  handlers
    .handle("getVerificationQueue", () =>
      Effect.map(Principal, () => ({ items: [proposalJson as never], nextCursor: "next" }))
    )
    .handle("getSendQueue", () => Effect.succeed({ items: [], nextCursor: null }))
    .handle("passProposal", ({ payload }) =>
      Effect.fail(problem.conflict("BILLING_EXTERNAL_REFERENCE_ALREADY_USED", `used: ${payload.externalReference}`))
    )
    .handle("rejectProposal", () => Effect.fail(problem.notFound("no such proposal")))
    .handle("reportFailed", () => Effect.fail(problem.badRequest("BILLING_INVOICE_STATUS_INVALID", "not approved")))
    .handle("reportSent", () => Effect.fail(problem.validationFailed([{ path: "/paymentReference", message: "check digit" }])))
    .handle("reportPayment", () => Effect.fail(problem.conflict("BILLING_PAYMENT_REPLAY_MISMATCH", "other content")))
    .handle("reportPaymentByExternalReference", ({ path }) =>
      Effect.fail(problem.notFound(`no invoice ${path.externalReference}`))
    )
    .handle("reportPaymentReversed", () => Effect.fail(problem.badRequest("BILLING_PAYMENT_NOT_FOUND", "no payment")))
    .handle("reportPaymentReversedByExternalReference", () => Effect.fail(problem.notFound("no invoice")))
    .handle("reportWriteOff", () => Effect.fail(problem.badRequest("BILLING_WRITE_OFF_AMOUNT_INVALID", "beyond")))
    .handle("getWithdrawalQueue", () =>
      Effect.succeed({
        items: [
          {
            invoiceId: proposalId as never,
            organizationId: organizationId as never,
            operationalContextId: organizationId as never,
            invoiceNumber: 1042,
            documentKind: "invoice" as const,
            currency: "SEK" as const,
            totalGrossMinorUnits: 1_250_000,
            invoiceStatus: "approved" as const,
            status: "pending" as const,
            deletedAt: new Date("2026-11-02T08:00:00.000Z"),
            updatedAt: new Date("2026-11-02T08:00:00.000Z")
          } as never
        ],
        nextCursor: null
      })
    )
    .handle("reportDiscarded", () => Effect.fail(problem.badRequest("BILLING_INVOICE_STATUS_INVALID", "discarded")))
)

// The booking group is not exercised here; every operation answers 404.
const BookingTest = HttpApiBuilder.group(IntegrationApi, "booking", (handlers) => {
  const missing = () => Effect.fail(problem.notFound("not in this test"))
  return handlers
    .handle("listResources", missing)
    .handle("getResource", missing)
    .handle("getAvailability", missing)
    .handle("searchAvailability", () => Effect.succeed({ items: [], nextCursor: null }))
    .handle("listAddOnProducts", missing)
    .handle("lookUpCompany", () => Effect.fail(problem.badRequest("TENANT_COMPANY_REGISTRY_NOT_SUPPORTED", "not in this test")))
    .handle("previewBookingRequest", missing)
    .handle("createBookingRequest", missing)
    .handle("getBookingRequest", missing)
    .handle("listBookingRequests", () => Effect.succeed({ items: [], nextCursor: null }))
    .handle("getBookingRequestByRequestId", missing)
    .handle("cancelBookingRequest", missing)
    .handle("rescheduleBookingRequest", missing)
})

const attemptId = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
const attemptJson = {
  id: attemptId,
  organizationId,
  operationalContextId: organizationId,
  contractId: organizationId,
  status: "started" as const,
  title: "Contract K-1",
  parties: [],
  providerDocumentId: "scrive-1",
  queuedAt: new Date("2026-11-01T08:00:00.000Z"),
  startedAt: new Date("2026-11-01T09:00:00.000Z"),
  updatedAt: new Date("2026-11-01T09:00:00.000Z")
}

const SigningTest = HttpApiBuilder.group(IntegrationApi, "crm", (handlers) =>
  handlers
    .handle("getSigningQueue", () => Effect.succeed({ items: [], nextCursor: null }))
    .handle("getWithdrawalQueue", () => Effect.succeed({ items: [], nextCursor: null }))
    .handle("started", () => Effect.succeed(attemptJson as never))
    .handle("signedDocumentUpload", () => Effect.fail(problem.notFound("no such attempt")))
    .handle("signed", () => Effect.fail(problem.badRequest("CRM_SIGNED_DOCUMENT_REJECTED", "no stored PDF")))
    .handle("declined", () => Effect.fail(problem.badRequest("CRM_SIGNING_ATTEMPT_ENDED", "ended")))
    .handle("expired", () => Effect.fail(problem.badRequest("CRM_SIGNING_ATTEMPT_ENDED", "ended")))
    .handle("withdrawn", () => Effect.fail(problem.badRequest("CRM_AGREEMENT_TRANSITION_INVALID", "not asked")))
    .handle("failed", () => Effect.fail(problem.badRequest("CRM_SIGNING_ATTEMPT_ENDED", "ended")))
)

const configurationId = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
const configurationJson = {
  id: configurationId,
  organizationId,
  installationId: organizationId,
  appId: "acme-erp",
  kind: "billing" as const,
  status: "connecting" as const,
  operationalContextIds: [organizationId],
  declaredGates: [],
  createdAt: new Date("2026-11-01T08:00:00.000Z"),
  connectedAt: new Date("2026-11-01T09:00:00.000Z"),
  updatedAt: new Date("2026-11-01T09:00:00.000Z")
}

const IntegrationsTest = HttpApiBuilder.group(IntegrationApi, "integrations", (handlers) =>
  handlers
    .handle("listConfigurations", () => Effect.succeed({ items: [configurationJson as never], nextCursor: null }))
    .handle("redeemConnectionReference", ({ payload }) =>
      payload.connectionReference === "icr_good"
        ? Effect.succeed(configurationJson as never)
        : Effect.fail(problem.badRequest("INTEGRATIONS_CONNECTION_REFERENCE_INVALID", "not valid"))
    )
    .handle("reportReady", ({ payload }) =>
      Effect.fail(
        problem.badRequest("INTEGRATIONS_CONFIGURATION_INVALID", "see issues", [
          { path: "/declaredGates/0", message: `is not a gate: ${payload.declaredGates?.[0] ?? ""}` }
        ])
      )
    )
    .handle("reportFailed", () => Effect.fail(problem.notFound("no such configuration", "INTEGRATIONS_CONFIGURATION_NOT_FOUND")))
)

const ContextsTest = HttpApiBuilder.group(IntegrationApi, "operationalContexts", (handlers) =>
  handlers.handle("list", () => Effect.succeed({ items: [], nextCursor: null }))
)

/** The feed: two pages (`c1` continues the first), and one event by id. */
const eventJson = (id: string, type: string) => ({
  id,
  type,
  createdAt: new Date("2026-11-27T09:00:00.000Z"),
  organizationId,
  operationalContextId: organizationId,
  data: { object: proposalJson, invoiceId: attemptId }
})
const firstEventId = "1b6f7e0e-3c1f-4d7a-9f2e-6a1d2c3b4a51"
const secondEventId = "1b6f7e0e-3c1f-4d7a-9f2e-6a1d2c3b4a52"

const EventsTest = HttpApiBuilder.group(IntegrationApi, "events", (handlers) =>
  handlers
    .handle("listEvents", ({ urlParams }) =>
      Effect.succeed(
        (urlParams.cursor === undefined
          ? { items: [eventJson(firstEventId, "billing.invoice_proposal.passed")], nextCursor: "c1", hasMore: true }
          : { items: [eventJson(secondEventId, "billing.invoice_proposal.rejected")], nextCursor: "c2", hasMore: false }) as never
      )
    )
    .handle("getEvent", ({ path }) =>
      path.eventId === firstEventId
        ? Effect.succeed(eventJson(firstEventId, "billing.invoice_proposal.passed") as never)
        : Effect.fail(problem.notFound("No such event, or the token cannot see it."))
    )
)

const server = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(
    HttpApiBuilder.api(IntegrationApi).pipe(
      Layer.provide([BillingTest, BookingTest, SigningTest, IntegrationsTest, ContextsTest, EventsTest]),
      Layer.provide([
        AuthenticationTest,
        Layer.succeed(BillingRole, Effect.void),
        Layer.succeed(BookingRole, Effect.void),
        Layer.succeed(SigningRole, Effect.void),
        Layer.succeed(IntegrationsRole, Effect.void),
        Layer.succeed(JsonBody, Effect.void)
      ])
    ),
    HttpServer.layerContext
  )
)

/** fetch, answered by the in-process server. */
const FetchTest = Layer.succeed(FetchHttpClient.Fetch, (input, init) => server.handler(new Request(input, init)))

const client = (accessToken: string) =>
  IntegrationClient.make({ baseUrl: "http://api.test", accessToken }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provide(FetchTest)
  )

describe("IntegrationClient", () => {
  it.effect("reports a signing outcome and decodes the SigningAttempt; a refusal keeps its CRM code", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const attempt = yield* api.crm.started({
        path: { attemptId: attemptId as never },
        payload: { providerDocumentId: "scrive-1" }
      })
      expect(attempt.status).toBe("started")
      expect(attempt.startedAt).toBeInstanceOf(Date)
      const error = yield* Effect.flip(api.crm.signed({ path: { attemptId: attemptId as never }, payload: { uploadId: attemptId } }))
      expect(error).toMatchObject({ status: 400, code: "CRM_SIGNED_DOCUMENT_REJECTED" })
    })
  )

  it.effect("decodes a page into the contract's classes and sends the bearer token", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const page = yield* api.billing.getVerificationQueue({ urlParams: { limit: 10 } })
      expect(page.nextCursor).toBe("next")
      expect(page.items[0]?.id).toBe(proposalId)
      expect(page.items[0]?.createdAt).toBeInstanceOf(Date)
    })
  )

  it.effect("decodes a 409 problem into Conflict with its code", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const error = yield* Effect.flip(
        api.billing.passProposal({ path: { proposalId: proposalId as never }, payload: { externalReference: "ERP-1" } })
      )
      expect(error).toMatchObject({ status: 409, code: "BILLING_EXTERNAL_REFERENCE_ALREADY_USED", detail: "used: ERP-1" })
    })
  )

  it.effect("decodes 400 and 404 problems by status", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const badRequest = yield* Effect.flip(
        api.billing.reportFailed({ path: { invoiceId: proposalId as never }, payload: { reason: "x" } })
      )
      expect(badRequest).toMatchObject({ status: 400, code: "BILLING_INVOICE_STATUS_INVALID" })
      const notFound = yield* Effect.flip(
        api.billing.rejectProposal({ path: { proposalId: proposalId as never }, payload: { reason: "x" } })
      )
      expect(notFound).toMatchObject({ status: 404, title: "Not Found" })
    })
  )

  it.effect("reaches the settlement operations: money-report problems by status and code, withdrawals decoded", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const payment = { paymentId: "P-1", amountMinorUnits: 100, paidOn: "2026-11-02" }
      expect(yield* Effect.flip(api.billing.reportPayment({ path: { invoiceId: proposalId as never }, payload: payment }))).toMatchObject({
        status: 409,
        code: "BILLING_PAYMENT_REPLAY_MISMATCH"
      })
      const byReference = yield* Effect.flip(
        api.billing.reportPaymentByExternalReference({ path: { externalReference: encodeURIComponent("ERP 7/1") }, payload: payment })
      )
      expect(byReference).toMatchObject({ status: 404, detail: "no invoice ERP 7/1" })
      const sent = yield* Effect.flip(
        api.billing.reportSent({
          path: { invoiceId: proposalId as never },
          payload: { issuedInvoiceNumber: "F-1", issuedInvoiceDate: "2026-11-02", issuedTotalGrossMinorUnits: 1 }
        })
      )
      expect(sent).toMatchObject({ status: 400, code: "VALIDATION_FAILED", issues: [{ path: "/paymentReference" }] })
      const queue = yield* api.billing.getWithdrawalQueue({ urlParams: {} })
      expect(queue.items[0]?.deletedAt).toBeInstanceOf(Date)
      expect(queue.items[0]?.status).toBe("pending")
    })
  )

  it.effect("reaches the integrations operations: the configuration decoded, INTEGRATIONS_* problems with issues and codes", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const redeemed = yield* api.integrations.redeemConnectionReference({ payload: { connectionReference: "icr_good" } })
      expect(redeemed).toMatchObject({ id: configurationId, kind: "billing", status: "connecting" })
      expect(redeemed.connectedAt).toBeInstanceOf(Date)
      const refused = yield* Effect.flip(api.integrations.redeemConnectionReference({ payload: { connectionReference: "icr_old" } }))
      expect(refused).toMatchObject({ status: 400, code: "INTEGRATIONS_CONNECTION_REFERENCE_INVALID" })
      const page = yield* api.integrations.listConfigurations({ urlParams: { limit: 10 } })
      expect(page.items.map((item) => item.appId)).toEqual(["acme-erp"])
      const invalid = yield* Effect.flip(
        api.integrations.reportReady({
          path: { configurationId: configurationId as never },
          payload: { externalAccount: { id: "1", name: "Acme" }, declaredGates: ["approval"] }
        })
      )
      expect(invalid).toMatchObject({
        status: 400,
        code: "INTEGRATIONS_CONFIGURATION_INVALID",
        issues: [{ path: "/declaredGates/0", message: "is not a gate: approval" }]
      })
      const missing = yield* Effect.flip(
        api.integrations.reportFailed({ path: { configurationId: configurationId as never }, payload: { reason: "x" } })
      )
      expect(missing).toMatchObject({ status: 404, code: "INTEGRATIONS_CONFIGURATION_NOT_FOUND" })
    })
  )

  it.effect("surfaces a 401 as Unauthorized", () =>
    Effect.gen(function* () {
      const api = yield* client("wrong-token")
      const error = yield* Effect.flip(api.billing.getSendQueue({ urlParams: {} }))
      expect(error).toMatchObject({ status: 401, title: "Unauthorized" })
    })
  )
})

describe("TokenClient.requestToken", () => {
  const tokenEndpoint = (respond: (request: Request, body: string) => Response) =>
    Layer.succeed(FetchHttpClient.Fetch, async (input, init) => {
      const request = new Request(input, init)
      return respond(request, await request.text())
    })

  it.effect("sends client_credentials with Basic credentials form-encoded first (RFC 6749 2.3.1)", () =>
    Effect.gen(function* () {
      const seen: Array<{ authorization: string | null; body: string; contentType: string | null }> = []
      const token = yield* TokenClient.requestToken({
        authUrl: "http://auth.test",
        clientId: "app_1",
        clientSecret: "service_sk_a+b:c"
      }).pipe(
        Effect.provide(FetchHttpClient.layer),
        Effect.provide(
          tokenEndpoint((request, body) => {
            seen.push({ authorization: request.headers.get("authorization"), body, contentType: request.headers.get("content-type") })
            return Response.json({ access_token: "t", token_type: "Bearer", expires_in: 600 })
          })
        )
      )
      expect(token).toEqual({ access_token: "t", token_type: "Bearer", expires_in: 600 })
      const basic = Buffer.from(seen[0]!.authorization!.replace(/^Basic /, ""), "base64").toString("utf8")
      expect(basic).toBe("app_1:service_sk_a%2Bb%3Ac")
      expect(seen[0]!.body).toBe("grant_type=client_credentials")
      expect(seen[0]!.contentType).toContain("application/x-www-form-urlencoded")
    })
  )

  it.effect("fails with the OAuth error and Retry-After on slow_down", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        TokenClient.requestToken({ authUrl: "http://auth.test", clientId: "app_1", clientSecret: "s" }).pipe(
          Effect.provide(FetchHttpClient.layer),
          Effect.provide(
            tokenEndpoint(() =>
              Response.json(
                { error: "slow_down", error_description: "Too many token requests" },
                { status: 429, headers: { "retry-after": "17" } }
              )
            )
          )
        )
      )
      expect(error).toMatchObject({ _tag: "TokenRequestFailed", status: 429, error: "slow_down", retryAfter: 17 })
    })
  )
})

describe("TokenClient.cached", () => {
  it.effect("reuses a token until 60 seconds before expiry and never remembers a failure", () =>
    Effect.gen(function* () {
      let calls = 0
      let fail = true
      const endpoint = Layer.succeed(FetchHttpClient.Fetch, async () => {
        calls += 1
        if (fail) {
          fail = false
          return Response.json({ error: "slow_down" }, { status: 429, headers: { "retry-after": "1" } })
        }
        return Response.json({ access_token: `t${calls}`, token_type: "Bearer", expires_in: 600 })
      })
      const token = yield* TokenClient.cached({ authUrl: "http://auth.test", clientId: "app_1", clientSecret: "s" })
      const use = token.pipe(Effect.provide(FetchHttpClient.layer), Effect.provide(endpoint))
      expect((yield* Effect.flip(use))._tag).toBe("TokenRequestFailed")
      expect(yield* use).toBe("t2")
      expect(yield* use).toBe("t2")
      yield* TestClock.adjust("539 seconds")
      expect(yield* use).toBe("t2")
      yield* TestClock.adjust("1 second")
      expect(yield* use).toBe("t3")
      expect(calls).toBe(3)
    })
  )

  it.effect("streams the events feed page by page until caught up, and reads one event", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const pages = yield* Stream.runCollect(Events.pages(api))
      expect(Chunk.toReadonlyArray(pages).map((page) => page.nextCursor)).toEqual(["c1", "c2"])
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(Events.events(api, { types: ["billing.invoice_proposal.passed"] })))
      expect(events.map((event) => event.id)).toEqual([firstEventId, secondEventId])
      expect(events[0]?.createdAt).toBeInstanceOf(Date)
      const one = yield* api.events.getEvent({ path: { eventId: firstEventId as never } })
      expect(one.type).toBe("billing.invoice_proposal.passed")
      expect(yield* Effect.flip(api.events.getEvent({ path: { eventId: secondEventId as never } }))).toMatchObject({ status: 404 })
    })
  )

  it.effect("reads the feed with for await, page by page, and on from a saved cursor (Stream.toAsyncIterable)", () =>
    Effect.gen(function* () {
      const api = yield* client("good-token")
      const read = (options: Events.FeedOptions) =>
        Effect.promise(async () => {
          const seen: Array<{ readonly ids: ReadonlyArray<string>; readonly nextCursor: string | null }> = []
          for await (const page of Stream.toAsyncIterable(Events.pages(api, options))) {
            seen.push({ ids: page.items.map((event) => event.id), nextCursor: page.nextCursor })
          }
          return seen
        })
      expect(yield* read({})).toEqual([
        { ids: [firstEventId], nextCursor: "c1" },
        { ids: [secondEventId], nextCursor: "c2" }
      ])
      // A connector that saved the first page's cursor reads on from there only.
      expect(yield* read({ cursor: "c1" })).toEqual([{ ids: [secondEventId], nextCursor: "c2" }])
    })
  )

  it.effect("decodes a webhook body against its type's schema, and refuses an unknown type", () =>
    Effect.gen(function* () {
      const body = JSON.parse(JSON.stringify(eventJson(firstEventId, "billing.invoice_proposal.passed")))
      const event = yield* Events.decode(body)
      expect(event.type).toBe("billing.invoice_proposal.passed")
      if (event.type === "billing.invoice_proposal.passed") {
        expect(event.data.invoiceId).toBe(attemptId)
        expect(event.data.object.status).toBe("proposed")
        expect(event.createdAt).toBeInstanceOf(Date)
      }
      const unknown = yield* Effect.flip(Events.decode({ ...body, type: "billing.invoice.teleported" }))
      expect(unknown._tag).toBe("ParseError")
    })
  )
})
