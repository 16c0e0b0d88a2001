/** Customers, their billing accounts and contracts, read only (the records invoices are drawn from). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { NotFound } from "./Problem.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class CustomerSummary extends Schema.Class<CustomerSummary>("CustomerSummary")({
  id: Schema.UUID,
  customerNumber: Schema.String,
  name: Schema.String,
  kind: Schema.Literal("company", "private"),
  country: Schema.String,
  organisationNumber: Schema.NullOr(Schema.String),
  contractCount: Schema.Int,
  createdAt: Schema.Date
}) {}

export class BillingAccountView extends Schema.Class<BillingAccountView>("BillingAccountView")({
  id: Schema.UUID,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  addressLine: Schema.NullOr(Schema.String),
  postalCode: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  country: Schema.String
}) {}

export class ContractSummary extends Schema.Class<ContractSummary>("ContractSummary")({
  id: Schema.UUID,
  contractNumber: Schema.String,
  customerId: Schema.UUID,
  customerName: Schema.String,
  operationalContextId: Schema.UUID,
  operationalContextName: Schema.String,
  currency: Schema.String,
  /** Sum of the lines' monthly prices excluding VAT, in minor units. */
  monthlyNetMinorUnits: Schema.Int,
  paymentTermsDays: Schema.Int,
  startsOn: Schema.String,
  endsOn: Schema.NullOr(Schema.String),
  status: Schema.Literal("active", "terminated"),
  createdAt: Schema.Date
}) {}

export class ContractLineView extends Schema.Class<ContractLineView>("ContractLineView")({
  id: Schema.UUID,
  description: Schema.String,
  monthlyNetMinorUnits: Schema.Int,
  vatRateBasisPoints: Schema.Int
}) {}

export class CustomerDetail extends Schema.Class<CustomerDetail>("CustomerDetail")({
  customer: CustomerSummary,
  billingAccounts: Schema.Array(BillingAccountView),
  contracts: Schema.Array(ContractSummary)
}) {}

export class ContractDetail extends Schema.Class<ContractDetail>("ContractDetail")({
  contract: ContractSummary,
  billingAccount: BillingAccountView,
  lines: Schema.Array(ContractLineView)
}) {}

export const CustomerPage = Page(CustomerSummary, "CustomerPage")
export const ContractPage = Page(ContractSummary, "ContractPage")

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("list", "/api/customers")
      .setUrlParams(Schema.Struct({ ...PageQuery, q: Filter(200), kind: Choice("company", "private") }))
      .addSuccess(CustomerPage)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/customers/:customerId")
      .setPath(Schema.Struct({ customerId: Schema.UUID }))
      .addSuccess(CustomerDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listContracts", "/api/contracts")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          q: Filter(200),
          status: Choice("active", "terminated"),
          customerId: Schema.optional(Schema.UUID),
          operationalContextId: Schema.optional(Schema.UUID)
        })
      )
      .addSuccess(ContractPage)
  )
  .add(
    HttpApiEndpoint.get("getContract", "/api/contracts/:contractId")
      .setPath(Schema.Struct({ contractId: Schema.UUID }))
      .addSuccess(ContractDetail)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
