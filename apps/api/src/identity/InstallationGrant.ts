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
 * 4. The signature, with that key alone and ES256 alone (jose `compactVerify`; the imported key is cached by app and
 *    kid, which name one key for good).
 * 5. The claims: `ClientAssertion.judgeAssertionClaims` (`iss` = `sub` = the app, the `client_id` form field if
 *    sent, `aud` the token endpoint or the issuer, `exp − iat` ≤ 300, 30 s leeway, a `jti`); then the `jti` is
 *    consumed (`ConsumedAssertionRepository.consume`, a primary key, durable commit): a `jti` consumed before, by
 *    any instance, is `invalid_client` (`assertion_replayed`).
 * 6. The rate limit of the app (`TokenRateLimitRepository.admit`, `TokenAdmission.judgeAdmission`): over 60 in
 *    60 s is `slow_down` (429) with the exact `retryAfterSeconds`. Failed authentication counts against no one.
 * 7. The installation: missing, of another app, `suspended` or `removed` is `invalid_grant` (400), one body for all.
 * 8. The token (`AccessTokenSigner`): `sub` the installation's id, `client_id` the app id, the installation's roles
 *    (with `integrations`) and contexts, 600 s.
 *
 * Round trips per token: one read, the `jti` insert and one rate-limit statement, each its own transaction (the
 * `jti` is kept apart so that it commits durably while the rate limit's bookkeeping does not wait for the WAL). No
 * audit entry: issuing a token changes no state (decisions 4); the consumed `jti` and the rate-limit row are the
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
import { compactVerify, type CryptoKey, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from "jose"
import { randomInt } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import * as Sql from "../platform/Sql.js"
import { AccessTokenSigner, type IssuedToken } from "./AccessTokenSigner.js"
import { ConnectorAppRepository } from "./ConnectorAppRepository.js"
import { ConsumedAssertionRepository } from "./ConsumedAssertionRepository.js"
import { SIGNING_ALGORITHM } from "./SigningKeys.js"
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

const utf8 = new TextDecoder("utf-8", { fatal: true })

export class InstallationGrant extends Effect.Service<InstallationGrant>()("@propline/api/identity/InstallationGrant", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const apps = yield* ConnectorAppRepository
    const consumed = yield* ConsumedAssertionRepository
    const rateLimits = yield* TokenRateLimitRepository
    const signer = yield* AccessTokenSigner
    const tokenEndpoint = `${config.authUrl}/oauth/token`
    // Imported app keys by app and kid: a kid names one key of an app for good, so entries never go stale.
    const appKeys = new Map<string, CryptoKey>()

    const importAppKey = (appId: string, kid: string, jwk: Record<string, unknown>) => {
      const cacheKey = `${appId} ${kid}`
      const known = appKeys.get(cacheKey)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tryPromise({
        try: () => importJWK(jwk as JWK, "ES256") as Promise<CryptoKey>,
        catch: () => assertionRefused("assertion_signature")
      }).pipe(
        Effect.tap((key) =>
          Effect.sync(() => {
            if (appKeys.size >= APP_KEY_CACHE_MAX_ENTRIES) appKeys.clear()
            appKeys.set(cacheKey, key)
          })
        )
      )
    }

    /** Checks 1 to 5: the app, and the installation the request names if it is that app's. */
    const authenticate = (request: InstallationTokenRequest, now: Date) =>
      Effect.gen(function* () {
        const assertion = request.clientAssertion
        const header = yield* Effect.try({
          try: () => decodeProtectedHeader(assertion),
          catch: () => assertionRefused("assertion_malformed")
        })
        const { kid } = yield* judgeAssertionHeader(header)
        const unverified = yield* Effect.try({
          try: () => decodeJwt(assertion),
          catch: () => assertionRefused("assertion_malformed")
        })
        const appId = unverified.iss
        if (typeof appId !== "string" || !isWellFormedClientId(appId)) {
          return yield* Effect.fail(assertionRefused("assertion_malformed"))
        }
        const found = yield* apps.activeKeyAndInstallation(
          appId,
          kid,
          isUuid(request.installationId) ? request.installationId : null
        )
        if (found === undefined) return yield* Effect.fail(assertionRefused("assertion_signature"))
        const key = yield* importAppKey(appId, kid, found.publicJwk)
        const { payload } = yield* Effect.tryPromise({
          try: () => compactVerify(assertion, key, { algorithms: [SIGNING_ALGORITHM] }),
          catch: () => assertionRefused("assertion_signature")
        })
        const claims = yield* Effect.try({
          try: (): unknown => JSON.parse(utf8.decode(payload)),
          catch: () => assertionRefused("assertion_malformed")
        })
        const accepted = yield* judgeAssertionClaims(claims, {
          appId,
          clientId: Option.getOrUndefined(request.clientId),
          tokenEndpoint,
          issuer: config.authUrl,
          now
        })
        const fresh = yield* consumed.consume(appId, accepted.jti, new Date(accepted.exp * 1000), now)
        if (!fresh) return yield* Effect.fail(assertionRefused("assertion_replayed"))
        if (randomInt(FORGET_ONE_IN) === 0) {
          yield* consumed.forgetExpired(new Date(now.getTime() - CONSUMED_JTI_RETENTION_SECONDS * 1000))
        }
        return { appId, installation: found }
      })

    const authenticateAndSign = (request: InstallationTokenRequest, now: Date) =>
      Effect.gen(function* () {
        const { appId, installation } = yield* authenticate(request, now)
        yield* judgeAdmission(yield* rateLimits.admit(appId, now), now)
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
            contexts: installation.contexts.map((context) => context.operationalContextId)
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
