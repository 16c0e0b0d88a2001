/**
 * Errors of the token endpoint, in the OAuth 2.0 format (RFC 6749 section 5.2; spec section 7.2).
 *
 * Each class carries the RFC `error` code, the HTTP `status` and an `errorDescription`. The HTTP layer answers
 * with {@link toOAuthErrorBody} as the JSON body, `status` as the status line, and {@link wwwAuthenticate} as the
 * `WWW-Authenticate` header when it returns a value.
 *
 * @since 0.1.0
 */
import { Data } from "effect"

/**
 * How a client tried to authenticate, as named in the OAuth registry of token endpoint authentication methods
 * (RFC 7591 section 2): `client_secret_basic` (HTTP Basic), `client_secret_post` (form fields), `private_key_jwt`
 * (a signed client assertion, RFC 7523), or `none` when the request carried nothing usable.
 *
 * @since 0.1.0
 */
export type ClientAuthenticationMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none"

/**
 * Which check refused a client, for logs and the audit trail only: it never reaches the response body, which is the
 * same for every `invalid_client` (spec 7.2: "the response does not say which check failed"; decisions 3).
 *
 * Decided here: `credentials_missing`, `credentials_incomplete`, `credentials_malformed`, `method_unsupported`,
 * and the `assertion_*` header and claim checks of `ClientAssertion`. Decided by the HTTP layer:
 * `credentials_rejected` (unknown client, wrong, revoked or expired secret, disabled Application),
 * `assertion_signature` (not a compact JWS, unknown app, no active key with the `kid`, bad signature) and
 * `assertion_replayed` (the `jti` was consumed before).
 *
 * @since 0.1.0
 */
export type InvalidClientReason =
  | "credentials_missing"
  | "credentials_incomplete"
  | "credentials_malformed"
  | "method_unsupported"
  | "credentials_rejected"
  | "assertion_header"
  | "assertion_malformed"
  | "assertion_subject_mismatch"
  | "assertion_client_mismatch"
  | "assertion_audience"
  | "assertion_lifetime"
  | "assertion_expired"
  | "assertion_not_yet_valid"
  | "assertion_jti"
  | "assertion_signature"
  | "assertion_replayed"

/**
 * The one `error_description` of every `invalid_client` response, so that all of them are byte-identical
 * whatever failed (spec 7.2, decisions 3).
 *
 * @since 0.1.0
 */
export const INVALID_CLIENT_DESCRIPTION = "Client authentication failed."

/**
 * `invalid_request`, status 400: the body is not form-encoded, `grant_type` is missing, a parameter is repeated,
 * a required parameter is missing, or more than one client authentication method is used (RFC 6749 5.2; spec 7.2).
 *
 * @since 0.1.0
 */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly errorDescription: string
  readonly message: string
}> {
  readonly error = "invalid_request"
  readonly status = 400
  constructor(args: { readonly errorDescription: string }) {
    super({ errorDescription: args.errorDescription, message: args.errorDescription })
  }
}

/**
 * `invalid_client`, status 401: client authentication failed (RFC 6749 5.2; spec 7.2). The description is always
 * {@link INVALID_CLIENT_DESCRIPTION}. `authenticationMethod` is the method the client attempted; when it is
 * `client_secret_basic` the response must carry `WWW-Authenticate: Basic` (RFC 6749 5.2, decisions 3; see
 * {@link wwwAuthenticate}). `reason` is for logs only.
 *
 * @since 0.1.0
 */
export class InvalidClient extends Data.TaggedError("InvalidClient")<{
  readonly authenticationMethod: ClientAuthenticationMethod
  readonly reason: InvalidClientReason
  readonly message: string
}> {
  readonly error = "invalid_client"
  readonly status = 401
  readonly errorDescription = INVALID_CLIENT_DESCRIPTION
  constructor(args: {
    readonly authenticationMethod: ClientAuthenticationMethod
    readonly reason: InvalidClientReason
  }) {
    super({ authenticationMethod: args.authenticationMethod, reason: args.reason, message: INVALID_CLIENT_DESCRIPTION })
  }
}

/**
 * `invalid_grant`, status 400: the installation named by `installation_id` is not active, does not exist, or
 * belongs to another app (spec 7.2). Decided by the HTTP layer. The default description deliberately does not say
 * which, so an app cannot probe for other apps' installations.
 *
 * @since 0.1.0
 */
export class InvalidGrant extends Data.TaggedError("InvalidGrant")<{
  readonly errorDescription: string
  readonly message: string
}> {
  readonly error = "invalid_grant"
  readonly status = 400
  constructor(args?: { readonly errorDescription: string }) {
    const errorDescription = args?.errorDescription ?? "The installation is not active for this app."
    super({ errorDescription, message: errorDescription })
  }
}

/**
 * `unauthorized_client`, status 400: the authenticated client may not use this grant type (RFC 6749 5.2).
 * Decided by the HTTP layer.
 *
 * @since 0.1.0
 */
export class UnauthorizedClient extends Data.TaggedError("UnauthorizedClient")<{
  readonly errorDescription: string
  readonly message: string
}> {
  readonly error = "unauthorized_client"
  readonly status = 400
  constructor(args?: { readonly errorDescription: string }) {
    const errorDescription = args?.errorDescription ?? "The client may not use this grant type."
    super({ errorDescription, message: errorDescription })
  }
}

/**
 * `unsupported_grant_type`, status 400: `grant_type` is neither `client_credentials` nor the installation-token
 * grant (spec 7.2).
 *
 * @since 0.1.0
 */
export class UnsupportedGrantType extends Data.TaggedError("UnsupportedGrantType")<{
  readonly errorDescription: string
  readonly message: string
}> {
  readonly error = "unsupported_grant_type"
  readonly status = 400
  constructor(args?: { readonly errorDescription: string }) {
    const errorDescription = args?.errorDescription ??
      "The grant type is not supported; use client_credentials or urn:service:params:oauth:grant-type:installation-token."
    super({ errorDescription, message: errorDescription })
  }
}

/**
 * `invalid_scope`, status 400: the request has a non-empty `scope` parameter; the token endpoint issues no scopes,
 * roles travel in the token (spec 5, 5.2 and 7.2; decisions 3).
 *
 * @since 0.1.0
 */
export class InvalidScope extends Data.TaggedError("InvalidScope")<{
  readonly errorDescription: string
  readonly message: string
}> {
  readonly error = "invalid_scope"
  readonly status = 400
  constructor(args?: { readonly errorDescription: string }) {
    const errorDescription = args?.errorDescription ??
      "The scope parameter is not supported; a token carries the roles granted to the client."
    super({ errorDescription, message: errorDescription })
  }
}

/**
 * `slow_down`, status 429: more than 60 token requests for one client in 60 seconds (spec 7.2 and 8). The HTTP
 * layer sends `retryAfterSeconds` (a whole number of seconds, at least 1) as the `Retry-After` header; see
 * `RateLimitWindow.judgeRequestRate`.
 *
 * @since 0.1.0
 */
export class SlowDown extends Data.TaggedError("SlowDown")<{
  readonly retryAfterSeconds: number
  readonly message: string
}> {
  readonly error = "slow_down"
  readonly status = 429
  readonly errorDescription = "Too many token requests for this client; retry after the number of seconds in Retry-After."
  constructor(args: { readonly retryAfterSeconds: number }) {
    super({ retryAfterSeconds: args.retryAfterSeconds, message: "Too many token requests for this client." })
  }
}

/**
 * Every error the token endpoint answers with.
 *
 * @since 0.1.0
 */
export type TokenError =
  | InvalidRequest
  | InvalidClient
  | InvalidGrant
  | UnauthorizedClient
  | UnsupportedGrantType
  | InvalidScope
  | SlowDown

/**
 * The RFC 6749 `error` codes of {@link TokenError}.
 *
 * @since 0.1.0
 */
export type TokenErrorCode = TokenError["error"]

/**
 * The JSON body of a token endpoint error (RFC 6749 5.2; spec 7.2): `{ error, error_description }` and nothing
 * else, so `invalid_client` bodies are identical whatever failed.
 *
 * @since 0.1.0
 */
export const toOAuthErrorBody = (
  e: TokenError
): { readonly error: TokenErrorCode; readonly error_description: string } => ({
  error: e.error,
  error_description: e.errorDescription
})

/**
 * The `WWW-Authenticate` header value for a token error, or `undefined` when none is due: only an `invalid_client`
 * after the client attempted HTTP Basic gets `Basic realm="<realm>", error="invalid_client"` (RFC 6749 5.2;
 * decisions 3). `realm` is quoted per RFC 9110 section 5.6.4.
 *
 * @since 0.1.0
 */
export const wwwAuthenticate = (e: TokenError, realm: string): string | undefined =>
  e._tag === "InvalidClient" && e.authenticationMethod === "client_secret_basic"
    ? `Basic realm="${realm.replace(/["\\]/g, "\\$&")}", error="invalid_client"`
    : undefined
