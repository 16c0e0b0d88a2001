/** Customers and contracts, read only, within the operator's organization (another's id is 404). */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import {
  BillingAccountView,
  ContractDetail,
  ContractLineView,
  ContractSummary,
  CustomerDetail,
  CustomerSummary
} from "@propline/contract/CustomersAdmin"
import { CurrentOperator } from "@propline/contract/AdminSession"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { CustomerReadRepository } from "./CustomerReadRepository.js"

type ContractRow = Effect.Effect.Success<ReturnType<CustomerReadRepository["contract"]>>["contract"]
type CustomerRow = Effect.Effect.Success<ReturnType<CustomerReadRepository["customer"]>>["customer"]

const toContract = (row: ContractRow) =>
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

const toCustomer = (row: CustomerRow) => new CustomerSummary({ ...row, contractCount: Number(row.contractCount) })

export const CustomerAdminHandlers = HttpApiBuilder.group(AdminApi, "customers", (handlers) =>
  Effect.gen(function* () {
    const views = yield* CustomerReadRepository
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-customers", urlParams.cursor)
          const filter = { q: given(urlParams.q), kind: given(urlParams.kind) }
          const page = yield* views.customers(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toCustomer), nextCursor: page.nextCursor }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.customer(organizationId, path.customerId).pipe(Effect.mapError(toProblem))
          return new CustomerDetail({
            customer: toCustomer(found.customer),
            billingAccounts: found.billingAccounts.map((account) => new BillingAccountView(account)),
            contracts: found.contracts.map(toContract)
          })
        })
      )
      .handle("listContracts", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-contracts", urlParams.cursor)
          const filter = {
            q: given(urlParams.q),
            status: given(urlParams.status),
            customerId: urlParams.customerId,
            operationalContextId: urlParams.operationalContextId
          }
          const page = yield* views.contracts(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toContract), nextCursor: page.nextCursor }
        })
      )
      .handle("getContract", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.contract(organizationId, path.contractId).pipe(Effect.mapError(toProblem))
          return new ContractDetail({
            contract: toContract(found.contract),
            billingAccount: new BillingAccountView(found.billingAccount),
            lines: found.lines.map((line) => new ContractLineView(line))
          })
        })
      )
  })
)
