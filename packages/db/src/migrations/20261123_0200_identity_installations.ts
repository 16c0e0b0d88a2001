import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Identity, complete (issue 7; issue 12 item 2):
 *
 * - `token_rate_limits` replaces `token_rate_windows`: the token rate limit becomes an exact sliding window, one row
 *   per client holding the arrivals of its admitted requests of the last 60 seconds (`RateLimitWindow`), so that
 *   one upsert locks the client's row and judges concurrent requests of any instance one after the other.
 * - Connector apps with their ES256 public keys, installations (status, roles, granted contexts; at most one live
 *   installation of an app per organization, a partial unique index), and the consumed assertion `jti`s (a primary
 *   key, so a `jti` works once across every instance; spec 5.3, decisions 3).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table token_rate_windows;

    create table token_rate_limits (
      client_id text primary key,
      admitted_at timestamptz[] not null,
      last_admission_id uuid not null
    );

    create table connector_apps (
      id text primary key,
      name text not null,
      setup_url text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table connector_app_keys (
      app_id text not null references connector_apps (id),
      kid text not null,
      public_jwk jsonb not null,
      status text not null check (status in ('active', 'retired')),
      added_at timestamptz not null,
      retired_at timestamptz,
      primary key (app_id, kid),
      check ((status = 'retired') = (retired_at is not null))
    );

    create table installations (
      id uuid primary key,
      app_id text not null references connector_apps (id),
      organization_id uuid not null references organizations (id),
      status text not null check (status in ('active', 'suspended', 'removed')),
      roles text[] not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      suspended_at timestamptz,
      removed_at timestamptz,
      check ((status = 'removed') = (removed_at is not null))
    );
    create unique index installations_live_key on installations (app_id, organization_id) where status <> 'removed';
    create index installations_organization_idx on installations (organization_id);

    create table installation_contexts (
      installation_id uuid not null references installations (id),
      operational_context_id uuid not null references operational_contexts (id),
      primary key (installation_id, operational_context_id)
    );

    create table consumed_assertions (
      app_id text not null references connector_apps (id),
      jti text not null,
      expires_at timestamptz not null,
      consumed_at timestamptz not null,
      primary key (app_id, jti)
    );
    create index consumed_assertions_expiry_idx on consumed_assertions (expires_at);
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table consumed_assertions;
    drop table installation_contexts;
    drop table installations;
    drop table connector_app_keys;
    drop table connector_apps;
    drop table token_rate_limits;

    create table token_rate_windows (
      client_id text not null,
      window_start timestamptz not null,
      request_count integer not null,
      primary key (client_id, window_start)
    );
  `)
}
