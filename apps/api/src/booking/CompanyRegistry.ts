/**
 * The company registry a company lookup asks (decisions 7), behind one interface so an organization can be given
 * a remote registry (Bolagsverket, Brønnøysundregistrene …) without the service knowing which. The default is the
 * organization's own customer register: the companies it already has as customers, by organisation number (read
 * through tenancy's `CustomerRepository`, which owns the table).
 */
import type { RegisteredCompany } from "@propline/booking/CompanyLookup"
import { CompanyRegistryNotSupported, type CompanyRegistryUnavailable } from "@propline/booking/CompanyLookup"
import type { RegistryCountry } from "@propline/booking/OrganisationNumber"
import type * as Db from "@propline/db/Db"
import { Context, Effect, Layer } from "effect"
import { CustomerRepository } from "../tenancy/CustomerRepository.js"

/** What a lookup finds: the company, and the customer number when the register is the organization's own. */
export interface RegistryAnswer extends RegisteredCompany {
  readonly customerNumber?: string
}

/**
 * A registry: its `name` (shown in the answer) and `lookUp`, given the organization and a checked organisation
 * number in canonical form. Undefined when the registry does not know the number; `CompanyRegistryNotSupported`
 * for a country it cannot answer; `CompanyRegistryUnavailable` when it could not be asked.
 */
export interface CompanyRegistryShape {
  readonly name: string
  readonly lookUp: (
    organizationId: string,
    country: RegistryCountry,
    organisationNumber: string
  ) => Effect.Effect<RegistryAnswer | undefined, CompanyRegistryNotSupported | CompanyRegistryUnavailable>
}

export class CompanyRegistry extends Context.Tag("@propline/api/booking/CompanyRegistry")<CompanyRegistry, CompanyRegistryShape>() {}

/** The countries the customer register holds numbers of (spec 2.1 customers: Swedish and Norwegian). */
const CUSTOMER_REGISTER_COUNTRIES: ReadonlyArray<RegistryCountry> = ["SE", "NO"]

/** The default registry: the organization's customers of kind `company`, matched on country and digits. */
export const CustomerRegisterLive = Layer.effect(
  CompanyRegistry,
  Effect.map(Effect.all([CustomerRepository, Effect.context<Db.Db>()]), ([customers, context]) => ({
    name: "customer-register",
    lookUp: (organizationId: string, country: RegistryCountry, organisationNumber: string) =>
      CUSTOMER_REGISTER_COUNTRIES.includes(country)
        ? customers.companyByOrganisationNumber(organizationId, country, organisationNumber.replace(/\D/g, "")).pipe(
            Effect.map((row) => (row === undefined ? undefined : { name: row.name, customerNumber: row.customerNumber })),
            Effect.provide(context)
          )
        : Effect.fail(
            new CompanyRegistryNotSupported({
              country,
              detail: `The organization's company registry cannot look up ${country} organisation numbers.`
            })
          )
  }))
).pipe(Layer.provide(CustomerRepository.Default))
