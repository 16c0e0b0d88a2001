/**
 * Issues access tokens for requests that passed `TokenRequest.parseTokenRequest` (spec 5.1 to 5.3, 7.2 and 8;
 * decisions 3).
 *
 * `client_credentials`, in order:
 * 1. Authentication: the secret's shape, the active Application by `client_id`, the secret's SHA-256 against the
 *    digests of every active secret of the Application (each compared in constant time, all of them, no early
 *    exit). Any failure (a disabled Application is not found) is the one `invalid_client` (`credentials_rejected`),
 *    whose body does not say which check failed.
 * 2. The rate limit, only for authenticated requests (decisions 3: failed authentication counts against no one),
 *    exact to the second (spec 7.2 and 8: more than 60 requests for one client in 60 seconds is `slow_down`):
 *    `token_rate_windows` holds one row per client and second (`window_start` = the second, epoch-aligned;
 *    `request_count` = the client's requests in it). One statement increments the current second's row, reads
 *    the client's other rows of the window (the 60 whole seconds ending with the current one) and deletes its
 *    rows older than that; `RateLimitWindow.judgeRequestRate` judges the counts; over the limit is `slow_down`
 *    with `retryAfterSeconds`. A refused request is counted too, so a client that keeps hammering stays refused.
 *    One time in {@link SWEEP_ONE_IN} new rows every client's rows older than the window are deleted as well, so
 *    the table holds the rows of the last minute plus those of clients that stopped since the last sweep.
 * 3. The token: ES256 (signed with `node:crypto`) with header `typ: at+jwt` and the active kid, claims from `AccessTokenClaims.buildClaims`
 *    (iss = authUrl, aud = baseUrl, sub = the Application's id, client_id, org, roles, ctx = granted contexts,
 *    a random jti, iat now, exp iat + 600).
 *
 * Round trips per token: one read (Application, active secrets, granted contexts) and one rate-limit statement;
 * the signing key is cached (`SigningKeys`). Writes per token: the rate-limit upsert and, at most once a minute per
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
  bucketStart,
  judgeRequestRate,
  TOKEN_RATE_LIMIT,
  TOKEN_RATE_WINDOW_SECONDS,
  windowEdge
} from "@propline/identity/RateLimitWindow"
import { InvalidClient, SlowDown } from "@propline/identity/TokenError"
import type { ClientCredentialsRequest, TokenRequest } from "@propline/identity/TokenRequest"
import { Clock, Effect, Redacted } from "effect"
import { sql } from "kysely"
import { createHash, randomInt, randomUUID, sign as signBytes } from "node:crypto"
import { AppConfig } from "../AppConfig.js"
import { SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"

/**
 * One new rate-limit row (a client's first request in a second) in this many also deletes every client's rows
 * older than the window ({@link sweepRateWindows}). Each request already deletes its own client's old rows, so the
 * sweep only collects those of clients that stopped sending, and the table holds the last minute's rows plus at
 * most the rows created since the last sweep (about this many). A sweep scans the whole table (no index leads with
 * `window_start`); spread over the rows created between two sweeps that is about one row scanned per new row, plus
 * the last minute's rows divided by this. Rows are per second, up to 60 per client and minute, hence a larger
 * number than one per client and minute would need.
 */
export const SWEEP_ONE_IN = 1024

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

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url")

/** One active secret of an active Application, with the Application's grant. */
interface ApplicationSecretRow {
  readonly id: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<string>
  readonly secretId: string
  readonly secretDigest: string
  readonly contexts: ReadonlyArray<string>
}

/**
 * Deletes every client's rate-limit rows that start at or before `edge` (`RateLimitWindow.windowEdge`). Rows
 * another transaction has locked (a request of that client deleting or counting them right now) are skipped, not
 * waited for: the sweep is bookkeeping, never blocks a token request, and cannot deadlock with one; what it skips
 * the next sweep or the client's next request deletes. Returns the number of rows deleted.
 */
export const sweepRateWindows = (edge: Date): Effect.Effect<number, never, Db.Db> =>
  Db.query((db) =>
    db
      .deleteFrom("tokenRateWindows")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("clientId", "windowStart"),
          "in",
          selectFrom("tokenRateWindows")
            .select(["clientId", "windowStart"])
            .where("windowStart", "<=", edge)
            .forUpdate()
            .skipLocked()
            .$asTuple("clientId", "windowStart")
        )
      )
      .executeTakeFirst()
  ).pipe(
    Effect.map((result) => Number(result.numDeletedRows)),
    Effect.orDie
  )

const rejected = (request: ClientCredentialsRequest) =>
  new InvalidClient({ authenticationMethod: request.method, reason: "credentials_rejected" })

export class TokenIssuer extends Effect.Service<TokenIssuer>()("@propline/api/identity/TokenIssuer", {
  effect: Effect.gen(function* () {
    const db = yield* Db.Db
    const config = yield* AppConfig
    const signingKeys = yield* SigningKeys

    /**
     * One round trip, one plain statement (no row mapping): the active Application with this client_id, one row per
     * active secret, each with the granted contexts. No row: unknown, disabled, or without an active secret.
     * tooling/scripts/src/internal/BaselineServer.ts runs this same statement (`CLIENT_SQL`).
     */
    const findApplication = (clientId: string) =>
      Db.queryPlain(
        sql<ApplicationSecretRow>`
          select a.id, a.organization_id as "organizationId", a.roles, s.id as "secretId",
                 s.secret_digest as "secretDigest",
                 array(select c.operational_context_id from application_contexts c
                       where c.application_id = a.id order by c.operational_context_id) as "contexts"
          from applications a
          join application_secrets s on s.application_id = a.id and s.revoked_at is null
          where a.client_id = ${clientId} and a.status = 'active'`
      ).pipe(Effect.orDie)

    const authenticate = (request: ClientCredentialsRequest): Effect.Effect<AuthenticatedClient, InvalidClient> =>
      Effect.gen(function* () {
        const secret = Redacted.value(request.clientSecret)
        if (!isWellFormedSecret(secret)) return yield* Effect.fail(rejected(request))
        const rows = yield* findApplication(request.clientId)
        const presented = sha256(secret)
        let matched: ApplicationSecretRow | undefined
        // Every active secret is compared, each in constant time, whether or not one matched already.
        for (const row of rows) {
          if (constantTimeEqual(presented, Buffer.from(row.secretDigest, "hex")) && matched === undefined) {
            matched = row
          }
        }
        if (matched === undefined) return yield* Effect.fail(rejected(request))
        return {
          applicationId: matched.id,
          clientId: request.clientId,
          organizationId: matched.organizationId,
          roles: matched.roles as ReadonlyArray<Role>,
          contexts: matched.contexts,
          secretId: matched.secretId
        }
      }).pipe(Effect.provideService(Db.Db, db))

    /**
     * Counts this request and judges the client's rate, in ONE statement (one round trip, atomic across
     * instances):
     * - `counted` upserts the client's row of the current second; its `returning` gives the count after the
     *   increment, this request included, even when concurrent requests of the same second race (the conflicting
     *   row is locked and re-read).
     * - The outer select reads the client's other rows of the window (`window_start` after
     *   `RateLimitWindow.windowEdge`: the 60 whole seconds ending with the current one; a row after the current
     *   second, from an instance whose clock is ahead, is read too), one result row each (none: one row of nulls).
     *   It reads the statement's snapshot, so a request of another second still in flight may be missed: the
     *   count is exact up to requests being counted at that same moment.
     * - `swept` deletes the client's rows at or before the edge (a primary-key range), skipping rows that a
     *   concurrent request of the same client or the sweep has locked to delete them itself; the statement thus
     *   only ever waits for the current second's row and then the secret's row, and cannot deadlock.
     * - `used` marks the secret used when `last_used_at` is older than {@link LAST_USED_PRECISION_MS}.
     * These are bookkeeping writes, so the statement commits without waiting for the WAL flush
     * (`synchronous_commit off` for this transaction only): a crash can lose the last few counts, never a
     * business record. One time in {@link SWEEP_ONE_IN} new rows also runs {@link sweepRateWindows}.
     *
     * tooling/scripts/src/internal/BaselineServer.ts runs this same statement (`RATE_SQL`): change both together.
     */
    const countRequest = (client: AuthenticatedClient, now: Date): Effect.Effect<void, SlowDown> =>
      Effect.gen(function* () {
        const second = bucketStart(now)
        const edge = windowEdge(now, TOKEN_RATE_WINDOW_SECONDS)
        const usedBefore = new Date(now.getTime() - LAST_USED_PRECISION_MS)
        const result = yield* Db.query((db) =>
          sql<{
            readonly requestCount: number | string
            readonly bucketStart: Date | null
            readonly bucketCount: number | string | null
          }>`
            with settings as (select set_config('synchronous_commit', 'off', true)),
            counted as (
              insert into token_rate_windows (client_id, window_start, request_count)
              select ${client.clientId}, ${second}, 1 from settings
              on conflict (client_id, window_start)
              do update set request_count = token_rate_windows.request_count + 1
              returning window_start, request_count
            ),
            swept as (
              delete from token_rate_windows
              where client_id = ${client.clientId} and window_start in (
                select w.window_start from token_rate_windows w
                where w.client_id = ${client.clientId} and w.window_start <= ${edge}
                for update skip locked
              )
            ),
            used as (
              update application_secrets set last_used_at = ${now}
              where id = ${client.secretId} and (last_used_at is null or last_used_at <= ${usedBefore})
            )
            select
              counted.request_count as "requestCount",
              w.window_start as "bucketStart",
              w.request_count as "bucketCount"
            from counted
            left join token_rate_windows w
              on w.client_id = ${client.clientId} and w.window_start > ${edge}
              and w.window_start <> counted.window_start
          `.execute(db)
        )
        const first = result.rows[0]
        if (first === undefined) return yield* Effect.die(new Error("the rate-limit statement returned no row"))
        const currentCount = Number(first.requestCount)
        if (currentCount === 1 && randomInt(SWEEP_ONE_IN) === 0) yield* sweepRateWindows(edge)
        const verdict = judgeRequestRate({
          limit: TOKEN_RATE_LIMIT,
          windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
          now,
          currentCount,
          otherBuckets: result.rows.flatMap((row) =>
            row.bucketStart === null ? [] : [{ start: row.bucketStart, count: Number(row.bucketCount) }]
          )
        })
        if (!verdict.allowed) return yield* Effect.fail(new SlowDown({ retryAfterSeconds: verdict.retryAfterSeconds }))
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.provideService(Db.Db, db))

    /**
     * The compact JWS (RFC 7515 3.1): the protected header `{alg, typ, kid}` and the claims, each JSON in that key
     * order and base64url, signed ES256 with `node:crypto` on this thread (a JOSE signature is the raw r || s pair,
     * RFC 7518 3.4: `dsaEncoding: "ieee-p1363"`).
     */
    const sign = (client: AuthenticatedClient, now: Date) =>
      Effect.map(signingKeys.current, (key) => {
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
        const header = base64url(JSON.stringify({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid: key.kid }))
        const signingInput = `${header}.${base64url(JSON.stringify(claims))}`
        const signature = signBytes("sha256", Buffer.from(signingInput), { key: key.keyObject, dsaEncoding: "ieee-p1363" })
        return `${signingInput}.${signature.toString("base64url")}`
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
      ).pipe(Effect.withSpan("TokenIssuer.issue", { attributes: { grant: request._tag }, captureStackTrace: false }))

    return { issue } satisfies TokenIssuerShape
  }),
  dependencies: [SigningKeys.Default]
}) {}
