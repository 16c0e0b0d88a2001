/** Customers and contracts, read only, within the operator's organization (another's id is 404). */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import {
  BillingAccountView,
  ContractDetail,
  ContractLineView,
  ContractSummary,
  CustomerDetail,
  CustomerSummary
} from "@propline/admin/Customers"
import { CurrentOperator } from "@propline/admin/Session"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { decodeCursor, given, limitOf, page } from "./AdminListing.js"
import * as Queries from "./CustomerQueries.js"

const toContract = (row: Effect.Effect.Success<ReturnType<typeof Queries.contracts>>[number]) =>
  new ContractSummary({
    id: row.id,
    contractNumber: row.contractNumber,
    customerId: row.customerId,
    customerName: row.customerName,
    operationalContextId: row.operationalContextId,
    operationalContextName: row.operationalContextName,
    currency: row.currency,
    monthlyNetMinorUnits: Number(row.monthlyNetMinorUnits),
    paymentTermsDays: row.paymentTermsDays,
    startsOn: row.startsOn,
    endsOn: row.endsOn,
    status: row.status,
    createdAt: row.createdAt
  })

const toCustomer = (row: Effect.Effect.Success<ReturnType<typeof Queries.customers>>[number]) =>
  new CustomerSummary({ ...row, contractCount: Number(row.contractCount) })

export const CustomerHandlers = HttpApiBuilder.group(AdminApi, "customers", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-customers", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.customers(
          operator.organizationId,
          { q: given(urlParams.q), kind: given(urlParams.kind) },
          after,
          limit
        )
        const result = page("admin-customers", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return { items: result.items.map(toCustomer), nextCursor: result.nextCursor }
      })
    )
    .handle("get", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const customer = yield* Queries.customer(operator.organizationId, path.customerId)
        if (customer === undefined) return yield* Effect.fail(problem.notFound("There is no such customer."))
        const [accounts, contracts] = yield* Effect.all([
          Queries.billingAccountsOf(operator.organizationId, customer.id),
          Queries.contractsOfCustomer(operator.organizationId, customer.id)
        ])
        return new CustomerDetail({
          customer: toCustomer(customer),
          billingAccounts: accounts.map((account) => new BillingAccountView(account)),
          contracts: contracts.map(toContract)
        })
      })
    )
    .handle("listContracts", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-contracts", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.contracts(
          operator.organizationId,
          {
            q: given(urlParams.q),
            status: given(urlParams.status),
            customerId: urlParams.customerId,
            operationalContextId: urlParams.operationalContextId
          },
          after,
          limit
        )
        const result = page("admin-contracts", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return { items: result.items.map(toContract), nextCursor: result.nextCursor }
      })
    )
    .handle("getContract", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const contract = yield* Queries.contract(operator.organizationId, path.contractId)
        if (contract === undefined) return yield* Effect.fail(problem.notFound("There is no such contract."))
        const [account, lines] = yield* Effect.all([
          Queries.billingAccount(operator.organizationId, contract.billingAccountId),
          Queries.contractLines(contract.id)
        ])
        return new ContractDetail({
          contract: toContract(contract),
          billingAccount: new BillingAccountView(account),
          lines: lines.map((line) => new ContractLineView(line))
        })
      })
    )
)
