/**
 * SQL of installations (decisions 2; spec 5.3, 5.5): an installation with its granted contexts.
 */
import type { Role } from "@propline/identity/AccessTokenClaims"
import type { InstallationRecord, LiveInstallation } from "@propline/identity/Installation"
import type { Database, InstallationTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type ExpressionBuilder, type RawBuilder, type Selectable, sql } from "kysely"
import { jsonArrayFrom } from "kysely/helpers/postgres"
import * as Sql from "../platform/Sql.js"

/** The partial unique key on (app, organization) of installations that are not removed. */
export const INSTALLATIONS_LIVE_KEY = "installations_live_key"

/**
 * The status of the installation `column` holds (a snake_case `table.column`; null when it holds none), as a
 * scalar subquery for another capability's read model (integrations' configurations) that shows it without
 * reading this table itself.
 */
export const installationStatusOf = (column: string): RawBuilder<InstallationTable["status"] | null> =>
  sql`(select status from installations where id = ${sql.ref(column)})`

type Row = Selectable<InstallationTable> & { readonly contexts: ReadonlyArray<{ readonly operationalContextId: string }> }

const toRecord = (row: Row): InstallationRecord => ({
  id: row.id,
  appId: row.appId,
  organizationId: row.organizationId,
  status: row.status,
  roles: row.roles as ReadonlyArray<Role>,
  contextIds: row.contexts.map((context) => context.operationalContextId),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  suspendedAt: row.suspendedAt,
  removedAt: row.removedAt
})

const replaceContexts = (installationId: string, contextIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* Sql.query((db) => db.deleteFrom("installationContexts").where("installationId", "=", installationId).execute())
    if (contextIds.length === 0) return
    yield* Sql.query((db) =>
      db
        .insertInto("installationContexts")
        .values(contextIds.map((operationalContextId) => ({ installationId, operationalContextId })))
        .execute()
    )
  })

/** The installation's granted context ids, as `contexts` (one round trip with the installation). */
export const installationContexts = (eb: ExpressionBuilder<Database, "installations">) =>
  jsonArrayFrom(
    eb
      .selectFrom("installationContexts")
      .select("installationContexts.operationalContextId")
      .whereRef("installationContexts.installationId", "=", "installations.id")
      .orderBy("installationContexts.operationalContextId")
  ).as("contexts")

export class InstallationRepository extends Effect.Service<InstallationRepository>()(
  "@propline/api/identity/InstallationRepository",
  {
    succeed: {
      /**
       * An installation that is not removed, locked for the transaction; undefined when there is none with this id
       * or it was removed. `id` must be a UUID.
       */
      lockLive: (id: string) =>
        Sql.query((db) =>
          db
            .selectFrom("installations")
            .selectAll("installations")
            .select(installationContexts)
            .where("installations.id", "=", id)
            .where("installations.status", "<>", "removed")
            .forUpdate("installations")
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : (toRecord(row) as LiveInstallation)))),

      /** The organization's installation of the app that is not removed, if any. */
      liveOf: (appId: string, organizationId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("installations")
            .selectAll("installations")
            .select(installationContexts)
            .where("installations.appId", "=", appId)
            .where("installations.organizationId", "=", organizationId)
            .where("installations.status", "<>", "removed")
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row)))),

      /**
       * Inserts a new installation and its contexts; fails with `onConflict()` when another request installed the
       * app into the organization first (the partial unique key decides).
       */
      insert: <E>(record: InstallationRecord, onConflict: () => E) =>
        Effect.zipRight(
          Sql.catchUniqueViolation(
            (db) =>
              db
                .insertInto("installations")
                .values({
                  id: record.id,
                  appId: record.appId,
                  organizationId: record.organizationId,
                  status: record.status,
                  roles: [...record.roles],
                  createdAt: record.createdAt,
                  updatedAt: record.updatedAt,
                  suspendedAt: record.suspendedAt,
                  removedAt: record.removedAt
                })
                .execute(),
            INSTALLATIONS_LIVE_KEY,
            onConflict
          ),
          replaceContexts(record.id, record.contextIds)
        ),

      /** Writes status, roles and times; replaces the granted contexts when `contextsChanged`. */
      update: (record: InstallationRecord, contextsChanged: boolean) =>
        Effect.zipRight(
          Sql.query((db) =>
            db
              .updateTable("installations")
              .set({
                status: record.status,
                roles: [...record.roles],
                updatedAt: record.updatedAt,
                suspendedAt: record.suspendedAt,
                removedAt: record.removedAt
              })
              .where("id", "=", record.id)
              .execute()
          ),
          contextsChanged ? replaceContexts(record.id, record.contextIds) : Effect.void
        )
    }
  }
) {}
