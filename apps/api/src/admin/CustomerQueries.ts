/** SQL of the console's customer and contract pages (read only), always within one organization. */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"
import { containing, keyset, type Position } from "./AdminListing.js"

const contractCount = sql<number>`(select count(*) from contracts c where c.customer_id = customers.id)`

/** Customers, newest first; `limit + 1` rows. `q` matches name, customer number or organisation number. */
export const customers = (
  organizationId: string,
  filter: { readonly q: string | undefined; readonly kind: "company" | "private" | undefined },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = db
      .selectFrom("customers")
      .select([
        "id",
        "customerNumber",
        "name",
        "kind",
        "country",
        "organisationNumber",
        "createdAt",
        contractCount.as("contractCount")
      ])
      .where("organizationId", "=", organizationId)
      .where(keyset("customers.created_at", "customers.id", "desc", after))
    if (filter.q !== undefined) {
      const pattern = containing(filter.q)
      query = query.where((eb) =>
        eb.or([
          eb("name", "ilike", pattern),
          eb("customerNumber", "ilike", pattern),
          eb("organisationNumber", "ilike", pattern)
        ])
      )
    }
    if (filter.kind !== undefined) query = query.where("kind", "=", filter.kind)
    return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)

export const customer = (organizationId: string, customerId: string) =>
  Db.query((db) =>
    db
      .selectFrom("customers")
      .select([
        "id",
        "customerNumber",
        "name",
        "kind",
        "country",
        "organisationNumber",
        "createdAt",
        contractCount.as("contractCount")
      ])
      .where("organizationId", "=", organizationId)
      .where("id", "=", customerId)
      .executeTakeFirst()
  ).pipe(Effect.orDie)

const billingAccountColumns = ["id", "name", "email", "addressLine", "postalCode", "city", "country"] as const

export const billingAccountsOf = (organizationId: string, customerId: string) =>
  Db.query((db) =>
    db
      .selectFrom("billingAccounts")
      .select(billingAccountColumns)
      .where("organizationId", "=", organizationId)
      .where("customerId", "=", customerId)
      .orderBy("createdAt")
      .orderBy("id")
      .execute()
  ).pipe(Effect.orDie)

export const billingAccount = (organizationId: string, billingAccountId: string) =>
  Db.query((db) =>
    db
      .selectFrom("billingAccounts")
      .select(billingAccountColumns)
      .where("organizationId", "=", organizationId)
      .where("id", "=", billingAccountId)
      .executeTakeFirstOrThrow()
  ).pipe(Effect.orDie)

const contractSelect = (db: Parameters<Parameters<typeof Db.query>[0]>[0], organizationId: string) =>
  db
    .selectFrom("contracts")
    .innerJoin("customers", "customers.id", "contracts.customerId")
    .innerJoin("operationalContexts", "operationalContexts.id", "contracts.operationalContextId")
    .select([
      "contracts.id",
      "contracts.contractNumber",
      "contracts.customerId",
      "customers.name as customerName",
      "contracts.operationalContextId",
      "operationalContexts.name as operationalContextName",
      "contracts.currency",
      "contracts.paymentTermsDays",
      "contracts.startsOn",
      "contracts.endsOn",
      "contracts.status",
      "contracts.createdAt",
      "contracts.billingAccountId",
      sql<number>`coalesce((select sum(l.monthly_net_minor_units) from contract_lines l where l.contract_id = contracts.id), 0)`.as(
        "monthlyNetMinorUnits"
      )
    ])
    .where("contracts.organizationId", "=", organizationId)

/** Contracts, newest first; `limit + 1` rows. `q` matches the contract number or the customer's name. */
export const contracts = (
  organizationId: string,
  filter: {
    readonly q: string | undefined
    readonly status: "active" | "terminated" | undefined
    readonly customerId: string | undefined
    readonly operationalContextId: string | undefined
  },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = contractSelect(db, organizationId).where(keyset("contracts.created_at", "contracts.id", "desc", after))
    if (filter.q !== undefined) {
      const pattern = containing(filter.q)
      query = query.where((eb) => eb.or([eb("contracts.contractNumber", "ilike", pattern), eb("customers.name", "ilike", pattern)]))
    }
    if (filter.status !== undefined) query = query.where("contracts.status", "=", filter.status)
    if (filter.customerId !== undefined) query = query.where("contracts.customerId", "=", filter.customerId)
    if (filter.operationalContextId !== undefined) {
      query = query.where("contracts.operationalContextId", "=", filter.operationalContextId)
    }
    return query.orderBy("contracts.createdAt", "desc").orderBy("contracts.id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)

export const contract = (organizationId: string, contractId: string) =>
  Db.query((db) => contractSelect(db, organizationId).where("contracts.id", "=", contractId).executeTakeFirst()).pipe(
    Effect.orDie
  )

export const contractsOfCustomer = (organizationId: string, customerId: string) =>
  Db.query((db) =>
    contractSelect(db, organizationId)
      .where("contracts.customerId", "=", customerId)
      .orderBy("contracts.createdAt", "desc")
      .orderBy("contracts.id", "desc")
      .limit(200)
      .execute()
  ).pipe(Effect.orDie)

export const contractLines = (contractId: string) =>
  Db.query((db) =>
    db
      .selectFrom("contractLines")
      .select(["id", "description", "monthlyNetMinorUnits", "vatRateBasisPoints"])
      .where("contractId", "=", contractId)
      .orderBy("createdAt")
      .orderBy("id")
      .execute()
  ).pipe(Effect.orDie)
