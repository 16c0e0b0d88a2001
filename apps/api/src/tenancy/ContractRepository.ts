/**
 * SQL of contracts for other capabilities (tenancy owns the `contracts` and `contract_lines` tables): signing writes
 * a contract's signing status here, in its own transaction, and its queue shows the contract's number through
 * {@link contractNumberOf}; billing's invoice runs compose {@link runningContracts} and {@link contractLinesOf}.
 */
import type { ContractTable, Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type RawBuilder, sql, type Updateable } from "kysely"
import { withVisibleContexts } from "../contexts/ContextRepository.js"
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
    /** Sets the contract's signing status (it follows its newest signing attempt), changed at `at`. */
    setSigningStatus: (contractId: string, signingStatus: ContractSigningStatus, at: Date) =>
      Sql.query((db) =>
        db.updateTable("contracts").set({ signingStatus, updatedAt: at }).where("id", "=", contractId).execute()
      ).pipe(Effect.asVoid)
  })
}) {}
