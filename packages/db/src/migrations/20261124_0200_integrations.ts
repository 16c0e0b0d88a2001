import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Integrations (issue 8; spec 4.2 "Integrations"; decisions 5 and 8):
 *
 * - `integration_configurations`: a configuration of a kind (billing, signing, booking) for an installation, its
 *   status and what its connector last reported (external account, declared gates, settings, failure reason).
 * - `integration_configuration_contexts`: its operational contexts. A point — a kind in a context — holds one
 *   ready configuration at a time: `filled` is true exactly while the configuration is ready, and a partial unique
 *   key on (kind, context) among filled rows settles two concurrent `ready` reports.
 * - `integration_connection_references`: the SHA-256 digests of the connection references Connect issued, each
 *   bound to its configuration's installation, working 10 minutes, once.
 *
 * `billing_integrations` (one row per organization) is carried over and dropped: each row becomes a billing
 * configuration of the organization's root context with the same status, gates and account, belonging to no
 * installation (no connector can reach it; an operator disconnects it once a connector's configuration is to take
 * its place). Billing reads its organization's ready billing configurations from now on.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table integration_configurations (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      installation_id uuid references installations (id),
      app_id text references connector_apps (id),
      kind text not null check (kind in ('billing', 'signing', 'booking')),
      status text not null check (status in ('pending', 'connecting', 'ready', 'failed', 'disconnected')),
      external_account_id text,
      external_account_name text,
      declared_gates text[] not null default '{}',
      settings jsonb,
      failure_reason text,
      created_at timestamptz not null,
      connected_at timestamptz,
      ready_at timestamptz,
      failed_at timestamptz,
      disconnected_at timestamptz,
      updated_at timestamptz not null,
      unique (id, kind),
      check ((installation_id is null) = (app_id is null)),
      check ((external_account_id is null) = (external_account_name is null)),
      check ((status = 'disconnected') = (disconnected_at is not null)),
      check (status <> 'failed' or failure_reason is not null)
    );
    create index integration_configurations_installation_idx
      on integration_configurations (installation_id, created_at, id);
    create index integration_configurations_ready_idx
      on integration_configurations (organization_id, kind) where status = 'ready';

    create table integration_configuration_contexts (
      configuration_id uuid not null,
      kind text not null,
      operational_context_id uuid not null references operational_contexts (id),
      filled boolean not null,
      primary key (configuration_id, operational_context_id),
      foreign key (configuration_id, kind) references integration_configurations (id, kind)
    );
    create unique index integration_points_filled_key
      on integration_configuration_contexts (kind, operational_context_id) where filled;

    create table integration_connection_references (
      digest text primary key,
      configuration_id uuid not null references integration_configurations (id),
      installation_id uuid not null references installations (id),
      issued_at timestamptz not null,
      expires_at timestamptz not null,
      redeemed_at timestamptz,
      voided_at timestamptz
    );
    create index integration_connection_references_configuration_idx
      on integration_connection_references (configuration_id);

    insert into integration_configurations (
      id, organization_id, installation_id, app_id, kind, status, external_account_id, external_account_name,
      declared_gates, settings, failure_reason, created_at, connected_at, ready_at, failed_at, disconnected_at,
      updated_at
    )
    select
      gen_random_uuid(), organization_id, null, null, 'billing', status, coalesce(external_account, provider), provider,
      declared_gates, null,
      case when status = 'failed' then 'Carried over from the former billing integration, which had failed.' end,
      created_at, created_at,
      case when status = 'ready' then updated_at end,
      case when status = 'failed' then updated_at end,
      null, updated_at
    from billing_integrations;

    insert into integration_configuration_contexts (configuration_id, kind, operational_context_id, filled)
    select configurations.id, 'billing', roots.id, configurations.status = 'ready'
    from integration_configurations as configurations
    inner join operational_contexts as roots
      on roots.organization_id = configurations.organization_id and roots.parent_id is null
    where configurations.installation_id is null;

    drop table billing_integrations;
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table billing_integrations (
      organization_id uuid primary key references organizations (id),
      provider text not null,
      status text not null check (status in ('connecting', 'ready', 'failed')),
      declared_gates text[] not null default '{}',
      external_account text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    insert into billing_integrations (
      organization_id, provider, status, declared_gates, external_account, created_at, updated_at
    )
    select distinct on (organization_id)
      organization_id, coalesce(external_account_name, app_id, 'unknown'), status, declared_gates,
      external_account_id, created_at, updated_at
    from integration_configurations
    where kind = 'billing' and status in ('connecting', 'ready', 'failed')
    order by organization_id, status = 'ready' desc, updated_at desc;

    drop table integration_connection_references;
    drop table integration_configuration_contexts;
    drop table integration_configurations;
  `)
}
