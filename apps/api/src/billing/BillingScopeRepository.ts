/**
 * What every billing operation reads before it touches a record, in one round trip: the contexts the principal
 * sees and the organization's billing integration (decisions 5, 8: configured once its connector reported it
 * `ready`; one still `connecting` or `failed` is not).
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { withVisibleContexts } from "../contexts/ContextRepository.js"
import * as Sql from "../platform/Sql.js"

/** The organization's billing integration and the contexts a grant sees. */
export interface BillingScope {
  readonly integration: { readonly configured: boolean; readonly declaredGates: ReadonlyArray<string> }
  readonly contextIds: ReadonlyArray<string>
}

export class BillingScopeRepository extends Effect.Service<BillingScopeRepository>()(
  "@propline/api/billing/BillingScopeRepository",
  {
    succeed: {
      /** The billing scope of a grant: visible contexts and the ready integration's declared gates. */
      scope: (organizationId: string, grantedIds: ReadonlyArray<string>) =>
        Sql.query((db) =>
          withVisibleContexts(db, organizationId, grantedIds)
            .selectNoFrom((eb) => [
              eb
                .selectFrom("billingIntegrations")
                .select("declaredGates")
                .where("organizationId", "=", organizationId)
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
          )
        )
    }
  }
) {}
