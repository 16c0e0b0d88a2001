import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Sign-in throttling per (account, client address) (issue 19, item 6). `operator_sign_in_throttle` counted failures
 * per e-mail address and per client in a fixed 15-minute window, so five wrong passwords from anywhere locked the
 * real operator out. `operator_sign_in_failures` counts consecutive failures of one e-mail address from one client
 * address, with the instant before which that pair's next attempt is refused. The old counts are not carried over:
 * they are at most 15 minutes of bookkeeping.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table operator_sign_in_throttle;

    create table operator_sign_in_failures (
      email text not null,
      client_address text not null,
      failure_count integer not null check (failure_count > 0),
      last_failure_at timestamptz not null,
      blocked_until timestamptz not null,
      last_attempt_id uuid not null,
      primary key (email, client_address)
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table operator_sign_in_failures;

    create table operator_sign_in_throttle (
      key text primary key,
      window_start timestamptz not null,
      failure_count integer not null
    );
  `)
}
