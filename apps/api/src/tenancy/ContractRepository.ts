/**
 * SQL of contracts for other capabilities (tenancy owns the `contracts` and `contract_lines` tables): signing locks
 * the contract it prepares and writes a contract's signing status here, in its own transaction, and its queue shows
 * the contract's number through {@link contractNumberOf}; billing's invoice runs compose {@link runningContracts}
 * and {@link contractLinesOf}; the console's organization page counts contracts through {@link contractCountOf}.
 */
import type { ContractTable, Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type RawBuilder, sql, type Updateable } from "kysely"
import { contextNameOf, withVisibleContexts } from "../contexts/ContextRepository.js"
import { organizationNameOf } from "../contexts/OrganizationRepository.js"
import * as Sql from "../platform/Sql.js"
import { spanned } from "../platform/Spans.js"

/** What a contract's signing status can be: its newest signing attempt's status, or `unsent`. */
export type ContractSigningStatus = NonNullable<Updateable<ContractTable>["signingStatus"]>

/**
 * The number of the contract whose id is in `column` (snake_case, qualified), as a scalar subquery: what another
 * capability's statement shows beside its records without reading this table itself (signing's queue).
 */
export const contractNumberOf = (column: string): RawBuilder<string> =>
  sql<string>`(select contract_number from contracts where id = ${sql.ref(column)})`

/** How many contracts the organization has, as a scalar subquery (the console's organization page). */
export const contractCountOf = (organizationId: string): RawBuilder<number> =>
  sql`(select count(*) from contracts where organization_id = ${organizationId})`

/**
 * The statement of the active contracts in `contextId`'s subtree running during the period (`periodStart` …
 * `periodEnd`, ISO dates), with their customer's name, in creation order: billing's invoice run executes it.
 */
export const runningContracts = (
  db: Kysely<Database>,
  organizationId: string,
  contextId: string,
  periodStart: string,
  periodEnd: string
) =>
  withVisibleContexts(db, organizationId, [contextId])
    .selectFrom("contracts")
    .innerJoin("customers", "customers.id", "contracts.customerId")
    .select([
      "contracts.id",
      "contracts.operationalContextId",
      "contracts.customerId",
      "contracts.billingAccountId",
      "contracts.currency",
      "contracts.paymentTermsDays",
      "customers.name as customerName"
    ])
    .where("contracts.organizationId", "=", organizationId)
    .where("contracts.status", "=", "active")
    .where("contracts.startsOn", "<=", periodEnd)
    .where((eb) => eb.or([eb("contracts.endsOn", "is", null), eb("contracts.endsOn", ">=", periodStart)]))
    .where("contracts.operationalContextId", "in", (qb) => qb.selectFrom("visible").select("visible.id"))
    .orderBy("contracts.createdAt")
    .orderBy("contracts.id")

/**
 * The statement of the lines of the contracts `contractIds` (not empty), in creation order; the caller may narrow it
 * with conditions on `contractLines` (billing: the lines with no charge for the period yet).
 */
export const contractLinesOf = (db: Kysely<Database>, contractIds: ReadonlyArray<string>) =>
  db.selectFrom("contractLines").selectAll().where("contractId", "in", contractIds).orderBy("createdAt").orderBy("id")

export class ContractRepository extends Effect.Service<ContractRepository>()("@propline/api/tenancy/ContractRepository", {
  succeed: spanned("ContractRepository", {
    /**
     * The contract of the organization, locked (so two preparations of one contract run one after the other), with
     * its customer, the names of its organization and operational context, and its monthly lines in creation order:
     * what signing's preparation rules and contract document read. Undefined when there is none.
     */
    lockForSigning: (organizationId: string, contractId: string) =>
      Sql.query(async (db) => {
        const contract = await db
          .selectFrom("contracts")
          .innerJoin("customers", "customers.id", "contracts.customerId")
          .select([
            "contracts.id",
            "contracts.organizationId",
            "contracts.operationalContextId",
            "contracts.contractNumber",
            "contracts.status",
            "contracts.signingStatus",
            "contracts.startsOn",
            "contracts.endsOn",
            "contracts.currency",
            "contracts.paymentTermsDays",
            "customers.name as customerName",
            "customers.customerNumber",
            "customers.kind as customerKind",
            "customers.organisationNumber",
            organizationNameOf("contracts.organization_id").as("organizationName"),
            contextNameOf("contracts.operational_context_id").as("operationalContextName")
          ])
          .where("contracts.id", "=", contractId)
          .where("contracts.organizationId", "=", organizationId)
          .forUpdate("contracts")
          .executeTakeFirst()
        if (contract === undefined) return undefined
        const lines = await db
          .selectFrom("contractLines")
          .select(["description", "monthlyNetMinorUnits", "vatRateBasisPoints"])
          .where("contractId", "=", contractId)
          .orderBy("createdAt")
          .orderBy("id")
          .execute()
        return { ...contract, lines }
      }),

    /** Sets the contract's signing status (it follows its newest signing attempt), changed at `at`. */
    setSigningStatus: (contractId: string, signingStatus: ContractSigningStatus, at: Date) =>
      Sql.query((db) =>
        db.updateTable("contracts").set({ signingStatus, updatedAt: at }).where("id", "=", contractId).execute()
      ).pipe(Effect.asVoid)
  })
}) {}
