/**
 * The claim rules of an installed connector's client assertion (spec 5.3 and 8; decisions 3; RFC 7523 section 3).
 *
 * The HTTP layer reads the unverified `iss` to find the app and its ES256 key (`kid`), verifies the signature
 * (jose), calls {@link judgeAssertionClaims}, and only then consumes the `jti` atomically in the database.
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
 * 1. The payload is an object; `iss` and `sub` are non-empty strings (`assertion_malformed`).
 * 2. `iss` equals `sub` (`assertion_subject_mismatch`; RFC 7523 3 for client authentication).
 * 3. `iss` equals `appId` and `clientId` when they are given (`assertion_client_mismatch`).
 * 4. `aud` is the token endpoint or the issuer, as one string or a one-element array (`assertion_audience`;
 *    decisions 3).
 * 5. `exp` and `iat` are numbers (`assertion_malformed`); `iat < exp ≤ iat + 300` (`assertion_lifetime`).
 * 6. Now is before `exp + leeway` (`assertion_expired`).
 * 7. `iat`, and `nbf` when present (a number), are not after `now + leeway` (`assertion_not_yet_valid`).
 * 8. `jti` is a non-empty string (`assertion_jti`).
 *
 * @since 0.1.0
 */
export const judgeAssertionClaims = (
  claims: unknown,
  options: AssertionClaimsOptions
): Either.Either<AcceptedAssertion, InvalidClient> => {
  if (!Predicate.isRecord(claims)) return refuse("assertion_malformed")
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
  if (!isNonEmptyString(jti)) return refuse("assertion_jti")
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
