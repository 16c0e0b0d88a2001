/**
 * SQL of operational contexts: the contexts a grant sees — the granted ones of the organization and every context
 * below them (decisions 2) — and pages of them. Plain statements (`Sql.rows`): the list is a hot path.
 */
import type { Database, OperationalContextTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely"
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

/**
 * {@link withVisibleContexts} as a plain `with recursive visible(id) as (…)` prefix, for plain statements
 * (`Sql.rows`) on hot paths: the same statement text the builder writes, without a builder per request.
 */
export const visibleContextsPrefix = (organizationId: string, grantedIds: ReadonlyArray<string>): RawBuilder<unknown> =>
  sql`with recursive visible(id) as (
        select id from operational_contexts
        where organization_id = ${organizationId}
          and id in (${grantedIds.length === 0 ? sql`null` : sql.join(grantedIds)})
        union
        select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
      )`

/**
 * The name of the operational context `column` holds (a snake_case `table.column`, not null and referencing
 * `operational_contexts`), as a scalar subquery: what another capability's read model shows beside its records
 * without reading this table itself (billing's runs, booking's resources, tenancy's contracts).
 */
export const contextNameOf = (column: string): RawBuilder<string> =>
  sql<string>`(select name from operational_contexts where id = ${sql.ref(column)})`

/** An operational context as the list reads it, with its cursor key. */
export type ContextRow = Selectable<OperationalContextTable> & { readonly cursorAt: string }

const contextColumns = Sql.columns<Selectable<OperationalContextTable>>(
  { id: true, organizationId: true, parentId: true, kind: true, name: true, createdAt: true, updatedAt: true },
  "c"
)

export class ContextRepository extends Effect.Service<ContextRepository>()("@propline/api/contexts/ContextRepository", {
  succeed: {
    /** Every operational context of the organization as `{ id, parentId }` (none when it does not exist). */
    tree: (organizationId: string) =>
      Sql.query((db) =>
        db.selectFrom("operationalContexts").select(["id", "parentId"]).where("organizationId", "=", organizationId).execute()
      ),

    /** Whether the context belongs to the organization (billing's invoice run checks its context here). */
    exists: (organizationId: string, contextId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operationalContexts")
          .select("id")
          .where("id", "=", contextId)
          .where("organizationId", "=", organizationId)
          .executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

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
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<ContextRow>>>([])
        : CursorPage.pageRows({
            with: visibleContextsPrefix(organizationId, grantedIds),
            columns: contextColumns,
            from: "operational_contexts as c",
            where: sql`c.id in (select id from visible)`,
            sortColumn: "c.created_at",
            idColumn: "c.id",
            after,
            limit
          })
  }
}) {}
