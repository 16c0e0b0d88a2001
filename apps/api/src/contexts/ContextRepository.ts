/**
 * Operational contexts a principal can see: the contexts granted to it and every context below them
 * (decisions 2), within its own organization.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import type { OperationalContextTable } from "@propline/db/Database"
import { type Selectable, sql } from "kysely"
import { keysetAfter, type Position } from "../http/Cursor.js"

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

/** An operational context row, as the contexts list reads it. */
export type ContextRow = Selectable<OperationalContextTable>

const contextColumns = Db.selectColumns<ContextRow>({
  id: true,
  organizationId: true,
  parentId: true,
  kind: true,
  name: true,
  createdAt: true,
  updatedAt: true
})

/** A page of contexts among `ids`, by creation time then id, after `after`. Fetches `limit + 1` rows. */
export const listContexts = (ids: ReadonlyArray<string>, after: Position | undefined, limit: number) =>
  ids.length === 0
    ? Effect.succeed<ReadonlyArray<ContextRow>>([])
    : Db.queryPlain(
        sql<ContextRow>`
          select ${contextColumns} from operational_contexts
          where id in (${sql.join(ids)}) and ${keysetAfter("created_at", after)}
          order by created_at, id
          limit ${limit + 1}`
      ).pipe(Effect.orDie)

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
  Db.queryPlain(
    sql<{ readonly declaredGates: ReadonlyArray<string> | null; readonly contextIds: ReadonlyArray<string> }>`
      with recursive visible(id) as (
        select id from operational_contexts
        where organization_id = ${organizationId}
          and id in (${grantedIds.length === 0 ? sql`null` : sql.join(grantedIds)})
        union
        select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
      )
      select
        -- Configured means the connector reported the configuration ready (decisions 8).
        (select declared_gates from billing_integrations where organization_id = ${organizationId} and status = 'ready')
          as "declaredGates",
        array(select id from visible) as "contextIds"`
  ).pipe(
    Effect.map((rows): BillingScope => {
      const row = rows[0]
      return {
        integration: { configured: row?.declaredGates != null, declaredGates: row?.declaredGates ?? [] },
        contextIds: row?.contextIds ?? []
      }
    }),
    Effect.orDie
  )
