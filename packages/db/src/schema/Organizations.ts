import type { Generated } from "kysely"

/** `organizations`: the tenant that owns contexts, customers, billing and Applications. */
export interface OrganizationTable {
  readonly id: string
  name: string
  /** ISO 3166-1 alpha-2 country of the organization (SE, NO, ...). */
  country: string
  /** Next value of the organization's own invoice number series (spec 2.1 invoiceNumber). */
  nextInvoiceNumber: Generated<number>
  readonly createdAt: Date
  updatedAt: Date
}

/** `operational_contexts`: the organization's tree (organization root, region, property, building). */
export interface OperationalContextTable {
  readonly id: string
  readonly organizationId: string
  parentId: string | null
  kind: "organization" | "region" | "property" | "building"
  name: string
  readonly createdAt: Date
  updatedAt: Date
}
