/**
 * What every billing operation reads before it touches a record, in one round trip: the contexts the principal
 * sees and the organization's billing integration (decisions 5, 8: configured once its connector reported it
 * `ready`; one still `connecting` or `failed` is not). One plain statement (`Sql.rows`): every billing request
 * runs it.
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { visibleContextsPrefix } from "../contexts/ContextRepository.js"
import * as Sql from "../platform/Sql.js"

/** The organization's billing integration and the contexts a grant sees. */
export interface BillingScope {
  readonly integration: { readonly configured: boolean; readonly declaredGates: ReadonlyArray<string> }
  readonly contextIds: ReadonlyArray<string>
}

interface ScopeRow {
  readonly declaredGates: ReadonlyArray<string> | null
  readonly contextIds: ReadonlyArray<string>
}

export class BillingScopeRepository extends Effect.Service<BillingScopeRepository>()(
  "@propline/api/billing/BillingScopeRepository",
  {
    succeed: {
      /** The billing scope of a grant: visible contexts and the ready integration's declared gates. */
      scope: (organizationId: string, grantedIds: ReadonlyArray<string>) =>
        Sql.rows(
          sql<ScopeRow>`
            ${visibleContextsPrefix(organizationId, grantedIds)}
            select
              (select declared_gates from billing_integrations
               where organization_id = ${organizationId} and status = 'ready') as "declaredGates",
              array(select id from visible) as "contextIds"`
        ).pipe(
          Effect.map((rows): BillingScope => {
            const row = rows[0]
            const declaredGates = row?.declaredGates ?? null
            return {
              integration: { configured: declaredGates !== null, declaredGates: declaredGates ?? [] },
              contextIds: row?.contextIds ?? []
            }
          })
        )
    }
  }
) {}
