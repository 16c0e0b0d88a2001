/**
 * The identity host ({auth_url}; decisions 1):
 *
 * - `POST /oauth/token` (spec 5.1 to 5.3 and 7.2; decisions 3; RFC 6749 5.1 and 5.2): judged by
 *   `TokenRequest.parseTokenRequest`, then issued by `ClientCredentialsGrant` (client_credentials) or
 *   `InstallationGrant` (the installation-token grant). Success: 200
 *   `{ access_token, token_type: "Bearer", expires_in: 600 }`. Refusal: the domain's status and
 *   `{ error, error_description }`; a 401 after HTTP Basic carries `WWW-Authenticate: Basic realm="<authUrl>",
 *   error="invalid_client"` (after client_secret_post it carries none: RFC 6749 5.2 requires it only when the client
 *   used the Authorization header); `slow_down` (429) carries `Retry-After` in whole seconds. A database that can't be
 *   had (`platform/Unavailable`) is 503 `temporarily_unavailable` with `Retry-After`. Every response of this
 *   path, including 405 and 500, carries `Cache-Control: no-store` and `Pragma: no-cache`. Another method: 405 with
 *   `Allow: POST` and an `invalid_request` body. A body over {@link MAX_TOKEN_REQUEST_BYTES} bytes, one that is not
 *   UTF-8, or one the client aborted: 400 `invalid_request`; the body is never buffered beyond the limit (a larger
 *   declared Content-Length is refused before reading; a larger chunked body is read to its end and discarded).
 * - `GET /.well-known/openid-configuration` and `GET /.well-known/oauth-authorization-server`: the same RFC 8414
 *   metadata, `Cache-Control: public, max-age=300`. `issuer` is `AppConfig.authUrl` exactly (no trailing slash),
 *   which is what oauth4webapi's `processDiscoveryResponse` compares with the URL it was given.
 *   `response_types_supported` is `[]`: RFC 8414 requires the member, and this server has no authorization
 *   endpoint, so it supports no response type.
 * - `GET /.well-known/jwks.json`: `{ keys }`, the public keys of `SigningKeys` (kid, alg ES256, use sig),
 *   `Cache-Control: public, max-age=60`.
 *
 * Other paths: 404 problem details (spec 2.3); another method on a discovery path: 405 with `Allow: GET, HEAD`.
 * Every response carries `X-Request-Id` (decisions 4; `platform/RequestId.ts`).
 *
 * Why a router and not an `HttpApi` group (as the API host's capabilities have): `HttpApiBuilder` decodes an
 * endpoint's payload before its handler runs and answers its own errors, so the token endpoint's ordered checks
 * could not hold. It reads the body whole (here: at most {@link MAX_TOKEN_REQUEST_BYTES}, strict UTF-8), decodes a
 * form into a record (`parseTokenRequest` needs the text: a repeated parameter, an empty value and the content type
 * are its first checks, answered as `invalid_request` in RFC 6749's format, not as problem details), and answers
 * another method with 404 rather than 405 `Allow: POST` with `Cache-Control: no-store`. Discovery and JWKS stay here
 * with it for the same 405 (`Allow: GET, HEAD`), and the identity host has no OpenAPI document to describe them
 * in. The router stays thin: the grants are services (`ClientCredentialsGrant`, `InstallationGrant`) with their
 * SQL in repositories, like every capability's.
 *
 * Serving it: `HttpServer.serve(IdentityHttpApp)` on a `NodeHttpServer.layer`, with {@link IdentityLive} and `Db`
 * (see `Hosts.ts`).
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import type { RouteNotFound } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Db } from "@propline/db/Db"
import {
  GRANT_TYPE_CLIENT_CREDENTIALS,
  GRANT_TYPE_INSTALLATION_TOKEN,
  parseTokenRequest
} from "@propline/identity/TokenRequest"
import { InvalidRequest, toOAuthErrorBody, type TokenError, wwwAuthenticate } from "@propline/identity/TokenError"
import { Cause, Context, Effect, Either, Layer, Tracer } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { encodedJson } from "../platform/JsonResponse.js"
import type { KeyEncryption, KeyEncryptionError } from "../platform/KeyEncryption.js"
import { type BoundedBody, readBoundedBody } from "../platform/RequestBody.js"
import { requestIdInApp } from "../platform/RequestId.js"
import { unavailable, unavailableIn } from "../platform/Unavailable.js"
import { AccessTokenVerificationLive, AccessTokenVerifier } from "./AccessTokenVerifier.js"
import type { AccessTokenVerification } from "../platform/AccessTokenVerification.js"
import { SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"
import { ClientCredentialsGrant } from "./ClientCredentialsGrant.js"
import { InstallationGrant } from "./InstallationGrant.js"

/** The largest token request body read, in bytes (16 KiB; a real one is well under 2 KiB). */
export const MAX_TOKEN_REQUEST_BYTES = 16 * 1024

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const

const tokenJson = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  encodedJson(JSON.stringify(body), status, { ...NO_STORE, ...headers })

const tokenErrorResponse = (error: TokenError, realm: string) => {
  const challenge = wwwAuthenticate(error, realm)
  return tokenJson(toOAuthErrorBody(error), error.status, {
    ...(challenge === undefined ? {} : { "www-authenticate": challenge }),
    ...(error._tag === "SlowDown" ? { "retry-after": String(error.retryAfterSeconds) } : {})
  })
}

const problem = (status: number, title: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(
    { type: "about:blank", title, status },
    { status, contentType: "application/problem+json", headers }
  )

/**
 * When `cause` says the database could not be had: the answer `respond` makes (503, `Retry-After`), the request's
 * access-log line saying why (`platform/Unavailable`); `undefined` otherwise.
 */
const databaseUnavailableAnswer = (
  cause: Cause.Cause<unknown>,
  respond: (retryAfterSeconds: number) => HttpServerResponse.HttpServerResponse
) => {
  const why = unavailableIn(cause)
  return why === undefined ? undefined : Effect.map(unavailable(why), ({ retryAfterSeconds }) => respond(retryAfterSeconds))
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

const invalidRequest = (errorDescription: string) => new InvalidRequest({ errorDescription })

/** What the token endpoint answers for a body read within its bound. */
const tokenAnswer = (
  context: Context.Context<HttpServerRequest.HttpServerRequest | AppConfig | ClientCredentialsGrant | InstallationGrant>,
  request: HttpServerRequest.HttpServerRequest,
  authUrl: string,
  body: BoundedBody
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Db> => {
  if (body._tag === "TooLarge") {
    return Effect.succeed(
      tokenErrorResponse(invalidRequest(`The request body exceeds ${MAX_TOKEN_REQUEST_BYTES} bytes.`), authUrl)
    )
  }
  if (body._tag === "Unreadable") {
    return Effect.succeed(tokenErrorResponse(invalidRequest("The request body could not be read."), authUrl))
  }
  const text = decodeUtf8(body.bytes)
  if (text === undefined) {
    return Effect.succeed(tokenErrorResponse(invalidRequest("The request body is not UTF-8 text."), authUrl))
  }
  const parsed = parseTokenRequest({
    contentType: request.headers["content-type"],
    body: text,
    authorization: request.headers["authorization"]
  })
  if (Either.isLeft(parsed)) return Effect.succeed(tokenErrorResponse(parsed.left, authUrl))
  const tokenRequest = parsed.right
  const issued =
    tokenRequest._tag === "ClientCredentialsRequest"
      ? Context.get(context, ClientCredentialsGrant).issue(tokenRequest)
      : Context.get(context, InstallationGrant).issue(tokenRequest)
  return Effect.match(issued, {
    onFailure: (error) => tokenErrorResponse(error, authUrl),
    onSuccess: (token) =>
      tokenJson({ access_token: token.accessToken, token_type: token.tokenType, expires_in: token.expiresIn }, 200)
  })
}

/**
 * `POST /oauth/token`: any method (405 for all but POST), so that the 405 carries the token endpoint's headers.
 * Steps rather than a generator, its services read from the request's Context in one step: every token request runs
 * it.
 */
const tokenEndpoint = Effect.withFiberRuntime<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | AppConfig | ClientCredentialsGrant | InstallationGrant | Db
>((fiber) => {
  const context = fiber.currentContext as Context.Context<
    HttpServerRequest.HttpServerRequest | AppConfig | ClientCredentialsGrant | InstallationGrant
  >
  const request = Context.get(context, HttpServerRequest.HttpServerRequest)
  const { authUrl } = Context.get(context, AppConfig)
  if (request.method !== "POST") {
    return Effect.succeed(
      tokenJson(toOAuthErrorBody(invalidRequest("The token endpoint accepts POST only.")), 405, { allow: "POST" })
    )
  }
  return Effect.flatMap(readBoundedBody(request, MAX_TOKEN_REQUEST_BYTES), (body) =>
    tokenAnswer(context, request, authUrl, body)
  )
}).pipe(
  Effect.catchAllCause((cause) =>
    // A client that hung up interrupts the fiber: nothing to answer, nothing to log as a failure.
    Cause.isInterruptedOnly(cause)
      ? Effect.failCause(cause)
      : databaseUnavailableAnswer(cause, (retryAfterSeconds) =>
          tokenJson(
            {
              error: "temporarily_unavailable",
              error_description: `The server can't handle the request now; retry in ${retryAfterSeconds} s.`
            },
            503,
            { "retry-after": String(retryAfterSeconds) }
          )
        ) ??
        Effect.logError("token endpoint failed", cause).pipe(
          Effect.as(
            tokenJson({ error: "server_error", error_description: "The server could not handle the request." }, 500)
          )
        )
  )
)

/** Serves `handler` for GET (and HEAD, whose body the server drops); 405 for other methods. */
const readOnly = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.method === "GET" || request.method === "HEAD"
      ? handler
      : Effect.succeed(problem(405, "Method Not Allowed", { allow: "GET, HEAD" }))
  )

/** The authorization server metadata (RFC 8414 2) of the identity host at `authUrl`. */
export const serverMetadata = (authUrl: string) => ({
  issuer: authUrl,
  token_endpoint: `${authUrl}/oauth/token`,
  jwks_uri: `${authUrl}/.well-known/jwks.json`,
  grant_types_supported: [GRANT_TYPE_CLIENT_CREDENTIALS, GRANT_TYPE_INSTALLATION_TOKEN],
  token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
  token_endpoint_auth_signing_alg_values_supported: [SIGNING_ALGORITHM],
  response_types_supported: [] as Array<string>
})

const discovery = readOnly(
  Effect.map(AppConfig, (config) =>
    HttpServerResponse.unsafeJson(serverMetadata(config.authUrl), {
      headers: { "cache-control": "public, max-age=300" }
    })
  )
)

const jwks = readOnly(
  Effect.flatMap(SigningKeys, (keys) => keys.jwks).pipe(
    Effect.map((set) => HttpServerResponse.unsafeJson(set, { headers: { "cache-control": "public, max-age=60" } }))
  )
)

/** What every route of the identity host requires. */
type RouteRequirements = AppConfig | SigningKeys | ClientCredentialsGrant | InstallationGrant | Db

/** A route's handler: it answers every failure itself. */
type RouteHandler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | RouteRequirements
>

/** The identity host's routes, by path (each for every method). */
const routes: ReadonlyArray<readonly [path: string, handler: RouteHandler]> = [
  ["/oauth/token", tokenEndpoint],
  ["/.well-known/openid-configuration", discovery],
  ["/.well-known/oauth-authorization-server", discovery],
  ["/.well-known/jwks.json", jwks]
]

/** The identity host's routes. Requires `AppConfig`, `SigningKeys`, both grants and `Db`. */
export const IdentityRouter: HttpRouter.HttpRouter<never, RouteRequirements> = HttpRouter.fromIterable(
  routes.map(([path, handler]) => HttpRouter.makeRoute("*", path as HttpRouter.PathInput, handler))
)

/**
 * A request whose URL is exactly one of the routes' paths (no query string, nothing encoded: every token request a
 * client library sends) runs that route's handler as {@link IdentityRouter} runs it, without the router's per-request
 * work (a copy of the request's Context with the route's, set and restored on the fiber, and the path's lookup):
 * the route is named on the request's span (`http.route`, which the access log reads), and the handler runs
 * interruptible (a client that hangs up interrupts it). Every other URL goes through the router.
 */
const exactRoutes: ReadonlyMap<string, RouteHandler> = new Map(
  routes.map(([path, handler]) => [path, Effect.interruptible(handler)])
)

/** {@link exactRoutes}' handler for the request's URL, or the router; in one step, reading the request from the fiber. */
const routed = Effect.withFiberRuntime<
  HttpServerResponse.HttpServerResponse,
  RouteNotFound,
  HttpServerRequest.HttpServerRequest | RouteRequirements
>((fiber) => {
  const context = fiber.currentContext
  const { url } = Context.unsafeGet(context, HttpServerRequest.HttpServerRequest)
  const handler = exactRoutes.get(url)
  if (handler === undefined) return IdentityRouter
  const span = context.unsafeMap.get(Tracer.ParentSpan.key) as Tracer.AnySpan | undefined
  if (span?._tag === "Span") span.attribute("http.route", url)
  return handler
})

/**
 * The identity host as an `HttpApp`: {@link IdentityRouter} with 404, 500 and 503 (the database unavailable, with
 * `Retry-After`) answered as problem details, and
 * `X-Request-Id` on every response (`RequestId.requestIdInApp`: the API host's ids, header and access log).
 * Fails only by interruption (the client hung up). The 404 and the other failures are answered in one handler.
 */
export const IdentityHttpApp: HttpApp.Default<
  never,
  AppConfig | SigningKeys | ClientCredentialsGrant | InstallationGrant | Db
> = routed.pipe(
  Effect.catchAllCause((cause) => {
    const failure = Cause.failureOrCause(cause)
    if (Either.isLeft(failure) && failure.left._tag === "RouteNotFound") return Effect.succeed(problem(404, "Not Found"))
    return Cause.isInterruptedOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>) // only interruptions: no failure of any type
      : (databaseUnavailableAnswer(cause, (retryAfterSeconds) =>
          problem(503, "Service Unavailable", { "retry-after": String(retryAfterSeconds) })
        ) ?? Effect.logError("identity host request failed", cause).pipe(Effect.as(problem(500, "Internal Server Error"))))
  }),
  requestIdInApp
)

/**
 * The services of the identity host, also used by the API host (`AccessTokenVerifier`, provided as the kernel's
 * `AccessTokenVerification` port). Requires `Db`, `AppConfig`
 * and `KeyEncryption` (the signing keys are sealed at rest); fails with a `KeyEncryptionError` when the stored keys
 * don't open. `SigningKeys` is built once (layers are memoised by reference).
 */
export const IdentityLive: Layer.Layer<
  SigningKeys | ClientCredentialsGrant | InstallationGrant | AccessTokenVerifier | AccessTokenVerification,
  KeyEncryptionError,
  Db | AppConfig | KeyEncryption
> = Layer.mergeAll(
  SigningKeys.Default,
  ClientCredentialsGrant.Default,
  InstallationGrant.Default,
  AccessTokenVerificationLive.pipe(Layer.provideMerge(AccessTokenVerifier.Default))
)
