/**
 * SQL of the URL-signing key (`url_signing_keys`, one row per key id): the key sealed at rest
 * (`secret_envelope`, `platform/KeyEncryption`). Statements run on the fiber's transaction (`Sql.transaction`);
 * failures are defects.
 */
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"

export class UrlSigningKeyRepository extends Effect.Service<UrlSigningKeyRepository>()(
  "@propline/api/storage/UrlSigningKeyRepository",
  {
    succeed: {
      /** Inserts the key `id` with this sealed secret unless a key `id` exists (then nothing changes). */
      insertIfAbsent: (id: string, secretEnvelope: string, now: Date) =>
        Sql.query((db) =>
          db
            .insertInto("urlSigningKeys")
            .values({ id, secret: null, secretEnvelope, createdAt: now })
            .onConflict((conflict) => conflict.column("id").doNothing())
            .execute()
        ).pipe(Effect.asVoid),

      /**
       * The key `id`, locked (`for update`) for the rest of the transaction: `secret` in plaintext (a database from
       * before sealing) or `secretEnvelope`. A missing key is a defect (callers insert it first).
       */
      lock: (id: string) =>
        Sql.query((db) =>
          db
            .selectFrom("urlSigningKeys")
            .select(["secret", "secretEnvelope"])
            .where("id", "=", id)
            .forUpdate()
            .executeTakeFirstOrThrow()
        ),

      /** Stores `secretEnvelope` as the key's sealed secret and drops any plaintext one. */
      setEnvelope: (id: string, secretEnvelope: string) =>
        Sql.query((db) =>
          db.updateTable("urlSigningKeys").set({ secret: null, secretEnvelope }).where("id", "=", id).execute()
        ).pipe(Effect.asVoid)
    }
  }
) {}
