/**
 * The rules of an installed connector's client assertion (spec 5.3 and 8; decisions 3; RFC 7521, RFC 7523
 * section 3, RFC 7515).
 *
 * The HTTP layer judges the JWS header with {@link judgeAssertionHeader}, reads the unverified `iss` to find the
 * app's active key named by the header's `kid`, verifies the ES256 signature with that key alone (jose), judges the
 * payload with {@link judgeAssertionClaims}, and only then consumes the `jti` atomically in the database. Every
 * refusal is the one `invalid_client` (401) whose body does not say which check failed.
 *
 * @since 0.1.0
 */
import { Either, Predicate } from "effect"
import { InvalidClient } from "./TokenError.js"

/**
 * The clock leeway for assertion times, in seconds (decisions 3).
 *
 * @since 0.1.0
 */
export const ASSERTION_LEEWAY_SECONDS = 30

/**
 * The longest an assertion may live, `exp − iat`, in seconds (spec 5.3 and 8).
 *
 * @since 0.1.0
 */
export const ASSERTION_MAX_LIFETIME_SECONDS = 300

/**
 * The longest `jti` accepted, in characters: ample for a UUID or any random id, and it bounds what a client can make
 * the database keep.
 *
 * @since 0.2.0
 */
export const ASSERTION_JTI_MAX_LENGTH = 255

/**
 * The longest `kid` accepted, in characters (as `ConnectorApp.checkPublicJwk` allows when a key is registered).
 *
 * @since 0.2.0
 */
export const ASSERTION_KID_MAX_LENGTH = 200

/**
 * Header parameters that carry or point at a key (RFC 7515 4.1.2 to 4.1.6). The key is always the app's registered
 * key chosen by `kid`, never one the assertion brings, so a header with any of them is refused outright.
 *
 * @since 0.2.0
 */
export const KEY_CARRYING_HEADER_PARAMETERS = ["jwk", "jku", "x5u", "x5c"] as const

const KID = new RegExp(`^[\\x21-\\x7E]{1,${ASSERTION_KID_MAX_LENGTH}}$`)
// A jti is any text without control characters (PostgreSQL text cannot hold a NUL; logs should not hold the others).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const JTI_CONTROL = /[\u0000-\u001F\u007F-\u009F]/

/**
 * Judges the protected header of an assertion, before any key is looked up. Refusals are `invalid_client` with
 * `authenticationMethod` `private_key_jwt` and reason `assertion_header`:
 *
 * 1. The header is an object whose `alg` is exactly `ES256` (decisions 3): never `none`, never an HMAC (an HS256
 *    assertion "signed" with the app's public key must not verify), never RS256 or ES384.
 * 2. `kid` is a string of 1 to {@link ASSERTION_KID_MAX_LENGTH} printable ASCII characters without spaces (what
 *    `ConnectorApp.checkPublicJwk` allows): it picks the app's key.
 * 3. No {@link KEY_CARRYING_HEADER_PARAMETERS} (`jwk`, `jku`, `x5u`, `x5c`).
 * 4. No `crit` (RFC 7515 4.1.11: this server understands no extension, so any `crit` must be refused), and no `b64`
 *    (RFC 7797, which needs `crit`).
 *
 * Returns the `kid`.
 *
 * @since 0.2.0
 */
export const judgeAssertionHeader = (header: unknown): Either.Either<{ readonly kid: string }, InvalidClient> => {
  if (!Predicate.isRecord(header) || Array.isArray(header)) return refuse("assertion_header")
  if (header["alg"] !== "ES256") return refuse("assertion_header")
  const kid = header["kid"]
  if (typeof kid !== "string" || !KID.test(kid)) return refuse("assertion_header")
  if (KEY_CARRYING_HEADER_PARAMETERS.some((name) => name in header)) return refuse("assertion_header")
  if ("crit" in header || "b64" in header) return refuse("assertion_header")
  return Either.right({ kid })
}

/**
 * What an assertion is judged against. `appId`: the app whose key verified the signature (found from the
 * unverified `iss`); `iss` must equal it. `clientId`: the request's `client_id` form field when it was sent
 * (`TokenRequest.InstallationTokenRequest`); `iss` must equal it. `tokenEndpoint`: `{auth_url}/oauth/token`;
 * `issuer`: the identity host's issuer identifier. `leewaySeconds` defaults to {@link ASSERTION_LEEWAY_SECONDS}.
 *
 * @since 0.1.0
 */
export interface AssertionClaimsOptions {
  readonly appId?: string | undefined
  readonly clientId?: string | undefined
  readonly tokenEndpoint: string
  readonly issuer: string
  readonly now: Date
  readonly leewaySeconds?: number
}

/**
 * What an accepted assertion yields: the `appId` (its `iss`), the `jti` to consume, and `exp` (NumericDate,
 * seconds), after which the consumed `jti` may be forgotten.
 *
 * @since 0.1.0
 */
export interface AcceptedAssertion {
  readonly appId: string
  readonly jti: string
  readonly exp: number
}

/**
 * Judges the payload of an assertion whose signature verified. Every refusal is `invalid_client` (401, the one
 * generic body; spec 7.2) with `authenticationMethod` `private_key_jwt` and, for logs, the `reason` named in brackets below.
 * The checks, in order:
 *
 * 1. The payload is an object (not an array); `iss` and `sub` are non-empty strings (`assertion_malformed`).
 * 2. `iss` equals `sub` (`assertion_subject_mismatch`; RFC 7523 3 for client authentication).
 * 3. `iss` equals `appId` and `clientId` when they are given (`assertion_client_mismatch`).
 * 4. `aud` is the token endpoint or the issuer, as one string or a one-element array (`assertion_audience`;
 *    decisions 3).
 * 5. `exp` and `iat` are numbers (`assertion_malformed`); `iat < exp ≤ iat + 300` (`assertion_lifetime`).
 * 6. Now is before `exp + leeway` (`assertion_expired`).
 * 7. `iat`, and `nbf` when present (a number), are not after `now + leeway` (`assertion_not_yet_valid`).
 * 8. `jti` is a string of 1 to {@link ASSERTION_JTI_MAX_LENGTH} characters without control characters
 *    (`assertion_jti`).
 *
 * @since 0.1.0
 */
export const judgeAssertionClaims = (
  claims: unknown,
  options: AssertionClaimsOptions
): Either.Either<AcceptedAssertion, InvalidClient> => {
  if (!Predicate.isRecord(claims) || Array.isArray(claims)) return refuse("assertion_malformed")
  const { aud, exp, iat, iss, jti, nbf, sub } = claims
  if (!isNonEmptyString(iss) || !isNonEmptyString(sub)) return refuse("assertion_malformed")
  if (iss !== sub) return refuse("assertion_subject_mismatch")
  if (
    (options.appId !== undefined && iss !== options.appId) ||
    (options.clientId !== undefined && iss !== options.clientId)
  ) return refuse("assertion_client_mismatch")
  if (!isAudience(aud, options)) return refuse("assertion_audience")
  if (!isNumericDate(exp) || !isNumericDate(iat)) return refuse("assertion_malformed")
  if (!(iat < exp && exp - iat <= ASSERTION_MAX_LIFETIME_SECONDS)) return refuse("assertion_lifetime")
  const leewayMs = (options.leewaySeconds ?? ASSERTION_LEEWAY_SECONDS) * 1000
  const now = options.now.getTime()
  if (now >= exp * 1000 + leewayMs) return refuse("assertion_expired")
  if (nbf !== undefined && !isNumericDate(nbf)) return refuse("assertion_malformed")
  if (iat * 1000 > now + leewayMs || (nbf !== undefined && nbf * 1000 > now + leewayMs)) {
    return refuse("assertion_not_yet_valid")
  }
  if (!isNonEmptyString(jti) || jti.length > ASSERTION_JTI_MAX_LENGTH || JTI_CONTROL.test(jti)) return refuse("assertion_jti")
  return Either.right({ appId: iss, jti, exp })
}

const refuse = (reason: InvalidClient["reason"]) =>
  Either.left(new InvalidClient({ authenticationMethod: "private_key_jwt", reason }))

const isNonEmptyString = (u: unknown): u is string => typeof u === "string" && u !== ""

const isNumericDate = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)

const isAudience = (aud: unknown, options: AssertionClaimsOptions): boolean => {
  const single = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud
  return single === options.tokenEndpoint || single === options.issuer
}
