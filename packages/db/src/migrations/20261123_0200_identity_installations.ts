import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Identity, complete (issue 7; issue 12 item 2):
 *
 * - `token_rate_limits` replaces `token_rate_windows`: the token rate limit becomes an exact sliding window, one row
 *   per client holding the arrivals of its admitted requests of the last 60 seconds (`RateLimitWindow`), so that
 *   one upsert locks the client's row and judges concurrent requests of any instance one after the other.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table token_rate_windows;

    create table token_rate_limits (
      client_id text primary key,
      admitted_at timestamptz[] not null,
      last_admission_id uuid not null
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table token_rate_limits;

    create table token_rate_windows (
      client_id text not null,
      window_start timestamptz not null,
      request_count integer not null,
      primary key (client_id, window_start)
    );
  `)
}
