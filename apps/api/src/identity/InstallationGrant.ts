/**
 * The installation-token grant (spec 5.3, 7.2 and 8; decisions 3; RFC 7521, 7523): issues an access token for one
 * installation to a connector app that signed a client assertion, for a request that passed
 * `TokenRequest.parseTokenRequest`. In order; every failure up to 5 is the one `invalid_client` (401), with the same
 * body whatever failed:
 * 1. The JWS header: `ClientAssertion.judgeAssertionHeader` (ES256 only, a `kid`, no `jwk` / `jku` / `x5u` /
 *    `x5c`, no `crit`).
 * 2. The unverified payload's `iss`, a well-formed client id: the app whose key must verify the signature.
 * 3. One read (`ConnectorAppRepository.activeKeyAndInstallation`): the app's ACTIVE key with the header's `kid`
 *    (none: `assertion_signature`), and the installation named by `installation_id` if it belongs to that app.
 * 4. The signature, with that key alone and ES256 alone ({@link verifiesEs256}: what jose's `compactVerify` checks
 *    after 1 and 2, on this thread with `node:crypto`; the imported key is cached by app and kid, which name one
 *    key for good).
 * 5. The claims (the payload decoded in 2, which the signature covers): `ClientAssertion.judgeAssertionClaims`
 *    (`iss` = `sub` = the app, the `client_id` form field if sent, `aud` the token endpoint or the issuer,
 *    `exp − iat` ≤ 300, 30 s leeway, a `jti`); then, in one statement
 *    (`TokenRateLimitRepository.admitFreshAssertion`, durable commit), the `jti` is consumed (a primary key) and,
 *    only if this request consumed it, the app's rate limit is judged and recorded: a `jti` consumed before, by
 *    any instance, is `invalid_client` (`assertion_replayed`).
 * 6. The rate limit's verdict (`TokenAdmission.judgeAdmission`): over 60 in 60 s is `slow_down` (429) with the
 *    exact `retryAfterSeconds`. Failed authentication counts against no one.
 * 7. The installation: missing, of another app, `suspended` or `removed` is `invalid_grant` (400), one body for all.
 * 8. The token (`AccessTokenSigner`): `sub` the installation's id, `client_id` the app id, the installation's roles
 *    (with `integrations`) and contexts, 600 s.
 *
 * Round trips per token: two, each its own transaction: the read, and the `jti` with the rate limit (one in
 * {@link FORGET_ONE_IN} requests adds a third, the expired `jti`s forgotten). No audit entry: issuing a token changes no state (decisions 4); the consumed `jti` and the rate-limit row are the
 * trace. Time comes from Effect's `Clock`; database failures are defects (the endpoint answers 500).
 */
import type * as Db from "@propline/db/Db"
import type { Role } from "@propline/identity/AccessTokenClaims"
import {
  ASSERTION_LEEWAY_SECONDS,
  judgeAssertionClaims,
  judgeAssertionHeader
} from "@propline/identity/ClientAssertion"
import { InvalidClient, InvalidGrant, type SlowDown } from "@propline/identity/TokenError"
import { type InstallationTokenRequest, isWellFormedClientId } from "@propline/identity/TokenRequest"
import { Effect, Option, Schema } from "effect"
import { base64url, decodeJwt, decodeProtectedHeader } from "jose"
import { createPublicKey, type JsonWebKey, type KeyObject, randomInt, verify } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import * as Sql from "../platform/Sql.js"
import { AccessTokenSigner, type IssuedToken } from "./AccessTokenSigner.js"
import { ConnectorAppRepository } from "./ConnectorAppRepository.js"
import { ConsumedAssertionRepository } from "./ConsumedAssertionRepository.js"
import { judgeAdmission } from "./TokenAdmission.js"
import { TokenRateLimitRepository } from "./TokenRateLimitRepository.js"
import { traced } from "../platform/Spans.js"

/**
 * A consumed `jti` is forgotten this long after its assertion's `exp`, in seconds: the 30 s leeway plus 5 minutes
 * for instances whose clocks lag, so no instance could still accept a forgotten assertion.
 */
export const CONSUMED_JTI_RETENTION_SECONDS = ASSERTION_LEEWAY_SECONDS + 300

/** One consumption in this many also forgets every expired `jti` (an index range delete). */
export const FORGET_ONE_IN = 256

/** The most imported app keys kept in memory per instance. */
export const APP_KEY_CACHE_MAX_ENTRIES = 1_000

const isUuid = Schema.is(Schema.UUID)

const assertionRefused = (reason: InvalidClient["reason"]) =>
  new InvalidClient({ authenticationMethod: "private_key_jwt", reason })

/**
 * The public key of an app's JWK for ES256: an EC key on P-256 (`prime256v1`), or undefined for anything else (what
 * jose's `importJWK(jwk, "ES256")` refuses).
 */
export const es256PublicKey = (jwk: Record<string, unknown>): KeyObject | undefined => {
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" })
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1" ? key : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether the compact JWS `assertion` carries a valid ES256 signature by `key` (RFC 7515 5.2, RFC 7518 3.4), for an
 * assertion whose protected header `ClientAssertion.judgeAssertionHeader` accepted (`alg` ES256, no `crit`, no
 * `b64`) and whose payload decoded: the signature part, base64url as jose decodes it, is the 64-byte `r || s`
 * over the ASCII bytes of `header.payload`. This is jose's `compactVerify` after those checks, synchronously with
 * `node:crypto` instead of WebCrypto's promise and worker-thread hop.
 */
export const verifiesEs256 = (assertion: string, key: KeyObject): boolean => {
  const end = assertion.lastIndexOf(".")
  let signature: Uint8Array
  try {
    signature = base64url.decode(assertion.slice(end + 1))
  } catch {
    return false
  }
  if (signature.length !== 64) return false
  const signingInput = Buffer.from(assertion.slice(0, end), "latin1")
  try {
    return verify("sha256", signingInput, { key, dsaEncoding: "ieee-p1363" }, signature)
  } catch {
    return false
  }
}

export class InstallationGrant extends Effect.Service<InstallationGrant>()("@propline/api/identity/InstallationGrant", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const apps = yield* ConnectorAppRepository
    const consumed = yield* ConsumedAssertionRepository
    const rateLimits = yield* TokenRateLimitRepository
    const signer = yield* AccessTokenSigner
    const tokenEndpoint = `${config.authUrl}/oauth/token`
    // Imported app keys by app and kid: a kid names one key of an app for good, so entries never go stale.
    const appKeys = new Map<string, KeyObject>()

    /** The app's key as a `KeyObject`, imported once; undefined when it is no P-256 key. */
    const appKey = (appId: string, kid: string, jwk: Record<string, unknown>): KeyObject | undefined => {
      const cacheKey = `${appId} ${kid}`
      const known = appKeys.get(cacheKey)
      if (known !== undefined) return known
      const key = es256PublicKey(jwk)
      if (key === undefined) return undefined
      if (appKeys.size >= APP_KEY_CACHE_MAX_ENTRIES) appKeys.clear()
      appKeys.set(cacheKey, key)
      return key
    }

    /**
     * Checks 1 to 5: the app, the installation the request names if it is that app's, and the app's admission by
     * its rate limit (judged by the caller).
     */
    const authenticate = (request: InstallationTokenRequest, now: Date) =>
      Effect.gen(function* () {
        const assertion = request.clientAssertion
        const header = yield* Effect.try({
          try: () => decodeProtectedHeader(assertion),
          catch: () => assertionRefused("assertion_malformed")
        })
        const { kid } = yield* judgeAssertionHeader(header)
        // The payload as jose decodes it (base64url, strict UTF-8, a JSON object); once the signature over its text
        // verifies, it is the claims.
        const payload = yield* Effect.try({
          try: () => decodeJwt(assertion),
          catch: () => assertionRefused("assertion_malformed")
        })
        const appId = payload.iss
        if (typeof appId !== "string" || !isWellFormedClientId(appId)) {
          return yield* Effect.fail(assertionRefused("assertion_malformed"))
        }
        const found = yield* apps.activeKeyAndInstallation(
          appId,
          kid,
          isUuid(request.installationId) ? request.installationId : null
        )
        if (found === undefined) return yield* Effect.fail(assertionRefused("assertion_signature"))
        const key = appKey(appId, kid, found.publicJwk)
        if (key === undefined || !verifiesEs256(assertion, key)) {
          return yield* Effect.fail(assertionRefused("assertion_signature"))
        }
        const accepted = yield* judgeAssertionClaims(payload, {
          appId,
          clientId: Option.getOrUndefined(request.clientId),
          tokenEndpoint,
          issuer: config.authUrl,
          now
        })
        const admission = yield* rateLimits.admitFreshAssertion(appId, accepted.jti, new Date(accepted.exp * 1000), now)
        if (admission === undefined) return yield* Effect.fail(assertionRefused("assertion_replayed"))
        if (randomInt(FORGET_ONE_IN) === 0) {
          yield* consumed.forgetExpired(new Date(now.getTime() - CONSUMED_JTI_RETENTION_SECONDS * 1000))
        }
        return { appId, installation: found, admission }
      })

    const authenticateAndSign = (request: InstallationTokenRequest, now: Date) =>
      Effect.gen(function* () {
        const { admission, appId, installation } = yield* authenticate(request, now)
        yield* judgeAdmission(admission, now)
        if (
          installation.installationId === null ||
          installation.organizationId === null ||
          installation.roles === null ||
          installation.status !== "active"
        ) {
          return yield* Effect.fail(new InvalidGrant())
        }
        return yield* signer.sign(
          {
            subject: installation.installationId,
            clientId: appId,
            organizationId: installation.organizationId,
            roles: installation.roles as ReadonlyArray<Role>,
            contexts: installation.contextIds
          },
          now
        )
      })

    return {
      /**
       * A token for a parsed installation-token request; fails with `InvalidClient` (401), `SlowDown` (429) or
       * `InvalidGrant` (400), in the order above.
       */
      issue: (
        request: InstallationTokenRequest
      ): Effect.Effect<IssuedToken, InvalidClient | InvalidGrant | SlowDown, Db.Db> =>
        Effect.flatMap(Sql.now, (now) => authenticateAndSign(request, now)).pipe(
          Effect.tapError((error) =>
            Effect.logDebug("token request refused").pipe(
              Effect.annotateLogs({ error: error.error, reason: error._tag === "InvalidClient" ? error.reason : "" })
            )
          ),
          // No stack trace on the span: every installation token request runs it.
          traced("InstallationGrant.issue")
        )
    }
  }),
  dependencies: [
    ConnectorAppRepository.Default,
    ConsumedAssertionRepository.Default,
    TokenRateLimitRepository.Default,
    AccessTokenSigner.Default
  ]
}) {}
