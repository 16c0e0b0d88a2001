import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * The first schema: tenancy (organizations, operational contexts), customers and contracts, billing (invoice
 * runs, charges, proposals, invoices, lines), identity (Applications, secrets, signing keys, token-rate windows),
 * audit log and event outbox. Money columns are bigint minor units; dates are `date`; times are `timestamptz`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table organizations (
      id uuid primary key,
      name text not null,
      country char(2) not null,
      next_invoice_number bigint not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table operational_contexts (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      parent_id uuid references operational_contexts (id),
      kind text not null check (kind in ('organization', 'region', 'property', 'building')),
      name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((kind = 'organization') = (parent_id is null))
    );
    create index operational_contexts_organization_idx on operational_contexts (organization_id);
    create index operational_contexts_parent_idx on operational_contexts (parent_id);

    create table customers (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      customer_number text not null,
      name text not null,
      kind text not null check (kind in ('company', 'private')),
      country char(2) not null,
      organisation_number text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (organization_id, customer_number)
    );

    create table billing_accounts (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      customer_id uuid not null references customers (id),
      name text not null,
      email text,
      address_line text,
      postal_code text,
      city text,
      country char(2) not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table contracts (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      customer_id uuid not null references customers (id),
      billing_account_id uuid not null references billing_accounts (id),
      contract_number text not null,
      currency char(3) not null,
      payment_terms_days integer not null check (payment_terms_days >= 0),
      starts_on date not null,
      ends_on date,
      status text not null check (status in ('active', 'terminated')),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (organization_id, contract_number)
    );

    create table contract_lines (
      id uuid primary key,
      contract_id uuid not null references contracts (id),
      description text not null,
      monthly_net_minor_units bigint not null,
      vat_rate_basis_points integer not null check (vat_rate_basis_points between 0 and 10000),
      created_at timestamptz not null
    );

    create table billing_integrations (
      organization_id uuid primary key references organizations (id),
      provider text not null,
      status text not null check (status in ('connecting', 'ready', 'failed')),
      declared_gates text[] not null default '{}',
      external_account text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table invoice_runs (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      period_start date not null,
      period_end date not null,
      status text not null check (status in ('draft', 'approved')),
      approved_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table invoices (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      invoice_run_id uuid not null references invoice_runs (id),
      operational_context_id uuid not null references operational_contexts (id),
      contract_id uuid not null references contracts (id),
      recipient_agent_id uuid not null references customers (id),
      recipient_agent_name text not null,
      billing_account_id uuid not null references billing_accounts (id),
      document_kind text not null check (document_kind in ('invoice', 'credit-note')),
      credited_invoice_id uuid references invoices (id),
      billing_stream text not null check (billing_stream in ('contractual', 'running')),
      requested_invoice_date date not null,
      requested_due_date date,
      payment_terms_days bigint check (payment_terms_days >= 0),
      invoice_number bigint not null,
      status text not null check (status in ('created', 'approved', 'sent', 'paid', 'written-off', 'failed')),
      currency char(3) not null,
      total_net_minor_units bigint not null,
      total_vat_minor_units bigint not null,
      total_gross_minor_units bigint not null,
      external_reference text,
      issued_invoice_number text,
      issued_invoice_date date,
      due_date date,
      issued_total_gross_minor_units bigint,
      payment_reference text,
      payment_reference_type text check (payment_reference_type in ('ocr', 'kid', 'reference')),
      document_url text,
      balance_minor_units bigint,
      approved_at timestamptz,
      sent_at timestamptz,
      paid_at timestamptz,
      written_off_at timestamptz,
      failed_at timestamptz,
      failure_reason text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((document_kind = 'credit-note') = (credited_invoice_id is not null)),
      constraint invoices_invoice_number_key unique (organization_id, invoice_number),
      constraint invoices_external_reference_key unique (organization_id, external_reference)
    );
    create index invoices_send_queue_idx on invoices (organization_id, status, approved_at, id);

    create table invoice_proposals (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      invoice_run_id uuid not null references invoice_runs (id),
      invoice_number bigint,
      operational_context_id uuid not null references operational_contexts (id),
      contract_id uuid not null references contracts (id),
      recipient_agent_id uuid not null references customers (id),
      recipient_agent_name text not null,
      billing_account_id uuid not null references billing_accounts (id),
      document_kind text not null check (document_kind in ('invoice', 'credit-note')),
      credited_invoice_id uuid references invoices (id),
      billing_stream text not null check (billing_stream in ('contractual', 'running')),
      requested_invoice_date date not null,
      requested_due_date date,
      payment_terms_days bigint check (payment_terms_days >= 0),
      status text not null check (status in ('proposed', 'passed', 'rejected', 'cancelled')),
      currency char(3) not null,
      total_net_minor_units bigint not null,
      total_vat_minor_units bigint not null,
      total_gross_minor_units bigint not null,
      external_reference text,
      rejection_reason text,
      passed_at timestamptz,
      rejected_at timestamptz,
      cancelled_at timestamptz,
      invoice_id uuid references invoices (id),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint invoice_proposals_invoice_number_key unique (organization_id, invoice_number)
    );
    create index invoice_proposals_queue_idx on invoice_proposals (organization_id, status, created_at, id);

    create table charges (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      contract_id uuid not null references contracts (id),
      contract_line_id uuid references contract_lines (id),
      period_start date not null,
      period_end date not null,
      description text not null,
      net_minor_units bigint not null,
      vat_rate_basis_points integer not null,
      invoice_id uuid references invoices (id),
      created_at timestamptz not null
    );

    create table document_lines (
      id uuid primary key,
      proposal_id uuid references invoice_proposals (id),
      invoice_id uuid references invoices (id),
      charge_id uuid references charges (id),
      position integer not null,
      description text not null,
      net_minor_units bigint not null,
      vat_rate_basis_points integer not null,
      vat_minor_units bigint not null,
      gross_minor_units bigint not null,
      check ((proposal_id is null) <> (invoice_id is null))
    );
    create index document_lines_proposal_idx on document_lines (proposal_id);
    create index document_lines_invoice_idx on document_lines (invoice_id);

    create table applications (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      client_id text not null unique,
      name text not null,
      roles text[] not null default '{}',
      status text not null check (status in ('active', 'disabled')),
      disabled_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table application_contexts (
      application_id uuid not null references applications (id),
      operational_context_id uuid not null references operational_contexts (id),
      primary key (application_id, operational_context_id)
    );

    create table application_secrets (
      id uuid primary key,
      application_id uuid not null references applications (id),
      secret_digest text not null unique,
      last_four text not null,
      created_at timestamptz not null,
      revoked_at timestamptz,
      last_used_at timestamptz
    );
    create index application_secrets_application_idx on application_secrets (application_id);

    create table signing_keys (
      kid text primary key,
      algorithm text not null check (algorithm = 'ES256'),
      private_jwk jsonb not null,
      public_jwk jsonb not null,
      created_at timestamptz not null,
      retired_at timestamptz
    );

    create table token_rate_windows (
      client_id text not null,
      window_start timestamptz not null,
      request_count integer not null,
      primary key (client_id, window_start)
    );

    create table audit_log (
      id uuid primary key,
      organization_id uuid references organizations (id),
      actor_type text not null,
      actor_id text not null,
      action text not null,
      target_type text not null,
      target_id text not null,
      request_id text,
      details jsonb not null default '{}',
      occurred_at timestamptz not null
    );
    create index audit_log_organization_idx on audit_log (organization_id, occurred_at);

    create table events (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      type text not null,
      payload jsonb not null,
      occurred_at timestamptz not null,
      delivered_at timestamptz
    );
    create index events_undelivered_idx on events (occurred_at) where delivered_at is null;
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table events;
    drop table audit_log;
    drop table token_rate_windows;
    drop table signing_keys;
    drop table application_secrets;
    drop table application_contexts;
    drop table applications;
    drop table document_lines;
    drop table charges;
    drop table invoice_proposals;
    drop table invoices;
    drop table invoice_runs;
    drop table billing_integrations;
    drop table contract_lines;
    drop table contracts;
    drop table billing_accounts;
    drop table customers;
    drop table operational_contexts;
    drop table organizations;
  `)
}
