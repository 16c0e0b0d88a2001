/**
 * The harness's kernel: what a run shares ({@link Context}), what a scenario is, the assertions and HTTP helpers
 * every scenario kind uses, and the runner. Scenarios assert exact statuses and codes (spec 2.3, 3, 4.1, 5, 7)
 * and answer PASS, FAIL or SKIP with a message; they live per connector kind in `scenarios/<kind>.ts`, and
 * `Scenarios.ts` puts them in the order they run.
 *
 * Every token of a run comes from the published client's Promise API, loaded once per run from its packed tarball
 * ({@link published}, {@link installed}; `PackedClient.ts`): the run's Application token is the client's cached one
 * ({@link accessToken}), so a run sends few token requests (see {@link Context.tokenRequests}: about a dozen, far
 * below the limit of 60 a minute per client). No harness source imports `@propline/client` from the workspace
 * (test/PackedClient.test.ts checks it); only its types are read from there.
 */
import { Either, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { isDeepStrictEqual } from "node:util"
import { loadPackedClient, type PublishedPropline } from "./PackedClient.js"

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

/**
 * An installed connector's file (DATA_DIR/demo-connector.json): its app, installation and ES256 private JWK, and a
 * connection reference issued at the deployment's start (10 minutes, once). The integrations scenarios need it.
 */
export interface ConnectorFile {
  readonly app_id: string
  readonly installation_id: string
  readonly private_jwk: { readonly kid: string } & Record<string, unknown>
  readonly auth_url: string
  readonly base_url: string
  readonly connection_reference?: string
}

/** Reads and checks a connector file's object. */
export const parseConnector = (value: unknown): ConnectorFile => {
  if (typeof value !== "object" || value === null) throw new Error("the connector file is not a JSON object")
  const record = value as Record<string, unknown>
  for (const key of ["app_id", "installation_id", "auth_url", "base_url"]) {
    if (typeof record[key] !== "string" || record[key] === "") throw new Error(`the connector file lacks "${key}"`)
  }
  if (typeof field(record["private_jwk"], "kid") !== "string") throw new Error('the connector file lacks "private_jwk"')
  return record as unknown as ConnectorFile
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
  /** The installed connector, when its file was found: the integrations scenarios skip without it. */
  readonly connector: ConnectorFile | undefined
  /** Unique per run: makes every externalReference of the run unique in the organization. */
  readonly runId: string
  /** Requests this run sent to the token endpoint (the demo client may send 60 a minute). */
  tokenRequests: number
  /** Records this run changed or learned about, for the later scenarios. */
  readonly state: {
    /** The Application's client (client_credentials), from {@link published}. */
    client?: Promise<PublishedPropline>
    passed?: { readonly proposalId: string; readonly invoiceId: string; readonly externalReference: string }
    /** A proposed proposal that the duplicate-reference check left unchanged. */
    duplicateTarget?: string
    /** Proposals whose pass answered 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED. */
    readonly materialInvoiced: Set<string>
    reportedInvoiceId?: string
    /** An invoice this run reported sent, with its externalReference, for the settlement scenarios. */
    sent?: { readonly invoiceId: string; readonly externalReference: string; readonly total: number }
    /** The installed connector's client (the installation grant; its tokens are not counted in `tokenRequests`: another client's). */
    connectorClient?: Promise<PublishedPropline>
    /** The configuration this run's redeem made `connecting`, for the ready and failed scenarios. */
    redeemed?: { readonly id: string; readonly kind: "billing" | "signing" | "booking" }
  }
}

export const makeContext = (credentials: Credentials, connector?: ConnectorFile): Context => ({
  credentials,
  connector,
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

/** Throws {@link AssertionFailed} with `message` unless `condition` holds. */
export const check: (condition: boolean, message: string) => asserts condition = (condition, message) => {
  if (!condition) throw new AssertionFailed(message)
}

/** `value` as JSON for a failure message. */
export const show = (value: unknown) => JSON.stringify(value) ?? String(value)

/** Deep strict equality of `actual` and `expected`, `what` naming them in the failure. */
export const equal = (actual: unknown, expected: unknown, what: string) =>
  check(isDeepStrictEqual(actual, expected), `${what}: expected ${show(expected)}, got ${show(actual)}`)

/** `path` under `base`, whether `base` ends in a slash or not. */
export const join = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`

/** A response read whole. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed JSON body; `undefined` when the body is not JSON. */
  readonly body: unknown
}

const REQUEST_TIMEOUT_MS = 30_000

/** One HTTP request, read whole; gives up after 30 seconds. */
export const send = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** Member `key` of `value` when it is an object, else `undefined`. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined

const describeReply = (reply: Reply) => `${reply.status} ${reply.text.slice(0, 300)}`

/** The reply has HTTP status `status`. */
export const expectStatus = (reply: Reply, status: number, what: string) =>
  check(reply.status === status, `${what}: expected ${status}, got ${describeReply(reply)}`)

/** Spec 2.3: an Error record as problem details, with the given status and, when given, code. */
export const expectProblem = (reply: Reply, status: number, code: string | undefined, what: string) => {
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
export const expectValidationFailed = (reply: Reply, path: string, what: string) => {
  expectProblem(reply, 400, "VALIDATION_FAILED", what)
  check(issuePaths(reply).includes(path), `${what}: no issue at ${path}: ${reply.text.slice(0, 300)}`)
}

/** `value` decoded with the contract's `schema`; a mismatch fails the scenario with the parse error. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string): A => {
  const result = Schema.decodeUnknownEither(schema)(value)
  if (Either.isLeft(result)) {
    throw new AssertionFailed(`${what} does not match the contract: ${ParseResult.TreeFormatter.formatErrorSync(result.left)}`)
  }
  return result.right
}

// ---------------------------------------------------------------------------------------------------------------
// The identity host

/** The identity host's token endpoint, `{auth_url}/oauth/token`. */
export const tokenUrl = (file: { readonly auth_url: string }) => join(file.auth_url, "/oauth/token")

/**
 * The run's Application client: the packed client's `new Propline({ clientId, clientSecret })` on the credentials
 * file, made once per run; its token requests are counted in {@link Context.tokenRequests}.
 */
export const published = (context: Context): Promise<PublishedPropline> => {
  const { credentials } = context
  const endpoint = tokenUrl(credentials)
  const counting: typeof fetch = (input, init) => {
    if ((input instanceof Request ? input.url : String(input)) === endpoint) context.tokenRequests++
    return fetch(input, init)
  }
  context.state.client ??= loadPackedClient().then(
    ({ module }) =>
      new module.Propline({
        baseUrl: credentials.base_url,
        tokenUrl: endpoint,
        clientId: credentials.client_id,
        clientSecret: credentials.client_secret,
        fetch: counting
      })
  )
  return context.state.client
}

/**
 * The installed connector's client: the packed client's `new Propline({ appId, installationId, privateKey })` on
 * the connector file (spec 5.3: an ES256 client assertion per token request), made once per run.
 */
export const installed = (context: Context, connector: ConnectorFile): Promise<PublishedPropline> => {
  context.state.connectorClient ??= loadPackedClient().then(
    ({ module }) =>
      new module.Propline({
        baseUrl: connector.base_url,
        tokenUrl: tokenUrl(connector),
        appId: connector.app_id,
        installationId: connector.installation_id,
        privateKey: connector.private_jwk
      })
  )
  return context.state.connectorClient
}

/** `client`'s access token (its `accessToken()`: cached, renewed before it expires); a refusal fails the scenario. */
export const tokenOf = async (client: Promise<PublishedPropline>, what: string): Promise<string> =>
  (await client).accessToken().catch((error: unknown) => {
    throw new AssertionFailed(`no ${what} token: ${error instanceof Error ? error.message : show(error)}`)
  })

/** The run's Application access token (spec 5.2), from {@link published}. */
export const accessToken = (context: Context): Promise<string> => tokenOf(published(context), "access")

// ---------------------------------------------------------------------------------------------------------------
// The API host

/**
 * A request to the API host with the run's access token; `body` is sent as JSON. Raw `fetch` on purpose: the
 * scenarios assert each answer's exact status, headers and problem body (spec 2.3), send requests the published
 * client would not build (malformed bodies, foreign cursors, unknown members), and must see every attempt once,
 * where the client would retry, and answer with its error classes and the JSON only.
 */
export const api = async (context: Context, method: "GET" | "POST", path: string, body?: unknown): Promise<Reply> => {
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
export const walk = async (context: Context, path: string, limit: number): Promise<{ items: Array<unknown>; pages: number }> => {
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

/** Every item of a list ({@link walk}), each decoded with the contract's `schema`; a failure names `${what} ${i}`. */
export const walkDecoded = async <A, I>(
  context: Context,
  path: string,
  limit: number,
  schema: Schema.Schema<A, I>,
  what: string
): Promise<Array<A>> => (await walk(context, path, limit)).items.map((item, i) => decode(schema, item, `${what} ${i}`))

// ---------------------------------------------------------------------------------------------------------------
// Running

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

/** Runs `scenarios` in order against one new {@link Context}, calling `onOutcome` after each. */
export const runAll = async (
  scenarios: ReadonlyArray<Scenario>,
  credentials: Credentials,
  onOutcome: (outcome: Outcome) => void = () => {},
  connector?: ConnectorFile
): Promise<{ readonly outcomes: ReadonlyArray<Outcome>; readonly tokenRequests: number }> => {
  const context = makeContext(credentials, connector)
  const outcomes: Array<Outcome> = []
  for (const scenario of scenarios) {
    const outcome = await runScenario(scenario, context)
    outcomes.push(outcome)
    onOutcome(outcome)
  }
  return { outcomes, tokenRequests: context.tokenRequests }
}
