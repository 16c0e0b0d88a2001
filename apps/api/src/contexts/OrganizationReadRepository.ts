/**
 * The console's organization page as a read model: the organization, its context tree and its record counts (other
 * capabilities' records, counted through the owners' fragments: {@link OrganizationRecordCounts}).
 */
import { Effect } from "effect"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { OrganizationRecordCounts } from "./OrganizationRecordCounts.js"

export class OrganizationReadRepository extends Effect.Service<OrganizationReadRepository>()("@propline/api/contexts/OrganizationReadRepository", {
  effect: Effect.map(OrganizationRecordCounts, (counted) => spanned("OrganizationReadRepository", {
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
          .selectNoFrom([
            counted.customers(organizationId).as("customers"),
            counted.contracts(organizationId).as("contracts"),
            counted.applications(organizationId).as("applications"),
            counted.operators(organizationId).as("operators")
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
  }))
}) {}
