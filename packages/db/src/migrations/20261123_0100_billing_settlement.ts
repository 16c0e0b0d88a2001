import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Billing, complete (decisions 4, 5): the money an ERP reports on a sent invoice — payments, their reversals,
 * write-offs, each unique per invoice by the caller's id so a repeated report can't record twice — deleted
 * invoices and their withdrawals, credit acts (idempotent by the operator's id) and which invoice line a credit
 * note's line credits. Charges are unique per contract line and period, so two invoice runs can't bill one month
 * twice.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table invoices add column deleted_at timestamptz;

    create table payments (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      invoice_id uuid not null references invoices (id),
      payment_id text not null,
      amount_minor_units bigint not null check (amount_minor_units <> 0),
      paid_on date not null,
      currency char(3) not null,
      recorded_at timestamptz not null,
      constraint payments_invoice_payment_key unique (invoice_id, payment_id)
    );

    create table payment_reversals (
      payment_row_id uuid primary key references payments (id),
      organization_id uuid not null references organizations (id),
      invoice_id uuid not null references invoices (id),
      reversed_on date not null,
      reason text,
      recorded_at timestamptz not null
    );
    create index payment_reversals_invoice_idx on payment_reversals (invoice_id);

    create table write_offs (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      invoice_id uuid not null references invoices (id),
      write_off_id text not null,
      amount_minor_units bigint not null check (amount_minor_units <> 0),
      written_off_on date not null,
      reason text,
      recorded_at timestamptz not null,
      constraint write_offs_invoice_write_off_key unique (invoice_id, write_off_id)
    );

    create table invoice_withdrawals (
      invoice_id uuid primary key references invoices (id),
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      invoice_number bigint not null,
      document_kind text not null check (document_kind in ('invoice', 'credit-note')),
      credited_invoice_id uuid references invoices (id),
      currency char(3) not null,
      total_gross_minor_units bigint not null,
      external_reference text,
      invoice_status text not null,
      status text not null check (status in ('pending', 'discarded')),
      deleted_at timestamptz not null,
      discarded_at timestamptz,
      updated_at timestamptz not null,
      check ((status = 'discarded') = (discarded_at is not null))
    );
    create index invoice_withdrawals_queue_idx on invoice_withdrawals (organization_id, status, deleted_at, invoice_id);

    create table credit_acts (
      organization_id uuid not null references organizations (id),
      credit_act_id text not null,
      invoice_id uuid not null references invoices (id),
      credit_note_id uuid not null references invoices (id),
      request jsonb not null,
      created_at timestamptz not null,
      primary key (organization_id, credit_act_id)
    );

    alter table document_lines add column credited_line_id uuid references document_lines (id);
    create index document_lines_credited_line_idx on document_lines (credited_line_id);

    create unique index charges_contract_line_period_key on charges (contract_line_id, period_start);
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop index charges_contract_line_period_key;
    alter table document_lines drop column credited_line_id;
    drop table credit_acts;
    drop table invoice_withdrawals;
    drop table write_offs;
    drop table payment_reversals;
    drop table payments;
    alter table invoices drop column deleted_at;
  `)
}
