/**
 * The client's Effect API: every operation of `@propline/contract`'s `IntegrationApi` (derived with
 * `HttpApiClient`, so request, success and path types are the server's), with tokens, retries, timeouts and tagged
 * errors. The Promise API (`Propline`) is this, run.
 *
 * ```ts
 * const api = yield* Client.make({ baseUrl, tokenUrl, clientId, clientSecret })   // needs an HttpClient layer
 * const queue = yield* api.billing.getSendQueue({ urlParams: { limit: 50 } })
 * yield* Stream.runForEach(Client.paginate(api.billing.getSendQueue, { urlParams: {} }), (invoice) => …)
 * const missing = api.booking.getBookingRequest({ path: { bookingId } }).pipe(
 *   Effect.catchTag("NotFoundError", (error) => Effect.succeed(error.requestId)))
 * ```
 *
 * - **Tokens**: `accessToken` (a string or an effect giving the current one), an Application's
 *   `clientId`/`clientSecret`, or an installed connector's `appId`/`installationId`/`privateKey`; both grants are
 *   cached and renewed 60 s before they expire (`Tokens.ts`). `tokenUrl` defaults to `{baseUrl origin}/oauth/token`;
 *   when the identity host is elsewhere (as in `pnpm start`: `{auth_url}`), pass `{auth_url}/oauth/token`.
 * - **Retries**: an operation that is safe to repeat is tried again after a network error, a timeout, 429 and 5xx,
 *   at most `maxRetries` times (default 2): after `Retry-After` when the response gives one (429, 503; up to
 *   `maxRetryAfterMs`, default 60 s, else it fails at once), otherwise after an exponential back-off with jitter
 *   (`retryDelayMs` × 2^attempt, default 500 ms, capped at 8 s, a random half to whole of it). Safe to repeat: every
 *   GET; the money reports, idempotent by the caller's id (`reportPayment*` by `paymentId`, `reportPaymentReversed*`
 *   by the payment reversed, `reportWriteOff` by `writeOffId`: a repeat answers 200 with the current record); booking
 *   requests, idempotent by `requestId`, and their cancellations and reschedules (`cancellationId`, `rescheduleId`); the booking preview and the company lookup, which change nothing. Other
 *   POSTs (pass, reject, the signing and integration reports) are refused when repeated, so they are never retried.
 *   A refused token request (429 `slow_down`, 5xx) is retried for every operation: nothing was sent yet.
 * - **Timeouts**: each attempt gets `timeoutMs` (default 30 s) for the whole response, then `TimeoutError`.
 * - **Errors**: the tagged classes of `Errors.ts`, with `status`, `code`, `issues`, `detail` and `requestId`.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { IntegrationApi } from "@propline/contract/Api.js"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Simplify } from "effect/Types"
import {
  type AnyProplineError,
  ConnectionError,
  fromResponse,
  isTransient,
  ProplineError,
  SchemaError,
  TimeoutError
} from "./Errors.js"
import * as Tokens from "./Tokens.js"
import type { JWK } from "jose"

/** How the client authenticates: a token of your own, an Application's credentials, or an installed connector's. */
export type Credentials =
  | { readonly accessToken: string | Effect.Effect<string, AnyProplineError> }
  | { readonly clientId: string; readonly clientSecret: string; readonly tokenUrl?: string }
  | {
      readonly appId: string
      readonly installationId: string
      /** ES256 private key: a JWK (with `kid`) or a PKCS #8 PEM string. */
      readonly privateKey: (JWK & { readonly kid?: string }) | string
      readonly tokenUrl?: string
    }

/** Transport settings; every member has a default (see the module's docstring). */
export interface Settings {
  /** The API host's address ({base_url}), e.g. `https://api.example.com`. */
  readonly baseUrl: string
  /** Retries of an operation safe to repeat; 0 turns retries off. Default 2. */
  readonly maxRetries?: number
  /** First back-off delay in milliseconds, doubled per retry (jitter: a random half to whole). Default 500. */
  readonly retryDelayMs?: number
  /** Longest `Retry-After` the client waits, in milliseconds; a longer one fails at once. Default 60 000. */
  readonly maxRetryAfterMs?: number
  /** Per attempt, in milliseconds. Default 30 000. */
  readonly timeoutMs?: number
}

export type Options = Settings & Credentials

type Groups = typeof IntegrationApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/** One operation as a function: its request (path, urlParams, payload as the contract names them) to its success. */
export type Method<Endpoint, Wrap extends "effect" | "promise"> =
  Endpoint extends HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer _Error,
    infer _R,
    infer _RE
  >
    ? (
        request: Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>
      ) => Wrap extends "effect" ? Effect.Effect<Success, AnyProplineError> : Promise<Success>
    : never

/** The client's shape over every group and operation of the contract, `Wrap` giving each operation's function. */
export type Operations<Wrap extends "effect" | "promise"> = {
  readonly [Group in Groups as HttpApiGroup.HttpApiGroup.Name<Group>]: Group extends HttpApiGroup.HttpApiGroup<
    infer _Id,
    infer Endpoints,
    infer _E,
    infer _R,
    infer _Top
  >
    ? {
        readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: Method<Endpoint, Wrap>
      }
    : never
}

/** The Effect API: `client.<group>.<operation>(request)`. */
export type ProplineClient = Operations<"effect">

/**
 * POSTs safe to repeat, by group and operation (see the module's docstring); every GET is safe too.
 */
export const IDEMPOTENT_POSTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  billing: [
    "reportPayment",
    "reportPaymentByExternalReference",
    "reportPaymentReversed",
    "reportPaymentReversedByExternalReference",
    "reportWriteOff"
  ],
  booking: ["createBookingRequest", "previewBookingRequest", "lookUpCompany", "cancelBookingRequest", "rescheduleBookingRequest"]
}

const normalize = (error: unknown): AnyProplineError => {
  if (error instanceof ProplineError) return error as AnyProplineError
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  const message = error instanceof Error ? error.message : String(error)
  if (tag === "RequestError" || tag === "ResponseError")
    return new ConnectionError({ message: `no response: ${message}`, cause: error })
  return new SchemaError({ message: `the request or response does not match the contract: ${message}`, cause: error })
}

const tokenUrlOf = (options: Options): string =>
  "tokenUrl" in options && options.tokenUrl !== undefined
    ? options.tokenUrl
    : new URL("/oauth/token", options.baseUrl).toString()

const tokenSource = (http: HttpClient.HttpClient, options: Options): Effect.Effect<Effect.Effect<string, AnyProplineError>> => {
  if ("accessToken" in options)
    return Effect.succeed(
      typeof options.accessToken === "string" ? Effect.succeed(options.accessToken) : options.accessToken
    )
  const tokenUrl = tokenUrlOf(options)
  if ("clientId" in options)
    return Tokens.cached(
      Tokens.requestClientCredentials(http, { clientId: options.clientId, clientSecret: options.clientSecret, tokenUrl })
    )
  const credentials = { appId: options.appId, installationId: options.installationId, privateKey: options.privateKey, tokenUrl }
  const sign = Tokens.assertionSigner(credentials)
  return Tokens.cached(Tokens.requestInstallationToken(http, credentials, sign))
}

/** Fails a non-2xx response with its error (body read once, `X-Request-Id` and `Retry-After` kept). */
const failOnStatus = (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 300
    ? Effect.succeed(response)
    : Effect.flatMap(Effect.zip(Effect.orElseSucceed(response.text, () => ""), Clock.currentTimeMillis), ([body, now]) =>
        Effect.fail(fromResponse({ status: response.status, headers: response.headers, body, now }))
      )

/**
 * The delay before retry number `attempt + 1` (milliseconds), or undefined to fail now: only transient failures of
 * an operation safe to repeat, and refused token requests (429, 5xx) of any operation.
 */
export const retryDelay = (
  error: AnyProplineError,
  attempt: number,
  safe: boolean,
  settings: Required<Omit<Settings, "baseUrl">>,
  random: number
): number | undefined => {
  if (attempt >= settings.maxRetries) return undefined
  const tokenRefusal =
    error._tag === "TokenError" && error.status !== undefined && (error.status === 429 || error.status >= 500)
  if (!tokenRefusal && !(safe && isTransient(error))) return undefined
  if (error.retryAfter !== undefined) {
    const wait = error.retryAfter * 1000
    return wait <= settings.maxRetryAfterMs ? wait : undefined
  }
  const ceiling = Math.min(8_000, settings.retryDelayMs * 2 ** attempt)
  return Math.round(ceiling / 2 + (random * ceiling) / 2)
}

const withPolicy = <A>(
  effect: Effect.Effect<A, unknown>,
  safe: boolean,
  settings: Required<Omit<Settings, "baseUrl">>
): Effect.Effect<A, AnyProplineError> => {
  const once = effect.pipe(
    Effect.timeoutFail({
      duration: Duration.millis(settings.timeoutMs),
      onTimeout: () => new TimeoutError({ message: `no response within ${settings.timeoutMs} ms` })
    }),
    Effect.mapError(normalize)
  )
  const attempt = (n: number): Effect.Effect<A, AnyProplineError> =>
    Effect.catchAll(once, (error) => {
      const delay = retryDelay(error, n, safe, settings, Math.random())
      return delay === undefined ? Effect.fail(error) : Effect.zipRight(Effect.sleep(Duration.millis(delay)), attempt(n + 1))
    })
  return attempt(0)
}

/** Builds the Effect API; needs an `HttpClient` (e.g. `FetchHttpClient.layer` from @effect/platform). */
export const make = (options: Options): Effect.Effect<ProplineClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const token = yield* tokenSource(http, options)
    const settings = {
      maxRetries: options.maxRetries ?? 2,
      retryDelayMs: options.retryDelayMs ?? 500,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 30_000
    }
    const authenticated = http.pipe(
      HttpClient.mapRequestEffect((request) => Effect.map(token, (value) => HttpClientRequest.bearerToken(request, value))),
      HttpClient.transformResponse(Effect.flatMap(failOnStatus))
    )
    const raw = (yield* HttpApiClient.makeWith(IntegrationApi, {
      httpClient: authenticated,
      baseUrl: options.baseUrl
    })) as unknown as Record<string, Record<string, (request: unknown) => Effect.Effect<unknown, unknown>>>
    const client: Record<string, Record<string, (request: unknown) => Effect.Effect<unknown, AnyProplineError>>> = {}
    for (const [groupName, group] of Object.entries(IntegrationApi.groups as unknown as Record<string, HttpApiGroup.HttpApiGroup.AnyWithProps>)) {
      const operations: Record<string, (request: unknown) => Effect.Effect<unknown, AnyProplineError>> = {}
      for (const [name, endpoint] of Object.entries(group.endpoints as Record<string, HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>)) {
        const safe = endpoint.method === "GET" || (IDEMPOTENT_POSTS[groupName] ?? []).includes(name)
        const call = raw[groupName]?.[name]
        if (call !== undefined) operations[name] = (request) => withPolicy(call(request), safe, settings)
      }
      client[groupName] = operations
    }
    return client as unknown as ProplineClient
  })

/** A cursor page as every list answers (`hasMore` on the events feed, whose last `nextCursor` is kept). */
export interface CursorPage<Item> {
  readonly items: ReadonlyArray<Item>
  readonly nextCursor: string | null
  readonly hasMore?: boolean
}

/** A list request: any request whose query takes `cursor`. */
export type CursorRequest = { readonly urlParams: { readonly cursor?: string | undefined } } | void

/** `request` with its query's `cursor` set (unchanged when `cursor` is undefined). */
export const withCursor = <Req extends CursorRequest>(request: Req, cursor: string | undefined): Req =>
  (cursor === undefined
    ? request
    : { ...(request ?? {}), urlParams: { ...(request?.urlParams ?? {}), cursor } }) as Req

/** The next page's cursor: none once `nextCursor` is null or the feed says it has no more. */
export const nextCursor = (page: CursorPage<unknown>): string | undefined =>
  page.nextCursor === null || page.hasMore === false ? undefined : page.nextCursor

/**
 * Every item of a cursor list (send queue, withdrawal queues, verification queue, signing queue, resources, add-on
 * products, configurations, operational contexts, the events feed) from `request`'s cursor on, page after page,
 * until the last page. Fails with the operation's error.
 */
export const paginate = <Req extends CursorRequest, Item, E>(
  list: (request: Req) => Effect.Effect<CursorPage<Item>, E>,
  request: Req
): Stream.Stream<Item, E> =>
  Stream.paginateEffect(request?.urlParams?.cursor, (cursor) =>
    Effect.map(list(withCursor(request, cursor)), (page) => [page, Option.fromNullable(nextCursor(page))] as const)
  ).pipe(Stream.flatMap((page) => Stream.fromIterable(page.items)))
