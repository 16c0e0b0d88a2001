import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * An organization's team of operators (issue 25, item 5): roles (`owner`, `admin`, `read_only`; every operator so
 * far becomes an owner, the one who had every right), single-use invitations (only the SHA-256 of the link's token
 * is kept), a TOTP second factor (the secret sealed under the key-encryption keys, the last time step used so a code
 * is never accepted twice) with ten single-use recovery codes (their SHA-256 only), and sessions that wait for the
 * second factor (`second_factor_pending`) and remember the client address they were opened from.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table operators
      add column role text not null default 'owner' check (role in ('owner', 'admin', 'read_only')),
      add column totp_secret_envelope text,
      add column totp_pending_envelope text,
      add column totp_enabled_at timestamptz,
      add column totp_last_step bigint not null default 0;
    alter table operators alter column role drop default;

    create table operator_invites (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      email text not null,
      role text not null check (role in ('owner', 'admin', 'read_only')),
      token_digest text not null unique,
      invited_by uuid not null references operators (id),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      revoked_at timestamptz
    );
    create index operator_invites_organization_idx on operator_invites (organization_id, created_at desc, id);

    create table operator_recovery_codes (
      operator_id uuid not null references operators (id),
      code_digest text not null,
      created_at timestamptz not null,
      used_at timestamptz,
      primary key (operator_id, code_digest)
    );

    alter table operator_sessions
      add column second_factor_pending boolean not null default false,
      add column client_address text;
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table operator_sessions drop column second_factor_pending, drop column client_address;
    drop table operator_recovery_codes;
    drop table operator_invites;
    alter table operators
      drop column role,
      drop column totp_secret_envelope,
      drop column totp_pending_envelope,
      drop column totp_enabled_at,
      drop column totp_last_step;
  `)
}
