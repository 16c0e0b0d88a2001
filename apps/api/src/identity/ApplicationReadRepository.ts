/** The console's Application pages as a read model: summaries, granted contexts and secrets' public facts. */
import { Effect } from "effect"
import { sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { containing, keyed } from "../platform/ConsoleListing.js"

const summaryColumns = [
  "applications.id",
  "applications.clientId",
  "applications.name",
  "applications.roles",
  "applications.status",
  "applications.createdAt",
  "applications.disabledAt",
  sql<number>`(select count(*) from application_secrets s where s.application_id = applications.id and s.revoked_at is null)`.as(
    "activeSecretCount"
  )
] as const

export interface ApplicationFilter {
  /** Matches the name or the client_id. */
  readonly q: string | undefined
  readonly status: "active" | "disabled" | undefined
}

export class ApplicationReadRepository extends Effect.Service<ApplicationReadRepository>()("@propline/api/identity/ApplicationReadRepository", {
  succeed: spanned("ApplicationReadRepository", {
    /**
     * The Applications with these ids as another capability's page names them (booking's sellers of a resource):
     * id, name and client id, by name then id.
     */
    named: (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : Sql.query((db) =>
            db.selectFrom("applications").select(["id", "name", "clientId"]).where("id", "in", ids).orderBy("name").orderBy("id").execute()
          ),

    /** A page of the organization's Applications, newest first. */
    list: (organizationId: string, filter: ApplicationFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("applications")
          .select(summaryColumns)
          .select(CursorPage.sortKey("applications.createdAt").as("cursorAt"))
          .where("applications.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("applications.createdAt", "applications.id", after))
        if (filter.q !== undefined) {
          const pattern = containing(filter.q)
          query = query.where((eb) => eb.or([eb("applications.name", "ilike", pattern), eb("applications.clientId", "ilike", pattern)]))
        }
        if (filter.status !== undefined) query = query.where("applications.status", "=", filter.status)
        return query.orderBy("applications.createdAt", "desc").orderBy("applications.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-applications", keyed(rows), limit))),

    /**
     * An Application of the organization with its granted contexts and its secrets (active first, newest first);
     * RecordNotFound when it is another organization's or none.
     */
    detail: (organizationId: string, applicationId: string) =>
      Effect.gen(function* () {
        const application = yield* Sql.query((db) =>
          db
            .selectFrom("applications")
            .select(summaryColumns)
            .where("applications.organizationId", "=", organizationId)
            .where("applications.id", "=", applicationId)
            .executeTakeFirst()
        )
        if (application === undefined) return yield* new RecordNotFound({ kind: "Application" })
        const contexts = yield* Sql.query((db) =>
          db
            .selectFrom("applicationContexts")
            .select("operationalContextId")
            .where("applicationId", "=", applicationId)
            .orderBy("operationalContextId")
            .execute()
        )
        const secrets = yield* Sql.query((db) =>
          db
            .selectFrom("applicationSecrets")
            .select(["id", "lastFour", "createdAt", "revokedAt", "lastUsedAt"])
            .where("applicationId", "=", applicationId)
            .orderBy(sql`revoked_at is null`, "desc")
            .orderBy("createdAt", "desc")
            .orderBy("id")
            .execute()
        )
        return { application, contextIds: contexts.map((row) => row.operationalContextId), secrets }
      })
  })
}) {}
