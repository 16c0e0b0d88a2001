/** The console's organization page as a read model: the organization, its context tree and its record counts. */
import { Effect } from "effect"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"

export class OrganizationReadRepository extends Effect.Service<OrganizationReadRepository>()("@propline/api/contexts/OrganizationReadRepository", {
  succeed: spanned("OrganizationReadRepository", {
    /** The organization's id, name and country; RecordNotFound when it is gone. */
    organization: (organizationId: string) =>
      Sql.query((db) =>
        db.selectFrom("organizations").select(["id", "name", "country"]).where("id", "=", organizationId).executeTakeFirst()
      ).pipe(
        Effect.flatMap((row) => (row === undefined ? new RecordNotFound({ kind: "organization" }) : Effect.succeed(row))),
        Effect.withSpan("OrganizationReadRepository.organization", { captureStackTrace: false })
      ),

    /** Every operational context of the organization, by creation then id. */
    contexts: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operationalContexts")
          .select(["id", "parentId", "kind", "name", "createdAt"])
          .where("organizationId", "=", organizationId)
          .orderBy("createdAt")
          .orderBy("id")
          .execute()
      ),

    /** How many customers, contracts, Applications and operators it holds, in one round trip. */
    counts: (organizationId: string) =>
      Sql.query((db) =>
        db
          .selectNoFrom((eb) => [
            eb.selectFrom("customers").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("customers"),
            eb.selectFrom("contracts").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("contracts"),
            eb.selectFrom("applications").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("applications"),
            eb.selectFrom("operators").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("operators")
          ])
          .executeTakeFirstOrThrow()
      ).pipe(
        Effect.map((row) => ({
          customers: Number(row.customers),
          contracts: Number(row.contracts),
          applications: Number(row.applications),
          operators: Number(row.operators)
        }))
      ),

    /** Which of `ids` are operational contexts of the organization. */
    ownContextIds: (organizationId: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlySet<string>>(new Set())
        : Sql.query((db) =>
            db.selectFrom("operationalContexts").select("id").where("organizationId", "=", organizationId).where("id", "in", ids).execute()
          ).pipe(Effect.map((rows): ReadonlySet<string> => new Set(rows.map((row) => row.id))))
  })
}) {}
