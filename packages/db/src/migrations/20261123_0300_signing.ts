import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Signing (spec 4.2, decisions 6): stored documents (the contract PDF sent for signature, the signed PDF that
 * comes back), signing attempts with their parties and signers, upload addresses for the signed PDF, the
 * contract's signing status (it follows its newest attempt), and the key that signs short-lived file addresses.
 *
 * The database holds the rules a race could break: one live attempt per contract (a partial unique index), one
 * party of a kind and one signer per e-mail address per attempt, one stored PDF per upload address.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table contracts add column signing_status text not null default 'unsent'
      check (signing_status in ('unsent', 'queued', 'started', 'signed', 'declined', 'expired', 'failed', 'withdrawn'));

    create table signing_documents (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      kind text not null check (kind in ('contract', 'signed')),
      storage_key text not null unique,
      file_name text not null,
      content_type text not null,
      size_bytes bigint not null check (size_bytes >= 0),
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      created_at timestamptz not null
    );

    create table signing_attempts (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      operational_context_id uuid not null references operational_contexts (id),
      contract_id uuid not null references contracts (id),
      status text not null
        check (status in ('queued', 'started', 'signed', 'declined', 'expired', 'failed', 'withdrawn')),
      title text not null,
      document_id uuid not null references signing_documents (id),
      provider_document_id text,
      withdrawal_requested_at timestamptz,
      declined_by_party_id uuid,
      decline_reason text,
      failure_reason text,
      signed_document_upload_id uuid,
      queued_at timestamptz not null,
      started_at timestamptz,
      signed_at timestamptz,
      declined_at timestamptz,
      expired_at timestamptz,
      failed_at timestamptz,
      withdrawn_at timestamptz,
      updated_at timestamptz not null,
      check (status <> 'queued' or started_at is null),
      check (status not in ('started', 'signed', 'declined', 'expired') or started_at is not null),
      check ((status = 'signed') = (signed_at is not null and signed_document_upload_id is not null)),
      check ((status = 'declined') = (declined_at is not null and declined_by_party_id is not null)),
      check ((status = 'expired') = (expired_at is not null)),
      check ((status = 'failed') = (failed_at is not null and failure_reason is not null)),
      check ((status = 'withdrawn') = (withdrawn_at is not null and withdrawal_requested_at is not null))
    );
    create unique index signing_attempts_one_live_per_contract
      on signing_attempts (contract_id) where status in ('queued', 'started');
    create index signing_attempts_signing_queue_idx
      on signing_attempts (organization_id, queued_at, id) where status = 'queued' and withdrawal_requested_at is null;
    create index signing_attempts_withdrawal_queue_idx
      on signing_attempts (organization_id, withdrawal_requested_at, id)
      where status in ('queued', 'started') and withdrawal_requested_at is not null;
    create index signing_attempts_contract_idx on signing_attempts (contract_id, queued_at);

    create table signing_parties (
      id uuid primary key,
      signing_attempt_id uuid not null references signing_attempts (id),
      position integer not null check (position >= 0),
      kind text not null check (kind in ('customer', 'organization')),
      name text not null,
      unique (signing_attempt_id, kind),
      unique (signing_attempt_id, position)
    );

    alter table signing_attempts add constraint signing_attempts_declined_by_party_fkey
      foreign key (declined_by_party_id) references signing_parties (id);

    create table signing_signers (
      id uuid primary key,
      signing_attempt_id uuid not null references signing_attempts (id),
      signing_party_id uuid not null references signing_parties (id),
      position integer not null check (position >= 0),
      name text not null,
      email text not null,
      role text not null check (role in ('signatory', 'approver', 'viewer')),
      signing_order integer not null check (signing_order >= 1),
      unique (signing_party_id, position)
    );
    create unique index signing_signers_one_email_per_attempt on signing_signers (signing_attempt_id, lower(email));

    create table signed_document_uploads (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      signing_attempt_id uuid not null references signing_attempts (id),
      declared_size_bytes bigint not null check (declared_size_bytes between 1 and 26214400),
      declared_sha256 text not null check (declared_sha256 ~ '^[0-9a-f]{64}$'),
      status text not null check (status in ('pending', 'stored')),
      document_id uuid unique references signing_documents (id),
      expires_at timestamptz not null,
      created_at timestamptz not null,
      stored_at timestamptz,
      check ((status = 'stored') = (document_id is not null and stored_at is not null))
    );
    create index signed_document_uploads_attempt_idx on signed_document_uploads (signing_attempt_id);

    alter table signing_attempts add constraint signing_attempts_signed_document_upload_fkey
      foreign key (signed_document_upload_id) references signed_document_uploads (id);

    create table url_signing_keys (
      id text primary key,
      secret text not null,
      created_at timestamptz not null
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table url_signing_keys;
    alter table signing_attempts drop constraint signing_attempts_signed_document_upload_fkey;
    drop table signed_document_uploads;
    drop table signing_signers;
    alter table signing_attempts drop constraint signing_attempts_declined_by_party_fkey;
    drop table signing_parties;
    drop table signing_attempts;
    drop table signing_documents;
    alter table contracts drop column signing_status;
  `)
}
