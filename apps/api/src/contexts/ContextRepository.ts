/**
 * SQL of operational contexts: the contexts a grant sees — the granted ones of the organization and every context
 * below them (decisions 2) — and pages of them.
 */
import type { Database, OperationalContextTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import * as Sql from "../platform/Sql.js"

/**
 * `with recursive visible(id)`: the granted contexts of the organization and their subtrees. A grant of a context
 * in another organization sees nothing there. Capabilities that scope a query by visibility start from this.
 */
export const withVisibleContexts = (db: Kysely<Database>, organizationId: string, grantedIds: ReadonlyArray<string>) =>
  db.withRecursive("visible(id)", (qb) =>
    qb
      .selectFrom("operationalContexts")
      .select("id")
      .where("organizationId", "=", organizationId)
      // An empty grant matches nothing (`in (null)`), without a second query shape.
      .where("id", "in", grantedIds.length === 0 ? [sql<string>`null`] : grantedIds)
      .union((qb) =>
        qb.selectFrom("operationalContexts as child").innerJoin("visible", "visible.id", "child.parentId").select("child.id")
      )
  )

export class ContextRepository extends Effect.Service<ContextRepository>()("@propline/api/contexts/ContextRepository", {
  succeed: {
    /** Every operational context of the organization as `{ id, parentId }` (none when it does not exist). */
    tree: (organizationId: string) =>
      Sql.query((db) =>
        db.selectFrom("operationalContexts").select(["id", "parentId"]).where("organizationId", "=", organizationId).execute()
      ),

    /**
     * A page of the contexts visible to a grant, by creation time then id, after `after`; `limit + 1` rows.
     */
    listVisible: (
      organizationId: string,
      grantedIds: ReadonlyArray<string>,
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      grantedIds.length === 0
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<Selectable<OperationalContextTable>>>>([])
        : Sql.query((db) => {
            let query = withVisibleContexts(db, organizationId, grantedIds)
              .selectFrom("operationalContexts")
              .selectAll("operationalContexts")
              .select(CursorPage.sortKey("operationalContexts.createdAt").as("cursorAt"))
              .where("operationalContexts.id", "in", (qb) => qb.selectFrom("visible").select("visible.id"))
            if (after !== undefined) {
              query = query.where(CursorPage.after("operationalContexts.createdAt", "operationalContexts.id", after))
            }
            return query.orderBy("operationalContexts.createdAt").orderBy("operationalContexts.id").limit(limit + 1).execute()
          }).pipe(
            Effect.map((rows): ReadonlyArray<CursorPage.Keyed<Selectable<OperationalContextTable>>> =>
              rows.map(({ cursorAt, ...record }) => ({ record, position: { at: cursorAt, id: record.id } }))
            )
          )
  }
}) {}
