/**
 * Access tokens for both grants of the identity host's `POST {auth_url}/oauth/token` (spec 5), cached and renewed
 * before they expire.
 *
 * - An Application: client_credentials (spec 5.1, 5.2; RFC 6749 4.4), authenticated with HTTP Basic
 *   (client_secret_basic; each credential form-encoded first, RFC 6749 Appendix B).
 * - An installed connector: the installation-token grant (spec 5.3; RFC 7523) with a client assertion, a JWT the
 *   connector signs ES256 with its private key (`iss` = `sub` = the app id, `aud` the token endpoint, `iat` now,
 *   `exp` 300 s later, a fresh `jti`), signed with jose.
 *
 * {@link cached} keeps a token until `renewBeforeSeconds` (default 60) before its `expires_in` runs out, lets one
 * request at a time ask for a new one, and never remembers a failure. Failures: `TokenError` (the endpoint refused:
 * `code` is RFC 6749 5.2's `error`, e.g. `invalid_client`, `slow_down` with `retryAfter` seconds), `ConnectionError`,
 * `SchemaError` (a 200 without a token).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { importJWK, importPKCS8, type JWK, SignJWT } from "jose"
import { ConnectionError, parseRetryAfter, SchemaError, TokenError } from "./Errors.js"

/** The installation-token grant's `grant_type` and the assertion type (spec 5.3). */
export const GRANT_TYPE_INSTALLATION_TOKEN = "urn:service:params:oauth:grant-type:installation-token"
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
/** An assertion's life, `exp − iat`, in seconds: the longest the spec allows (spec 5.3). */
export const ASSERTION_LIFETIME_SECONDS = 300

/** An Application's credentials and its token endpoint (`{auth_url}/oauth/token`). */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret: string
  readonly tokenUrl: string
}

/**
 * An installed connector's: its app id, the installation, and its ES256 private key (a JWK with `kid`, or a PKCS #8
 * PEM string), and the token endpoint.
 */
export interface InstallationCredentials {
  readonly appId: string
  readonly installationId: string
  readonly privateKey: (JWK & { readonly kid?: string }) | string
  readonly tokenUrl: string
}

/** The token endpoint's success body (spec 5.1): `expires_in` in seconds. */
export interface IssuedToken {
  readonly accessToken: string
  readonly expiresIn: number
}

export type TokenFailure = TokenError | ConnectionError | SchemaError

/** RFC 6749 Appendix B: application/x-www-form-urlencoded encoding of a credential before Basic. */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2)

/** POSTs a form to the token endpoint; a 200 with `access_token` and `expires_in`, or the refusal as a TokenError. */
export const requestToken = (
  http: HttpClient.HttpClient,
  tokenUrl: string,
  form: Readonly<Record<string, string>>,
  authorization?: string
): Effect.Effect<IssuedToken, TokenFailure> =>
  Effect.gen(function* () {
    let request = HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyUrlParams(form))
    if (authorization !== undefined) request = HttpClientRequest.setHeader(request, "authorization", authorization)
    const response = yield* Effect.mapError(
      http.execute(request),
      (cause) => new ConnectionError({ message: `token request to ${tokenUrl} failed: ${cause.message}`, cause })
    )
    const text = yield* Effect.orElseSucceed(response.text, () => "")
    let body: Record<string, unknown> = {}
    try {
      body = JSON.parse(text) as Record<string, unknown>
    } catch {
      // the refusal below names the status
    }
    const requestId = response.headers["x-request-id"]
    const common = { status: response.status, ...(requestId === undefined ? {} : { requestId }) }
    if (response.status === 200) {
      if (typeof body["access_token"] === "string" && typeof body["expires_in"] === "number")
        return { accessToken: body["access_token"], expiresIn: body["expires_in"] }
      return yield* new SchemaError({ message: "the token endpoint answered 200 without a token", ...common })
    }
    const code = typeof body["error"] === "string" ? body["error"] : "unexpected_response"
    const detail = typeof body["error_description"] === "string" ? body["error_description"] : undefined
    const retryAfter = parseRetryAfter(response.headers["retry-after"], Date.now())
    return yield* new TokenError({
      message: `token request refused: ${response.status} ${code}${detail === undefined ? "" : `: ${detail}`}`,
      code,
      ...common,
      ...(detail === undefined ? {} : { detail }),
      ...(retryAfter === undefined ? {} : { retryAfter })
    })
  })

/** One client_credentials token request. */
export const requestClientCredentials = (http: HttpClient.HttpClient, credentials: ClientCredentials) =>
  requestToken(
    http,
    credentials.tokenUrl,
    { grant_type: "client_credentials" },
    `Basic ${btoa(`${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`)}`
  )

/**
 * A signer of client assertions for one installation: each call gives a fresh JWT (`iat` from the wall clock, since
 * the identity host checks it against its own). Rejects when `privateKey` is not an EC P-256 private key.
 */
export const assertionSigner = (credentials: InstallationCredentials) => {
  const key =
    typeof credentials.privateKey === "string"
      ? importPKCS8(credentials.privateKey, "ES256")
      : importJWK(credentials.privateKey, "ES256")
  const kid = typeof credentials.privateKey === "string" ? undefined : credentials.privateKey.kid
  return async (): Promise<string> => {
    const iat = Math.floor(Date.now() / 1000)
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", typ: "JWT", ...(kid === undefined ? {} : { kid }) })
      .setIssuer(credentials.appId)
      .setSubject(credentials.appId)
      .setAudience(credentials.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_LIFETIME_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(await key)
  }
}

/** One installation-token request with a fresh assertion. */
export const requestInstallationToken = (
  http: HttpClient.HttpClient,
  credentials: InstallationCredentials,
  sign: () => Promise<string> = assertionSigner(credentials)
) =>
  Effect.flatMap(
    Effect.tryPromise({
      try: sign,
      catch: (cause) => new TokenError({ message: `cannot sign the client assertion: ${String(cause)}`, cause })
    }),
    (assertion) =>
      requestToken(http, credentials.tokenUrl, {
        grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
        client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
        client_assertion: assertion,
        installation_id: credentials.installationId
      })
  )

/**
 * A token source: build it once, run the returned effect before each request. Reuses a token until
 * `renewBeforeSeconds` before it expires (by the Effect `Clock`), then asks `request` for a new one; one fiber asks
 * at a time; a failure is not kept.
 */
export const cached = <E>(request: Effect.Effect<IssuedToken, E>, renewBeforeSeconds = 60) =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    let current: { readonly token: string; readonly renewAt: number } | undefined
    return lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (current !== undefined && now < current.renewAt) return current.token
        const issued = yield* request
        current = {
          token: issued.accessToken,
          renewAt: now + Math.max(0, issued.expiresIn - renewBeforeSeconds) * 1000
        }
        return issued.accessToken
      })
    )
  })
