/**
 * SQL of the token rate limit (spec 7.2 and 8; decisions 3; `@propline/identity/RateLimitWindow`): one row per
 * client in `token_rate_limits` with the arrivals of its admitted requests of the last 60 seconds.
 */
import type { Role } from "@propline/identity/AccessTokenClaims"
import { TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS, windowEdge } from "@propline/identity/RateLimitWindow"
import { Effect } from "effect"
import type * as Db from "@propline/db/Db"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import * as Sql from "../platform/Sql.js"

/** `last_used_at` of a secret is written when older than this, in milliseconds. */
export const LAST_USED_PRECISION_MS = 60_000

/** What the rate limit answered ({@link admissionCte}): whether this request was admitted, and the window. */
export interface Admission {
  readonly admitted: boolean
  /** The client's admissions in the window after this request (this one included when admitted), as recorded. */
  readonly admittedAt: ReadonlyArray<Date>
}

/** The Application a client_credentials request authenticated as (`admitApplication`), with its admission. */
export interface AdmittedApplication {
  /** The Application's id (the token's `sub`). */
  readonly id: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  /** Granted contexts, by id, in id order. */
  readonly contextIds: ReadonlyArray<string>
  readonly admission: Admission
}

interface AdmissionRow {
  readonly admitted: boolean
  /** timestamptz[]: pg parses the array's elements as text. */
  readonly admittedAt: ReadonlyArray<Date | string>
}

const toAdmission = (row: AdmissionRow): Admission => ({
  admitted: row.admitted,
  admittedAt: row.admittedAt.map((at) => new Date(at))
})

/** The CTE `settings`: the statement's transaction commits without waiting for the WAL flush. */
const ASYNCHRONOUS_COMMIT = sql`settings as (select set_config('synchronous_commit', 'off', true))`

/**
 * The rate limit's CTE `admission`: judges a request of `clientKey` arriving at `now` against its sliding window
 * and, when admitted, records it under the random `admission` id, within the one statement (atomic across
 * instances); only when `source` (a CTE or table name, or a comma-separated list of them, cross-joined) has a row.
 * - It upserts the client's row. `on conflict do update` locks the row and computes from its latest version, so
 *   concurrent requests of one client, on any instance, are judged one after another and never both take the 60th
 *   place. From the row's arrivals it keeps those after `edge` (`RateLimitWindow.windowEdge`: `now − 60 s`, to the
 *   millisecond); when fewer than `TOKEN_RATE_LIMIT` remain it appends `now` and stamps the row with `admission`.
 *   `returning` says whether the stamp is ours (`admitted`) and gives the window (`admitted_at`), from which a
 *   refusal's `Retry-After` is computed (`RateLimitWindow.judgeRequestRate`).
 * - A refused request rewrites the row without itself, so the row never holds more than 60 arrivals.
 */
const admissionCte = (clientKey: string, now: Date, edge: Date, admission: string, source: string) => sql`
    admission as (
      insert into token_rate_limits as r (client_id, admitted_at, last_admission_id)
      select ${clientKey}, array[${now}::timestamptz], ${admission}::uuid from ${sql.raw(source)}
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
    )`

/**
 * {@link ASYNCHRONOUS_COMMIT} and {@link admissionCte}: bookkeeping writes, so the statement commits without
 * waiting for the WAL flush (`synchronous_commit off` for this transaction only): a crash can lose the last few
 * admissions, never a business record. `source` lists `settings` (alone, it admits always).
 */
const admissionCtes = (clientKey: string, now: Date, edge: Date, admission: string, source: string) =>
  sql`${ASYNCHRONOUS_COMMIT}, ${admissionCte(clientKey, now, edge, admission, source)}`

/** `admitFreshAssertion`'s statement: app id, jti, the assertion's expiry, now, the window's edge, the admission id. */
const ADMIT_FRESH_ASSERTION = Sql.prepare(
  6,
  (appId: string, jti: string, expiresAt: Date, now: Date, edge: Date, admission: string) =>
    sql<AdmissionRow>`
      with consumed as (
        insert into consumed_assertions (app_id, jti, expires_at, consumed_at)
        values (${appId}, ${jti}, ${expiresAt}, ${now})
        on conflict (app_id, jti) do nothing
        returning jti
      ),
      ${admissionCte(appId, now, edge, admission, "consumed")}
      select admitted, admitted_at as "admittedAt" from admission`
)

/**
 * `admitApplication`'s statement: client id, the secret's digest, now, the window's edge, the admission id, and the
 * time before which `last_used_at` is rewritten.
 */
const ADMIT_APPLICATION = Sql.prepare(
  6,
  (clientId: string, secretDigest: string, now: Date, edge: Date, admission: string, lastUsedBefore: Date) =>
    sql<ApplicationAdmissionRow>`
      with client as (
        select a.id, a.organization_id, a.roles, s.id as secret_id,
               array(select c.operational_context_id from application_contexts c
                     where c.application_id = a.id order by c.operational_context_id) as context_ids
        from applications a
        join application_secrets s
          on s.application_id = a.id and s.revoked_at is null and s.secret_digest = ${secretDigest}
        where a.client_id = ${clientId} and a.status = 'active'
        limit 1
      ),
      ${admissionCtes(clientId, now, edge, admission, "settings, client")},
      used as (
        update application_secrets set last_used_at = ${now}
        where id = (select secret_id from client)
          and (last_used_at is null or last_used_at <= ${lastUsedBefore})
      )
      select client.id, client.organization_id as "organizationId", client.roles,
             client.context_ids as "contextIds", admission.admitted, admission.admitted_at as "admittedAt"
      from client cross join admission`
)

export class TokenRateLimitRepository extends Effect.Service<TokenRateLimitRepository>()(
  "@propline/api/identity/TokenRateLimitRepository",
  {
    succeed: {
      /**
       * An installation-token request's `jti` consumed and, only if this call consumed it, the app judged and
       * recorded by its rate limit, in ONE statement (one round trip; spec 5.3, 7.2 and 8): `consumed` inserts
       * (`appId`, `jti`) into `consumed_assertions` unless it is there (the primary key decides: of concurrent
       * requests with one assertion, on any instance, exactly one inserts, the others wait for its commit and insert
       * nothing), and `admission` ({@link admissionCte}, keyed by `appId`) runs on its row alone, so a replayed
       * assertion spends nothing of the app's window. Undefined when the `jti` was consumed before (the caller
       * answers `invalid_client`); otherwise the admission, the `jti` consumed whatever it says.
       *
       * Commits durably (no `settings`): a `jti` lost in a crash could be replayed. The rate-limit bookkeeping rides
       * on the same WAL flush, which the `jti` needs anyway; the app's rate-limit row stays locked until then.
       *
       * tooling/scripts/src/internal/InstallationGrantBaseline.ts runs this same statement (`CONSUME_ADMIT_SQL`):
       * change both together.
       */
      admitFreshAssertion: (
        appId: string,
        jti: string,
        expiresAt: Date,
        now: Date
      ): Effect.Effect<Admission | undefined, never, Db.Db> =>
        Effect.suspend(() =>
          Sql.preparedRows(
            ADMIT_FRESH_ASSERTION,
            appId,
            jti,
            expiresAt,
            now,
            windowEdge(now, TOKEN_RATE_WINDOW_SECONDS),
            randomUUID()
          )
        ).pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : toAdmission(rows[0])))),

      /**
       * A client_credentials request in ONE statement (one round trip; spec 5.2 and 7.2): `client` is the active
       * Application with this `client_id` and an unrevoked secret whose SHA-256 digest (lower-case hex) is
       * `secretDigest`; only when there is one is the request judged and recorded by `admission`
       * ({@link admissionCtes}: an unauthenticated request spends nothing of the client's window), and `used` marks the
       * secret used when `last_used_at` is older than {@link LAST_USED_PRECISION_MS}. Undefined when no active
       * Application has this client_id and secret (the caller answers `invalid_client`).
       *
       * The digest is compared by PostgreSQL's `=`: what its timing could reveal is a prefix of a SHA-256 digest,
       * which gives no way to a 256-bit secret (the presented secret itself is never compared).
       *
       * tooling/scripts/src/internal/BaselineServer.ts runs this same statement (`TOKEN_SQL`): change both together.
       */
      admitApplication: (
        clientId: string,
        secretDigest: string,
        now: Date
      ): Effect.Effect<AdmittedApplication | undefined, never, Db.Db> =>
        Effect.suspend(() =>
          Sql.preparedRows(
            ADMIT_APPLICATION,
            clientId,
            secretDigest,
            now,
            windowEdge(now, TOKEN_RATE_WINDOW_SECONDS),
            randomUUID(),
            new Date(now.getTime() - LAST_USED_PRECISION_MS)
          )
        ).pipe(
          Effect.map((rows): AdmittedApplication | undefined => {
            const row = rows[0]
            return row === undefined
              ? undefined
              : {
                  id: row.id,
                  organizationId: row.organizationId,
                  roles: row.roles as ReadonlyArray<Role>,
                  contextIds: row.contextIds,
                  admission: toAdmission(row)
                }
          })
        )
    }
  }
) {}

interface ApplicationAdmissionRow extends AdmissionRow {
  readonly id: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<string>
  readonly contextIds: ReadonlyArray<string>
}
