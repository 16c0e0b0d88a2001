/**
 * Verifies the access tokens the identity host issues (spec 5; decisions 3; RFC 9068) and turns them into the
 * API's `PrincipalShape`. The API host's bearer middleware calls {@link AccessTokenVerifierShape.verify} and
 * answers 401 on any failure.
 *
 * Checks, in order: the JWS header names `alg: ES256`, `typ: at+jwt` and a kid of a published signing key
 * (`SigningKeys`, read from the shared database, so no call to the identity host); the signature (jose
 * `jwtVerify`, ES256 only, with issuer = `AppConfig.authUrl` and audience = `AppConfig.baseUrl`, which takes an
 * `aud` array that contains it, RFC 7519 4.1.3); then the claims with `AccessTokenClaims.judgeClaims`: their
 * shape (an `org` or `ctx` entry that is not a UUID is `malformed`, so it never reaches a query), and a lifetime
 * `exp − iat` of at most 600 s, so even a token signed by our key but not made by our issuer (a stolen key, a
 * bug) cannot outlive the spec's 600 s. Time comes from Effect's `Clock`; {@link CLOCK_LEEWAY_SECONDS} allows for
 * instances whose clocks are slightly out of step.
 *
 * Successful verifications are cached in memory by the token's SHA-256 until the token expires (at most
 * {@link CACHE_MAX_ENTRIES}; expired entries go first, then the oldest). This is safe across instances because a
 * token cannot be revoked before it expires (spec 5.5); expiry is checked against the clock on every hit.
 */
import { type PrincipalShape, type Role } from "@propline/contract/Authentication"
import { ACCESS_TOKEN_TYPE, judgeClaims } from "@propline/identity/AccessTokenClaims"
import { Clock, Data, Effect, Either, Layer, Option } from "effect"
import { decodeProtectedHeader, jwtVerify } from "jose"
import { createHash } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import { AccessTokenVerification } from "../platform/AccessTokenVerification.js"
import { SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"
import { traced } from "../platform/Spans.js"

/** Clock leeway for `exp` and `iat`, in seconds: instances' clocks may differ slightly. */
export const CLOCK_LEEWAY_SECONDS = 5

/** The most verified tokens kept in memory per instance. */
export const CACHE_MAX_ENTRIES = 10_000

/**
 * Why a token was refused, for logs only (the API answers the same 401 whatever failed): `malformed` (not a
 * compact JWS, or claims not of the access-token shape), `wrong_header` (alg other than ES256, typ other than
 * at+jwt, no kid), `unknown_key` (kid of no published key), `bad_signature`, `wrong_issuer`, `wrong_audience`,
 * `lifetime` (`exp − iat` not in 1..600 s), `expired`, `not_yet_valid`.
 */
export class AccessTokenInvalid extends Data.TaggedError("AccessTokenInvalid")<{
  readonly reason:
    | "malformed"
    | "wrong_header"
    | "unknown_key"
    | "bad_signature"
    | "wrong_issuer"
    | "wrong_audience"
    | "lifetime"
    | "expired"
    | "not_yet_valid"
}> {}

export interface AccessTokenVerifierShape {
  /** The principal of a valid token; fails with {@link AccessTokenInvalid}. */
  readonly verify: (token: string) => Effect.Effect<PrincipalShape, AccessTokenInvalid>
}

const invalid = (reason: AccessTokenInvalid["reason"]) => Effect.fail(new AccessTokenInvalid({ reason }))

const cacheKey = (token: string): string => createHash("sha256").update(token, "utf8").digest("base64url")

/** A bounded map of verified tokens; `expiresAt` is the token's `exp` in seconds. */
class VerifiedTokens {
  private readonly entries = new Map<string, PrincipalShape>()

  get(key: string, nowMs: number): PrincipalShape | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (isExpired(entry.expiresAt, nowMs)) {
      this.entries.delete(key)
      return undefined
    }
    return entry
  }

  set(key: string, principal: PrincipalShape, nowMs: number): void {
    if (this.entries.size >= CACHE_MAX_ENTRIES) {
      for (const [k, entry] of this.entries) if (isExpired(entry.expiresAt, nowMs)) this.entries.delete(k)
      // Still full of live tokens: drop the oldest tenth at once, so a full cache does not sweep on every insert.
      if (this.entries.size >= CACHE_MAX_ENTRIES) {
        let excess = this.entries.size - Math.floor(CACHE_MAX_ENTRIES * 0.9)
        for (const k of this.entries.keys()) {
          if (excess-- <= 0) break
          this.entries.delete(k)
        }
      }
    }
    this.entries.set(key, principal)
  }
}

const isExpired = (expSeconds: number, nowMs: number): boolean =>
  nowMs >= (expSeconds + CLOCK_LEEWAY_SECONDS) * 1000

export class AccessTokenVerifier extends Effect.Service<AccessTokenVerifier>()(
  "@propline/api/identity/AccessTokenVerifier",
  {
    effect: Effect.gen(function* () {
      const config = yield* AppConfig
      const signingKeys = yield* SigningKeys
      const cache = new VerifiedTokens()

      const verifySignedToken = (token: string, nowMs: number) =>
        Effect.gen(function* () {
          const header = yield* Effect.try(() => decodeProtectedHeader(token)).pipe(
            Effect.orElse(() => invalid("malformed"))
          )
          if (header.alg !== SIGNING_ALGORITHM || typeof header.kid !== "string" || header.kid === "") {
            return yield* invalid("wrong_header")
          }
          const key = yield* signingKeys.publicKey(header.kid)
          if (Option.isNone(key)) return yield* invalid("unknown_key")
          const { payload } = yield* Effect.tryPromise({
            try: () =>
              jwtVerify(token, key.value, {
                algorithms: [SIGNING_ALGORITHM],
                typ: ACCESS_TOKEN_TYPE,
                issuer: config.authUrl,
                audience: config.baseUrl,
                currentDate: new Date(nowMs),
                clockTolerance: CLOCK_LEEWAY_SECONDS
              }),
            catch: (error) => error
          }).pipe(Effect.catchAll((error) => invalid(joseReason(error))))
          const judged = judgeClaims(payload, {
            issuer: config.authUrl,
            audience: config.baseUrl,
            now: new Date(nowMs),
            leewaySeconds: CLOCK_LEEWAY_SECONDS
          })
          if (Either.isLeft(judged)) return yield* invalid(judged.left.reason)
          const claims = judged.right
          return {
            clientId: claims.client_id,
            subject: claims.sub,
            organizationId: claims.org,
            roles: claims.roles as ReadonlyArray<Role>,
            contexts: claims.ctx,
            expiresAt: claims.exp
          } satisfies PrincipalShape
        })

      const verify: AccessTokenVerifierShape["verify"] = (token) =>
        Effect.gen(function* () {
          const nowMs = yield* Clock.currentTimeMillis
          const key = cacheKey(token)
          const hit = cache.get(key, nowMs)
          if (hit !== undefined) return hit
          const principal = yield* verifySignedToken(token, nowMs)
          cache.set(key, principal, nowMs)
          return principal
        }).pipe(traced("AccessTokenVerifier.verify"))

      return { verify } satisfies AccessTokenVerifierShape
    }),
    dependencies: [SigningKeys.Default]
  }
) {}

// jose's error codes (https://github.com/panva/jose/blob/main/src/util/errors.ts) mapped onto our reasons.
const joseReason = (error: unknown): AccessTokenInvalid["reason"] => {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
  const claim = typeof error === "object" && error !== null && "claim" in error ? error.claim : undefined
  switch (code) {
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "bad_signature"
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "wrong_header"
    case "ERR_JWT_EXPIRED":
      return "expired"
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "iss") return "wrong_issuer"
      if (claim === "aud") return "wrong_audience"
      if (claim === "typ") return "wrong_header"
      if (claim === "nbf" || claim === "iat") return "not_yet_valid"
      return "malformed"
    default:
      return "malformed"
  }
}

/**
 * {@link AccessTokenVerifier} as the kernel's `AccessTokenVerification` port, which the API host's bearer
 * authentication (`platform/Authentication.ts`) calls. Requires `AccessTokenVerifier`.
 */
export const AccessTokenVerificationLive: Layer.Layer<AccessTokenVerification, never, AccessTokenVerifier> =
  Layer.effect(AccessTokenVerification, AccessTokenVerifier)
