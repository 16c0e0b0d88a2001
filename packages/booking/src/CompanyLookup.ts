/**
 * Company lookup (spec section 4.2, `POST /v1/booking/company-lookups`; decisions.md section 7): after the
 * organisation number's checksum passes (`OrganisationNumber.ts`), the configured company registry is asked.
 * The default registry is the organization's own customer register; a registry that cannot answer for a country
 * refuses with `TENANT_COMPANY_REGISTRY_NOT_SUPPORTED`, one that fails with `TENANT_COMPANY_REGISTRY_UNAVAILABLE`.
 *
 * @since 0.1.0
 */
import { Refusal } from "@propline/refusal/Refusal"
import type { RegistryCountry } from "./OrganisationNumber.js"

/**
 * What a registry knows of a company: its registered `name`, and optionally its postal address lines.
 *
 * @since 0.1.0
 */
export interface RegisteredCompany {
  readonly name: string
  readonly addressLines?: ReadonlyArray<string>
}

/**
 * The answer to a lookup: the canonical organisation number and, when the registry knows it, the company
 * (`company` absent when the number is valid but unknown to the registry).
 *
 * @since 0.1.0
 */
export interface CompanyLookupResult {
  readonly country: RegistryCountry
  readonly organisationNumber: string
  readonly registry: string
  readonly company?: RegisteredCompany
}

/**
 * `TENANT_COMPANY_REGISTRY_NOT_SUPPORTED`, 400: the configured registry cannot answer for `country`.
 *
 * @since 0.1.0
 */
export class CompanyRegistryNotSupported extends Refusal(
  "CompanyRegistryNotSupported",
  "TENANT_COMPANY_REGISTRY_NOT_SUPPORTED",
  400
)<{ readonly country: RegistryCountry }> {}

/**
 * `TENANT_COMPANY_REGISTRY_UNAVAILABLE`, 400: the configured registry did not answer (a remote registry failed or
 * timed out); the request may be retried later.
 *
 * @since 0.1.0
 */
export class CompanyRegistryUnavailable extends Refusal(
  "CompanyRegistryUnavailable",
  "TENANT_COMPANY_REGISTRY_UNAVAILABLE",
  400
)<{ readonly registry: string }> {}
