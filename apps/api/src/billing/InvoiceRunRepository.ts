/**
 * SQL of the operator's billing side: invoice runs, the contract material they bill (tenancy's statements of
 * contracts and lines, `tenancy/ContractRepository.ts`, narrowed to the lines not charged yet), the charges they
 * make, and credit acts. The organization's invoice numbers and country are contexts' (`contexts/OrganizationRepository.ts`).
 */
import type { ContractMaterial, DraftLine } from "@propline/billing/InvoiceRun"
import type { InvoiceRunRecord } from "@propline/billing/InvoiceRunLifecycle"
import type { CreditRequest } from "@propline/billing/Crediting"
import type { Currency } from "@propline/billing/Invoice"
import type { InvoiceRunTable } from "@propline/db/Database"
import { Effect } from "effect"
import type { Selectable } from "kysely"
import { randomUUID } from "node:crypto"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import { contractLinesOf, runningContracts } from "../tenancy/ContractRepository.js"

const toRun = (row: Selectable<InvoiceRunTable>): InvoiceRunRecord => withoutNulls(row) as InvoiceRunRecord

/** A contract to bill: its material for the drafting, and the ids a document of it carries. */
export interface BillableContract {
  readonly material: ContractMaterial
  readonly recipientAgentId: string
  readonly billingAccountId: string
  readonly operationalContextId: string
  readonly lineIds: ReadonlyArray<string>
}

export class InvoiceRunRepository extends Effect.Service<InvoiceRunRepository>()(
  "@propline/api/billing/InvoiceRunRepository",
  {
    succeed: {
      /**
       * Active contracts in the context's subtree, running during the period, whose lines have no charge for the
       * period yet (so a month is billed once), with their lines in creation order.
       */
      billableContracts: (organizationId: string, contextId: string, periodStart: string, periodEnd: string) =>
        Effect.gen(function* () {
          const contracts = yield* Sql.query((db) =>
            runningContracts(db, organizationId, contextId, periodStart, periodEnd).execute()
          )
          if (contracts.length === 0) return []
          const lines = yield* Sql.query((db) =>
            contractLinesOf(
              db,
              contracts.map((contract) => contract.id)
            )
              .where((eb) =>
                eb.not(
                  eb.exists(
                    eb
                      .selectFrom("charges")
                      .select("charges.id")
                      .whereRef("charges.contractLineId", "=", "contractLines.id")
                      .where("charges.periodStart", "=", periodStart)
                  )
                )
              )
              .execute()
          )
          return contracts
            .map((contract): BillableContract => {
              const own = lines.filter((line) => line.contractId === contract.id)
              return {
                material: {
                  contractId: contract.id,
                  customerName: contract.customerName,
                  currency: contract.currency as Currency,
                  paymentTermsDays: contract.paymentTermsDays,
                  lines: own.map((line) => ({
                    description: line.description,
                    monthlyNetMinorUnits: line.monthlyNetMinorUnits,
                    vatRateBasisPoints: line.vatRateBasisPoints
                  }))
                },
                recipientAgentId: contract.customerId,
                billingAccountId: contract.billingAccountId,
                operationalContextId: contract.operationalContextId,
                lineIds: own.map((line) => line.id)
              }
            })
            .filter((contract) => contract.lineIds.length > 0)
        }),

      insertRun: (run: InvoiceRunRecord) =>
        Sql.query((db) =>
          db
            .insertInto("invoiceRuns")
            .values({ ...run, approvedAt: nullable(run.approvedAt) })
            .execute()
        ).pipe(Effect.asVoid),

      /** A run of the organization, locked; undefined when there is none. */
      lockRun: (organizationId: string, runId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("invoiceRuns")
            .selectAll()
            .where("id", "=", runId)
            .where("organizationId", "=", organizationId)
            .forUpdate()
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toRun(row)))),

      updateRun: (run: InvoiceRunRecord) =>
        Sql.query((db) =>
          db
            .updateTable("invoiceRuns")
            .set({ status: run.status, approvedAt: nullable(run.approvedAt), updatedAt: run.updatedAt })
            .where("id", "=", run.id)
            .execute()
        ).pipe(Effect.asVoid),

      /**
       * One charge per drafted line (the contract line for the period), invoiced by `invoiceId` when the run made
       * an invoice; returns their ids in line order.
       */
      insertCharges: (
        organizationId: string,
        contractId: string,
        lineIds: ReadonlyArray<string>,
        lines: ReadonlyArray<DraftLine>,
        period: { readonly periodStart: string; readonly periodEnd: string },
        invoiceId: string | null,
        at: Date
      ) =>
        Effect.gen(function* () {
          const rows = lines.map((line, index) => ({
            id: randomUUID(),
            organizationId,
            contractId,
            contractLineId: lineIds[index] ?? null,
            periodStart: period.periodStart,
            periodEnd: period.periodEnd,
            description: line.description,
            netMinorUnits: line.netMinorUnits,
            vatRateBasisPoints: line.vatRateBasisPoints,
            invoiceId,
            createdAt: at
          }))
          yield* Sql.query((db) => db.insertInto("charges").values(rows).execute())
          return rows.map((row) => row.id)
        }),

      /** The credit act of the organization with this id, locked, with the credit note it made. */
      lockCreditAct: (organizationId: string, creditActId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("creditActs")
            .selectAll()
            .where("organizationId", "=", organizationId)
            .where("creditActId", "=", creditActId)
            .forUpdate()
            .executeTakeFirst()
        ),

      /**
       * Records a credit act; a concurrent act with the same id that committed first makes this one fail with
       * `"CreditActTaken"` (the primary key decides).
       */
      insertCreditAct: (
        organizationId: string,
        creditActId: string,
        request: CreditRequest,
        creditNoteId: string,
        at: Date
      ) =>
        Sql.catchUniqueViolation(
          (db) =>
            db
              .insertInto("creditActs")
              .values({
                organizationId,
                creditActId,
                invoiceId: request.invoiceId,
                creditNoteId,
                request: { ...request },
                createdAt: at
              })
              .execute(),
          "credit_acts_pkey",
          () => "CreditActTaken" as const
        ).pipe(Effect.asVoid)
    }
  }
) {}
