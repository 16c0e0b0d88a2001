/**
 * SQL of the money reported on invoices (decisions 4, 5): payments, their reversals and write-offs. The ledger is
 * append-only; the caller's ids are unique per invoice (`payments_invoice_payment_key`,
 * `write_offs_invoice_write_off_key`, one reversal per payment), the last guard behind the invoice's row lock.
 */
import type { Currency } from "@propline/billing/Invoice"
import type { Ledger, PaymentRecord, WriteOffRecord } from "@propline/billing/Settlement"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { nullable } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

export class LedgerRepository extends Effect.Service<LedgerRepository>()("@propline/api/billing/LedgerRepository", {
  succeed: {
    /** Everything reported on one invoice, in the order it was recorded. */
    ledger: (invoiceId: string) =>
      Effect.gen(function* () {
        const payments = yield* Sql.query((db) =>
          db
            .selectFrom("payments")
            .leftJoin("paymentReversals", "paymentReversals.paymentRowId", "payments.id")
            .select([
              "payments.paymentId",
              "payments.amountMinorUnits",
              "payments.paidOn",
              "payments.currency",
              "payments.recordedAt",
              "paymentReversals.reversedOn",
              "paymentReversals.reason",
              "paymentReversals.recordedAt as reversalRecordedAt"
            ])
            .where("payments.invoiceId", "=", invoiceId)
            .orderBy("payments.recordedAt")
            .orderBy("payments.id")
            .execute()
        )
        const writeOffs = yield* Sql.query((db) =>
          db
            .selectFrom("writeOffs")
            .select(["writeOffId", "amountMinorUnits", "writtenOffOn", "reason", "recordedAt"])
            .where("invoiceId", "=", invoiceId)
            .orderBy("recordedAt")
            .orderBy("id")
            .execute()
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
