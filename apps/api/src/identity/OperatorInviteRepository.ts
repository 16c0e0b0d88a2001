/**
 * SQL of operator invitations (`operator_invites`, identity's: an invitation makes an operator). The link's token is
 * kept as its SHA-256 only; an invitation is open while neither accepted nor revoked and before `expires_at`.
 */
import type { OperatorRole } from "@propline/db/Database"
import { Effect } from "effect"
import { sql } from "kysely"
import * as Sql from "../platform/Sql.js"

export class OperatorInviteRepository extends Effect.Service<OperatorInviteRepository>()("@propline/api/identity/OperatorInviteRepository", {
  succeed: {
    /** A new open invitation. */
    insert: (row: {
      readonly id: string
      readonly organizationId: string
      readonly email: string
      readonly role: OperatorRole
      readonly tokenDigest: string
      readonly invitedBy: string
      readonly now: Date
      readonly expiresAt: Date
    }) =>
      Sql.query((db) =>
        db
          .insertInto("operatorInvites")
          .values({
            id: row.id,
            organizationId: row.organizationId,
            email: row.email,
            role: row.role,
            tokenDigest: row.tokenDigest,
            invitedBy: row.invitedBy,
            createdAt: row.now,
            expiresAt: row.expiresAt,
            acceptedAt: null,
            revokedAt: null
          })
          .execute()
      ),

    /** The organization's open invitations at `now`, newest first, with the inviter's e-mail address. */
    open: (organizationId: string, now: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorInvites")
          .innerJoin("operators", "operators.id", "operatorInvites.invitedBy")
          .select([
            "operatorInvites.id",
            "operatorInvites.email",
            "operatorInvites.role",
            "operators.email as invitedBy",
            "operatorInvites.createdAt",
            "operatorInvites.expiresAt"
          ])
          .where("operatorInvites.organizationId", "=", organizationId)
          .where("operatorInvites.acceptedAt", "is", null)
          .where("operatorInvites.revokedAt", "is", null)
          .where("operatorInvites.expiresAt", ">", now)
          .orderBy("operatorInvites.createdAt", "desc")
          .orderBy("operatorInvites.id", "desc")
          .execute()
      ),

    /** Whether the organization has an open invitation for this address at `now`. */
    openFor: (organizationId: string, email: string, now: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorInvites")
          .select("id")
          .where("organizationId", "=", organizationId)
          .where("email", "=", email)
          .where("acceptedAt", "is", null)
          .where("revokedAt", "is", null)
          .where("expiresAt", ">", now)
          .executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

    /** Revokes the organization's open invitation `id`: true when it was open. */
    revoke: (organizationId: string, id: string, now: Date) =>
      Sql.query((db) =>
        db
          .updateTable("operatorInvites")
          .set({ revokedAt: now })
          .where("organizationId", "=", organizationId)
          .where("id", "=", id)
          .where("acceptedAt", "is", null)
          .where("revokedAt", "is", null)
          .where("expiresAt", ">", now)
          .executeTakeFirst()
      ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),

    /**
     * The open invitation with this token digest at `now`, with its organization's name and country; `lock` takes
     * its row lock (accepting it), so two acceptances of one link run one after the other and the second finds it
     * used.
     */
    findOpen: (tokenDigest: string, now: Date, lock: boolean) =>
      Sql.query((db) => {
        const query = db
          .selectFrom("operatorInvites")
          .select(["id", "organizationId", "email", "role", "invitedBy", "expiresAt"])
          .where("tokenDigest", "=", tokenDigest)
          .where("acceptedAt", "is", null)
          .where("revokedAt", "is", null)
          .where("expiresAt", ">", now)
        return (lock ? query.forUpdate() : query).executeTakeFirst()
      }),

    /** Marks an invitation accepted (used). */
    accept: (id: string, now: Date) =>
      Sql.query((db) => db.updateTable("operatorInvites").set({ acceptedAt: now }).where("id", "=", id).execute()),

    /** Revokes every open invitation of this address in the organization (a new one replaces them). */
    revokeFor: (organizationId: string, email: string, now: Date) =>
      Sql.rows(
        sql`update operator_invites set revoked_at = ${now}::timestamptz
            where organization_id = ${organizationId} and email = ${email} and accepted_at is null and revoked_at is null`
      ).pipe(Effect.asVoid)
  }
}) {}
