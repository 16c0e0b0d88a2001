/**
 * SQL of Applications (spec 5.2; decisions 2, 3): the Application with its granted contexts, its secrets (only their
 * SHA-256 digests). The token endpoint's statement is `TokenRateLimitRepository.admitApplication`. Other
 * capabilities' read models show or count Applications through {@link applicationNameOf} and {@link applicationCountOf}.
 */
import type { ApplicationRecord, SecretRecord } from "@propline/identity/Application"
import type { Role } from "@propline/identity/AccessTokenClaims"
import type { Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type ExpressionBuilder, type RawBuilder, sql } from "kysely"
import { jsonArrayFrom } from "kysely/helpers/postgres"
import * as Sql from "../platform/Sql.js"

/**
 * The name of the Application whose id `column` holds as text (a snake_case `table.column`, such as the audit log's
 * actor id; null when no Application has it), as a scalar subquery for another capability's read model.
 */
export const applicationNameOf = (column: string): RawBuilder<string | null> =>
  sql`(select name from applications where id::text = ${sql.ref(column)})`

/** How many Applications the organization has, as a scalar subquery (the console's organization page). */
export const applicationCountOf = (organizationId: string): RawBuilder<number> =>
  sql`(select count(*) from applications where organization_id = ${organizationId})`

/** The Application's granted context ids, as `contexts` (one round trip with the Application). */
const applicationContexts = (eb: ExpressionBuilder<Database, "applications">) =>
  jsonArrayFrom(
    eb
      .selectFrom("applicationContexts")
      .select("applicationContexts.operationalContextId")
      .whereRef("applicationContexts.applicationId", "=", "applications.id")
      .orderBy("applicationContexts.operationalContextId")
  ).as("contexts")

const replaceContexts = (applicationId: string, contextIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* Sql.query((db) => db.deleteFrom("applicationContexts").where("applicationId", "=", applicationId).execute())
    if (contextIds.length === 0) return
    yield* Sql.query((db) =>
      db
        .insertInto("applicationContexts")
        .values(contextIds.map((operationalContextId) => ({ applicationId, operationalContextId })))
        .execute()
    )
  })

export class ApplicationRepository extends Effect.Service<ApplicationRepository>()(
  "@propline/api/identity/ApplicationRepository",
  {
    succeed: {
      /** Inserts a new Application and its granted contexts. */
      insert: (record: ApplicationRecord) =>
        Effect.zipRight(
          Sql.query((db) =>
            db
              .insertInto("applications")
              .values({
                id: record.id,
                organizationId: record.organizationId,
                clientId: record.clientId,
                name: record.name,
                roles: [...record.roles],
                status: record.status,
                disabledAt: record.disabledAt,
                createdAt: record.createdAt,
                updatedAt: record.updatedAt
              })
              .execute()
          ),
          replaceContexts(record.id, record.contextIds)
        ),

      /** Whether an Application of the organization exists (booking's operators grant it resources). */
      existsInOrganization: (organizationId: string, applicationId: string) =>
        Sql.query((db) =>
          db.selectFrom("applications").select("id").where("organizationId", "=", organizationId).where("id", "=", applicationId).executeTakeFirst()
        ).pipe(Effect.map((row) => row !== undefined)),

      /** The Application, locked for the rest of the transaction; undefined when there is none with this id. */
      lock: (applicationId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("applications")
            .selectAll("applications")
            .select(applicationContexts)
            .where("applications.id", "=", applicationId)
            .forUpdate("applications")
            .executeTakeFirst()
        ).pipe(
          Effect.map((row): ApplicationRecord | undefined =>
            row === undefined
              ? undefined
              : {
                  id: row.id,
                  organizationId: row.organizationId,
                  clientId: row.clientId,
                  name: row.name,
                  roles: row.roles as ReadonlyArray<Role>,
                  contextIds: row.contexts.map((context) => context.operationalContextId),
                  status: row.status,
                  disabledAt: row.disabledAt,
                  createdAt: row.createdAt,
                  updatedAt: row.updatedAt
                }
          )
        ),

      /** Writes status, roles and times; replaces the granted contexts when `contextsChanged`. */
      update: (record: ApplicationRecord, contextsChanged: boolean) =>
        Effect.zipRight(
          Sql.query((db) =>
            db
              .updateTable("applications")
              .set({
                roles: [...record.roles],
                status: record.status,
                disabledAt: record.disabledAt,
                updatedAt: record.updatedAt
              })
              .where("id", "=", record.id)
              .execute()
          ),
          contextsChanged ? replaceContexts(record.id, record.contextIds) : Effect.void
        ),

      /** The Application's active secrets, oldest first. */
      activeSecrets: (applicationId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("applicationSecrets")
            .select(["id", "applicationId", "lastFour", "createdAt", "revokedAt"])
            .where("applicationId", "=", applicationId)
            .where("revokedAt", "is", null)
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
        ).pipe(Effect.map((rows): ReadonlyArray<SecretRecord> => rows)),

      /** Inserts a secret's record with its digest (lower-case hex SHA-256 of the whole secret). */
      insertSecret: (record: SecretRecord, secretDigest: string) =>
        Sql.query((db) =>
          db
            .insertInto("applicationSecrets")
            .values({ ...record, secretDigest, lastUsedAt: null })
            .execute()
        ).pipe(Effect.asVoid),

      /** Writes a secret's revocation time. */
      revokeSecret: (record: SecretRecord) =>
        Sql.query((db) =>
          db.updateTable("applicationSecrets").set({ revokedAt: record.revokedAt }).where("id", "=", record.id).execute()
        ).pipe(Effect.asVoid)
    }
  }
) {}
