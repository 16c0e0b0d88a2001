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
import { sql } from "kysely"
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
            select
              ${readyBillingGates(organizationId)} as "declaredGates",
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
