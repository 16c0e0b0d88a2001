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
import { ConnectionError, ProplineError, type SchemaError, type TokenError } from "./Errors.js"
import {
  assertionSigner,
  clientCredentialsRequest,
  type ClientCredentials,
  type InstallationCredentials,
  installationForm,
  type IssuedToken,
  readTokenAnswer,
  signingFailed
} from "./internal/tokenProtocol.js"

export {
  ASSERTION_LIFETIME_SECONDS,
  assertionSigner,
  CLIENT_ASSERTION_TYPE_JWT_BEARER,
  type ClientCredentials,
  GRANT_TYPE_INSTALLATION_TOKEN,
  type InstallationCredentials,
  type IssuedToken
} from "./internal/tokenProtocol.js"

export type TokenFailure = TokenError | ConnectionError | SchemaError

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
    const body = yield* Effect.orElseSucceed(response.text, () => "")
    const answer = readTokenAnswer({ status: response.status, headers: response.headers, body, now: Date.now() })
    return answer instanceof ProplineError ? yield* Effect.fail(answer) : answer
  })

/** One client_credentials token request. */
export const requestClientCredentials = (http: HttpClient.HttpClient, credentials: ClientCredentials) => {
  const { authorization, form } = clientCredentialsRequest(credentials)
  return requestToken(http, credentials.tokenUrl, form, authorization)
}

/** One installation-token request with a fresh assertion. */
export const requestInstallationToken = (
  http: HttpClient.HttpClient,
  credentials: InstallationCredentials,
  sign: () => Promise<string> = assertionSigner(credentials)
) =>
  Effect.flatMap(Effect.tryPromise({ try: sign, catch: signingFailed }), (assertion) =>
    requestToken(http, credentials.tokenUrl, installationForm(credentials, assertion))
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
