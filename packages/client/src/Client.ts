/**
 * The client's Effect API: every operation of `@propline/contract`'s `IntegrationApi` (derived with
 * `HttpApiClient`, so request, success and path types are the server's), with tokens, retries, timeouts and tagged
 * errors. The Promise API (`Propline`) has the same operations, policy and errors on `fetch`, without Effect (see
 * `Propline.ts`); this one decodes with the contract's schemas (timestamps as `Date`).
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
  ProplineError,
  SchemaError,
  TimeoutError
} from "./Errors.js"
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
import * as Tokens from "./Tokens.js"
import type { JWK } from "jose"

/** An Application's credentials (client_credentials, spec 5.2); `tokenUrl` is `{auth_url}/oauth/token`. */
export interface ApplicationCredentials {
  readonly clientId: string
  readonly clientSecret: string
  readonly tokenUrl?: string
}

/** An installed connector's (the installation-token grant, spec 5.3). */
export interface InstallationCredentials {
  readonly appId: string
  readonly installationId: string
  /** ES256 private key: a JWK (with `kid`) or a PKCS #8 PEM string. */
  readonly privateKey: (JWK & { readonly kid?: string }) | string
  readonly tokenUrl?: string
}

/** How the client authenticates: a token of your own, an Application's credentials, or an installed connector's. */
export type Credentials =
  | { readonly accessToken: string | Effect.Effect<string, AnyProplineError> }
  | ApplicationCredentials
  | InstallationCredentials

export type Options = Settings & Credentials

export {
  type CursorPage,
  type CursorRequest,
  IDEMPOTENT_POSTS,
  nextCursor,
  retryDelay,
  type Settings,
  withCursor
} from "./internal/policy.js"

type Groups = typeof IntegrationApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/**
 * A value as its JSON arrives: a `Date` is its ISO 8601 string, arrays and objects member by member (brands kept).
 * The Promise API's successes are this, since it does not decode with the contract's schemas.
 */
export type Json<T> = T extends Date
  ? string
  : T extends string | number | boolean | bigint | symbol | null | undefined
    ? T
    : { [K in keyof T]: Json<T[K]> }

/**
 * A request as the Promise API takes it: where the contract reads a `Date`, an ISO 8601 string too (the API parses
 * it), so a timestamp from a response ({@link Json}) can be sent back as it came.
 */
export type JsonInput<T> = T extends Date
  ? Date | string
  : T extends string | number | boolean | bigint | symbol | null | undefined | void
    ? T
    : { [K in keyof T]: JsonInput<T[K]> }

/**
 * One operation as a function: its request (path, urlParams, payload as the contract names them) to its success,
 * decoded (the Effect API) or as JSON (the Promise API, see {@link Json}).
 */
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
    ? Wrap extends "effect"
      ? (
          request: Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>
        ) => Effect.Effect<Success, AnyProplineError>
      : (
          request: JsonInput<
            Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>
          >
        ) => Promise<Json<Success>>
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

const normalize = (error: unknown): AnyProplineError => {
  if (error instanceof ProplineError) return error as AnyProplineError
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  const message = error instanceof Error ? error.message : String(error)
  if (tag === "RequestError" || tag === "ResponseError")
    return new ConnectionError({ message: `no response: ${message}`, cause: error })
  return new SchemaError({ message: `the request or response does not match the contract: ${message}`, cause: error })
}

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

const withPolicy = <A>(
  effect: Effect.Effect<A, unknown>,
  safe: boolean,
  settings: Policy
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
    const settings = policyOf(options)
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
        const safe = isSafeToRepeat(groupName, name, endpoint.method)
        const call = raw[groupName]?.[name]
        if (call !== undefined) operations[name] = (request) => withPolicy(call(request), safe, settings)
      }
      client[groupName] = operations
    }
    return client as unknown as ProplineClient
  })

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
