/**
 * Operational contexts a principal can see: the contexts granted to it and every context below them
 * (decisions 2), within its own organization.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"
import type { Position } from "../http/Cursor.js"

/**
 * Ids of the contexts visible to a grant: the granted ones of the organization and their subtrees. A grant of a
 * context in another organization sees nothing there.
 */
export const visibleContextIds = (organizationId: string, grantedIds: ReadonlyArray<string>) =>
  grantedIds.length === 0
    ? Effect.succeed<ReadonlyArray<string>>([])
    : Db.query((db) =>
        db
          .withRecursive("visible(id)", (qb) =>
            qb
              .selectFrom("operationalContexts")
              .select("id")
              .where("organizationId", "=", organizationId)
              .where("id", "in", grantedIds)
              .union((qb) =>
                qb
                  .selectFrom("operationalContexts as child")
                  .innerJoin("visible", "visible.id", "child.parentId")
                  .select("child.id")
              )
          )
          .selectFrom("visible")
          .select("id")
          .execute()
      ).pipe(
        Effect.map((rows): ReadonlyArray<string> => rows.map((row) => row.id)),
        Effect.orDie
      )

/** A page of contexts among `ids`, by creation time then id, after `after`. Fetches `limit + 1` rows. */
export const listContexts = (ids: ReadonlyArray<string>, after: Position | undefined, limit: number) =>
  ids.length === 0
    ? Effect.succeed([])
    : Db.query((db) => {
        let query = db.selectFrom("operationalContexts").selectAll().where("id", "in", ids)
        if (after !== undefined) {
          query = query.where((eb) =>
            eb.or([
              eb("createdAt", ">", after.at),
              eb.and([eb("createdAt", "=", after.at), eb("id", ">", after.id)])
            ])
          )
        }
        return query.orderBy("createdAt").orderBy("id").limit(limit + 1).execute()
      }).pipe(Effect.orDie)

/**
 * The organization's billing integration (decisions 5, 8: configured once its connector reported it `ready`; one
 * still `connecting` or `failed` is not) and the contexts a grant sees, read together.
 */
export interface BillingScope {
  readonly integration: { readonly configured: boolean; readonly declaredGates: ReadonlyArray<string> }
  readonly contextIds: ReadonlyArray<string>
}

/**
 * {@link visibleContextIds} and the organization's billing integration in one round trip: every billing
 * operation needs both before it touches a record.
 */
export const billingScope = (organizationId: string, grantedIds: ReadonlyArray<string>) =>
  Db.query((db) =>
    db
      .withRecursive("visible(id)", (qb) =>
        qb
          .selectFrom("operationalContexts")
          .select("id")
          .where("organizationId", "=", organizationId)
          .where("id", "in", grantedIds.length === 0 ? [sql<string>`null`] : grantedIds)
          .union((qb) =>
            qb.selectFrom("operationalContexts as child").innerJoin("visible", "visible.id", "child.parentId").select("child.id")
          )
      )
      .selectNoFrom((eb) => [
        eb
          .selectFrom("billingIntegrations")
          .select("declaredGates")
          .where("organizationId", "=", organizationId)
          // Configured means the connector reported the configuration ready (decisions 8).
          .where("status", "=", "ready")
          .as("declaredGates"),
        sql<ReadonlyArray<string>>`array(select id from visible)`.as("contextIds")
      ])
      .executeTakeFirstOrThrow()
  ).pipe(
    Effect.map(
      (row): BillingScope => ({
        integration: { configured: row.declaredGates !== null, declaredGates: row.declaredGates ?? [] },
        contextIds: row.contextIds
      })
    ),
    Effect.orDie
  )
