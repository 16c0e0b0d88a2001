/**
 * The client's Promise API: `new Propline(options)` gives every operation of the contract as
 * `propline.<group>.<operation>(request)` returning a Promise of the response's JSON, with tokens of both grants
 * (cached, renewed 60 s before they expire), retries with back-off and jitter (network errors, timeouts, 429 after
 * `Retry-After`, 5xx; only for operations safe to repeat), a timeout per attempt, and errors as the `Errors.ts`
 * classes (`instanceof NotFoundError`, `error.code`, `error.issues`, `error.requestId`). Same policy as the Effect API
 * (`Client.ts`, shared in `internal/policy.ts`).
 *
 * ```ts
 * const propline = new Propline({ baseUrl, tokenUrl: `${authUrl}/oauth/token`, clientId, clientSecret })
 * // or an installed connector: new Propline({ baseUrl, tokenUrl, appId, installationId, privateKey })
 * for await (const invoice of propline.paginate(propline.billing.getSendQueue, { urlParams: {} })) { … }
 * try {
 *   await propline.billing.reportPayment({ path: { invoiceId }, payload })
 * } catch (error) {
 *   if (error instanceof ConflictError) console.log(error.code, error.requestId)
 * }
 * ```
 *
 * Small by design: it runs on `fetch` with the contract's operations as a table (`internal/operations.ts`, checked
 * against the contract by the tests) and the contract's types, and loads neither Effect's runtime nor the contract's
 * schemas. So it sends the request as given (path parameters as given: pass an `externalReference` through
 * `encodeURIComponent`; a `Date` as its ISO string) and the API checks it (400 `VALIDATION_FAILED` with `issues`), and
 * a success is the JSON as the API sent it: timestamps are ISO 8601 strings ({@link Json}). The Effect API decodes
 * with the contract's schemas instead (timestamps as `Date`).
 */
import type { ApplicationCredentials, InstallationCredentials, Operations } from "./Client.js"
import { type AnyProplineError, ConnectionError, fromResponse, ProplineError, SchemaError, TimeoutError } from "./Errors.js"
import { OPERATIONS } from "./internal/operations.js"
import {
  type CursorPage,
  type CursorRequest,
  isSafeToRepeat,
  nextCursor,
  type Policy,
  policyOf,
  retryDelay,
  type Settings,
  tokenUrlOf,
  withCursor
} from "./internal/policy.js"
import {
  assertionSigner,
  clientCredentialsRequest,
  installationForm,
  type IssuedToken,
  readTokenAnswer,
  signingFailed
} from "./internal/tokenProtocol.js"

export type { Json } from "./Client.js"

/** How the Promise API authenticates: a token of your own (or a function giving the current one), or a grant's. */
export type ProplineCredentials =
  | { readonly accessToken: string | (() => string | Promise<string>) }
  | ApplicationCredentials
  | InstallationCredentials

/** The Promise API's options: the API host, the credentials, the transport settings, and optionally `fetch`. */
export type ProplineOptions = Settings &
  ProplineCredentials & {
    /** The `fetch` to send with; default the global one. */
    readonly fetch?: typeof globalThis.fetch
  }

interface Request {
  readonly path?: Readonly<Record<string, unknown>>
  readonly urlParams?: Readonly<Record<string, unknown>>
  readonly payload?: unknown
}

const text = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value))

/** The operation's address: `:name` segments from `request.path` (as given), the query from `request.urlParams`. */
const addressOf = (baseUrl: string, template: string, request: Request | undefined): string => {
  const path = template.replace(/:(\w+)/g, (_, name: string) => text(request?.path?.[name]))
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(request?.urlParams ?? {}))
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) query.append(key, text(item))
  const search = query.toString()
  return `${baseUrl.replace(/\/+$/, "")}${path}${search === "" ? "" : `?${search}`}`
}

const headersOf = (response: Response): Record<string, string> => Object.fromEntries(response.headers.entries())

/** `fetch` and the body's text within `timeoutMs`; a network failure is ConnectionError, the time out TimeoutError. */
const exchange = async (
  send: typeof globalThis.fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number
): Promise<{ readonly response: Response; readonly body: string }> => {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  try {
    const response = await send(url, { ...init, signal: controller.signal })
    return { response, body: await response.text() }
  } catch (cause) {
    if (controller.signal.aborted) throw new TimeoutError({ message: `no response within ${timeoutMs} ms`, cause })
    throw new ConnectionError({ message: `no response from ${url}: ${String(cause)}`, cause })
  } finally {
    clearTimeout(timer)
  }
}

const asProplineError = (error: unknown): AnyProplineError =>
  error instanceof ProplineError
    ? (error as AnyProplineError)
    : new ConnectionError({ message: `the request failed: ${String(error)}`, cause: error })

/** A token source: one request at a time, the token kept until `renewBeforeSeconds` before it expires. */
const cachedToken = (request: () => Promise<IssuedToken>, renewBeforeSeconds = 60): (() => Promise<string>) => {
  let current: { readonly token: string; readonly renewAt: number } | undefined
  let pending: Promise<string> | undefined
  return () => {
    if (current !== undefined && Date.now() < current.renewAt) return Promise.resolve(current.token)
    pending ??= request()
      .then((issued) => {
        current = {
          token: issued.accessToken,
          renewAt: Date.now() + Math.max(0, issued.expiresIn - renewBeforeSeconds) * 1000
        }
        return issued.accessToken
      })
      .finally(() => (pending = undefined))
    return pending
  }
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Propline {
  readonly #options: ProplineOptions
  readonly #policy: Policy
  readonly #fetch: typeof globalThis.fetch
  readonly #token: () => Promise<string>

  /** Builds the client; no request is sent until the first operation (which first gets a token). */
  constructor(options: ProplineOptions) {
    this.#options = options
    this.#policy = policyOf(options)
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.#token = this.#tokenSource()
    for (const [group, operations] of Object.entries(OPERATIONS)) {
      const bound: Record<string, (request?: Request) => Promise<unknown>> = {}
      for (const [name, operation] of Object.entries(operations)) {
        const [method = "GET", template = ""] = (operation as string).split(" ")
        const safe = isSafeToRepeat(group, name, method)
        bound[name] = (request) => this.#call(method, template, request, safe)
      }
      Object.defineProperty(this, group, { value: bound, enumerable: true })
    }
  }

  #tokenSource(): () => Promise<string> {
    const options = this.#options
    if ("accessToken" in options) {
      const { accessToken } = options
      return typeof accessToken === "string" ? () => Promise.resolve(accessToken) : async () => accessToken()
    }
    const tokenUrl = tokenUrlOf(options)
    const ask = async (form: Readonly<Record<string, string>>, authorization?: string): Promise<IssuedToken> => {
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" }
      if (authorization !== undefined) headers["authorization"] = authorization
      const { response, body } = await exchange(
        this.#fetch,
        tokenUrl,
        { method: "POST", headers, body: new URLSearchParams(form).toString() },
        this.#policy.timeoutMs
      )
      const answer = readTokenAnswer({ status: response.status, headers: headersOf(response), body, now: Date.now() })
      if (answer instanceof ProplineError) throw answer
      return answer
    }
    if ("clientId" in options) {
      const { authorization, form } = clientCredentialsRequest({ ...options, tokenUrl })
      return cachedToken(() => ask(form, authorization))
    }
    const credentials = { ...options, tokenUrl }
    const sign = assertionSigner(credentials)
    return cachedToken(async () => {
      const assertion = await sign().catch((cause: unknown) => Promise.reject(signingFailed(cause)))
      return ask(installationForm(credentials, assertion))
    })
  }

  async #attempt(method: string, url: string, payload: string | undefined): Promise<unknown> {
    const token = await this.#token()
    const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}` }
    if (payload !== undefined) headers["content-type"] = "application/json"
    const { response, body } = await exchange(
      this.#fetch,
      url,
      { method, headers, ...(payload === undefined ? {} : { body: payload }) },
      this.#policy.timeoutMs
    )
    if (response.status >= 300)
      throw fromResponse({ status: response.status, headers: headersOf(response), body, now: Date.now() })
    if (body === "") return undefined
    try {
      return JSON.parse(body) as unknown
    } catch (cause) {
      throw new SchemaError({ message: `the response to ${method} ${url} is not JSON`, status: response.status, cause })
    }
  }

  #call(method: string, template: string, request: Request | undefined, safe: boolean): Promise<unknown> {
    const url = addressOf(this.#options.baseUrl, template, request)
    const payload = request?.payload === undefined ? undefined : JSON.stringify(request.payload)
    return this.#retrying(safe, () => this.#attempt(method, url, payload))
  }

  /** `attempt` until it succeeds or {@link retryDelay} says to give up; rejects with the last error. */
  async #retrying<A>(safe: boolean, attempt: () => Promise<A>): Promise<A> {
    for (let attempts = 0; ; attempts++) {
      try {
        return await attempt()
      } catch (thrown) {
        const error = asProplineError(thrown)
        const delay = retryDelay(error, attempts, safe, this.#policy, Math.random())
        if (delay === undefined) throw error
        await new Promise((resolve) => setTimeout(resolve, delay))
      }
    }
  }

  /**
   * The access token the client sends: the cached one, or a new one from its grant (client_credentials or the
   * installation grant; renewed 60 s before `expires_in` runs out, one token request at a time), or your own. For a
   * request the client does not build itself (a raw `fetch` with `authorization: Bearer <token>`). A token request
   * refused with 429 (`slow_down`, after `Retry-After`) or 5xx is retried as for an operation; rejects with
   * `TokenError` (the OAuth `error` as `code`), `ConnectionError`, `TimeoutError` or `SchemaError`.
   */
  accessToken(): Promise<string> {
    return this.#retrying(false, () => this.#token())
  }

  /**
   * Every item of a cursor list, from `request`'s cursor (the start when absent) to the last page, fetching a page
   * when the previous one is used up: `for await (const item of propline.paginate(propline.billing.getSendQueue,
   * { urlParams: { limit: 100 } }))`. Works with every list (queues, resources, add-on products, configurations,
   * operational contexts) and the events feed (`propline.events.listEvents`, until caught up). Rejects with the
   * operation's error.
   */
  async *paginate<Req extends CursorRequest, Item>(
    list: (request: Req) => Promise<CursorPage<Item>>,
    request: Req
  ): AsyncGenerator<Item, void, undefined> {
    let cursor = request?.urlParams?.cursor
    for (;;) {
      const page = await list(withCursor(request, cursor))
      yield* page.items
      cursor = nextCursor(page)
      if (cursor === undefined) return
    }
  }
}

// The class's groups (`billing`, `booking`, …) are the contract's, added by the constructor.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface Propline extends Operations<"promise"> {}

/** The Promise API's successes, for naming a result: `ProplineResult<typeof propline.billing.getSendQueue>`. */
export type ProplineResult<F> = F extends (...args: never) => Promise<infer A> ? A : never
