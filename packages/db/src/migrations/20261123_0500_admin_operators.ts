import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * The admin console's operators (issue 11): people who sign in with an e-mail and a password (argon2id hash) and
 * act in one organization; their server-side sessions (only a SHA-256 digest of the cookie's token is stored,
 * beside the session's CSRF token); and failed sign-in counts per e-mail address and per client address, the
 * throttle that holds across instances.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table operators (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      email text not null,
      name text not null,
      password_hash text not null,
      status text not null check (status in ('active', 'disabled')),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (email = lower(email))
    );
    create unique index operators_email_key on operators (email);
    create index operators_organization_idx on operators (organization_id);

    create table operator_sessions (
      id uuid primary key,
      operator_id uuid not null references operators (id),
      token_digest text not null unique,
      csrf_token text not null,
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      expires_at timestamptz not null,
      ended_at timestamptz
    );
    create index operator_sessions_operator_idx on operator_sessions (operator_id);

    create table operator_sign_in_throttle (
      key text primary key,
      window_start timestamptz not null,
      failure_count integer not null
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table operator_sign_in_throttle;
    drop table operator_sessions;
    drop table operators;
  `)
}
