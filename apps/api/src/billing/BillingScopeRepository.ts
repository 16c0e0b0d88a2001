/**
 * What every billing operation reads before it touches a record, in one round trip: the contexts the principal
 * sees and the organization's billing integration (decisions 5, 8): configured once a connector reported one of
 * the organization's `billing` integration configurations `ready` (one still `pending`, `connecting` or `failed`,
 * or a disconnected one, is not); its declared gates are those the ready billing configurations declared, together.
 * One plain statement (`Sql.rows`; a write's scope with its locked row compiled once per target and number of granted
 * contexts, `Sql.prepare`): every billing request runs it. The tables' owners write the parts it composes
 * (contexts' `visibleContextsPrefix`, integrations' `readyBillingGates`), so billing reads neither table itself
 * and the scope stays one round trip. `tooling/scripts`' bench baseline runs the same statement
 * (`BaselineBilling.ts`): change them together.
 */
import type * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { visibleContextsPrefix } from "../contexts/ContextRepository.js"
import { readyBillingGates } from "../integrations/IntegrationConfigurationRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Sql from "../platform/Sql.js"

/** The organization's billing integration (its ready billing configurations) and the contexts a grant sees. */
export interface BillingScope {
  readonly integration: { readonly configured: boolean; readonly declaredGates: ReadonlyArray<string> }
  readonly contextIds: ReadonlyArray<string>
}

/** A row of {@link BillingScopeRepository}'s `integrationAndPage`: the integration's state and a page row, or nulls. */
type PageJoinRow<Row> = { readonly billingConfigured: boolean; readonly pageIndex: number | null } & (
  | (Row & { readonly cursorAt: string })
  | { readonly id: null }
)

interface ScopeRow {
  readonly declaredGates: ReadonlyArray<string> | null
  readonly contextIds: ReadonlyArray<string>
}

/**
 * A row a write locks together with its scope, named by the repository that owns its table: `columns` (a select
 * list, `Sql.columns`, with `id` among them) of `from` (a trusted table name) where `where(key)` holds; the scope
 * adds the organization and the visible contexts. `where` only places `key` (an id, a reference) in its template: it
 * also runs with a prepared statement's stand-in (`Sql.prepare`). Made once, at module load: its statements are
 * compiled once per target (see {@link scopeLockingPrepared}).
 */
export interface LockTarget<Row extends { readonly id: string }> {
  readonly columns: RawBuilder<Row>
  readonly from: string
  readonly where: (key: string) => RawBuilder<boolean>
}

/** A billing scope and the row it locked, if the row exists and lies in a visible context. */
export interface ScopeAndRow<Row> {
  readonly scope: BillingScope
  readonly row: Row | undefined
}

const toScope = (row: ScopeRow | undefined): BillingScope => {
  const declaredGates = row?.declaredGates ?? null
  return {
    integration: { configured: declaredGates !== null, declaredGates: declaredGates ?? [] },
    contextIds: row?.contextIds ?? []
  }
}

/**
 * A queue page a read takes together with its scope, named by the repository that owns its table: `columns` (a
 * select list, `Sql.columns`, with `id` among them) of `from` (a trusted table name) where `where` holds, in
 * (`sortColumn`, id) order; the scope adds the organization and the visible contexts.
 */
export interface PageTarget<Row extends { readonly id: string }> {
  readonly columns: RawBuilder<Row>
  readonly from: string
  readonly where: RawBuilder<boolean>
  /** The sort column (trusted, `approved_at`); ties are broken by `id`. */
  readonly sortColumn: string
}

/** Whether the organization's billing integration is configured, and a page of rows it may list. */
export interface IntegrationAndPage<Row> {
  readonly integration: { readonly configured: boolean }
  /** `limit + 1` rows at most, keyed by position (`CursorPage.page` makes the page of them). */
  readonly rows: ReadonlyArray<CursorPage.Keyed<Row & { readonly cursorAt: string }>>
}

/** The scope's select list: the ready gates and the visible contexts (the `visible` CTE). */
const scopeColumns = (organizationId: string) => sql`
  ${readyBillingGates(organizationId)} as "declaredGates",
  array(select id from visible) as "contextIds"`

/**
 * `scopeLocking`'s statement: the scope of `grantedIds` in `organizationId` and the row of `target` that `key` names,
 * locked. Its text depends on the target and the number of granted contexts only.
 */
export const scopeLockingStatement = <Row extends { readonly id: string }>(
  target: LockTarget<Row>,
  organizationId: string,
  key: string,
  grantedIds: ReadonlyArray<string>
): RawBuilder<ScopeRow & Row> =>
  sql<ScopeRow & Row>`
    ${visibleContextsPrefix(organizationId, grantedIds)},
    locked as (
      select ${target.columns} from ${sql.raw(target.from)}
      where ${target.where(key)} and organization_id = ${organizationId}
        and operational_context_id = any (array(select id from visible))
      for update
    )
    select ${scopeColumns(organizationId)}, locked.*
    from (select) as scope left join locked on true`

/** Per lock target, its {@link scopeLockingStatement} compiled once per number of granted contexts. */
const scopeLockingShapes = new WeakMap<
  LockTarget<{ readonly id: string }>,
  (grantedCount: number) => Db.PreparedStatement<ReadonlyArray<string>, ScopeRow>
>()

/**
 * {@link scopeLockingStatement} of `target` for `grantedCount` granted contexts, compiled once: its arguments are the
 * organization's id, the key, then the granted contexts' ids.
 */
export const scopeLockingPrepared = <Row extends { readonly id: string }>(
  target: LockTarget<Row>,
  grantedCount: number
): Db.PreparedStatement<ReadonlyArray<string>, ScopeRow & Row> => {
  let shapes = scopeLockingShapes.get(target)
  if (shapes === undefined) {
    shapes = Sql.preparedByShape((count: number) =>
      Sql.prepare(2 + count, (...args: ReadonlyArray<string>) =>
        scopeLockingStatement(target, args[0] as string, args[1] as string, args.slice(2))
      )
    )
    scopeLockingShapes.set(target, shapes)
  }
  return shapes(grantedCount) as Db.PreparedStatement<ReadonlyArray<string>, ScopeRow & Row>
}

export class BillingScopeRepository extends Effect.Service<BillingScopeRepository>()(
  "@propline/api/billing/BillingScopeRepository",
  {
    succeed: {
      /**
       * The billing scope of a grant: visible contexts, and the gates of the organization's ready billing
       * configurations (`declaredGates` null when there is none: not configured).
       */
      scope: (organizationId: string, grantedIds: ReadonlyArray<string>) =>
        Sql.rows(
          sql<ScopeRow>`
            ${visibleContextsPrefix(organizationId, grantedIds)}
            select ${scopeColumns(organizationId)}`
        ).pipe(Effect.map((rows) => toScope(rows[0]))),

      /**
       * A queue page of the organization's rows in the contexts a grant sees, after `after` (`CursorPage.pageRows`:
       * `limit + 1` rows in (sort column, id) order, keyed by position), and, in the same round trip, whether its
       * billing integration is configured (as {@link scope} reads it: `declaredGates` not null). One statement where
       * a scope and then a page took two; no visible context gives no rows, as the page without a statement did. A
       * read that must also check the declared gates reads {@link scope} first. The rows are `Sql.viewRows`' (on
       * PostgreSQL views of the texts pg received, parsed when read): read their fields, never spread them.
       */
      integrationAndPage: <Row extends { readonly id: string }>(
        organizationId: string,
        grantedIds: ReadonlyArray<string>,
        target: PageTarget<Row>,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Sql.viewRows(
          sql<PageJoinRow<Row>>`
            ${visibleContextsPrefix(organizationId, grantedIds)},
            page as (${CursorPage.pageSelect(
              {
                columns: target.columns,
                from: target.from,
                where: sql<boolean>`organization_id = ${organizationId} and ${target.where}
                  and operational_context_id = any (array(select id from visible))`,
                sortColumn: target.sortColumn,
                idColumn: "id",
                after,
                limit
              },
              true
            )})
            select ${readyBillingGates(organizationId)} is not null as "billingConfigured", page.*
            from (select) as scope left join page on true
            order by page."pageIndex"`
        ).pipe(
          Effect.map((rows): IntegrationAndPage<Row> => {
            const configured = rows[0]?.billingConfigured === true
            // The left join gives one row of nulls when the page is empty.
            const found = rows[0] === undefined || rows[0].id === null ? [] : (rows as ReadonlyArray<Row & { readonly cursorAt: string }>)
            return { integration: { configured }, rows: CursorPage.keyed(found) }
          })
        ),

      /**
       * The billing scope of a grant and, in the same round trip, the row `target` names if it belongs to the
       * organization and lies in a visible context, locked (`for update`) for the rest of the transaction so that
       * concurrent writes on it run one after another: a write's first statement. Having waited for the lock,
       * PostgreSQL returns the row as the other transaction committed it (READ COMMITTED); whatever else a write
       * must read fresh after the wait (a ledger, other rows) is read by a statement after this one. `row` is
       * undefined when there is none or it can't be seen (the service answers 404). `key` is what `target.where`
       * compares (an id, a reference). Compiled once per target and number of granted contexts.
       */
      scopeLocking: <Row extends { readonly id: string }>(
        organizationId: string,
        grantedIds: ReadonlyArray<string>,
        target: LockTarget<Row>,
        key: string
      ) =>
        Sql.preparedRows(scopeLockingPrepared(target, grantedIds.length), organizationId, key, ...grantedIds).pipe(
          Effect.map((rows): ScopeAndRow<Row> => {
            const found = rows[0]
            if (found === undefined) return { scope: toScope(undefined), row: undefined }
            const { declaredGates, contextIds, ...row } = found
            // The left join gives a row of nulls when nothing was locked.
            const locked = (row.id as string | null) === null ? undefined : (row as unknown as Row)
            return { scope: toScope({ declaredGates, contextIds }), row: locked }
          })
        )
    }
  }
) {}
