/**
 * The claims of an access token (spec 5.1 and 8; decisions 3; RFC 9068): a JWT signed ES256 by the identity host
 * with header `typ: at+jwt`, living {@link ACCESS_TOKEN_TTL_SECONDS} seconds. The identity host builds the claims
 * with {@link buildClaims}; the API host, after verifying the signature (jose), judges them with
 * {@link judgeClaims}.
 *
 * @since 0.1.0
 */
import { Data, Either, Schema } from "effect"

/**
 * An access token's lifetime in seconds: `exp − iat` and the token response's `expires_in` (spec 5.1 and 8).
 *
 * @since 0.1.0
 */
export const ACCESS_TOKEN_TTL_SECONDS = 600

/**
 * The JWT header `typ` of an access token (RFC 9068 2.1).
 *
 * @since 0.1.0
 */
export const ACCESS_TOKEN_TYPE = "at+jwt"

/**
 * A role a token carries (decisions 2): `billing`, `signing`, `booking`, and `integrations` (installation tokens
 * only). An operation without its role is refused with 403.
 *
 * @since 0.1.0
 */
export const Role = Schema.Literal("billing", "signing", "booking", "integrations")

/**
 * @since 0.1.0
 */
export type Role = typeof Role.Type

/**
 * The JWT payload of an access token. RFC 9068 2.2: `iss` (the identity host), `sub` (the Application's id (UUID),
 * or the installation for a connector), `aud` (the API host; {@link buildClaims} writes one string, a verifier also
 * takes an array of strings, RFC 7519 4.1.3), `exp` and `iat` (NumericDate: whole seconds since the epoch), `jti`,
 * `client_id`. Ours: `org`, the organization's id (UUID); `roles`; `ctx`, the ids (UUIDs) of the operational
 * contexts granted (each includes its subtree; decisions 2).
 *
 * @since 0.1.0
 */
export const AccessTokenClaims = Schema.Struct({
  iss: Schema.NonEmptyString,
  sub: Schema.NonEmptyString,
  aud: Schema.Union(Schema.NonEmptyString, Schema.Array(Schema.String)),
  exp: Schema.NonNegativeInt,
  iat: Schema.NonNegativeInt,
  jti: Schema.NonEmptyString,
  client_id: Schema.NonEmptyString,
  org: Schema.UUID,
  roles: Schema.Array(Role),
  ctx: Schema.Array(Schema.UUID)
})

/**
 * @since 0.1.0
 */
export type AccessTokenClaims = typeof AccessTokenClaims.Type

/**
 * What a new token is for. `now` is the time of issuance; `jti` a fresh unique id the caller drew.
 *
 * @since 0.1.0
 */
export interface BuildClaimsInput {
  readonly issuer: string
  readonly audience: string
  readonly clientId: string
  readonly subject: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  readonly contexts: ReadonlyArray<string>
  readonly jti: string
  readonly now: Date
}

/**
 * The claims of a new access token: `iat` is `now` in whole seconds (rounded down), `exp` is `iat + 600`.
 *
 * @since 0.1.0
 */
export const buildClaims = (input: BuildClaimsInput): AccessTokenClaims & { readonly aud: string } => {
  const iat = Math.floor(input.now.getTime() / 1000)
  return {
    iss: input.issuer,
    sub: input.subject,
    aud: input.audience,
    exp: iat + ACCESS_TOKEN_TTL_SECONDS,
    iat,
    jti: input.jti,
    client_id: input.clientId,
    org: input.organizationId,
    roles: [...input.roles],
    ctx: [...input.contexts]
  }
}

/**
 * Why the API host refuses a token whose signature verified (the API answers 401; spec 5 and 7.1):
 * `malformed` (the payload is not {@link AccessTokenClaims}: a missing claim, one of the wrong JSON type, an `org`
 * or a `ctx` entry that is not a UUID, an unknown role), `wrong_issuer`, `wrong_audience`, `lifetime` (`exp` not
 * after `iat`, or more than {@link ACCESS_TOKEN_TTL_SECONDS} after it: no token this service issues lives longer,
 * so such a token was not made by {@link buildClaims} whatever key signed it), `expired`, `not_yet_valid` (`iat`
 * later than now).
 *
 * @since 0.1.0
 */
export class AccessTokenRejected extends Data.TaggedError("AccessTokenRejected")<{
  readonly reason: "malformed" | "wrong_issuer" | "wrong_audience" | "lifetime" | "expired" | "not_yet_valid"
}> {}

/**
 * What a token is judged against. `leewaySeconds` (seconds, default 0) allows for clocks out of step between hosts.
 *
 * @since 0.1.0
 */
export interface JudgeClaimsOptions {
  readonly issuer: string
  readonly audience: string
  readonly now: Date
  readonly leewaySeconds?: number
}

/**
 * Judges a verified token's payload, in this order: shape (`malformed`), `iss` equals `issuer`
 * (`wrong_issuer`), `aud` equals `audience` or is an array that contains it (`wrong_audience`; RFC 7519 4.1.3),
 * `iat < exp ≤ iat + 600` (`lifetime`; spec 5.1 and 8), now is before `exp + leeway` (`expired`; RFC 7519
 * 4.1.4), `iat` is not after `now + leeway` (`not_yet_valid`).
 *
 * @since 0.1.0
 */
export const judgeClaims = (
  claims: unknown,
  options: JudgeClaimsOptions
): Either.Either<AccessTokenClaims, AccessTokenRejected> => {
  const decoded = decodeClaims(claims)
  if (Either.isLeft(decoded)) return reject("malformed")
  const valid = decoded.right
  const leewayMs = (options.leewaySeconds ?? 0) * 1000
  const now = options.now.getTime()
  if (valid.iss !== options.issuer) return reject("wrong_issuer")
  if (!(valid.aud === options.audience || (Array.isArray(valid.aud) && valid.aud.includes(options.audience)))) {
    return reject("wrong_audience")
  }
  if (!(valid.iat < valid.exp && valid.exp - valid.iat <= ACCESS_TOKEN_TTL_SECONDS)) return reject("lifetime")
  if (now >= valid.exp * 1000 + leewayMs) return reject("expired")
  if (valid.iat * 1000 > now + leewayMs) return reject("not_yet_valid")
  return Either.right(valid)
}

const decodeClaims = Schema.decodeUnknownEither(AccessTokenClaims)

const reject = (reason: AccessTokenRejected["reason"]) => Either.left(new AccessTokenRejected({ reason }))
