/**
 * SQL of the money reported on invoices (decisions 4, 5): payments, their reversals and write-offs. The ledger is
 * append-only; the caller's ids are unique per invoice (`payments_invoice_payment_key`,
 * `write_offs_invoice_write_off_key`, one reversal per payment), the last guard behind the invoice's row lock.
 */
import type { Currency } from "@propline/billing/Invoice"
import type { Ledger, PaymentRecord, WriteOffRecord } from "@propline/billing/Settlement"
import { Effect } from "effect"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import { nullable } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

interface PaymentRow {
  readonly paymentId: string
  readonly amountMinorUnits: number
  readonly paidOn: string
  readonly currency: string
  readonly recordedAt: Date
  readonly reversedOn: string | null
  readonly reason: string | null
  readonly reversalRecordedAt: Date | null
}

interface WriteOffRow {
  readonly writeOffId: string
  readonly amountMinorUnits: number
  readonly writtenOffOn: string
  readonly reason: string | null
  readonly recordedAt: Date
}

export class LedgerRepository extends Effect.Service<LedgerRepository>()("@propline/api/billing/LedgerRepository", {
  succeed: {
    /** Everything reported on one invoice, in the order it was recorded. */
    ledger: (invoiceId: string) =>
      Effect.gen(function* () {
        const payments = yield* Sql.rows(
          sql<PaymentRow>`
            select p.payment_id as "paymentId", p.amount_minor_units as "amountMinorUnits", p.paid_on as "paidOn",
                   p.currency, p.recorded_at as "recordedAt", r.reversed_on as "reversedOn", r.reason,
                   r.recorded_at as "reversalRecordedAt"
            from payments p left join payment_reversals r on r.payment_row_id = p.id
            where p.invoice_id = ${invoiceId}
            order by p.recorded_at, p.id`
        )
        const writeOffs = yield* Sql.rows(
          sql<WriteOffRow>`
            select write_off_id as "writeOffId", amount_minor_units as "amountMinorUnits",
                   written_off_on as "writtenOffOn", reason, recorded_at as "recordedAt"
            from write_offs where invoice_id = ${invoiceId}
            order by recorded_at, id`
        )
        return {
          payments: payments.map(
            (row): PaymentRecord => ({
              paymentId: row.paymentId,
              amountMinorUnits: row.amountMinorUnits,
              paidOn: row.paidOn,
              currency: row.currency as Currency,
              recordedAt: row.recordedAt,
              ...(row.reversedOn !== null && row.reversalRecordedAt !== null
                ? {
                    reversal: {
                      reversedOn: row.reversedOn,
                      ...(row.reason !== null ? { reason: row.reason } : {}),
                      recordedAt: row.reversalRecordedAt
                    }
                  }
                : {})
            })
          ),
          writeOffs: writeOffs.map(
            (row): WriteOffRecord => ({
              writeOffId: row.writeOffId,
              amountMinorUnits: row.amountMinorUnits,
              writtenOffOn: row.writtenOffOn,
              ...(row.reason !== null ? { reason: row.reason } : {}),
              recordedAt: row.recordedAt
            })
          )
        } satisfies Ledger
      }),

    /** Records a payment on the invoice. */
    insertPayment: (organizationId: string, invoiceId: string, payment: PaymentRecord) =>
      Sql.query((db) =>
        db
          .insertInto("payments")
          .values({
            id: randomUUID(),
            organizationId,
            invoiceId,
            paymentId: payment.paymentId,
            amountMinorUnits: payment.amountMinorUnits,
            paidOn: payment.paidOn,
            currency: payment.currency,
            recordedAt: payment.recordedAt
          })
          .execute()
      ).pipe(Effect.asVoid),

    /** Records the reversal of the invoice's payment `payment.paymentId`. */
    insertReversal: (organizationId: string, invoiceId: string, payment: PaymentRecord) =>
      payment.reversal === undefined
        ? Effect.void
        : Sql.query((db) =>
            db
              .insertInto("paymentReversals")
              .columns(["paymentRowId", "organizationId", "invoiceId", "reversedOn", "reason", "recordedAt"])
              .expression((eb) =>
                eb
                  .selectFrom("payments")
                  .select((inner) => [
                    "payments.id",
                    inner.val(organizationId).as("organizationId"),
                    inner.val(invoiceId).as("invoiceId"),
                    inner.val(payment.reversal?.reversedOn ?? "").as("reversedOn"),
                    inner.val(nullable(payment.reversal?.reason)).as("reason"),
                    inner.val(payment.reversal?.recordedAt ?? new Date(0)).as("recordedAt")
                  ])
                  .where("payments.invoiceId", "=", invoiceId)
                  .where("payments.paymentId", "=", payment.paymentId)
              )
              .execute()
          ).pipe(Effect.asVoid),

    /** Records a write-off on the invoice. */
    insertWriteOff: (organizationId: string, invoiceId: string, writeOff: WriteOffRecord) =>
      Sql.query((db) =>
        db
          .insertInto("writeOffs")
          .values({
            id: randomUUID(),
            organizationId,
            invoiceId,
            writeOffId: writeOff.writeOffId,
            amountMinorUnits: writeOff.amountMinorUnits,
            writtenOffOn: writeOff.writtenOffOn,
            reason: nullable(writeOff.reason),
            recordedAt: writeOff.recordedAt
          })
          .execute()
      ).pipe(Effect.asVoid)
  }
}) {}
