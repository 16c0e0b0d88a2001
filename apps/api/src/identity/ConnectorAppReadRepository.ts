/**
 * The console's connector app pages as a read model — every registered app's public facts with the operator's
 * organization's installation of it, an app's keys and that organization's installations — and the one record the
 * console keeps of its own: which organization published (registered) an app (`connector_app_publishers`).
 */
import { Effect } from "effect"
import { sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { installationContexts } from "./InstallationRepository.js"
import { containing, keyed } from "../platform/ConsoleListing.js"

export interface ConnectorAppFilter {
  /** Matches the app id or the name. */
  readonly q: string | undefined
  readonly installed: "yes" | "no" | undefined
  readonly published: "yes" | undefined
}

/** The summary columns of an app as `organizationId`'s operators see it. */
const summaryColumns = (organizationId: string) =>
  [
    "connectorApps.id",
    "connectorApps.name",
    "connectorApps.setupUrl",
    "connectorApps.createdAt",
    sql<number>`(select count(*) from connector_app_keys k where k.app_id = connector_apps.id and k.status = 'active')`.as("activeKeyCount"),
    sql<boolean>`exists (select 1 from connector_app_publishers p where p.app_id = connector_apps.id and p.organization_id = ${organizationId})`.as(
      "publishedByYou"
    ),
    sql<"active" | "suspended" | null>`(select i.status from installations i
      where i.app_id = connector_apps.id and i.organization_id = ${organizationId} and i.status <> 'removed')`.as("installationStatus")
  ] as const

export class ConnectorAppReadRepository extends Effect.Service<ConnectorAppReadRepository>()("@propline/api/identity/ConnectorAppReadRepository", {
  succeed: spanned("ConnectorAppReadRepository", {
    /** A page of every registered app, newest first, with the organization's installation status. */
    list: (organizationId: string, filter: ConnectorAppFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("connectorApps")
          .select(summaryColumns(organizationId))
          .select(CursorPage.sortKey("connectorApps.createdAt").as("cursorAt"))
        if (after !== undefined) query = query.where(CursorPage.before("connectorApps.createdAt", "connectorApps.id", after))
        if (filter.q !== undefined) {
          const pattern = containing(filter.q)
          query = query.where((eb) => eb.or([eb("connectorApps.id", "ilike", pattern), eb("connectorApps.name", "ilike", pattern)]))
        }
        if (filter.installed !== undefined) {
          const live = sql<boolean>`exists (select 1 from installations i
            where i.app_id = connector_apps.id and i.organization_id = ${organizationId} and i.status <> 'removed')`
          query = query.where(filter.installed === "yes" ? live : sql<boolean>`not ${live}`)
        }
        if (filter.published === "yes") {
          query = query.where(
            sql<boolean>`exists (select 1 from connector_app_publishers p where p.app_id = connector_apps.id and p.organization_id = ${organizationId})`
          )
        }
        return query.orderBy("connectorApps.createdAt", "desc").orderBy("connectorApps.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-connector-apps", keyed(rows), limit))),

    /**
     * An app with its keys (in the order added) and the organization's installations of it (the live one, and the
     * removed ones newest first); RecordNotFound when no app has this id.
     */
    detail: (organizationId: string, appId: string) =>
      Effect.gen(function* () {
        const app = yield* Sql.query((db) =>
          db.selectFrom("connectorApps").select(summaryColumns(organizationId)).where("connectorApps.id", "=", appId).executeTakeFirst()
        )
        if (app === undefined) return yield* new RecordNotFound({ kind: "connector app" })
        const keys = yield* Sql.query((db) =>
          db
            .selectFrom("connectorAppKeys")
            .select(["kid", "status", "publicJwk", "addedAt", "retiredAt"])
            .where("appId", "=", appId)
            .orderBy("addedAt")
            .orderBy("kid")
            .execute()
        )
        const installations = yield* Sql.query((db) =>
          db
            .selectFrom("installations")
            .select([
              "installations.id",
              "installations.appId",
              "installations.status",
              "installations.roles",
              "installations.createdAt",
              "installations.suspendedAt",
              "installations.removedAt",
              installationContexts
            ])
            .where("installations.appId", "=", appId)
            .where("installations.organizationId", "=", organizationId)
            .orderBy("installations.createdAt", "desc")
            .orderBy("installations.id")
            .execute()
        )
        return { app, keys, installations }
      }),

    /** The organization's installations that are not removed, with their app's name, by app name then id. */
    liveInstallations: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("installations")
          .innerJoin("connectorApps", "connectorApps.id", "installations.appId")
          .select([
            "installations.id",
            "installations.appId",
            "connectorApps.name as appName",
            "installations.status",
            "installations.roles",
            installationContexts
          ])
          .where("installations.organizationId", "=", organizationId)
          .where("installations.status", "<>", "removed")
          .orderBy("connectorApps.name")
          .orderBy("installations.id")
          .execute()
      ),

    /** The app id of the organization's installation with this id (removed ones too), or undefined. */
    appOfInstallation: (organizationId: string, installationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("installations")
          .select("appId")
          .where("id", "=", installationId)
          .where("organizationId", "=", organizationId)
          .executeTakeFirst()
      ).pipe(Effect.map((row) => row?.appId)),

    /** Whether the organization published (registered in the console) the app. */
    publishes: (organizationId: string, appId: string) =>
      Sql.query((db) =>
        db.selectFrom("connectorAppPublishers").select("appId").where("appId", "=", appId).where("organizationId", "=", organizationId).executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined))
  })
}) {}
