import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Webhooks (issue 22, items 2 and 3): endpoints, one delivery per (event, endpoint) and each delivery's attempts.
 *
 * An endpoint is an organization's own (`app_id` null) or a connector app's one webhook (`app_id` set, at most one
 * per app; its organization is the app's publisher). Secrets are sealed at rest (AES-256-GCM envelopes, as the
 * other keys): the current one, and while a rotation overlaps (24 h) the previous one with its end. The fan-out
 * makes at most one delivery per (event, endpoint) (`webhook_deliveries_event_key`, manual redeliveries aside), in
 * the publisher's transaction. The delivery jobs themselves live in pg-boss's own schema (`pgboss`), which pg-boss
 * creates and migrates at start-up.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table webhook_endpoints (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      app_id text references connector_apps (id),
      url text not null,
      description text not null,
      event_types text[] not null,
      context_ids uuid[] not null,
      status text not null check (status in ('enabled', 'disabled')),
      disabled_reason text check (disabled_reason in ('operator', 'failing')),
      disabled_at timestamptz,
      failing_since timestamptz,
      secret_envelope text not null,
      secret_last_four text not null,
      previous_secret_envelope text,
      previous_secret_expires_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((status = 'disabled') = (disabled_reason is not null) and (disabled_at is null) = (status = 'enabled')),
      check ((previous_secret_envelope is null) = (previous_secret_expires_at is null))
    );
    create unique index webhook_endpoints_app_key on webhook_endpoints (app_id) where app_id is not null;
    create index webhook_endpoints_organization_idx on webhook_endpoints (organization_id, created_at, id);

    create table webhook_deliveries (
      id uuid primary key,
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      organization_id uuid not null references organizations (id),
      event_id uuid not null,
      event_type text not null,
      payload text not null,
      status text not null check (status in ('pending', 'delivered', 'failed')),
      attempt_count integer not null default 0,
      last_attempt_at timestamptz,
      last_status_code integer,
      next_attempt_at timestamptz,
      delivered_at timestamptz,
      manual boolean not null,
      created_at timestamptz not null
    );
    create unique index webhook_deliveries_event_key on webhook_deliveries (event_id, endpoint_id) where not manual;
    create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at, id);
    create index webhook_deliveries_event_idx on webhook_deliveries (event_id);

    create table webhook_attempts (
      delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
      number integer not null,
      started_at timestamptz not null,
      latency_ms integer not null,
      status_code integer,
      error text,
      response_body text not null,
      primary key (delivery_id, number)
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table webhook_attempts;
    drop table webhook_deliveries;
    drop table webhook_endpoints;
    drop schema if exists pgboss cascade;
  `)
}
