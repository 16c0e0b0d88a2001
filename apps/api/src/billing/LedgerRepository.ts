/**
 * SQL of the money reported on invoices (decisions 4, 5): payments, their reversals and write-offs. The ledger is
 * append-only; the caller's ids are unique per invoice (`payments_invoice_payment_key`,
 * `write_offs_invoice_write_off_key`, one reversal per payment), the last guard behind the invoice's row lock. A
 * report's ledger row and the invoice it changes are written in one statement (plain `Sql.rows`; report-payment's
 * write and the ledger read, a hot path, compiled once: `Sql.prepare`).
 */
import type { Currency, InvoiceRecord } from "@propline/billing/Invoice"
import type { Ledger, PaymentRecord, WriteOffRecord } from "@propline/billing/Settlement"
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { randomUUID } from "node:crypto"
import { nullable } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import * as EventsAndAudit from "../platform/EventsAndAudit.js"
import { INVOICE_UPDATE_VALUES, invoiceUpdate, invoiceUpdateOf, invoiceUpdateValues } from "./InvoiceRepository.js"

/** A row of the ledger read: a payment (with its reversal, if any) or a write-off, in one shape. */
interface LedgerRow {
  readonly writeOff: boolean
  /** The caller's `paymentId` or `writeOffId`. */
  readonly reportId: string
  readonly amountMinorUnits: number
  /** `paidOn` or `writtenOffOn`. */
  readonly on: string
  readonly currency: string | null
  readonly recordedAt: Date
  readonly reversedOn: string | null
  /** The reversal's reason on a payment, the write-off's on a write-off. */
  readonly reason: string | null
  readonly reversalRecordedAt: Date | null
}

const toPayment = (row: LedgerRow): PaymentRecord => ({
  paymentId: row.reportId,
  amountMinorUnits: row.amountMinorUnits,
  paidOn: row.on,
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

const toWriteOff = (row: LedgerRow): WriteOffRecord => ({
  writeOffId: row.reportId,
  amountMinorUnits: row.amountMinorUnits,
  writtenOffOn: row.on,
  ...(row.reason !== null ? { reason: row.reason } : {}),
  recordedAt: row.recordedAt
})

/** The ledger read ({@link LedgerRepository}'s `ledger`) of one invoice, by its id. */
export const ledgerStatement = (invoiceId: string) =>
  sql<LedgerRow>`
    select false as "writeOff", p.payment_id as "reportId", p.amount_minor_units as "amountMinorUnits",
           p.paid_on as "on", p.currency, p.recorded_at as "recordedAt", r.reversed_on as "reversedOn", r.reason,
           r.recorded_at as "reversalRecordedAt", p.id as "rowId"
    from payments p left join payment_reversals r on r.payment_row_id = p.id
    where p.invoice_id = ${invoiceId}
    union all
    select true, write_off_id, amount_minor_units, written_off_on, null, recorded_at, null, reason, null, id
    from write_offs where invoice_id = ${invoiceId}
    order by "writeOff", "recordedAt", "rowId"`

/** {@link ledgerStatement}, compiled once. */
export const LEDGER = Sql.prepare(1, ledgerStatement)

/**
 * One statement: the ledger row `insert` writes (none when undefined), then `also` (the rows that go with the report:
 * its events and audit entry, `EventsAndAudit.ctes`), then the invoice as the report left it.
 */
const withInvoice = (invoice: InvoiceRecord, insert: RawBuilder<unknown> | undefined, also: EventsAndAudit.EventsAndAudit) => {
  const ctes = EventsAndAudit.ctes(also.eventCount, also.values)
  return Sql.rows(sql`with ${sql.join(insert === undefined ? ctes : [Sql.cte("recorded", insert), ...ctes])} ${invoiceUpdate(invoice)}`).pipe(
    Effect.asVoid
  )
}

/** A payment's values in the order {@link recordPaymentStatement} places them (a random row id first). */
const paymentValues = (invoice: InvoiceRecord, payment: PaymentRecord): ReadonlyArray<unknown> => [
  randomUUID(),
  invoice.organizationId,
  invoice.id,
  payment.paymentId,
  payment.amountMinorUnits,
  payment.paidOn,
  payment.currency,
  payment.recordedAt
]

const PAYMENT_VALUES = 8

/**
 * `recordPayment`'s one statement with `eventCount` events: the payment's row, the events and the audit entry, the
 * invoice's update; its values the payment's (8), the events' and audit entry's (`EventsAndAudit`), the invoice's
 * (`invoiceUpdateValues`), in that order.
 */
export const recordPaymentStatement = (eventCount: number, values: ReadonlyArray<unknown>): RawBuilder<unknown> => {
  const payment = sql`
          insert into payments (id, organization_id, invoice_id, payment_id, amount_minor_units, paid_on, currency, recorded_at)
          values (${values[0]}, ${values[1]}, ${values[2]}, ${values[3]},
                  ${values[4]}, ${values[5]}, ${values[6]}, ${values[7]})`
  const ctes = [Sql.cte("recorded", payment), ...EventsAndAudit.ctes(eventCount, values, PAYMENT_VALUES)]
  return sql`with ${sql.join(ctes)} ${invoiceUpdateOf(values, PAYMENT_VALUES + EventsAndAudit.valueCount(eventCount))}`
}

/** {@link recordPaymentStatement} compiled once per number of events. */
export const recordPaymentPrepared = Sql.preparedByShape((eventCount: number) =>
  Sql.prepare(
    PAYMENT_VALUES + EventsAndAudit.valueCount(eventCount) + INVOICE_UPDATE_VALUES,
    (...values: ReadonlyArray<unknown>) => recordPaymentStatement(eventCount, values)
  )
)

/** The values of {@link recordPaymentStatement} for a payment, its events and audit entry, and the invoice. */
export const recordPaymentValues = (
  invoice: InvoiceRecord,
  payment: PaymentRecord,
  also: EventsAndAudit.EventsAndAudit
): Array<unknown> => [...paymentValues(invoice, payment), ...also.values, ...invoiceUpdateValues(invoice)]

export class LedgerRepository extends Effect.Service<LedgerRepository>()("@propline/api/billing/LedgerRepository", {
  succeed: {
    /**
     * Everything reported on one invoice, each kind in the order it was recorded, in one round trip (payments with
     * their reversals, then write-offs). Read after the invoice's lock, so it holds every report committed before.
     */
    ledger: (invoiceId: string) =>
      Sql.preparedRows(LEDGER, invoiceId).pipe(
        Effect.map((rows): Ledger => {
          const payments: Array<PaymentRecord> = []
          const writeOffs: Array<WriteOffRecord> = []
          for (const row of rows) {
            if (row.writeOff) writeOffs.push(toWriteOff(row))
            else payments.push(toPayment(row))
          }
          return { payments, writeOffs }
        })
      ),

    /**
     * Records a payment on the invoice and writes the invoice as the payment left it (`invoice`), with `also` (see
     * {@link withInvoice}), in one statement.
     */
    recordPayment: (invoice: InvoiceRecord, payment: PaymentRecord, also: EventsAndAudit.EventsAndAudit) =>
      Sql.preparedRows(recordPaymentPrepared(also.eventCount), ...recordPaymentValues(invoice, payment, also)).pipe(
        Effect.asVoid
      ),

    /**
     * Records the reversal of the invoice's payment `payment.paymentId` and writes the invoice as the reversal left
     * it (`invoice`), with `also` (see {@link withInvoice}), in one statement.
     */
    recordReversal: (invoice: InvoiceRecord, payment: PaymentRecord, also: EventsAndAudit.EventsAndAudit) =>
      withInvoice(
        invoice,
        payment.reversal === undefined
          ? undefined
          : sql`
              insert into payment_reversals (payment_row_id, organization_id, invoice_id, reversed_on, reason, recorded_at)
              select id, ${invoice.organizationId}, ${invoice.id}, ${payment.reversal.reversedOn},
                     ${nullable(payment.reversal.reason)}, ${payment.reversal.recordedAt}
              from payments where invoice_id = ${invoice.id} and payment_id = ${payment.paymentId}`,
        also
      ),

    /**
     * Records a write-off on the invoice and writes the invoice as the write-off left it (`invoice`), with `also`
     * (see {@link withInvoice}), in one statement.
     */
    recordWriteOff: (invoice: InvoiceRecord, writeOff: WriteOffRecord, also: EventsAndAudit.EventsAndAudit) =>
      withInvoice(
        invoice,
        sql`
          insert into write_offs (id, organization_id, invoice_id, write_off_id, amount_minor_units, written_off_on, reason, recorded_at)
          values (${randomUUID()}, ${invoice.organizationId}, ${invoice.id}, ${writeOff.writeOffId},
                  ${writeOff.amountMinorUnits}, ${writeOff.writtenOffOn}, ${nullable(writeOff.reason)}, ${writeOff.recordedAt})`,
        also
      )
  }
}) {}
