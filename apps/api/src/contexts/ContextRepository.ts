/**
 * SQL of operational contexts: the contexts a grant sees — the granted ones of the organization and every context
 * below them (decisions 2) — and pages of them. Plain statements (`Sql.rows`): the list is a hot path.
 */
import type { OperationalContextTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type RawBuilder, type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import * as Sql from "../platform/Sql.js"

/**
 * `with recursive visible(id) as (…)`: the granted contexts of the organization and their subtrees. A grant of a
 * context in another organization sees nothing there; an empty grant matches nothing (`in (null)`), without a
 * second statement shape. Capabilities that scope a query by visibility start their statement with this.
 */
export const withVisibleContexts = (organizationId: string, grantedIds: ReadonlyArray<string>): RawBuilder<unknown> =>
  sql`with recursive visible(id) as (
        select id from operational_contexts
        where organization_id = ${organizationId}
          and id in (${grantedIds.length === 0 ? sql`null` : sql.join(grantedIds)})
        union
        select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
      )`

/** An operational context as the list reads it, with its cursor key. */
export type ContextRow = Selectable<OperationalContextTable> & { readonly cursorAt: string }

const contextColumns = Sql.columns<Selectable<OperationalContextTable>>(
  { id: true, organizationId: true, parentId: true, kind: true, name: true, createdAt: true, updatedAt: true },
  "c"
)

export class ContextRepository extends Effect.Service<ContextRepository>()("@propline/api/contexts/ContextRepository", {
  succeed: {
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
            with: withVisibleContexts(organizationId, grantedIds),
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
