import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * The token-signing private keys and the URL-signing keys sealed at rest (issue 19, item 7): each row gains an
 * envelope column (AES-256-GCM under a key-encryption key from the environment; the API writes and reads it, see
 * `apps/api/src/platform/KeyEncryption.ts`) and its plaintext column becomes nullable. A row holds one or the
 * other. The migration can't encrypt (it has no key-encryption key): the API's start-up seals every plaintext row
 * it finds and clears its plaintext, in the same transaction.
 *
 * `down` can't decrypt either: it deletes the rows that hold only an envelope and restores the plaintext columns.
 * The older version then makes fresh keys at start, so tokens signed in the last 10 minutes and outstanding upload
 * and download addresses stop verifying.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table signing_keys alter column private_jwk drop not null;
    alter table signing_keys add column private_jwk_envelope text;
    alter table signing_keys add constraint signing_keys_private_key_stored
      check ((private_jwk is null) <> (private_jwk_envelope is null));

    alter table url_signing_keys alter column secret drop not null;
    alter table url_signing_keys add column secret_envelope text;
    alter table url_signing_keys add constraint url_signing_keys_secret_stored
      check ((secret is null) <> (secret_envelope is null));
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    delete from url_signing_keys where secret is null;
    alter table url_signing_keys drop constraint url_signing_keys_secret_stored;
    alter table url_signing_keys drop column secret_envelope;
    alter table url_signing_keys alter column secret set not null;

    delete from signing_keys where private_jwk is null;
    alter table signing_keys drop constraint signing_keys_private_key_stored;
    alter table signing_keys drop column private_jwk_envelope;
    alter table signing_keys alter column private_jwk set not null;
  `)
}
