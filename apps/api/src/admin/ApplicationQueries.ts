/** SQL of the console's Application pages (read only): summaries, granted contexts and secrets' public facts. */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"
import { containing, keyset, type Position } from "./AdminListing.js"

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

/** Applications, newest first; `limit + 1` rows. `q` matches the name or the client_id. */
export const applications = (
  organizationId: string,
  filter: { readonly q: string | undefined; readonly status: "active" | "disabled" | undefined },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = db
      .selectFrom("applications")
      .select(summaryColumns)
      .where("organizationId", "=", organizationId)
      .where(keyset("applications.created_at", "applications.id", "desc", after))
    if (filter.q !== undefined) {
      const pattern = containing(filter.q)
      query = query.where((eb) => eb.or([eb("name", "ilike", pattern), eb("clientId", "ilike", pattern)]))
    }
    if (filter.status !== undefined) query = query.where("status", "=", filter.status)
    return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)

/** One Application of the organization, or undefined (another organization's is undefined too). */
export const application = (organizationId: string, applicationId: string) =>
  Db.query((db) =>
    db
      .selectFrom("applications")
      .select(summaryColumns)
      .where("organizationId", "=", organizationId)
      .where("id", "=", applicationId)
      .executeTakeFirst()
  ).pipe(Effect.orDie)

export const contextIdsOf = (applicationId: string) =>
  Db.query((db) =>
    db
      .selectFrom("applicationContexts")
      .select("operationalContextId")
      .where("applicationId", "=", applicationId)
      .orderBy("operationalContextId")
      .execute()
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.operationalContextId))
  )

/** The Application's secrets, active first, newest first within each. */
export const secretsOf = (applicationId: string) =>
  Db.query((db) =>
    db
      .selectFrom("applicationSecrets")
      .select(["id", "lastFour", "createdAt", "revokedAt", "lastUsedAt"])
      .where("applicationId", "=", applicationId)
      .orderBy(sql`revoked_at is null`, "desc")
      .orderBy("createdAt", "desc")
      .orderBy("id")
      .execute()
  ).pipe(Effect.orDie)
