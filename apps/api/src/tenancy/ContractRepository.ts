/**
 * SQL of contracts for other capabilities (tenancy owns the `contracts` table): signing writes a contract's signing
 * status here, in its own transaction, and its queue shows the contract's number through {@link contractNumberOf}.
 */
import type { ContractTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type RawBuilder, sql, type Updateable } from "kysely"
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

export class ContractRepository extends Effect.Service<ContractRepository>()("@propline/api/tenancy/ContractRepository", {
  succeed: spanned("ContractRepository", {
    /** Sets the contract's signing status (it follows its newest signing attempt), changed at `at`. */
    setSigningStatus: (contractId: string, signingStatus: ContractSigningStatus, at: Date) =>
      Sql.query((db) =>
        db.updateTable("contracts").set({ signingStatus, updatedAt: at }).where("id", "=", contractId).execute()
      ).pipe(Effect.asVoid)
  })
}) {}
