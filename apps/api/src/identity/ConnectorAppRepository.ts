/**
 * SQL of connector apps and their ES256 public keys (decisions 2; spec 5.3).
 */
import type { AppKey, AppPublicJwk, ConnectorAppRecord } from "@propline/identity/ConnectorApp"
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import * as Sql from "../platform/Sql.js"
import type * as Db from "@propline/db/Db"

/** The primary key of `connector_apps`: it settles two registrations of one app id racing. */
export const CONNECTOR_APPS_PKEY = "connector_apps_pkey"

/**
 * The name and the setup URL of the connector app `column` holds (a snake_case `table.column`; null when it holds
 * none), as scalar subqueries for another capability's read model (integrations' configurations) that shows them
 * without reading this table itself.
 */
export const connectorAppNameOf = (column: string): RawBuilder<string | null> =>
  sql`(select name from connector_apps where id = ${sql.ref(column)})`
export const connectorAppSetupUrlOf = (column: string): RawBuilder<string | null> =>
  sql`(select setup_url from connector_apps where id = ${sql.ref(column)})`

/**
 * The ids of the connector apps the organization published (registered in the console), as a parenthesized subquery
 * for `in`: the audit log shows those apps' entries to the organization's operators.
 */
export const connectorAppsPublishedBy = (organizationId: string): RawBuilder<string> =>
  sql`(select app_id from connector_app_publishers where organization_id = ${organizationId})`

const keyRow = (appId: string, key: AppKey) => ({
  appId,
  kid: key.kid,
  publicJwk: { ...key.publicJwk },
  status: key.status,
  addedAt: key.addedAt,
  retiredAt: key.retiredAt
})

export class ConnectorAppRepository extends Effect.Service<ConnectorAppRepository>()(
  "@propline/api/identity/ConnectorAppRepository",
  {
    succeed: {
      /** Whether an app with this id is registered. */
      /** Records `organizationId` as the app's publisher (it registered the app in the console) at `at`. */
      addPublisher: (appId: string, organizationId: string, at: Date) =>
        Sql.query((db) => db.insertInto("connectorAppPublishers").values({ appId, organizationId, createdAt: at }).execute()).pipe(
          Effect.asVoid
        ),

      exists: (appId: string) =>
        Sql.query((db) => db.selectFrom("connectorApps").select("id").where("id", "=", appId).executeTakeFirst()).pipe(
          Effect.map((row) => row !== undefined)
        ),

      /**
       * Inserts an app and its keys; fails with `onTaken()` when another request registered the id first (the
       * primary key decides).
       */
      insert: <E>(record: ConnectorAppRecord, onTaken: () => E) =>
        Effect.zipRight(
          Sql.catchUniqueViolation(
            (db) =>
              db
                .insertInto("connectorApps")
                .values({
                  id: record.id,
                  name: record.name,
                  setupUrl: record.setupUrl,
                  createdAt: record.createdAt,
                  updatedAt: record.updatedAt
                })
                .execute(),
            CONNECTOR_APPS_PKEY,
            onTaken
          ),
          Sql.query((db) =>
            db
              .insertInto("connectorAppKeys")
              .values(record.keys.map((key) => keyRow(record.id, key)))
              .execute()
          )
        ),

      /** The app with all its keys (in the order added), locked for the transaction; undefined when unknown. */
      lock: (appId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("connectorApps")
            .selectAll("connectorApps")
            .where("connectorApps.id", "=", appId)
            .forUpdate()
            .executeTakeFirst()
        ).pipe(
          Effect.flatMap((app) =>
            app === undefined
              ? Effect.succeed(undefined)
              : Sql.query((db) =>
                  db
                    .selectFrom("connectorAppKeys")
                    .selectAll()
                    .where("appId", "=", appId)
                    .orderBy("addedAt")
                    .orderBy("kid")
                    .execute()
                ).pipe(
                  Effect.map(
                    (keys): ConnectorAppRecord => ({
                      id: app.id,
                      name: app.name,
                      setupUrl: app.setupUrl,
                      createdAt: app.createdAt,
                      updatedAt: app.updatedAt,
                      keys: keys.map((key) => ({
                        kid: key.kid,
                        publicJwk: key.publicJwk as unknown as AppPublicJwk,
                        status: key.status,
                        addedAt: key.addedAt,
                        retiredAt: key.retiredAt
                      }))
                    })
                  )
                )
          )
        ),

      /** Inserts one new key and stamps the app's `updated_at`. */
      insertKey: (record: ConnectorAppRecord, key: AppKey) =>
        Effect.zipRight(
          Sql.query((db) => db.insertInto("connectorAppKeys").values(keyRow(record.id, key)).execute()),
          Sql.query((db) =>
            db.updateTable("connectorApps").set({ updatedAt: record.updatedAt }).where("id", "=", record.id).execute()
          )
        ),

      /** Writes one key's status and retirement time and stamps the app's `updated_at`. */
      updateKey: (record: ConnectorAppRecord, key: AppKey) =>
        Effect.zipRight(
          Sql.query((db) =>
            db
              .updateTable("connectorAppKeys")
              .set({ status: key.status, retiredAt: key.retiredAt })
              .where("appId", "=", record.id)
              .where("kid", "=", key.kid)
              .execute()
          ),
          Sql.query((db) =>
            db.updateTable("connectorApps").set({ updatedAt: record.updatedAt }).where("id", "=", record.id).execute()
          )
        ),

      /**
       * The token endpoint's one read for an installation-token request: the app's ACTIVE key with this kid (its
       * public JWK), and the installation with this id if it belongs to the app (its organization, status, roles
       * and granted contexts, by id in id order; the installation's fields null when there is none). Undefined
       * when the app has no such active key. `installationId` is a UUID, or null for one that cannot exist.
       *
       * A plain statement (`Sql.rows`: no query builder walked per request), the text kysely wrote for it before;
       * tooling/scripts/src/internal/InstallationGrantBaseline.ts runs the same text (`KEY_SQL`): change both
       * together.
       */
      activeKeyAndInstallation: (
        appId: string,
        kid: string,
        installationId: string | null
      ): Effect.Effect<ActiveKeyAndInstallation | undefined, never, Db.Db> =>
        Effect.map(
          Sql.rows(
            sql<ActiveKeyAndInstallationRow>`select "connector_app_keys"."public_jwk", "installations"."id" as "installation_id", "installations"."organization_id", "installations"."status", "installations"."roles", (select coalesce(json_agg(agg), '[]') from (select "installation_contexts"."operational_context_id" from "installation_contexts" where "installation_contexts"."installation_id" = "installations"."id" order by "installation_contexts"."operational_context_id") as agg) as "contexts" from "connector_app_keys" left join "installations" on installations.id = ${installationId}::uuid and "installations"."app_id" = "connector_app_keys"."app_id" where "connector_app_keys"."app_id" = ${appId} and "connector_app_keys"."kid" = ${kid} and "connector_app_keys"."status" = ${"active"}`
          ),
          (rows): ActiveKeyAndInstallation | undefined => {
            const row = rows[0]
            return row === undefined
              ? undefined
              : {
                  publicJwk: row.public_jwk,
                  installationId: row.installation_id,
                  organizationId: row.organization_id,
                  status: row.status,
                  roles: row.roles,
                  contextIds: row.contexts.map((context) => context.operational_context_id)
                }
          }
        )
    }
  }
) {}

/** What {@link ConnectorAppRepository} `activeKeyAndInstallation` answers. */
export interface ActiveKeyAndInstallation {
  readonly publicJwk: Record<string, unknown>
  /** The installation's fields: null when the request named none of this app's. */
  readonly installationId: string | null
  readonly organizationId: string | null
  readonly status: "active" | "suspended" | "removed" | null
  readonly roles: ReadonlyArray<string> | null
  /** Granted contexts, by id, in id order (none without an installation). */
  readonly contextIds: ReadonlyArray<string>
}

interface ActiveKeyAndInstallationRow {
  readonly public_jwk: Record<string, unknown>
  readonly installation_id: string | null
  readonly organization_id: string | null
  readonly status: ActiveKeyAndInstallation["status"]
  readonly roles: ReadonlyArray<string> | null
  readonly contexts: ReadonlyArray<{ readonly operational_context_id: string }>
}
