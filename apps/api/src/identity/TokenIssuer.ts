/**
 * Issues access tokens for requests that passed `TokenRequest.parseTokenRequest` (spec 5.1 to 5.3, 7.2 and 8;
 * decisions 3).
 *
 * `client_credentials`, in order:
 * 1. Authentication: the secret's shape, the Application by `client_id`, the secret's SHA-256 against the digests
 *    of every active secret of the Application (each compared in constant time, all of them, no early exit),
 *    and the Application's status. Any failure is the one `invalid_client` (`credentials_rejected`), whose body
 *    does not say which check failed.
 * 2. The rate limit, only for authenticated requests (decisions 3: failed authentication counts against no one),
 *    an exact sliding window (spec 7.2 and 8: more than 60 requests for one client in 60 seconds is `slow_down`;
 *    `RateLimitWindow`): `token_rate_limits` holds one row per client with the arrivals of its admitted requests of
 *    the last 60 s. One statement ({@link TokenIssuer} `countRequest`) locks the row, admits the request when fewer
 *    than 60 arrivals are younger than 60 s (recording its arrival) and drops the older ones; a refusal is
 *    `slow_down` with the exact `retryAfterSeconds` of `RateLimitWindow.judgeRequestRate`, and is not recorded.
 * 3. The token: ES256 with header `typ: at+jwt` and the active kid, claims from `AccessTokenClaims.buildClaims`
 *    (iss = authUrl, aud = baseUrl, sub = the Application's id, client_id, org, roles, ctx = granted contexts,
 *    a random jti, iat now, exp iat + 600).
 *
 * Round trips per token: one read (Application, active secrets, granted contexts) and one rate-limit statement;
 * the signing key is cached (`SigningKeys`). Writes per token: the rate-limit row and, at most once a minute per
 * secret, the secret's `last_used_at` (operators read it to see which secret is still in use before revoking one;
 * a minute is precise enough and spares a write per token). No audit entry per token: issuing a token changes no
 * state (decisions 4 audits changes); the rate-limit row and `last_used_at` are the trace.
 *
 * The installation-token grant: connector apps and installations arrive in a later issue, so no app can own an
 * assertion's key yet and every assertion is refused as `invalid_client` (`assertion_signature`) after the form
 * was validated by `parseTokenRequest`.
 *
 * Time comes from Effect's `Clock`. Database failures are defects (the endpoint answers 500, never for client input).
 */
import * as Db from "@propline/db/Db"
import { buildClaims, ACCESS_TOKEN_TTL_SECONDS, ACCESS_TOKEN_TYPE, type Role } from "@propline/identity/AccessTokenClaims"
import { constantTimeEqual, isWellFormedSecret } from "@propline/identity/ClientSecret"
import {
  judgeRequestRate,
  TOKEN_RATE_LIMIT,
  TOKEN_RATE_WINDOW_SECONDS,
  windowEdge
} from "@propline/identity/RateLimitWindow"
import { InvalidClient, SlowDown } from "@propline/identity/TokenError"
import type { ClientCredentialsRequest, TokenRequest } from "@propline/identity/TokenRequest"
import { Clock, Effect, Redacted } from "effect"
import { SignJWT } from "jose"
import { sql } from "kysely"
import { jsonArrayFrom } from "kysely/helpers/postgres"
import { createHash, randomUUID } from "node:crypto"
import { AppConfig } from "../AppConfig.js"
import { SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"

/** `last_used_at` is written when older than this, in milliseconds. */
export const LAST_USED_PRECISION_MS = 60_000

/** A successful token response's content (spec 5.1): `token_type` is always `Bearer`. */
export interface IssuedToken {
  readonly accessToken: string
  readonly tokenType: "Bearer"
  /** Seconds: {@link ACCESS_TOKEN_TTL_SECONDS}. */
  readonly expiresIn: number
}

export interface TokenIssuerShape {
  /** A token for a parsed request; `invalid_client` (401) or `slow_down` (429) otherwise. */
  readonly issue: (request: TokenRequest) => Effect.Effect<IssuedToken, InvalidClient | SlowDown>
}

interface AuthenticatedClient {
  readonly applicationId: string
  readonly clientId: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  /** Granted operational contexts (each includes its subtree). */
  readonly contexts: ReadonlyArray<string>
  readonly secretId: string
}

const sha256 = (text: string): Uint8Array => createHash("sha256").update(text, "utf8").digest()

const rejected = (request: ClientCredentialsRequest) =>
  new InvalidClient({ authenticationMethod: request.method, reason: "credentials_rejected" })

export class TokenIssuer extends Effect.Service<TokenIssuer>()("@propline/api/identity/TokenIssuer", {
  effect: Effect.gen(function* () {
    const db = yield* Db.Db
    const config = yield* AppConfig
    const signingKeys = yield* SigningKeys

    // One round trip: the Application, its active secrets and its granted contexts.
    const findApplication = (clientId: string) =>
      Db.query((db) =>
        db
          .selectFrom("applications")
          .select((eb) => [
            "applications.id",
            "applications.organizationId",
            "applications.roles",
            "applications.status",
            jsonArrayFrom(
              eb
                .selectFrom("applicationSecrets")
                .select(["applicationSecrets.id", "applicationSecrets.secretDigest"])
                .whereRef("applicationSecrets.applicationId", "=", "applications.id")
                .where("applicationSecrets.revokedAt", "is", null)
            ).as("secrets"),
            jsonArrayFrom(
              eb
                .selectFrom("applicationContexts")
                .select("applicationContexts.operationalContextId")
                .whereRef("applicationContexts.applicationId", "=", "applications.id")
                .orderBy("applicationContexts.operationalContextId")
            ).as("contexts")
          ])
          .where("applications.clientId", "=", clientId)
          .executeTakeFirst()
      ).pipe(Effect.orDie)

    const authenticate = (request: ClientCredentialsRequest): Effect.Effect<AuthenticatedClient, InvalidClient> =>
      Effect.gen(function* () {
        const secret = Redacted.value(request.clientSecret)
        if (!isWellFormedSecret(secret)) return yield* Effect.fail(rejected(request))
        const application = yield* findApplication(request.clientId)
        const presented = sha256(secret)
        let matched: { readonly id: string } | undefined
        // Every active secret is compared, each in constant time, whether or not one matched already.
        for (const candidate of application?.secrets ?? []) {
          if (constantTimeEqual(presented, Buffer.from(candidate.secretDigest, "hex")) && matched === undefined) {
            matched = candidate
          }
        }
        if (application === undefined || matched === undefined || application.status !== "active") {
          return yield* Effect.fail(rejected(request))
        }
        return {
          applicationId: application.id,
          clientId: request.clientId,
          organizationId: application.organizationId,
          roles: application.roles as ReadonlyArray<Role>,
          contexts: application.contexts.map((row) => row.operationalContextId),
          secretId: matched.id
        }
      }).pipe(Effect.provideService(Db.Db, db))

    /**
     * Judges this request against the client's sliding window and, when admitted, records it, in ONE statement
     * (one round trip, atomic across instances):
     * - `admission` upserts the client's row. `on conflict do update` locks the row and computes from its latest
     *   version, so concurrent requests of one client, on any instance, are judged one after another and never
     *   both take the 60th place. From the row's arrivals it keeps those after `RateLimitWindow.windowEdge`
     *   (`now − 60 s`, to the millisecond); when fewer than {@link TOKEN_RATE_LIMIT} remain it appends `now` and
     *   stamps the row with this request's random admission id. `returning` says whether the stamp is ours and
     *   gives the window, from which a refusal's `Retry-After` is computed (`RateLimitWindow.judgeRequestRate`).
     *   A refused request rewrites the row without itself, so the row never holds more than 60 arrivals.
     * - `used` marks the secret used when `last_used_at` is older than {@link LAST_USED_PRECISION_MS}.
     * These are bookkeeping writes, so the statement commits without waiting for the WAL flush
     * (`synchronous_commit off` for this transaction only): a crash can lose the last few admissions, never a
     * business record.
     *
     * tooling/scripts/src/internal/BaselineServer.ts runs this same statement (`RATE_SQL`): change both together.
     */
    const countRequest = (client: AuthenticatedClient, now: Date): Effect.Effect<void, SlowDown> =>
      Effect.gen(function* () {
        const edge = windowEdge(now, TOKEN_RATE_WINDOW_SECONDS)
        const usedBefore = new Date(now.getTime() - LAST_USED_PRECISION_MS)
        const admission = randomUUID()
        const result = yield* Db.query((db) =>
          sql<{ readonly admitted: boolean; readonly admittedAt: ReadonlyArray<Date> }>`
            with settings as (select set_config('synchronous_commit', 'off', true)),
            admission as (
              insert into token_rate_limits as r (client_id, admitted_at, last_admission_id)
              select ${client.clientId}, array[${now}::timestamptz], ${admission}::uuid from settings
              on conflict (client_id) do update set
                admitted_at = (
                  select case when count(*) < ${TOKEN_RATE_LIMIT}
                    then coalesce(array_agg(w.t order by w.t), '{}') || ${now}::timestamptz
                    else array_agg(w.t order by w.t) end
                  from unnest(r.admitted_at) as w(t) where w.t > ${edge}
                ),
                last_admission_id = (
                  select case when count(*) < ${TOKEN_RATE_LIMIT} then ${admission}::uuid else r.last_admission_id end
                  from unnest(r.admitted_at) as w(t) where w.t > ${edge}
                )
              returning last_admission_id = ${admission}::uuid as admitted, admitted_at
            ),
            used as (
              update application_secrets set last_used_at = ${now}
              where id = ${client.secretId} and (last_used_at is null or last_used_at <= ${usedBefore})
            )
            select admitted, admitted_at as "admittedAt" from admission
          `.execute(db)
        )
        const row = result.rows[0]
        if (row === undefined) return yield* Effect.die(new Error("the rate-limit statement returned no row"))
        if (row.admitted) return
        const verdict = judgeRequestRate({
          limit: TOKEN_RATE_LIMIT,
          windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
          now,
          admittedAt: row.admittedAt.map((at) => new Date(at))
        })
        if (verdict.allowed) return yield* Effect.die(new Error("the rate-limit statement and judgeRequestRate disagree"))
        return yield* Effect.fail(new SlowDown({ retryAfterSeconds: verdict.retryAfterSeconds }))
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.provideService(Db.Db, db))

    const sign = (client: AuthenticatedClient, now: Date) =>
      Effect.gen(function* () {
        const key = yield* signingKeys.current
        const claims = buildClaims({
          issuer: config.authUrl,
          audience: config.baseUrl,
          clientId: client.clientId,
          subject: client.applicationId,
          organizationId: client.organizationId,
          roles: client.roles,
          contexts: client.contexts,
          jti: randomUUID(),
          now
        })
        return yield* Effect.promise(() =>
          new SignJWT({ ...claims })
            .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid: key.kid })
            .sign(key.privateKey)
        )
      })

    const issueClientCredentials = (request: ClientCredentialsRequest) =>
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        const client = yield* authenticate(request)
        yield* countRequest(client, now)
        const accessToken = yield* sign(client, now)
        return { accessToken, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_TTL_SECONDS } satisfies IssuedToken
      }).pipe(
        Effect.tapError((error) =>
          Effect.logDebug("token request refused").pipe(
            Effect.annotateLogs({ error: error.error, reason: error._tag === "InvalidClient" ? error.reason : "" })
          )
        ),
        Effect.provideService(Db.Db, db)
      )

    const issue: TokenIssuerShape["issue"] = (request) =>
      (request._tag === "ClientCredentialsRequest"
        ? issueClientCredentials(request)
        : // Connector installations arrive in a later issue: no app key exists that could verify an assertion.
          Effect.fail(new InvalidClient({ authenticationMethod: "private_key_jwt", reason: "assertion_signature" }))
      ).pipe(Effect.withSpan("TokenIssuer.issue", { attributes: { grant: request._tag } }))

    return { issue } satisfies TokenIssuerShape
  }),
  dependencies: [SigningKeys.Default]
}) {}
