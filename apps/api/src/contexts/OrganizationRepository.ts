/**
 * SQL of organizations for other capabilities (contexts owns the `organizations` table): billing takes invoice numbers
 * and reads the VAT country here, in its own transaction, and signing's contract document shows the organization's
 * name through {@link organizationNameOf}.
 */
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"

/**
 * The name of the organization whose id is in `column` (snake_case, qualified, not null), as a scalar subquery: what
 * another capability's statement shows beside its records without reading this table itself (tenancy's contract
 * as signing prepares it).
 */
export const organizationNameOf = (column: string): RawBuilder<string> =>
  sql<string>`(select name from organizations where id = ${sql.ref(column)})`

export class OrganizationRepository extends Effect.Service<OrganizationRepository>()(
  "@propline/api/contexts/OrganizationRepository",
  {
    succeed: spanned("OrganizationRepository", {
      /**
       * Takes `count` numbers of the organization's invoice number series and returns the first (the organization's
       * row is locked until the transaction ends, so concurrent runs take consecutive ranges).
       */
      takeInvoiceNumbers: (organizationId: string, count: number) =>
        Sql.query((db) =>
          db
            .updateTable("organizations")
            .set((eb) => ({ nextInvoiceNumber: eb("nextInvoiceNumber", "+", count) }))
            .where("id", "=", organizationId)
            .returning("nextInvoiceNumber")
            .executeTakeFirstOrThrow()
        ).pipe(Effect.map((row) => Number(row.nextInvoiceNumber) - count)),

      /** The organization's country (ISO 3166-1 alpha-2, as stored); a defect when the organization is gone. */
      country: (organizationId: string) =>
        Sql.query((db) =>
          db.selectFrom("organizations").select("country").where("id", "=", organizationId).executeTakeFirstOrThrow()
        ).pipe(Effect.map((row) => row.country))
    })
  }
) {}
