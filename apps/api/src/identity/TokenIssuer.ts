/**
 * Issues access tokens for requests that passed `TokenRequest.parseTokenRequest` (spec 5.1 to 5.3, 7.2 and 8;
 * decisions 3; RFC 7521, 7523).
 *
 * `client_credentials` (spec 5.2), in order:
 * 1. The secret's shape (`ClientSecret.isWellFormedSecret`), without a round trip.
 * 2. One statement (`TokenRateLimitRepository.admitApplication`): the active Application with this `client_id` and
 *    an unrevoked secret with the presented secret's SHA-256 digest; only if there is one, the client's rate limit
 *    (below). No such Application is the one `invalid_client` (`credentials_rejected`), whatever was wrong.
 * 3. The token: `sub` the Application's id, `client_id` its client_id, its roles and granted contexts.
 *
 * The installation-token grant (spec 5.3), in order; every failure up to 5 is the one `invalid_client`, with the
 * same body whatever failed:
 * 1. The JWS header: `ClientAssertion.judgeAssertionHeader` (ES256 only, a `kid`, no `jwk` / `jku` / `x5u` /
 *    `x5c`, no `crit`).
 * 2. The unverified payload's `iss`, a well-formed client id: the app whose key must verify the signature.
 * 3. One read: the app's ACTIVE key with the header's `kid` (none: `assertion_signature`), and the installation
 *    named by `installation_id` if it belongs to that app.
 * 4. The signature, with that key alone and ES256 alone (jose `compactVerify`; the imported key is cached by app and
 *    kid, which name one key for good).
 * 5. The claims: `ClientAssertion.judgeAssertionClaims` (`iss` = `sub` = the app, the `client_id` form field if
 *    sent, `aud` the token endpoint or the issuer, `exp − iat` ≤ 300, 30 s leeway, a `jti`); then the `jti` is
 *    consumed in `consumed_assertions` (a primary key, durable commit): a `jti` consumed before, by any instance,
 *    is `invalid_client` (`assertion_replayed`).
 * 6. The rate limit of the app (below).
 * 7. The installation: missing, of another app, `suspended` or `removed` is `invalid_grant` (400), one body for all.
 * 8. The token: `sub` the installation's id, `client_id` the app id, the installation's roles (with
 *    `integrations`) and contexts, 600 s.
 *
 * The rate limit counts authenticated requests only (decisions 3: failed authentication counts against no one),
 * per client (an Application's client_id, a connector's app id), in an exact sliding window (spec 7.2 and 8;
 * `TokenRateLimitRepository.admit`, `RateLimitWindow`): over 60 in 60 s is `slow_down` (429) with the exact
 * `retryAfterSeconds`.
 *
 * Tokens: ES256 (signed with `node:crypto`) with header `typ: at+jwt` and the active kid (`SigningKeys`), claims from
 * `AccessTokenClaims.buildClaims` (iss = authUrl, aud = baseUrl, a random jti, iat now, exp iat + 600).
 *
 * Round trips per token: client_credentials, one statement; installation, one read, the
 * `jti` insert and one rate-limit statement (the `jti` is kept apart so that it commits durably while the rate
 * limit's bookkeeping does not wait for the WAL). No audit entry per token: issuing a token changes no state
 * (decisions 4 audits changes); the rate-limit row, `last_used_at` and the consumed `jti` are the trace.
 *
 * Time comes from Effect's `Clock`. Database failures are defects (the endpoint answers 500, never for client input).
 */
import * as Db from "@propline/db/Db"
import { ACCESS_TOKEN_TTL_SECONDS, ACCESS_TOKEN_TYPE, buildClaims, type Role } from "@propline/identity/AccessTokenClaims"
import {
  ASSERTION_LEEWAY_SECONDS,
  judgeAssertionClaims,
  judgeAssertionHeader
} from "@propline/identity/ClientAssertion"
import { isWellFormedSecret } from "@propline/identity/ClientSecret"
import { judgeRequestRate, TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS } from "@propline/identity/RateLimitWindow"
import { InvalidClient, InvalidGrant, SlowDown } from "@propline/identity/TokenError"
import {
  type ClientCredentialsRequest,
  type InstallationTokenRequest,
  isWellFormedClientId,
  type TokenRequest
} from "@propline/identity/TokenRequest"
import { Clock, Effect, Option, Redacted, Schema } from "effect"
import { compactVerify, type CryptoKey, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from "jose"
import { createHash, randomInt, randomUUID, sign as signBytes } from "node:crypto"
import { AppConfig } from "../AppConfig.js"
import { ConnectorAppRepository } from "./ConnectorAppRepository.js"
import { ConsumedAssertionRepository } from "./ConsumedAssertionRepository.js"
import { SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"
import { type Admission, TokenRateLimitRepository } from "./TokenRateLimitRepository.js"

/**
 * A consumed `jti` is forgotten this long after its assertion's `exp`, in seconds: the 30 s leeway plus 5 minutes
 * for instances whose clocks lag, so no instance could still accept a forgotten assertion.
 */
export const CONSUMED_JTI_RETENTION_SECONDS = ASSERTION_LEEWAY_SECONDS + 300

/** One consumption in this many also forgets every expired `jti` (an index range delete). */
export const FORGET_ONE_IN = 256

/** The most imported app keys kept in memory per instance. */
export const APP_KEY_CACHE_MAX_ENTRIES = 1_000

/** A successful token response's content (spec 5.1): `token_type` is always `Bearer`. */
export interface IssuedToken {
  readonly accessToken: string
  readonly tokenType: "Bearer"
  /** Seconds: {@link ACCESS_TOKEN_TTL_SECONDS}. */
  readonly expiresIn: number
}

export interface TokenIssuerShape {
  /**
   * A token for a parsed request; `invalid_client` (401), `invalid_grant` (400, installation grant) or
   * `slow_down` (429) otherwise.
   */
  readonly issue: (request: TokenRequest) => Effect.Effect<IssuedToken, InvalidClient | InvalidGrant | SlowDown>
}

/** Who a token is for, once authenticated. */
interface Grantee {
  /** The token's `sub`: an Application's id, or an installation's id. */
  readonly subject: string
  /** The token's `client_id`, and the rate limit's key: an Application's client_id, or a connector's app id. */
  readonly clientId: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  /** Granted operational contexts (each includes its subtree). */
  readonly contexts: ReadonlyArray<string>
}

/** SHA-256 of a presented secret, lower-case hex: how `application_secrets.secret_digest` stores it. */
const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

const credentialsRejected = (request: ClientCredentialsRequest) =>
  new InvalidClient({ authenticationMethod: request.method, reason: "credentials_rejected" })

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url")

const isUuid = Schema.is(Schema.UUID)

const assertionRefused = (reason: InvalidClient["reason"]) =>
  new InvalidClient({ authenticationMethod: "private_key_jwt", reason })

const utf8 = new TextDecoder("utf-8", { fatal: true })

export class TokenIssuer extends Effect.Service<TokenIssuer>()("@propline/api/identity/TokenIssuer", {
  effect: Effect.gen(function* () {
    const db = yield* Db.Db
    const config = yield* AppConfig
    const signingKeys = yield* SigningKeys
    const apps = yield* ConnectorAppRepository
    const consumed = yield* ConsumedAssertionRepository
    const rateLimits = yield* TokenRateLimitRepository
    const tokenEndpoint = `${config.authUrl}/oauth/token`
    // Imported app keys by app and kid: a kid names one key of an app for good, so entries never go stale.
    const appKeys = new Map<string, CryptoKey>()

    /** Judges an admission: through, or `slow_down` with the exact Retry-After (`RateLimitWindow`). */
    const judgeAdmission = (admission: Admission, now: Date): Effect.Effect<void, SlowDown> => {
      if (admission.admitted) return Effect.void
      const verdict = judgeRequestRate({
        limit: TOKEN_RATE_LIMIT,
        windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
        now,
        admittedAt: admission.admittedAt
      })
      return verdict.allowed
        ? Effect.die(new Error("the rate-limit statement and judgeRequestRate disagree"))
        : Effect.fail(new SlowDown({ retryAfterSeconds: verdict.retryAfterSeconds }))
    }

    /**
     * client_credentials: the Application is authenticated and its request admitted in one statement
     * (`TokenRateLimitRepository.admitApplication`), then the token is signed.
     */
    const issueClientCredentials = (request: ClientCredentialsRequest, now: Date) => {
      const secret = Redacted.value(request.clientSecret)
      if (!isWellFormedSecret(secret)) return Effect.fail(credentialsRejected(request))
      return Effect.flatMap(
        rateLimits.admitApplication(request.clientId, sha256Hex(secret), now),
        (application): Effect.Effect<IssuedToken, InvalidClient | SlowDown> =>
          application === undefined
            ? Effect.fail(credentialsRejected(request))
            : Effect.zipRight(
                judgeAdmission(application.admission, now),
                sign(
                  {
                    subject: application.id,
                    clientId: request.clientId,
                    organizationId: application.organizationId,
                    roles: application.roles,
                    contexts: application.contextIds
                  },
                  now
                )
              )
      )
    }

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

    const authenticateInstallation = (request: InstallationTokenRequest, now: Date) =>
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

    /**
     * The compact JWS (RFC 7515 3.1): the protected header `{alg, typ, kid}` and the claims, each JSON in that key
     * order and base64url, signed ES256 with `node:crypto` on this thread, without WebCrypto's promise and worker
     * hop (a JOSE signature is the raw r || s pair, RFC 7518 3.4: `dsaEncoding: "ieee-p1363"`).
     */
    const sign = (grantee: Grantee, now: Date) =>
      Effect.map(signingKeys.current, (key) => {
        const claims = buildClaims({
          issuer: config.authUrl,
          audience: config.baseUrl,
          clientId: grantee.clientId,
          subject: grantee.subject,
          organizationId: grantee.organizationId,
          roles: grantee.roles,
          contexts: grantee.contexts,
          jti: randomUUID(),
          now
        })
        const header = base64url(JSON.stringify({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid: key.kid }))
        const signingInput = `${header}.${base64url(JSON.stringify(claims))}`
        const signature = signBytes("sha256", Buffer.from(signingInput), { key: key.keyObject, dsaEncoding: "ieee-p1363" })
        const accessToken = `${signingInput}.${signature.toString("base64url")}`
        return { accessToken, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_TTL_SECONDS } satisfies IssuedToken
      })

    const issueInstallationToken = (request: InstallationTokenRequest, now: Date) =>
      Effect.gen(function* () {
        const { appId, installation } = yield* authenticateInstallation(request, now)
        yield* judgeAdmission(yield* rateLimits.admit(appId, now), now)
        if (
          installation.installationId === null ||
          installation.organizationId === null ||
          installation.roles === null ||
          installation.status !== "active"
        ) {
          return yield* Effect.fail(new InvalidGrant())
        }
        return yield* sign(
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

    const issue: TokenIssuerShape["issue"] = (request) =>
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        return yield* request._tag === "ClientCredentialsRequest"
          ? issueClientCredentials(request, now)
          : issueInstallationToken(request, now)
      }).pipe(
        Effect.tapError((error) =>
          Effect.logDebug("token request refused").pipe(
            Effect.annotateLogs({ error: error.error, reason: error._tag === "InvalidClient" ? error.reason : "" })
          )
        ),
        Effect.provideService(Db.Db, db),
        // No stack trace on the span: every token request runs it.
        Effect.withSpan("TokenIssuer.issue", { attributes: { grant: request._tag }, captureStackTrace: false })
      )

    return { issue } satisfies TokenIssuerShape
  }),
  dependencies: [
    SigningKeys.Default,
    ConnectorAppRepository.Default,
    ConsumedAssertionRepository.Default,
    TokenRateLimitRepository.Default
  ]
}) {}
