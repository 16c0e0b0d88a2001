/**
 * Operational contexts a principal can see: the contexts granted to it and every context below them
 * (decisions 2), within its own organization.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
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
