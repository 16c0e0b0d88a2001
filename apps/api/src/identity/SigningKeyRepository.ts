/**
 * SQL of the access-token signing keys (`signing_keys`; decisions 3): the keys, their sealed private JWKs
 * (`private_jwk_envelope`, `platform/KeyEncryption`) and the advisory lock that serialises every change of the
 * table across instances. Statements run on the fiber's transaction (`Sql.transaction`); failures are defects.
 */
import type * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"
import * as Sql from "../platform/Sql.js"

/** The only signing algorithm (decisions 3). */
export const SIGNING_ALGORITHM = "ES256"

/** A stored key as {@link SigningKeyRepository} reads and writes it. */
export interface SigningKeyRow {
  readonly kid: string
  /** Sealed; plaintext only in a row another (older) instance wrote after this one started. */
  readonly privateJwkEnvelope: string | null
  readonly privateJwk: Record<string, unknown> | null
  readonly publicJwk: Record<string, unknown>
  readonly createdAt: Date
  /** When it starts signing (a pre-published key); `null`: from `createdAt`. */
  readonly activatesAt: Date | null
  readonly retiredAt: Date | null
}

/** A stored private key as the sealing pass reads it. */
export interface StoredPrivateKey {
  readonly kid: string
  readonly privateJwk: Record<string, unknown> | null
  readonly privateJwkEnvelope: string | null
}

export class SigningKeyRepository extends Effect.Service<SigningKeyRepository>()(
  "@propline/api/identity/SigningKeyRepository",
  {
    succeed: {
      /**
       * Takes the table's transaction-scoped advisory lock (any constant works as long as every instance uses the
       * same one; `hashtext` keeps it readable in pg_locks). Call inside `Sql.transaction`.
       */
      lock: Sql.query((db) => sql`select pg_advisory_xact_lock(hashtext('propline.signing_keys'))`.execute(db)).pipe(
        Effect.asVoid
      ) satisfies Effect.Effect<void, never, Db.Db>,

      /** Every stored key's private part, by kid. */
      privateKeys: Sql.query(
        (db): Promise<ReadonlyArray<StoredPrivateKey>> =>
          db.selectFrom("signingKeys").select(["kid", "privateJwk", "privateJwkEnvelope"]).orderBy("kid").execute()
      ),

      /** Stores `envelope` as the key's sealed private JWK and drops any plaintext one. */
      setEnvelope: (kid: string, envelope: string) =>
        Sql.query((db) =>
          db.updateTable("signingKeys").set({ privateJwk: null, privateJwkEnvelope: envelope }).where("kid", "=", kid).execute()
        ).pipe(Effect.asVoid),

      /** Whether any key is active (not retired). */
      hasActiveKey: Sql.query((db) =>
        db.selectFrom("signingKeys").select("kid").where("retiredAt", "is", null).limit(1).executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

      /** Inserts a new key (signing from `activatesAt`, or at once), its private JWK sealed only. */
      insert: (key: SigningKeyRow) =>
        Sql.query((db) =>
          db
            .insertInto("signingKeys")
            .values({
              kid: key.kid,
              algorithm: SIGNING_ALGORITHM,
              privateJwk: null,
              privateJwkEnvelope: key.privateJwkEnvelope,
              publicJwk: key.publicJwk,
              createdAt: key.createdAt,
              activatesAt: key.activatesAt,
              retiredAt: null
            })
            .execute()
        ).pipe(Effect.asVoid),

      /**
       * The keys published at `nowMs` (milliseconds): active and pre-published ones, and ones retired less than
       * `retentionSeconds` ago; newest activation (`activates_at`, else `created_at`) first.
       */
      published: (nowMs: number, retentionSeconds: number) =>
        Sql.query(
          (db): Promise<ReadonlyArray<SigningKeyRow>> =>
            db
              .selectFrom("signingKeys")
              .select(["kid", "privateJwkEnvelope", "privateJwk", "publicJwk", "createdAt", "activatesAt", "retiredAt"])
              .where((eb) =>
                eb.or([eb("retiredAt", "is", null), eb("retiredAt", ">", new Date(nowMs - retentionSeconds * 1000))])
              )
              .orderBy(sql`coalesce(activates_at, created_at)`, "desc")
              .orderBy("kid")
              .execute()
        ),

      /** Retires every key not retired yet as of `at` (a rotation's activation instant). */
      retireActive: (at: Date) =>
        Sql.query((db) => db.updateTable("signingKeys").set({ retiredAt: at }).where("retiredAt", "is", null).execute()).pipe(
          Effect.asVoid
        )
    }
  }
) {}
