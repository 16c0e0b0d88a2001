/**
 * SQL of customers for other capabilities (tenancy owns the `customers` table): booking's default company
 * registry (`booking/CompanyRegistry.ts`, decisions 7) looks companies up here instead of reading the table, and the
 * console's organization page counts them through {@link customerCountOf}.
 */
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import * as Sql from "../platform/Sql.js"

/** How many customers the organization has, as a scalar subquery (the console's organization page). */
export const customerCountOf = (organizationId: string): RawBuilder<number> =>
  sql`(select count(*) from customers where organization_id = ${organizationId})`

export class CustomerRepository extends Effect.Service<CustomerRepository>()("@propline/api/tenancy/CustomerRepository", {
  succeed: {
    /**
     * The organization's oldest customer of kind `company` with `country` and `organisationNumber` (digits only,
     * as stored), with its customer number; undefined when there is none.
     */
    companyByOrganisationNumber: (organizationId: string, country: string, organisationNumber: string) =>
      Sql.query((db) =>
        db
          .selectFrom("customers")
          .select(["name", "customerNumber"])
          .where("organizationId", "=", organizationId)
          .where("kind", "=", "company")
          .where("country", "=", country)
          .where("organisationNumber", "=", organisationNumber)
          .orderBy("createdAt")
          .executeTakeFirst()
      ).pipe(Effect.withSpan("CustomerRepository.companyByOrganisationNumber", { captureStackTrace: false }))
  }
}) {}
