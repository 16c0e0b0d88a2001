/**
 * SQL of withdrawals (decisions 5): deleted invoices that had been in the send queue, listed until the caller
 * reports them discarded. Rows map to `@propline/billing`'s WithdrawalRecord.
 */
import type { WithdrawalRecord } from "@propline/billing/InvoiceWithdrawal"
import type { InvoiceWithdrawalTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

const withdrawalColumns = Sql.columns<Selectable<InvoiceWithdrawalTable>>({
  invoiceId: true,
  organizationId: true,
  operationalContextId: true,
  invoiceNumber: true,
  documentKind: true,
  creditedInvoiceId: true,
  currency: true,
  totalGrossMinorUnits: true,
  externalReference: true,
  invoiceStatus: true,
  status: true,
  deletedAt: true,
  discardedAt: true,
  updatedAt: true
})

const toWithdrawal = (row: Selectable<InvoiceWithdrawalTable>): WithdrawalRecord => withoutNulls(row) as WithdrawalRecord

export class WithdrawalRepository extends Effect.Service<WithdrawalRepository>()(
  "@propline/api/billing/WithdrawalRepository",
  {
    succeed: {
      /** `pending` withdrawals in the visible contexts, oldest deletion first, after `after`; `limit + 1` rows. */
      queue: (
        organizationId: string,
        contextIds: ReadonlyArray<string>,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        contextIds.length === 0
          ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<WithdrawalRecord>>>([])
          : Sql.query((db) => {
              let query = db
                .selectFrom("invoiceWithdrawals")
                .selectAll()
                .select(CursorPage.sortKey("invoiceWithdrawals.deletedAt").as("cursorAt"))
                .where("organizationId", "=", organizationId)
                .where("status", "=", "pending")
                .where("operationalContextId", "in", contextIds)
              if (after !== undefined) {
                query = query.where(CursorPage.after("invoiceWithdrawals.deletedAt", "invoiceWithdrawals.invoiceId", after))
              }
              return query.orderBy("deletedAt").orderBy("invoiceId").limit(limit + 1).execute()
            }).pipe(
              Effect.map((rows) =>
                rows.map(({ cursorAt, ...row }) => ({
                  record: toWithdrawal(row),
                  position: { at: cursorAt, id: row.invoiceId }
                }))
              )
            ),

      /** The withdrawal of an invoice in the visible contexts, locked; undefined when none or invisible. */
      lock: (organizationId: string, contextIds: ReadonlyArray<string>, invoiceId: string) =>
        Sql.lockVisible<Selectable<InvoiceWithdrawalTable>>({
          columns: withdrawalColumns,
          from: "invoice_withdrawals",
          where: sql<boolean>`invoice_id = ${invoiceId}`,
          organizationId,
          contextIds
        }).pipe(Effect.map((row) => (row === undefined ? undefined : toWithdrawal(row)))),

      /** The withdrawal of an invoice of the organization, not locked (the events publisher renders it). */
      find: (organizationId: string, invoiceId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("invoiceWithdrawals")
            .selectAll()
            .where("organizationId", "=", organizationId)
            .where("invoiceId", "=", invoiceId)
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toWithdrawal(row)))),

      /** Puts a deleted invoice on the withdrawal queue. */
      insert: (withdrawal: WithdrawalRecord) =>
        Sql.query((db) =>
          db
            .insertInto("invoiceWithdrawals")
            .values({
              invoiceId: withdrawal.invoiceId,
              organizationId: withdrawal.organizationId,
              operationalContextId: withdrawal.operationalContextId,
              invoiceNumber: withdrawal.invoiceNumber,
              documentKind: withdrawal.documentKind,
              creditedInvoiceId: nullable(withdrawal.creditedInvoiceId),
              currency: withdrawal.currency,
              totalGrossMinorUnits: withdrawal.totalGrossMinorUnits,
              externalReference: nullable(withdrawal.externalReference),
              invoiceStatus: withdrawal.invoiceStatus,
              status: withdrawal.status,
              deletedAt: withdrawal.deletedAt,
              discardedAt: nullable(withdrawal.discardedAt),
              updatedAt: withdrawal.updatedAt
            })
            .execute()
        ).pipe(Effect.asVoid),

      /** Writes a withdrawal's status after report-discarded. */
      update: (withdrawal: WithdrawalRecord) =>
        Sql.query((db) =>
          db
            .updateTable("invoiceWithdrawals")
            .set({
              status: withdrawal.status,
              discardedAt: nullable(withdrawal.discardedAt),
              updatedAt: withdrawal.updatedAt
            })
            .where("invoiceId", "=", withdrawal.invoiceId)
            .execute()
        ).pipe(Effect.asVoid)
    }
  }
) {}
