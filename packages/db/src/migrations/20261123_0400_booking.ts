import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Booking (spec 4.2; decisions 7): bookable resources with their time rules and price rules, add-on products and
 * which resources offer them, which resources an Application may sell, and booking requests.
 *
 * No slot is sold twice, by PostgreSQL itself: `booking_requests_no_overlap` is an exclusion constraint over
 * `(resource_id, blocked)` for live requests, where `blocked` is the booking widened by the resource's buffers;
 * two live bookings of one resource whose buffered spans overlap cannot both be committed, whichever instance
 * or transaction writes them. `btree_gist` lets a GiST index compare the uuid with `=` (PGlite ships it as a
 * contrib extension, loaded by the Db layer; on PostgreSQL 13+ it is a trusted extension).
 *
 * Idempotency: `(application_id, request_id)` is unique, so the same requestId from the same Application can
 * create at most one request, however many arrive at once.
 *
 * Local times (`HH:MM`) are text read in the resource's IANA `time_zone`; times are `timestamptz`; money is
 * bigint minor units; VAT rates are basis points.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create extension if not exists btree_gist;

    create table booking_resources (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      kind text not null check (kind in ('room', 'desk', 'parking')),
      name text not null,
      description text,
      time_zone text not null,
      capacity integer not null check (capacity between 1 and 10000),
      currency char(3) not null,
      opening_hours jsonb not null check (jsonb_typeof(opening_hours -> 'weekly') = 'array' and jsonb_typeof(opening_hours -> 'closures') = 'array'),
      min_duration_minutes integer not null check (min_duration_minutes > 0),
      max_duration_minutes integer not null check (max_duration_minutes >= min_duration_minutes),
      duration_increment_minutes integer not null check (duration_increment_minutes > 0),
      start_increment_minutes integer not null check (start_increment_minutes between 1 and 1440),
      minimum_notice_minutes integer not null check (minimum_notice_minutes >= 0),
      horizon_days integer not null check (horizon_days >= 0),
      buffer_before_minutes integer not null check (buffer_before_minutes >= 0),
      buffer_after_minutes integer not null check (buffer_after_minutes >= 0),
      hold_minutes integer not null check (hold_minutes > 0),
      night_stays jsonb,
      status text not null default 'active' check (status in ('active', 'retired')),
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index booking_resources_context_idx on booking_resources (organization_id, operational_context_id);

    create table booking_price_rules (
      id uuid primary key,
      resource_id uuid not null references booking_resources (id) on delete cascade,
      position integer not null,
      name text not null,
      unit text not null check (unit in ('hour', 'half-day', 'day', 'session', 'night')),
      amount_minor_units bigint not null check (amount_minor_units between 0 and 10000000000),
      vat_rate_basis_points integer not null check (vat_rate_basis_points between 0 and 10000),
      weekdays smallint[] not null check (cardinality(weekdays) between 1 and 7),
      window_from text,
      window_to text,
      created_at timestamptz not null,
      unique (resource_id, position),
      check ((window_from is null) = (window_to is null))
    );

    create table booking_add_on_products (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      name text not null,
      description text,
      category text not null check (category in ('catering', 'equipment', 'service')),
      currency char(3) not null,
      unit_price_minor_units bigint not null check (unit_price_minor_units >= 0),
      vat_rate_basis_points integer not null check (vat_rate_basis_points between 0 and 10000),
      lead_time_minutes integer not null check (lead_time_minutes >= 0),
      cut_off_days_before integer check (cut_off_days_before >= 0),
      cut_off_time text,
      max_quantity_per_line integer not null check (max_quantity_per_line > 0),
      special_portions boolean not null,
      delivery_hours jsonb not null default '[]' check (jsonb_typeof(delivery_hours) = 'array'),
      retired_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((cut_off_days_before is null) = (cut_off_time is null))
    );
    create index booking_add_on_products_context_idx on booking_add_on_products (organization_id, operational_context_id);

    create table booking_resource_add_on_products (
      resource_id uuid not null references booking_resources (id) on delete cascade,
      add_on_product_id uuid not null references booking_add_on_products (id),
      position integer not null,
      primary key (resource_id, add_on_product_id)
    );

    create table booking_application_resources (
      application_id uuid not null references applications (id) on delete cascade,
      resource_id uuid not null references booking_resources (id) on delete cascade,
      created_at timestamptz not null,
      primary key (application_id, resource_id)
    );
    create index booking_application_resources_resource_idx on booking_application_resources (resource_id);

    create table booking_requests (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      resource_id uuid not null references booking_resources (id),
      application_id uuid not null references applications (id),
      request_id text not null,
      fingerprint text not null,
      status text not null check (status in ('pending', 'approved', 'declined', 'expired')),
      check_in_date date,
      check_out_date date,
      starts_at timestamptz not null,
      ends_at timestamptz not null,
      blocked tstzrange not null,
      nights integer,
      guest_name text not null,
      guest_email text not null,
      guest_phone text,
      company_country char(2),
      company_organisation_number text,
      company_name text,
      message text,
      add_ons jsonb not null check (jsonb_typeof(add_ons) = 'array'),
      price jsonb not null,
      currency char(3) not null,
      total_net_minor_units bigint not null,
      total_vat_minor_units bigint not null,
      total_gross_minor_units bigint not null,
      hold_expires_at timestamptz not null,
      approved_at timestamptz,
      declined_at timestamptz,
      decline_reason text,
      expired_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint booking_requests_request_id_key unique (application_id, request_id),
      constraint booking_requests_no_overlap exclude using gist (resource_id with =, blocked with &&)
        where (status in ('pending', 'approved')),
      check (starts_at < ends_at),
      check (lower(blocked) <= starts_at and upper(blocked) >= ends_at),
      check ((check_in_date is null) = (check_out_date is null)),
      check ((check_in_date is null) = (nights is null)),
      check ((company_country is null) = (company_organisation_number is null))
    );
    create index booking_requests_resource_idx on booking_requests (resource_id, starts_at);
    create index booking_requests_pending_idx on booking_requests (hold_expires_at) where status = 'pending';
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table booking_requests;
    drop table booking_application_resources;
    drop table booking_resource_add_on_products;
    drop table booking_add_on_products;
    drop table booking_price_rules;
    drop table booking_resources;
  `)
}
