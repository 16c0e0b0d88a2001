/**
 * SQL of operators (identity owns the `operators` table: an operator is an identity, as an Application is): the admin
 * host signs operators in and keeps their sessions through {@link OperatorRepository} and {@link activeOperators};
 * other capabilities' read models show or count operators through {@link operatorEmailOf} and
 * {@link operatorCountOf}.
 */
import type { Database, OperatorRole } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type RawBuilder, sql } from "kysely"
import * as Sql from "../platform/Sql.js"

/**
 * The statement of the active operators (`id`, `organizationId`, `email`, `name`, `role`): what the admin host joins a live
 * session to, in its own statement.
 */
export const activeOperators = (db: Kysely<Database>) =>
  db.selectFrom("operators").select(["id", "organizationId", "email", "name", "role"]).where("status", "=", "active")

/**
 * The e-mail address of the operator whose id `column` holds as text (a snake_case `table.column`, such as the audit
 * log's actor id; null when no operator has it), as a scalar subquery.
 */
export const operatorEmailOf = (column: string): RawBuilder<string | null> =>
  sql`(select email from operators where id::text = ${sql.ref(column)})`

/** How many operators the organization has, as a scalar subquery (the console's organization page). */
export const operatorCountOf = (organizationId: string): RawBuilder<number> =>
  sql`(select count(*) from operators where organization_id = ${organizationId})`

export class OperatorRepository extends Effect.Service<OperatorRepository>()("@propline/api/identity/OperatorRepository", {
  succeed: {
    /** The operator with this (lower-cased) e-mail address, or undefined. */
    findByEmail: (email: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .select(["id", "organizationId", "email", "name", "passwordHash", "status", "role", "totpSecretEnvelope"])
          .where("email", "=", email)
          .executeTakeFirst()
      ),

    /** The organization's operator `id` (active or not) with its secrets, locked for the change; undefined when none. */
    lock: (organizationId: string, id: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .selectAll()
          .where("organizationId", "=", organizationId)
          .where("id", "=", id)
          .forUpdate()
          .executeTakeFirst()
      ),

    /** The organization of operator `id` (any status); a missing operator is a defect (callers hold its session). */
    organizationOf: (id: string) =>
      Sql.query((db) => db.selectFrom("operators").select("organizationId").where("id", "=", id).executeTakeFirstOrThrow()).pipe(
        Effect.orDie,
        Effect.map((row) => row.organizationId)
      ),

    /** The organization's active operators, oldest first. */
    team: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .select(["id", "email", "name", "role", "createdAt", "totpEnabledAt"])
          .where("organizationId", "=", organizationId)
          .where("status", "=", "active")
          .orderBy("createdAt")
          .orderBy("id")
          .execute()
      ),

    /**
     * The ids of the organization's active owners, each row locked: a change that could leave no owner takes these
     * locks first, so two concurrent demotions of the last two owners run one after the other.
     */
    lockOwners: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .select("id")
          .where("organizationId", "=", organizationId)
          .where("status", "=", "active")
          .where("role", "=", "owner")
          .orderBy("id")
          .forUpdate()
          .execute()
      ).pipe(Effect.map((rows) => rows.map((row) => row.id))),

    /** Whether any operator (active or not, any organization) has this lower-case address. */
    emailTaken: (email: string) =>
      Sql.query((db) => db.selectFrom("operators").select("id").where("email", "=", email).executeTakeFirst()).pipe(
        Effect.map((row) => row !== undefined)
      ),

    /** A new active operator. */
    insert: (row: {
      readonly id: string
      readonly organizationId: string
      readonly email: string
      readonly name: string
      readonly passwordHash: string
      readonly role: OperatorRole
      readonly now: Date
    }) =>
      Sql.query((db) =>
        db
          .insertInto("operators")
          .values({
            id: row.id,
            organizationId: row.organizationId,
            email: row.email,
            name: row.name,
            passwordHash: row.passwordHash,
            status: "active",
            role: row.role,
            createdAt: row.now,
            updatedAt: row.now
          })
          .execute()
      ),

    /** Sets some of an operator's columns (role, status, password hash, second factor). */
    update: (
      id: string,
      changes: {
        readonly role?: OperatorRole
        readonly status?: "active" | "disabled"
        readonly passwordHash?: string
        readonly totpSecretEnvelope?: string | null
        readonly totpPendingEnvelope?: string | null
        readonly totpEnabledAt?: Date | null
      },
      now: Date
    ) => Sql.query((db) => db.updateTable("operators").set({ ...changes, updatedAt: now }).where("id", "=", id).execute()),

    /**
     * Every operator's sealed TOTP secrets (the confirmed one and an enrolment's pending one), by id, each row locked:
     * the re-sealing under a new key-encryption key at start-up. Call inside `Sql.transaction`.
     */
    sealedTotpSecrets: Sql.query((db) =>
      db
        .selectFrom("operators")
        .select(["id", "totpSecretEnvelope", "totpPendingEnvelope"])
        .where((eb) => eb.or([eb("totpSecretEnvelope", "is not", null), eb("totpPendingEnvelope", "is not", null)]))
        .orderBy("id")
        .forUpdate()
        .execute()
    ),

    /**
     * Stores an operator's TOTP envelopes re-sealed (the same secrets under another key-encryption key): not a change
     * of the operator, so `updated_at` stays.
     */
    setTotpEnvelopes: (id: string, envelopes: { readonly totpSecretEnvelope: string | null; readonly totpPendingEnvelope: string | null }) =>
      Sql.query((db) => db.updateTable("operators").set(envelopes).where("id", "=", id).execute()).pipe(Effect.asVoid),

    /**
     * Records that a TOTP code of time step `step` was used: true when `step` is later than the last one used, so
     * a code (or an earlier one) is accepted at most once, whatever runs concurrently.
     */
    useTotpStep: (id: string, step: number) =>
      Sql.query((db) =>
        db.updateTable("operators").set({ totpLastStep: step }).where("id", "=", id).where("totpLastStep", "<", String(step)).executeTakeFirst()
      ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),

    /** Replaces the operator's recovery codes with these digests (none: drops them). */
    replaceRecoveryCodes: (operatorId: string, digests: ReadonlyArray<string>, now: Date) =>
      Effect.zipRight(
        Sql.query((db) => db.deleteFrom("operatorRecoveryCodes").where("operatorId", "=", operatorId).execute()),
        digests.length === 0
          ? Effect.void
          : Effect.asVoid(
              Sql.query((db) =>
                db
                  .insertInto("operatorRecoveryCodes")
                  .values(digests.map((codeDigest) => ({ operatorId, codeDigest, createdAt: now, usedAt: null })))
                  .execute()
              )
            )
      ),

    /** Uses an unused recovery code of the operator: true when it was one (it is used now, once). */
    useRecoveryCode: (operatorId: string, digest: string, now: Date) =>
      Sql.query((db) =>
        db
          .updateTable("operatorRecoveryCodes")
          .set({ usedAt: now })
          .where("operatorId", "=", operatorId)
          .where("codeDigest", "=", digest)
          .where("usedAt", "is", null)
          .executeTakeFirst()
      ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),

    /** How many unused recovery codes the operator has. */
    recoveryCodesLeft: (operatorId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorRecoveryCodes")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("operatorId", "=", operatorId)
          .where("usedAt", "is", null)
          .executeTakeFirstOrThrow()
      ).pipe(Effect.map((row) => Number(row.n)))
  }
}) {}
