/** The console's customer and contract pages as a read model, always within one organization. */
import type { Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, sql } from "kysely"
import { contextNameOf } from "../contexts/ContextRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { containing, keyed } from "../platform/ConsoleListing.js"

const contractCount = sql<number>`(select count(*) from contracts c where c.customer_id = customers.id)`

const customerColumns = [
  "customers.id",
  "customers.customerNumber",
  "customers.name",
  "customers.kind",
  "customers.country",
  "customers.organisationNumber",
  "customers.createdAt",
  contractCount.as("contractCount")
] as const

const billingAccountColumns = ["id", "name", "email", "addressLine", "postalCode", "city", "country"] as const

const contractSelect = (db: Kysely<Database>, organizationId: string) =>
  db
    .selectFrom("contracts")
    .innerJoin("customers", "customers.id", "contracts.customerId")
    .select([
      "contracts.id",
      "contracts.contractNumber",
      "contracts.customerId",
      "customers.name as customerName",
      "contracts.operationalContextId",
      contextNameOf("contracts.operational_context_id").as("operationalContextName"),
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

export interface CustomerFilter {
  /** Matches the name, the customer number or the organisation number. */
  readonly q: string | undefined
  readonly kind: "company" | "private" | undefined
}

export interface ContractFilter {
  /** Matches the contract number or the customer's name. */
  readonly q: string | undefined
  readonly status: "active" | "terminated" | undefined
  readonly customerId: string | undefined
  readonly operationalContextId: string | undefined
}

export class CustomerReadRepository extends Effect.Service<CustomerReadRepository>()("@propline/api/tenancy/CustomerReadRepository", {
  succeed: spanned("CustomerReadRepository", {
    /** A page of customers, newest first. */
    customers: (organizationId: string, filter: CustomerFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("customers")
          .select(customerColumns)
          .select(CursorPage.sortKey("customers.createdAt").as("cursorAt"))
          .where("customers.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("customers.createdAt", "customers.id", after))
        if (filter.q !== undefined) {
          const pattern = containing(filter.q)
          query = query.where((eb) =>
            eb.or([
              eb("customers.name", "ilike", pattern),
              eb("customers.customerNumber", "ilike", pattern),
              eb("customers.organisationNumber", "ilike", pattern)
            ])
          )
        }
        if (filter.kind !== undefined) query = query.where("customers.kind", "=", filter.kind)
        return query.orderBy("customers.createdAt", "desc").orderBy("customers.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-customers", keyed(rows), limit))),

    /** A customer with its billing accounts and contracts; RecordNotFound when not the organization's. */
    customer: (organizationId: string, customerId: string) =>
      Effect.gen(function* () {
        const customer = yield* Sql.query((db) =>
          db
            .selectFrom("customers")
            .select(customerColumns)
            .where("customers.organizationId", "=", organizationId)
            .where("customers.id", "=", customerId)
            .executeTakeFirst()
        )
        if (customer === undefined) return yield* new RecordNotFound({ kind: "customer" })
        const billingAccounts = yield* Sql.query((db) =>
          db
            .selectFrom("billingAccounts")
            .select(billingAccountColumns)
            .where("organizationId", "=", organizationId)
            .where("customerId", "=", customerId)
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
        )
        const contracts = yield* Sql.query((db) =>
          contractSelect(db, organizationId)
            .where("contracts.customerId", "=", customerId)
            .orderBy("contracts.createdAt", "desc")
            .orderBy("contracts.id", "desc")
            .limit(200)
            .execute()
        )
        return { customer, billingAccounts, contracts }
      }),

    /** A page of contracts, newest first. */
    contracts: (organizationId: string, filter: ContractFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = contractSelect(db, organizationId).select(CursorPage.sortKey("contracts.createdAt").as("cursorAt"))
        if (after !== undefined) query = query.where(CursorPage.before("contracts.createdAt", "contracts.id", after))
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
      }).pipe(Effect.map((rows) => CursorPage.page("admin-contracts", keyed(rows), limit))),

    /** A contract with its billing account and lines; RecordNotFound when not the organization's. */
    contract: (organizationId: string, contractId: string) =>
      Effect.gen(function* () {
        const contract = yield* Sql.query((db) => contractSelect(db, organizationId).where("contracts.id", "=", contractId).executeTakeFirst())
        if (contract === undefined) return yield* new RecordNotFound({ kind: "contract" })
        const billingAccount = yield* Sql.query((db) =>
          db
            .selectFrom("billingAccounts")
            .select(billingAccountColumns)
            .where("organizationId", "=", organizationId)
            .where("id", "=", contract.billingAccountId)
            .executeTakeFirstOrThrow()
        )
        const lines = yield* Sql.query((db) =>
          db
            .selectFrom("contractLines")
            .select(["id", "description", "monthlyNetMinorUnits", "vatRateBasisPoints"])
            .where("contractId", "=", contractId)
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
        )
        return { contract, billingAccount, lines }
      })
  })
}) {}
