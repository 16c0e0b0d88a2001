/**
 * End-to-end scenarios that prove a running deployment of the Integration API v1 works, black box over HTTP, driven
 * only by a credentials file `{ client_id, client_secret, auth_url, base_url }` (the demo writes it to
 * DATA_DIR/demo-credentials.json). Each scenario asserts exact statuses and codes (spec 2.3, 3, 4.1, 5, 7) and
 * answers PASS, FAIL or SKIP with a message.
 *
 * Scenarios consume data (they pass, reject and fail records), so every run picks records that are still in the
 * right state and skips, with a message, when a queue is empty. They send few token requests (see
 * {@link Context.tokenRequests}: about a dozen per run, far below the limit of 60 a minute per client), and
 * one access token serves every API call of a run.
 */
import { FetchHttpClient } from "@effect/platform"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import * as TokenClient from "@propline/client/TokenClient"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import { OperationalContext } from "@propline/contract/OperationalContext"
import { Effect, Either, ParseResult, Schema } from "effect"
import { createRemoteJWKSet, generateKeyPair, jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { isDeepStrictEqual } from "node:util"
import * as oauth from "oauth4webapi"

/** The credentials file (DATA_DIR/demo-credentials.json). */
export interface Credentials {
  readonly client_id: string
  readonly client_secret: string
  readonly auth_url: string
  readonly base_url: string
}

/** Reads and checks a credentials object (e.g. the parsed file). */
export const parseCredentials = (value: unknown): Credentials => {
  if (typeof value !== "object" || value === null) throw new Error("the credentials are not a JSON object")
  const record = value as Record<string, unknown>
  for (const key of ["client_id", "client_secret", "auth_url", "base_url"]) {
    if (typeof record[key] !== "string" || record[key] === "") throw new Error(`the credentials lack "${key}"`)
  }
  return record as unknown as Credentials
}

export type Verdict = "PASS" | "FAIL" | "SKIP"

export interface Outcome {
  readonly name: string
  readonly verdict: Verdict
  readonly message: string
}

/** What one run shares between its scenarios, in order. */
export interface Context {
  readonly credentials: Credentials
  /** Unique per run: makes every externalReference of the run unique in the organization. */
  readonly runId: string
  /** Requests this run sent to the token endpoint (the demo client may send 60 a minute). */
  tokenRequests: number
  /** Records this run changed or learned about, for the later scenarios. */
  readonly state: {
    accessToken?: Promise<string>
    passed?: { readonly proposalId: string; readonly invoiceId: string; readonly externalReference: string }
    /** A proposed proposal that the duplicate-reference check left unchanged. */
    duplicateTarget?: string
    /** Proposals whose pass answered 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED. */
    readonly materialInvoiced: Set<string>
    reportedInvoiceId?: string
    /** An invoice this run reported sent, with its externalReference, for the settlement scenarios. */
    sent?: { readonly invoiceId: string; readonly externalReference: string; readonly total: number }
  }
}

export const makeContext = (credentials: Credentials): Context => ({
  credentials,
  runId: `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`,
  tokenRequests: 0,
  state: { materialInvoiced: new Set() }
})

/** A scenario: resolves with a message when it passed, throws {@link Skip} or anything else otherwise. */
export interface Scenario {
  readonly name: string
  readonly run: (context: Context) => Promise<string>
}

/** Thrown to skip a scenario: the deployment holds no record in the state it needs. */
export class Skip extends Error {}

/** Thrown when an expectation does not hold. */
export class AssertionFailed extends Error {}

// ---------------------------------------------------------------------------------------------------------------
// Assertions and HTTP

const check: (condition: boolean, message: string) => asserts condition = (condition, message) => {
  if (!condition) throw new AssertionFailed(message)
}

const show = (value: unknown) => JSON.stringify(value) ?? String(value)

const equal = (actual: unknown, expected: unknown, what: string) =>
  check(isDeepStrictEqual(actual, expected), `${what}: expected ${show(expected)}, got ${show(actual)}`)

const join = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed JSON body; `undefined` when the body is not JSON. */
  readonly body: unknown
}

const REQUEST_TIMEOUT_MS = 30_000

const send = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  const text = await response.text()
  let body: unknown = undefined
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined

const describeReply = (reply: Reply) => `${reply.status} ${reply.text.slice(0, 300)}`

const expectStatus = (reply: Reply, status: number, what: string) =>
  check(reply.status === status, `${what}: expected ${status}, got ${describeReply(reply)}`)

/** Spec 2.3: an Error record as problem details, with the given status and, when given, code. */
const expectProblem = (reply: Reply, status: number, code: string | undefined, what: string) => {
  expectStatus(reply, status, what)
  const contentType = reply.headers.get("content-type") ?? ""
  check(contentType.startsWith("application/problem+json"), `${what}: content type ${contentType}, not application/problem+json`)
  equal(field(reply.body, "type"), "about:blank", `${what}: type`)
  equal(field(reply.body, "status"), status, `${what}: status member`)
  check(typeof field(reply.body, "title") === "string", `${what}: no title`)
  if (code !== undefined) equal(field(reply.body, "code"), code, `${what}: code`)
}

const issuePaths = (reply: Reply): Array<unknown> => {
  const issues = field(reply.body, "issues")
  return Array.isArray(issues) ? issues.map((issue) => field(issue, "path")) : []
}

/** A 400 VALIDATION_FAILED with an issue at `path` (a JSON Pointer). */
const expectValidationFailed = (reply: Reply, path: string, what: string) => {
  expectProblem(reply, 400, "VALIDATION_FAILED", what)
  check(issuePaths(reply).includes(path), `${what}: no issue at ${path}: ${reply.text.slice(0, 300)}`)
}

const hasNoStore = (headers: Headers) =>
  (headers.get("cache-control") ?? "")
    .split(",")
    .map((directive) => directive.trim().toLowerCase())
    .includes("no-store")

/** Spec 7.2: the OAuth 2.0 error object with the given status and error. */
const expectTokenError = (reply: Reply, status: number, error: string, what: string) => {
  expectStatus(reply, status, what)
  equal(field(reply.body, "error"), error, `${what}: error`)
  check(typeof field(reply.body, "error_description") === "string", `${what}: no error_description`)
  const contentType = reply.headers.get("content-type") ?? ""
  check(contentType.startsWith("application/json"), `${what}: content type ${contentType}, not application/json`)
  check(hasNoStore(reply.headers), `${what}: no Cache-Control: no-store`)
}

const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string): A => {
  const result = Schema.decodeUnknownEither(schema)(value)
  if (Either.isLeft(result)) {
    throw new AssertionFailed(`${what} does not match the contract: ${ParseResult.TreeFormatter.formatErrorSync(result.left)}`)
  }
  return result.right
}

// ---------------------------------------------------------------------------------------------------------------
// The identity host

const tokenEndpoint = (context: Context) => join(context.credentials.auth_url, "/oauth/token")

const basicAuthorization = (clientId: string, secret: string) => {
  // RFC 6749 Appendix B: form-encode each part before Basic.
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2)
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString("base64")}`
}

const postToken = (context: Context, body: string, headers: Record<string, string> = {}) => {
  context.tokenRequests++
  return send(tokenEndpoint(context), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body
  })
}

const insecure = (url: string) => new URL(url).protocol === "http:"

/** The run's access token (spec 5.2, through the published client), asked for once. */
const accessToken = (context: Context): Promise<string> => {
  if (context.state.accessToken === undefined) {
    context.tokenRequests++
    context.state.accessToken = Effect.runPromise(
      TokenClient.requestToken({
        authUrl: context.credentials.auth_url.replace(/\/+$/, ""),
        clientId: context.credentials.client_id,
        clientSecret: context.credentials.client_secret
      }).pipe(
        Effect.map((token) => token.access_token),
        Effect.mapError((error) => new AssertionFailed(`no access token: ${show(error)}`)),
        Effect.provide(FetchHttpClient.layer)
      )
    )
  }
  return context.state.accessToken
}

// ---------------------------------------------------------------------------------------------------------------
// The API host

const api = async (context: Context, method: "GET" | "POST", path: string, body?: unknown): Promise<Reply> => {
  const token = await accessToken(context)
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers["content-type"] = "application/json"
  return send(join(context.credentials.base_url, path), {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
}

const MAX_PAGES = 50

/** Every item of a list, following nextCursor; checks each page's shape. */
const walk = async (context: Context, path: string, limit: number): Promise<{ items: Array<unknown>; pages: number }> => {
  const items: Array<unknown> = []
  let cursor: string | null = null
  let pages = 0
  do {
    const query = new URLSearchParams({ limit: String(limit) })
    if (cursor !== null) query.set("cursor", cursor)
    const reply = await api(context, "GET", `${path}?${query.toString()}`)
    expectStatus(reply, 200, `GET ${path} (page ${pages + 1})`)
    const page = field(reply.body, "items")
    const next = field(reply.body, "nextCursor")
    check(Array.isArray(page), `GET ${path}: no items array`)
    check(next === null || typeof next === "string", `GET ${path}: nextCursor is neither a string nor null`)
    check(page.length <= limit, `GET ${path}: ${page.length} items on a page of limit ${limit}`)
    items.push(...page)
    cursor = next
    pages++
    check(pages <= MAX_PAGES || cursor === null, `GET ${path}: more than ${MAX_PAGES} pages of ${limit}`)
  } while (cursor !== null)
  return { items, pages }
}

const VERIFICATION_QUEUE = "/v1/billing/verification-queue"
const SEND_QUEUE = "/v1/billing/send-queue"
const pass = (context: Context, proposalId: string, externalReference: string) =>
  api(context, "POST", `/v1/billing/invoice-proposals/${proposalId}/pass`, { externalReference })
const reject = (context: Context, proposalId: string, reason: string) =>
  api(context, "POST", `/v1/billing/invoice-proposals/${proposalId}/reject`, { reason })
const reportFailed = (context: Context, invoiceId: string, reason: string) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-failed`, { reason })

const verificationQueue = async (context: Context) =>
  (await walk(context, VERIFICATION_QUEUE, 100)).items.map((item, i) =>
    decode(InvoiceProposal, item, `verification queue item ${i}`)
  )

const sendQueue = async (context: Context) =>
  (await walk(context, SEND_QUEUE, 100)).items.map((item, i) => decode(Invoice, item, `send queue item ${i}`))

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

const discovery: Scenario = {
  name: "discovery",
  run: async (context) => {
    const { auth_url } = context.credentials
    const openid = await send(join(auth_url, "/.well-known/openid-configuration"))
    const oauth2 = await send(join(auth_url, "/.well-known/oauth-authorization-server"))
    expectStatus(openid, 200, "GET /.well-known/openid-configuration")
    expectStatus(oauth2, 200, "GET /.well-known/oauth-authorization-server")
    equal(oauth2.body, openid.body, "the two discovery documents")
    equal(field(openid.body, "issuer"), auth_url, "issuer")
    equal(field(openid.body, "token_endpoint"), join(auth_url, "/oauth/token"), "token_endpoint")
    const grants = field(openid.body, "grant_types_supported")
    check(Array.isArray(grants) && grants.includes("client_credentials"), `grant_types_supported: ${show(grants)}`)
    const methods = field(openid.body, "token_endpoint_auth_methods_supported")
    check(
      Array.isArray(methods) && methods.includes("client_secret_basic") && methods.includes("client_secret_post"),
      `token_endpoint_auth_methods_supported: ${show(methods)}`
    )
    // A standard client's checks, OpenID Connect style and RFC 8414 style.
    for (const algorithm of ["oidc", "oauth2"] as const) {
      const issuer = new URL(auth_url)
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm, [oauth.allowInsecureRequests]: insecure(auth_url) })
      )
      equal(as.token_endpoint, join(auth_url, "/oauth/token"), `oauth4webapi (${algorithm}) token_endpoint`)
    }
    const jwksUri = field(openid.body, "jwks_uri")
    check(typeof jwksUri === "string", "no jwks_uri")
    const jwks = await send(jwksUri)
    expectStatus(jwks, 200, `GET ${jwksUri}`)
    const keys = field(jwks.body, "keys")
    check(Array.isArray(keys) && keys.length > 0, "the JWKS has no keys")
    const signing = keys.filter(
      (key) =>
        field(key, "kty") === "EC" &&
        field(key, "crv") === "P-256" &&
        field(key, "alg") === "ES256" &&
        typeof field(key, "kid") === "string" &&
        field(key, "kid") !== ""
    )
    check(signing.length > 0, `the JWKS has no ES256 key with a kid: ${jwks.text.slice(0, 300)}`)
    check(
      keys.every((key) => field(key, "d") === undefined),
      "the JWKS publishes a private key member (d)"
    )
    return `issuer ${auth_url}; both documents agree; ${signing.length} ES256 key(s): ${signing.map((k) => field(k, "kid")).join(", ")}`
  }
}

const tokenWith = (method: "client_secret_basic" | "client_secret_post"): Scenario => ({
  name: `token (oauth4webapi, ${method})`,
  run: async (context) => {
    const { auth_url, base_url, client_id, client_secret } = context.credentials
    const issuer = new URL(auth_url)
    const options = { [oauth.allowInsecureRequests]: insecure(auth_url) }
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options))
    const client: oauth.Client = { client_id }
    const auth = method === "client_secret_basic" ? oauth.ClientSecretBasic(client_secret) : oauth.ClientSecretPost(client_secret)
    context.tokenRequests++
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), options)
    equal(response.status, 200, "token response status")
    check(hasNoStore(response.headers), `token response Cache-Control: ${response.headers.get("cache-control")}`)
    const token = await oauth.processClientCredentialsResponse(as, client, response)
    equal(token.token_type, "bearer", "token_type (normalized by oauth4webapi)")
    equal(token.expires_in, 600, "expires_in")
    equal(token.refresh_token, undefined, "refresh_token")
    check(typeof as.jwks_uri === "string", "no jwks_uri")
    const { payload, protectedHeader } = await jwtVerify(token.access_token, createRemoteJWKSet(new URL(as.jwks_uri)), {
      issuer: auth_url,
      audience: base_url,
      typ: "at+jwt",
      algorithms: ["ES256"]
    })
    check(typeof protectedHeader.kid === "string", "the token's header has no kid")
    check(typeof payload.exp === "number" && typeof payload.iat === "number", "the token has no exp or iat")
    equal(payload.exp - payload.iat, 600, "exp - iat")
    equal(payload["client_id"], client_id, "client_id claim")
    return `200 no-store; ES256 at+jwt (kid ${protectedHeader.kid}) verifies against the JWKS, iss ${auth_url}, aud ${base_url}, lives 600 s`
  }
})

const tokenErrors: Scenario = {
  name: "token endpoint errors (spec 7.2)",
  run: async (context) => {
    const { client_id, client_secret } = context.credentials
    const basic = { authorization: basicAuthorization(client_id, client_secret) }
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id, client_secret }).toString()
    // A client that does not exist: failed authentication counts against no client's rate limit.
    const unknownClient = `harness_unknown_${context.runId}`
    const wrongSecret = `service_sk_${"A".repeat(43)}`
    const cases: Array<[string, () => Promise<Reply>, number, string]> = [
      [
        "JSON body",
        () =>
          postToken(context, JSON.stringify({ grant_type: "client_credentials", client_id, client_secret }), {
            "content-type": "application/json"
          }),
        400,
        "invalid_request"
      ],
      ["grant_type missing", () => postToken(context, "", basic), 400, "invalid_request"],
      [
        "grant_type repeated",
        () => postToken(context, "grant_type=client_credentials&grant_type=client_credentials", basic),
        400,
        "invalid_request"
      ],
      ["Basic and form credentials", () => postToken(context, form, basic), 400, "invalid_request"],
      ["unknown grant type", () => postToken(context, "grant_type=password", basic), 400, "unsupported_grant_type"],
      ["scope sent", () => postToken(context, "grant_type=client_credentials&scope=billing", basic), 400, "invalid_scope"],
      [
        "wrong credentials after Basic",
        () =>
          postToken(context, "grant_type=client_credentials", {
            authorization: basicAuthorization(unknownClient, wrongSecret)
          }),
        401,
        "invalid_client"
      ],
      [
        "wrong credentials in the form",
        () =>
          postToken(
            context,
            new URLSearchParams({ grant_type: "client_credentials", client_id: unknownClient, client_secret: wrongSecret }).toString()
          ),
        401,
        "invalid_client"
      ]
    ]
    for (const [what, request, status, error] of cases) {
      const reply = await request()
      expectTokenError(reply, status, error, what)
      if (what === "wrong credentials after Basic") {
        const challenge = reply.headers.get("www-authenticate") ?? ""
        check(/^Basic\b/i.test(challenge), `${what}: WWW-Authenticate ${show(challenge)}, not a Basic challenge`)
      }
    }
    return `${cases.length} refusals: ${cases.map(([what, , status, error]) => `${what} ${status} ${error}`).join("; ")}`
  }
}

const apiAuthentication: Scenario = {
  name: "API authentication",
  run: async (context) => {
    const url = join(context.credentials.base_url, "/v1/operational-contexts")
    const none = await send(url)
    expectProblem(none, 401, undefined, "no token")
    const challenge = none.headers.get("www-authenticate") ?? ""
    check(/^Bearer\b/.test(challenge), `no token: WWW-Authenticate ${show(challenge)}, not a Bearer challenge`)

    const garbage = await send(url, { headers: { authorization: "Bearer not-a-token" } })
    expectProblem(garbage, 401, undefined, "garbage token")
    check(/^Bearer\b/.test(garbage.headers.get("www-authenticate") ?? ""), "garbage token: no Bearer challenge")

    // Well-formed, right issuer and audience, but signed by a key the identity host never published.
    const { privateKey } = await generateKeyPair("ES256")
    const forged = await new SignJWT({ client_id: context.credentials.client_id })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "harness-forged" })
      .setIssuer(context.credentials.auth_url)
      .setAudience(context.credentials.base_url)
      .setSubject(context.credentials.client_id)
      .setIssuedAt()
      .setExpirationTime("10m")
      .setJti(randomUUID())
      .sign(privateKey)
    expectProblem(await send(url, { headers: { authorization: `Bearer ${forged}` } }), 401, undefined, "forged token")

    // 401 comes before any validation of the input.
    const unauthenticatedPass = await send(
      join(context.credentials.base_url, "/v1/billing/invoice-proposals/not-a-uuid/pass"),
      { method: "POST", headers: { "content-type": "application/json" }, body: "{" }
    )
    expectProblem(unauthenticatedPass, 401, undefined, "malformed pass without a token")
    return `401 problem+json with "${challenge}" without a token; 401 for a garbage and a forged token, and before input validation`
  }
}

const operationalContexts: Scenario = {
  name: "operational contexts",
  run: async (context) => {
    const first = await api(context, "GET", "/v1/operational-contexts")
    expectStatus(first, 200, "GET /v1/operational-contexts")
    const { items: all, pages } = await walk(context, "/v1/operational-contexts", 100)
    check(all.length > 0, "no operational contexts")
    const contexts = all.map((item, i) => decode(OperationalContext, item, `operational context ${i}`))
    for (const c of contexts) {
      check(c.id !== "" && c.organizationId !== "" && c.name !== "", `operational context ${show(c)}`)
    }
    const ids = contexts.map((c) => c.id)
    equal(new Set(ids).size, ids.length, "distinct context ids")
    const { items: single, pages: singlePages } = await walk(context, "/v1/operational-contexts", 1)
    const walked = single.map((item) => String(field(item, "id")))
    equal(walked.length, ids.length, "contexts walked one per page")
    equal([...walked].sort(), [...ids].sort(), "contexts walked one per page")
    return `${ids.length} contexts (${contexts.map((c) => c.kind).join(", ")}) in ${pages} page(s); limit=1 walks ${singlePages} pages to the same set`
  }
}

const publishedClient: Scenario = {
  name: "published client (@propline/client)",
  run: async (context) => {
    const token = await accessToken(context)
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* IntegrationClient.make({ baseUrl: context.credentials.base_url, accessToken: token })
        const contexts = yield* client.operationalContexts.list({ urlParams: {} })
        const verification = yield* client.billing.getVerificationQueue({ urlParams: { limit: 5 } })
        const send = yield* client.billing.getSendQueue({ urlParams: { limit: 5 } })
        return { contexts: contexts.items.length, verification: verification.items.length, send: send.items.length }
      }).pipe(
        Effect.mapError((error) => new AssertionFailed(`the published client failed: ${show(error)}`)),
        Effect.provide(FetchHttpClient.layer)
      )
    )
    check(result.contexts > 0, "the published client listed no contexts")
    return `decoded ${result.contexts} contexts, ${result.verification} proposals and ${result.send} invoices (first pages)`
  }
}

const verificationPass: Scenario = {
  name: "verification queue: pass",
  run: async (context) => {
    const queue = await verificationQueue(context)
    for (const proposal of queue) equal(proposal.status, "proposed", `proposal ${proposal.id} in the queue`)
    for (let i = 1; i < queue.length; i++) {
      check(
        queue[i - 1]!.createdAt.getTime() <= queue[i]!.createdAt.getTime(),
        "the verification queue is not oldest first"
      )
    }
    for (const [i, proposal] of queue.entries()) {
      const externalReference = `HARNESS-${context.runId}-${i}`
      const reply = await pass(context, proposal.id, externalReference)
      if (reply.status === 409 && field(reply.body, "code") === "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED") {
        expectProblem(reply, 409, "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED", `pass ${proposal.id}`)
        context.state.materialInvoiced.add(proposal.id)
        continue
      }
      expectStatus(reply, 201, `pass ${proposal.id}`)
      const passed = decode(InvoiceProposal, field(reply.body, "proposal"), "the passed proposal")
      const invoice = decode(Invoice, field(reply.body, "invoice"), "the invoice")
      equal([passed.id, passed.status, passed.externalReference], [proposal.id, "passed", externalReference], "the passed proposal")
      check(passed.passedAt !== undefined, "the passed proposal has no passedAt")
      equal([invoice.status, invoice.externalReference], ["approved", externalReference], "the invoice")
      if (proposal.invoiceNumber !== undefined) equal(invoice.invoiceNumber, proposal.invoiceNumber, "the invoice's invoiceNumber")
      context.state.passed = { proposalId: proposal.id, invoiceId: invoice.id, externalReference }

      const again = await pass(context, proposal.id, `${externalReference}-again`)
      expectProblem(again, 400, "BILLING_PROPOSAL_STATUS_INVALID", "the repeated pass")
      const after = await verificationQueue(context)
      check(!after.some((p) => p.id === proposal.id), "the passed proposal is still in the verification queue")
      const skipped = context.state.materialInvoiced.size
      return (
        `201: proposal ${proposal.id} passed as ${externalReference}, invoice #${invoice.invoiceNumber} approved` +
        `${skipped > 0 ? ` (${skipped} older proposal(s) 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED)` : ""}; ` +
        "repeat 400 BILLING_PROPOSAL_STATUS_INVALID; left the queue"
      )
    }
    throw new Skip(
      queue.length === 0
        ? "the verification queue is empty"
        : `no passable proposal: all ${queue.length} answered 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`
    )
  }
}

const verificationDuplicateReference: Scenario = {
  name: "verification queue: externalReference already used",
  run: async (context) => {
    const passed = context.state.passed
    if (passed === undefined) throw new Skip("no proposal was passed in this run")
    const candidates = (await verificationQueue(context)).filter((p) => !context.state.materialInvoiced.has(p.id))
    for (const proposal of candidates) {
      const reply = await pass(context, proposal.id, passed.externalReference)
      if (reply.status === 409 && field(reply.body, "code") === "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED") {
        context.state.materialInvoiced.add(proposal.id)
        continue
      }
      expectProblem(reply, 409, "BILLING_EXTERNAL_REFERENCE_ALREADY_USED", `pass ${proposal.id} with ${passed.externalReference}`)
      const still = await verificationQueue(context)
      check(still.some((p) => p.id === proposal.id), "the refused proposal left the verification queue")
      context.state.duplicateTarget = proposal.id
      return `409 BILLING_EXTERNAL_REFERENCE_ALREADY_USED for ${proposal.id}; it stays in the queue`
    }
    throw new Skip("no other passable proposal in the verification queue")
  }
}

const verificationReject: Scenario = {
  name: "verification queue: reject",
  run: async (context) => {
    const queue = await verificationQueue(context)
    // Rather a proposal that cannot be passed anyway, so later runs still find passable ones.
    const target =
      queue.find((p) => context.state.materialInvoiced.has(p.id)) ??
      queue.find((p) => p.id === context.state.duplicateTarget) ??
      queue[0]
    if (target === undefined) throw new Skip("the verification queue is empty")
    const reason = `Harness run ${context.runId}: wrong VAT rate on parking`
    const reply = await reject(context, target.id, reason)
    expectStatus(reply, 201, `reject ${target.id}`)
    const rejected = decode(InvoiceProposal, reply.body, "the rejected proposal")
    equal([rejected.id, rejected.status, rejected.rejectionReason], [target.id, "rejected", reason], "the rejected proposal")
    check(rejected.rejectedAt !== undefined, "the rejected proposal has no rejectedAt")
    expectProblem(await reject(context, target.id, reason), 400, "BILLING_PROPOSAL_STATUS_INVALID", "the repeated reject")
    expectProblem(
      await pass(context, target.id, `HARNESS-${context.runId}-rejected`),
      400,
      "BILLING_PROPOSAL_STATUS_INVALID",
      "a pass after the reject"
    )
    return `201: proposal ${target.id} rejected; repeated reject and a pass 400 BILLING_PROPOSAL_STATUS_INVALID`
  }
}

const verificationValidation: Scenario = {
  name: "verification queue: validation and 404",
  run: async (context) => {
    const queue = await verificationQueue(context)
    // Input is validated before the record is looked up, so a queued proposal stays untouched.
    const proposalId = queue[0]?.id ?? randomUUID()
    expectValidationFailed(await reject(context, proposalId, "x".repeat(1001)), "/reason", "reject with a 1001-character reason")
    expectValidationFailed(await reject(context, proposalId, ""), "/reason", "reject with an empty reason")
    expectValidationFailed(
      await pass(context, proposalId, "R".repeat(201)),
      "/externalReference",
      "pass with a 201-character externalReference"
    )
    expectValidationFailed(await pass(context, "not-a-uuid", "HARNESS-X"), "/proposalId", "pass on a proposal id that is not a UUID")
    expectValidationFailed(await reject(context, "not-a-uuid", "x"), "/proposalId", "reject on a proposal id that is not a UUID")
    const unknown = randomUUID()
    expectProblem(await pass(context, unknown, `HARNESS-${context.runId}-404`), 404, undefined, "pass on an unknown proposal")
    expectProblem(await reject(context, unknown, "unknown"), 404, undefined, "reject on an unknown proposal")
    if (queue[0] !== undefined) {
      const after = await verificationQueue(context)
      check(after.some((p) => p.id === proposalId), "a refused request changed the proposal")
    }
    return "400 VALIDATION_FAILED at /reason (1001 and 0 characters), /externalReference (201), /proposalId (not a UUID); 404 for an unknown UUID"
  }
}

const sendQueueReportFailed: Scenario = {
  name: "send queue: report-failed",
  run: async (context) => {
    const queue = await sendQueue(context)
    for (const invoice of queue) equal(invoice.status, "approved", `invoice ${invoice.id} in the send queue`)
    expectValidationFailed(
      await reportFailed(context, queue[0]?.id ?? randomUUID(), "x".repeat(1001)),
      "/reason",
      "report-failed with a 1001-character reason"
    )
    expectValidationFailed(await reportFailed(context, "not-a-uuid", "x"), "/invoiceId", "report-failed on an id that is not a UUID")
    expectProblem(await reportFailed(context, randomUUID(), "unknown"), 404, undefined, "report-failed on an unknown invoice")
    const target = queue.find((invoice) => invoice.id !== context.state.passed?.invoiceId) ?? queue[0]
    if (target === undefined) throw new Skip("the send queue is empty (validation and 404 checks passed)")
    const reason = `Harness run ${context.runId}: customer unknown in the ERP`
    const reply = await reportFailed(context, target.id, reason)
    expectStatus(reply, 201, `report-failed ${target.id}`)
    const failed = decode(Invoice, reply.body, "the failed invoice")
    equal([failed.id, failed.status, failed.failureReason], [target.id, "failed", reason], "the failed invoice")
    check(failed.failedAt !== undefined, "the failed invoice has no failedAt")
    context.state.reportedInvoiceId = target.id
    expectProblem(await reportFailed(context, target.id, "again"), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report")
    const after = await sendQueue(context)
    check(!after.some((invoice) => invoice.id === target.id), "the failed invoice is still in the send queue")
    return `201: invoice #${failed.invoiceNumber} failed; repeat 400 BILLING_INVOICE_STATUS_INVALID; left the send queue`
  }
}

const CONCURRENT_REPORTS = 20

const concurrentReports: Scenario = {
  name: `concurrency: ${CONCURRENT_REPORTS} concurrent report-failed on one invoice`,
  run: async (context) => {
    const queue = await sendQueue(context)
    const target = queue.find((invoice) => invoice.id !== context.state.passed?.invoiceId) ?? queue[0]
    if (target === undefined) throw new Skip("the send queue is empty")
    await accessToken(context)
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, (_, i) =>
        reportFailed(context, target.id, `Harness run ${context.runId}: concurrent report ${i + 1}`)
      )
    )
    const statuses = replies.map((reply) => reply.status)
    const created = replies.filter((reply) => reply.status === 201)
    check(statuses.every((status) => status < 500), `5xx answers: ${show(statuses)}`)
    equal(created.length, 1, "201 answers")
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expectProblem(reply, 400, "BILLING_INVOICE_STATUS_INVALID", "a losing report")
    }
    const failed = decode(Invoice, created[0]!.body, "the failed invoice")
    equal(failed.status, "failed", "the winner's invoice status")
    return `invoice ${target.id}: one 201, ${CONCURRENT_REPORTS - 1} × 400 BILLING_INVOICE_STATUS_INVALID, no 5xx`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The rest of an invoice's life (decisions 4, 5): report-sent, payments, reversals, write-offs, withdrawals

const reportSent = (context: Context, invoiceId: string, body: Record<string, unknown>) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-sent`, body)
const reportPayment = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-payment`, body)
const reportPaymentByReference = (context: Context, externalReference: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/by-external-reference/${encodeURIComponent(externalReference)}/report-payment`, body)
const reportReversal = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-payment-reversed`, body)
const reportWriteOff = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-write-off`, body)

const today = () => new Date().toISOString().slice(0, 10)
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

/** A report-sent body for `invoice`: issued today, due in 30 days, its own total, a valid OCR reference. */
const sentBody = (invoice: Invoice, externalReference: string) => ({
  issuedInvoiceNumber: `H-${invoice.invoiceNumber}`,
  issuedInvoiceDate: today(),
  dueDate: inDays(30),
  issuedTotalGrossMinorUnits: invoice.totalGrossMinorUnits,
  externalReference,
  // 79927398713: the Luhn algorithm's published example
  paymentReference: "79927398713",
  paymentReferenceType: "ocr",
  documentUrl: `https://erp.example/${invoice.invoiceNumber}.pdf`
})

/** An approved invoice (not a credit note) this run has not touched yet, or a Skip. */
const untouchedInvoice = async (context: Context, skipMessage: string) => {
  const used = new Set([context.state.passed?.invoiceId, context.state.reportedInvoiceId, context.state.sent?.invoiceId])
  const target = (await sendQueue(context)).find((invoice) => invoice.documentKind === "invoice" && !used.has(invoice.id))
  if (target === undefined) throw new Skip(skipMessage)
  return target
}

const reportSentScenario: Scenario = {
  name: "send queue: report-sent",
  run: async (context) => {
    const target = await untouchedInvoice(context, "no approved invoice left in the send queue")
    const externalReference = `HARNESS-${context.runId}-SENT`
    const body = sentBody(target, externalReference)
    expectValidationFailed(await reportSent(context, target.id, { ...body, paymentReference: "79927398710" }), "/paymentReference", "an OCR number with a wrong check digit")
    expectValidationFailed(
      await reportSent(context, target.id, { ...body, paymentReferenceType: "kid", paymentReference: "602244" }),
      "/paymentReference",
      "a KID wrong by MOD10 and MOD11"
    )
    expectValidationFailed(await reportSent(context, target.id, { ...body, documentUrl: "http://erp.example/x.pdf" }), "/documentUrl", "an http documentUrl")
    expectValidationFailed(await reportSent(context, target.id, { ...body, issuedInvoiceDate: "2026-02-30" }), "/issuedInvoiceDate", "an impossible date")
    const { dueDate: _dueDate, ...withoutDue } = body
    expectValidationFailed(await reportSent(context, target.id, withoutDue), "/dueDate", "no dueDate on an invoice")
    const reply = await reportSent(context, target.id, body)
    expectStatus(reply, 201, `report-sent ${target.id}`)
    const sent = decode(Invoice, reply.body, "the sent invoice")
    equal(
      [sent.status, sent.externalReference, sent.paymentReference, sent.paymentReferenceType, sent.balanceMinorUnits, sent.overdue],
      ["sent", externalReference, "79927398713", "ocr", target.totalGrossMinorUnits, false],
      "the sent invoice"
    )
    check(sent.sentAt !== undefined, "the sent invoice has no sentAt")
    context.state.sent = { invoiceId: target.id, externalReference, total: target.totalGrossMinorUnits }
    expectProblem(await reportSent(context, target.id, body), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report-sent")
    check(!(await sendQueue(context)).some((invoice) => invoice.id === target.id), "the sent invoice is still in the send queue")
    return `400 VALIDATION_FAILED for OCR/KID check digits, http, impossible date, no dueDate; 201 sent #${sent.invoiceNumber}; repeat 400`
  }
}

const settlementScenario: Scenario = {
  name: "settlement: payments, replays, reversals",
  run: async (context) => {
    const sent = context.state.sent
    if (sent === undefined) throw new Skip("no invoice was reported sent in this run")
    const half = Math.floor(sent.total / 2)
    const first = { paymentId: `H-${context.runId}-1`, amountMinorUnits: half, paidOn: today() }
    const paid1 = await reportPayment(context, sent.invoiceId, first)
    expectStatus(paid1, 200, "a part payment")
    const part = decode(Invoice, paid1.body, "the part-paid invoice")
    equal([part.status, part.balanceMinorUnits], ["sent", sent.total - half], "after a part payment")
    const replay = await reportPayment(context, sent.invoiceId, first)
    expectStatus(replay, 200, "the same payment again")
    equal(replay.body, paid1.body, "the replay's answer")
    expectProblem(await reportPayment(context, sent.invoiceId, { ...first, amountMinorUnits: half + 1 }), 409, "BILLING_PAYMENT_REPLAY_MISMATCH", "the same paymentId, another amount")
    expectProblem(await reportPayment(context, sent.invoiceId, { ...first, paymentId: `H-${context.runId}-0`, amountMinorUnits: 0 }), 400, "BILLING_PAYMENT_AMOUNT_INVALID", "a zero payment")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { ...first, amountMinorUnits: 9007199254740992 }), "/amountMinorUnits", "an amount beyond 2^53 − 1")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { ...first, paidOn: "2026-13-01" }), "/paidOn", "an impossible date")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { amountMinorUnits: 1, paidOn: today() }), "/paymentId", "no paymentId")
    const rest = { paymentId: `H-${context.runId}-2`, amountMinorUnits: sent.total - half, paidOn: today() }
    const paid = await reportPaymentByReference(context, sent.externalReference, rest)
    expectStatus(paid, 200, "the rest, by external reference")
    equal([field(paid.body, "status"), field(paid.body, "balanceMinorUnits")], ["paid", 0], "after the rest")
    const reversal = { paymentId: rest.paymentId, reversedOn: today(), reason: "Returned by the bank" }
    const reversed = await reportReversal(context, sent.invoiceId, reversal)
    expectStatus(reversed, 200, "the reversal")
    equal([field(reversed.body, "status"), field(reversed.body, "balanceMinorUnits")], ["sent", sent.total - half], "after the reversal")
    expectStatus(await reportReversal(context, sent.invoiceId, reversal), 200, "the same reversal again")
    expectProblem(await reportReversal(context, sent.invoiceId, { ...reversal, reversedOn: inDays(1) }), 409, "BILLING_PAYMENT_REPLAY_MISMATCH", "the reversal with another date")
    expectProblem(await reportPaymentByReference(context, sent.externalReference, rest), 400, "BILLING_PAYMENT_REVERSED", "the reversed payment reported again")
    expectProblem(await reportReversal(context, sent.invoiceId, { paymentId: `H-${context.runId}-404`, reversedOn: today() }), 400, "BILLING_PAYMENT_NOT_FOUND", "a reversal of an unknown payment")
    expectProblem(await reportPaymentByReference(context, `HARNESS-${context.runId}-NONE`, rest), 404, undefined, "an unknown external reference")
    return "part payment, replay 200, mismatch 409, zero 400, malformed 400; paid by external reference; reversed back to sent; 400 REVERSED and NOT_FOUND"
  }
}

const writeOffScenario: Scenario = {
  name: "settlement: write-off",
  run: async (context) => {
    const sent = context.state.sent
    if (sent === undefined) throw new Skip("no invoice was reported sent in this run")
    const balance = sent.total - Math.floor(sent.total / 2)
    const body = { writeOffId: `WO-${context.runId}`, amountMinorUnits: balance, writtenOffOn: today(), reason: "Lost" }
    expectProblem(await reportWriteOff(context, sent.invoiceId, { ...body, amountMinorUnits: balance + 1 }), 400, "BILLING_WRITE_OFF_AMOUNT_INVALID", "a write-off beyond the balance")
    const reply = await reportWriteOff(context, sent.invoiceId, body)
    expectStatus(reply, 200, "the write-off")
    equal([field(reply.body, "status"), field(reply.body, "balanceMinorUnits")], ["written-off", 0], "after the write-off")
    check(typeof field(reply.body, "writtenOffAt") === "string", "no writtenOffAt")
    expectStatus(await reportWriteOff(context, sent.invoiceId, body), 200, "the same write-off again")
    expectProblem(await reportWriteOff(context, sent.invoiceId, { ...body, reason: "Other" }), 409, "BILLING_WRITE_OFF_REPLAY_MISMATCH", "the same writeOffId, another reason")
    const late = await reportPayment(context, sent.invoiceId, { paymentId: `H-${context.runId}-late`, amountMinorUnits: 100, paidOn: today() })
    expectStatus(late, 200, "money arriving after the write-off")
    equal([field(late.body, "status"), field(late.body, "balanceMinorUnits")], ["written-off", -100], "after late money")
    return "beyond the balance 400; written-off at zero; replay 200; mismatch 409; late money accepted (balance −100)"
  }
}

const concurrentPayments: Scenario = {
  name: `concurrency: ${CONCURRENT_REPORTS} copies of one payment, ${CONCURRENT_REPORTS} different payments`,
  run: async (context) => {
    const target = await untouchedInvoice(context, "no approved invoice left for the concurrency check")
    const externalReference = `HARNESS-${context.runId}-CONC`
    expectStatus(await reportSent(context, target.id, sentBody(target, externalReference)), 201, "report-sent")
    const total = target.totalGrossMinorUnits
    const copies = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, () =>
        reportPayment(context, target.id, { paymentId: `C-${context.runId}`, amountMinorUnits: 1, paidOn: today() })
      )
    )
    equal(copies.map((reply) => reply.status), Array.from({ length: CONCURRENT_REPORTS }, () => 200), "statuses of the copies")
    equal(new Set(copies.map((reply) => field(reply.body, "balanceMinorUnits"))), new Set([total - 1]), "balances after the copies")
    const share = Math.floor((total - 1) / CONCURRENT_REPORTS)
    const distinct = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, (_, i) =>
        reportPayment(context, target.id, { paymentId: `D-${context.runId}-${i}`, amountMinorUnits: share, paidOn: today() })
      )
    )
    check(distinct.every((reply) => reply.status === 200), `statuses: ${show(distinct.map((reply) => reply.status))}`)
    const expected = total - 1 - share * CONCURRENT_REPORTS
    const final = await reportPayment(context, target.id, { paymentId: `C-${context.runId}`, amountMinorUnits: 1, paidOn: today() })
    equal([field(final.body, "balanceMinorUnits"), field(final.body, "status")], [expected, expected <= 0 ? "paid" : "sent"], "the balance after every payment")
    return `one payment of ${CONCURRENT_REPORTS} copies; ${CONCURRENT_REPORTS} different payments leave exactly ${expected}`
  }
}

const withdrawalScenario: Scenario = {
  name: "withdrawal queue: report-discarded",
  run: async (context) => {
    const { items } = await walk(context, "/v1/billing/withdrawal-queue", 100)
    const unknown = randomUUID()
    expectProblem(await api(context, "POST", `/v1/billing/invoice-withdrawals/${unknown}/report-discarded`, {}), 404, undefined, "an invoice without a withdrawal")
    const first = items[0]
    if (first === undefined) throw new Skip("the withdrawal queue is empty (the 404 check passed)")
    const invoiceId = String(field(first, "invoiceId"))
    equal(field(first, "status"), "pending", "a queued withdrawal's status")
    const reply = await api(context, "POST", `/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {})
    expectStatus(reply, 201, "report-discarded")
    equal(field(reply.body, "status"), "discarded", "the discarded withdrawal")
    expectProblem(await api(context, "POST", `/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {}), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report")
    const deletedSent = { issuedInvoiceNumber: "H-DELETED", issuedInvoiceDate: today(), dueDate: inDays(30), issuedTotalGrossMinorUnits: 100 }
    expectProblem(await reportSent(context, invoiceId, deletedSent), 404, undefined, "report-sent on the deleted invoice")
    const after = await walk(context, "/v1/billing/withdrawal-queue", 100)
    check(!after.items.some((item) => field(item, "invoiceId") === invoiceId), "the discarded withdrawal is still queued")
    return `201 discarded; repeat 400 BILLING_INVOICE_STATUS_INVALID; left the queue; the deleted invoice 404; 404 for an invoice without one`
  }
}

/** Every scenario, in the order they run (later ones use what earlier ones did). */
export const scenarios: ReadonlyArray<Scenario> = [
  discovery,
  tokenWith("client_secret_basic"),
  tokenWith("client_secret_post"),
  tokenErrors,
  apiAuthentication,
  operationalContexts,
  publishedClient,
  verificationPass,
  verificationDuplicateReference,
  verificationReject,
  verificationValidation,
  sendQueueReportFailed,
  concurrentReports,
  reportSentScenario,
  settlementScenario,
  writeOffScenario,
  concurrentPayments,
  withdrawalScenario
]

const errorMessage = (error: unknown) =>
  error instanceof Error ? `${error instanceof AssertionFailed || error instanceof Skip ? "" : `${error.name}: `}${error.message}` : show(error)

/** Runs one scenario; never throws. */
export const runScenario = async (scenario: Scenario, context: Context): Promise<Outcome> => {
  try {
    return { name: scenario.name, verdict: "PASS", message: await scenario.run(context) }
  } catch (error) {
    return { name: scenario.name, verdict: error instanceof Skip ? "SKIP" : "FAIL", message: errorMessage(error) }
  }
}

/** Runs every scenario in order, calling `onOutcome` after each. */
export const runAll = async (
  credentials: Credentials,
  onOutcome: (outcome: Outcome) => void = () => {}
): Promise<{ readonly outcomes: ReadonlyArray<Outcome>; readonly tokenRequests: number }> => {
  const context = makeContext(credentials)
  const outcomes: Array<Outcome> = []
  for (const scenario of scenarios) {
    const outcome = await runScenario(scenario, context)
    outcomes.push(outcome)
    onOutcome(outcome)
  }
  return { outcomes, tokenRequests: context.tokenRequests }
}
