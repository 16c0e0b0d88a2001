/**
 * The billing overview's charts (issue 25, item 6): SQL aggregates over billing's invoices and payments, one
 * organization at a time — invoiced, paid and overdue per month and currency, and the overdue balance by age. Dates
 * are compared as calendar dates; `today` is the caller's (UTC) day. What each figure counts is in the contract
 * (`@propline/contract/PicturesAdmin`).
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"

interface MonthRow {
  readonly month: string
  readonly currency: string
  readonly invoiced: string | number
  readonly paid: string | number
  readonly overdue: string | number
}

interface AgeRow {
  readonly currency: string
  readonly age: "1-30" | "31-60" | "61-90" | "90+"
  readonly count: string | number
  readonly balance: string | number
}

export class BillingChartsReadRepository extends Effect.Service<BillingChartsReadRepository>()("@propline/api/billing/BillingChartsReadRepository", {
  succeed: spanned("BillingChartsReadRepository", {
    /**
     * Per month (`YYYY-MM`) and currency from `start` to `today` (both `YYYY-MM-DD`): invoices' issued gross by
     * invoice date, payments not reversed by the day paid, and today's balance of overdue invoices by due date.
     */
    months: (organizationId: string, start: string, today: string) =>
      Sql.rows(
        sql<MonthRow>`
          select month, currency, sum(invoiced) as invoiced, sum(paid) as paid, sum(overdue) as overdue from (
            select to_char(i.issued_invoice_date::date, 'YYYY-MM') as month, i.currency,
              coalesce(i.issued_total_gross_minor_units, i.total_gross_minor_units)::bigint as invoiced, 0::bigint as paid, 0::bigint as overdue
            from invoices i
            where i.organization_id = ${organizationId} and i.deleted_at is null and i.document_kind = 'invoice'
              and i.issued_invoice_date is not null
              and i.issued_invoice_date::date between ${start}::date and ${today}::date
            union all
            select to_char(p.paid_on::date, 'YYYY-MM'), p.currency, 0, p.amount_minor_units::bigint, 0
            from payments p
            join invoices i on i.id = p.invoice_id and i.document_kind = 'invoice' and i.deleted_at is null
            where p.organization_id = ${organizationId}
              and p.paid_on::date between ${start}::date and ${today}::date
              and not exists (select 1 from payment_reversals r where r.payment_row_id = p.id)
            union all
            select to_char(i.due_date::date, 'YYYY-MM'), i.currency, 0, 0, coalesce(i.balance_minor_units, 0)::bigint
            from invoices i
            where i.organization_id = ${organizationId} and i.deleted_at is null and i.status = 'sent'
              and i.due_date is not null and i.due_date::date < ${today}::date and i.due_date::date >= ${start}::date
          ) figures
          group by month, currency
          order by month, currency`
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            month: row.month,
            currency: row.currency,
            invoicedMinorUnits: Number(row.invoiced),
            paidMinorUnits: Number(row.paid),
            overdueMinorUnits: Number(row.overdue)
          }))
        )
      ),

    /** Today's overdue invoices (status `sent`, due before `today`) counted and their balance summed by days overdue. */
    overdueByAge: (organizationId: string, today: string) =>
      Sql.rows(
        sql<AgeRow>`
          select currency, age, count(*) as count, sum(balance) as balance from (
            select i.currency, coalesce(i.balance_minor_units, 0)::bigint as balance,
              case
                when ${today}::date - i.due_date::date <= 30 then '1-30'
                when ${today}::date - i.due_date::date <= 60 then '31-60'
                when ${today}::date - i.due_date::date <= 90 then '61-90'
                else '90+'
              end as age
            from invoices i
            where i.organization_id = ${organizationId} and i.deleted_at is null and i.status = 'sent'
              and i.due_date is not null and i.due_date::date < ${today}::date
          ) overdue
          group by currency, age
          order by currency, age`
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ currency: row.currency, age: row.age, count: Number(row.count), balanceMinorUnits: Number(row.balance) }))
        )
      )
  })
}) {}
