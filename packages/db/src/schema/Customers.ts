import type { Generated } from "kysely"

/** `customers`: the agents an organization bills (spec 2.1 recipientAgentId). */
export interface CustomerTable {
  readonly id: string
  readonly organizationId: string
  customerNumber: string
  name: string
  kind: "company" | "private"
  /** ISO 3166-1 alpha-2 country of registration. */
  country: string
  /** Swedish organisationsnummer or Norwegian organisasjonsnummer, digits only; null for a private person. */
  organisationNumber: string | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `billing_accounts`: where a customer's invoices are sent (spec 2.1 billingAccountId). */
export interface BillingAccountTable {
  readonly id: string
  readonly organizationId: string
  readonly customerId: string
  name: string
  email: string | null
  addressLine: string | null
  postalCode: string | null
  city: string | null
  country: string
  readonly createdAt: Date
  updatedAt: Date
}

/** `contracts`: what is billed to a customer, in one operational context and currency. */
export interface ContractTable {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly customerId: string
  billingAccountId: string
  contractNumber: string
  /** ISO 4217 code. */
  currency: string
  /** Days from invoice date to due date. */
  paymentTermsDays: number
  /** ISO date. */
  startsOn: string
  /** ISO date; null while open-ended. */
  endsOn: string | null
  status: "active" | "terminated"
  /**
   * Follows the contract's newest signing attempt: that attempt's status, or `unsent` before the first one
   * (migration 20261123_0300_signing).
   */
  signingStatus: Generated<"unsent" | "queued" | "started" | "signed" | "declined" | "expired" | "failed" | "withdrawn">
  readonly createdAt: Date
  updatedAt: Date
}

/** `contract_lines`: a monthly product line of a contract, net of VAT. */
export interface ContractLineTable {
  readonly id: string
  readonly contractId: string
  description: string
  /** Monthly price excluding VAT, in minor units of the contract's currency. */
  monthlyNetMinorUnits: number
  /** VAT rate in basis points (2500 = 25 %). */
  vatRateBasisPoints: number
  readonly createdAt: Date
}
