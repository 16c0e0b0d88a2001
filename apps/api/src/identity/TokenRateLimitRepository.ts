/**
 * SQL of the token rate limit (spec 7.2 and 8; decisions 3; `@propline/identity/RateLimitWindow`): one row per
 * client in `token_rate_limits` with the arrivals of its admitted requests of the last 60 seconds.
 */
import { TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS, windowEdge } from "@propline/identity/RateLimitWindow"
import { Effect } from "effect"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import * as Sql from "../platform/Sql.js"

/** `last_used_at` of a secret is written when older than this, in milliseconds. */
export const LAST_USED_PRECISION_MS = 60_000

/** What {@link TokenRateLimitRepository} `admit` answers: whether this request was admitted, and the window. */
export interface Admission {
  readonly admitted: boolean
  /** The client's admissions in the window after this request (this one included when admitted), as recorded. */
  readonly admittedAt: ReadonlyArray<Date>
}

export class TokenRateLimitRepository extends Effect.Service<TokenRateLimitRepository>()(
  "@propline/api/identity/TokenRateLimitRepository",
  {
    succeed: {
      /**
       * Judges a request of `clientKey` arriving at `now` against its sliding window and, when admitted, records
       * it, in ONE statement (one round trip, atomic across instances):
       * - `admission` upserts the client's row. `on conflict do update` locks the row and computes from its
       *   latest version, so concurrent requests of one client, on any instance, are judged one after another and
       *   never both take the 60th place. From the row's arrivals it keeps those after `RateLimitWindow.windowEdge`
       *   (`now − 60 s`, to the millisecond); when fewer than `TOKEN_RATE_LIMIT` remain it appends `now` and
       *   stamps the row with this request's random admission id. `returning` says whether the stamp is ours and
       *   gives the window, from which a refusal's `Retry-After` is computed (`RateLimitWindow.judgeRequestRate`).
       *   A refused request rewrites the row without itself, so the row never holds more than 60 arrivals.
       * - `used` marks the secret `secretId` (none for a connector) used when `last_used_at` is older than
       *   {@link LAST_USED_PRECISION_MS}.
       * These are bookkeeping writes, so the statement commits without waiting for the WAL flush
       * (`synchronous_commit off` for this transaction only): a crash can lose the last few admissions, never a
       * business record.
       *
       * tooling/scripts/src/internal/BaselineServer.ts runs this same statement (`RATE_SQL`): change both together.
       */
      admit: (clientKey: string, secretId: string | null, now: Date) =>
        Effect.suspend(() => {
          const edge = windowEdge(now, TOKEN_RATE_WINDOW_SECONDS)
          const usedBefore = new Date(now.getTime() - LAST_USED_PRECISION_MS)
          const admission = randomUUID()
          return Sql.query((db) =>
            sql<{ readonly admitted: boolean; readonly admittedAt: ReadonlyArray<Date | string> }>`
              with settings as (select set_config('synchronous_commit', 'off', true)),
              admission as (
                insert into token_rate_limits as r (client_id, admitted_at, last_admission_id)
                select ${clientKey}, array[${now}::timestamptz], ${admission}::uuid from settings
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
                where id = ${secretId} and (last_used_at is null or last_used_at <= ${usedBefore})
              )
              select admitted, admitted_at as "admittedAt" from admission
            `.execute(db)
          )
        }).pipe(
          Effect.flatMap((result) => {
            const row = result.rows[0]
            return row === undefined
              ? Effect.die(new Error("the rate-limit statement returned no row"))
              : Effect.succeed<Admission>({ admitted: row.admitted, admittedAt: row.admittedAt.map((at) => new Date(at)) })
          })
        )
    }
  }
) {}
