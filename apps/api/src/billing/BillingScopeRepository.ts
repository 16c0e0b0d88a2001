/**
 * What every billing operation reads before it touches a record, in one round trip: the contexts the principal
 * sees and the organization's billing integration (decisions 5, 8): configured once a connector reported one of
 * the organization's `billing` integration configurations `ready` (one still `pending`, `connecting` or `failed`,
 * or a disconnected one, is not); its declared gates are those the ready billing configurations declared, together.
 * One plain statement (`Sql.rows`): every billing request runs it. The tables' owners write the parts it composes
 * (contexts' `visibleContextsPrefix`, integrations' `readyBillingGates`), so billing reads neither table itself
 * and the scope stays one round trip. `tooling/scripts`' bench baseline runs the same statement
 * (`BaselineBilling.ts`): change them together.
 */
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { visibleContextsPrefix } from "../contexts/ContextRepository.js"
import { readyBillingGates } from "../integrations/IntegrationConfigurationRepository.js"
import * as Sql from "../platform/Sql.js"

/** The organization's billing integration (its ready billing configurations) and the contexts a grant sees. */
export interface BillingScope {
  readonly integration: { readonly configured: boolean; readonly declaredGates: ReadonlyArray<string> }
  readonly contextIds: ReadonlyArray<string>
}

interface ScopeRow {
  readonly declaredGates: ReadonlyArray<string> | null
  readonly contextIds: ReadonlyArray<string>
}

/**
 * A row a write locks together with its scope, named by the repository that owns its table: `columns` (a select
 * list, `Sql.columns`, with `id` among them) of `from` (a trusted table name) where `where` holds; the scope adds
 * the organization and the visible contexts.
 */
export interface LockTarget<Row extends { readonly id: string }> {
  readonly columns: RawBuilder<Row>
  readonly from: string
  readonly where: RawBuilder<boolean>
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

/** The scope's select list: the ready gates and the visible contexts (the `visible` CTE). */
const scopeColumns = (organizationId: string) => sql`
  ${readyBillingGates(organizationId)} as "declaredGates",
  array(select id from visible) as "contextIds"`

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
       * The billing scope of a grant and, in the same round trip, the row `target` names if it belongs to the
       * organization and lies in a visible context, locked (`for update`) for the rest of the transaction so that
       * concurrent writes on it run one after another: a write's first statement. Having waited for the lock,
       * PostgreSQL returns the row as the other transaction committed it (READ COMMITTED); whatever else a write
       * must read fresh after the wait (a ledger, other rows) is read by a statement after this one. `row` is
       * undefined when there is none or it can't be seen (the service answers 404).
       */
      scopeLocking: <Row extends { readonly id: string }>(
        organizationId: string,
        grantedIds: ReadonlyArray<string>,
        target: LockTarget<Row>
      ) =>
        Sql.rows(
          sql<ScopeRow & Row>`
            ${visibleContextsPrefix(organizationId, grantedIds)},
            locked as (
              select ${target.columns} from ${sql.raw(target.from)}
              where ${target.where} and organization_id = ${organizationId}
                and operational_context_id = any (array(select id from visible))
              for update
            )
            select ${scopeColumns(organizationId)}, locked.*
            from (select) as scope left join locked on true`
        ).pipe(
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
