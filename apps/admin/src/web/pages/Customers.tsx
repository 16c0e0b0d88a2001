/** Customers and contracts: lists filtered in the URL, and each record's page. */
import type { ContractSummary, CustomerSummary } from "@propline/contract/CustomersAdmin"
import { call } from "../api.js"
import { percent } from "../format.js"
import { Money } from "../ui/Money.js"
import { When } from "../ui/Time.js"
import { hrefWith, Link } from "../router.js"
import { Facts, ListPage, RecordPage, Status, Table } from "../ui.js"
import { ContractSigning } from "./Signing.js"

const kind = (value: string | undefined) => (value === "company" || value === "private" ? value : undefined)
const contractStatus = (value: string | undefined) => (value === "active" || value === "terminated" ? value : undefined)

const CustomerRow = (customer: CustomerSummary) => (
  <tr key={customer.id}>
    <td>{customer.customerNumber}</td>
    <td>
      <Link href={`/customers/${customer.id}`}>{customer.name}</Link>
    </td>
    <td>{customer.kind}</td>
    <td>{customer.country}</td>
    <td>{customer.organisationNumber ?? "—"}</td>
    <td>{customer.contractCount}</td>
  </tr>
)

export const CustomersPage = () => (
  <ListPage
    title="Customers"
    filters={[
      { name: "q", label: "Name or number" },
      { name: "kind", label: "Kind", options: [["company", "Company"], ["private", "Private person"]] }
    ]}
    fetch={(query) => call((client) => client.customers.list({ urlParams: { q: query["q"], kind: kind(query["kind"]), cursor: query["cursor"] } }))}
    head={["Number", "Name", "Kind", "Country", "Organisation number", "Contracts"]}
    empty="No customer matches."
    row={CustomerRow}
  />
)

const contractHead = ["Contract", "Customer", "Context", "Monthly, net", "Starts", "Ends", "Status"]

const ContractRow = (contract: ContractSummary) => (
  <tr key={contract.id}>
    <td>
      <Link href={`/contracts/${contract.id}`}>{contract.contractNumber}</Link>
    </td>
    <td>
      <Link href={`/customers/${contract.customerId}`}>{contract.customerName}</Link>
    </td>
    <td>{contract.operationalContextName}</td>
    <td className="number"><Money minorUnits={contract.monthlyNetMinorUnits} currency={contract.currency} /></td>
    <td>{contract.startsOn}</td>
    <td>{contract.endsOn ?? "open-ended"}</td>
    <td>
      <Status value={contract.status} />
    </td>
  </tr>
)

export const CustomerPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`customer ${id}`}
    fetch={() => call((client) => client.customers.get({ path: { customerId: id } }))}
    fallback="Customer"
    title={(found) => found.customer.name}
    back={["/customers", "All customers"]}
  >
    {(found) => (
      <>
        <Facts
          items={[
            ["Customer number", found.customer.customerNumber],
            ["Kind", found.customer.kind],
            ["Country", found.customer.country],
            ["Organisation number", found.customer.organisationNumber ?? "—"],
            ["Created", <When at={found.customer.createdAt} />]
          ]}
        />
        <h2>Billing accounts</h2>
        <Table caption="Billing accounts" head={["Name", "E-mail", "Address"]}>
          {found.billingAccounts.map((account) => (
            <tr key={account.id}>
              <td>{account.name}</td>
              <td>{account.email ?? "—"}</td>
              <td>{[account.addressLine, account.postalCode, account.city, account.country].filter(Boolean).join(", ")}</td>
            </tr>
          ))}
        </Table>
        <h2>Contracts</h2>
        <Table caption="Contracts of the customer" head={contractHead}>
          {found.contracts.map(ContractRow)}
        </Table>
      </>
    )}
  </RecordPage>
)

export const ContractsPage = () => (
  <ListPage
    title="Contracts"
    filters={[
      { name: "q", label: "Contract number or customer" },
      { name: "status", label: "Status", options: [["active", "Active"], ["terminated", "Terminated"]] }
    ]}
    fetch={(query) =>
      call((client) =>
        client.customers.listContracts({ urlParams: { q: query["q"], status: contractStatus(query["status"]), cursor: query["cursor"] } })
      )
    }
    head={contractHead}
    empty="No contract matches."
    row={ContractRow}
  />
)

export const ContractPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`contract ${id}`}
    fetch={() => call((client) => client.customers.getContract({ path: { contractId: id } }))}
    fallback="Contract"
    title={(found) => `Contract ${found.contract.contractNumber}`}
    back={["/contracts", "All contracts"]}
  >
    {({ contract, billingAccount, lines }) => (
      <>
        <Facts
          items={[
            ["Customer", <Link href={`/customers/${contract.customerId}`}>{contract.customerName}</Link>],
            ["Context", contract.operationalContextName],
            ["Status", <Status value={contract.status} />],
            ["Currency", contract.currency],
            ["Payment terms", `${contract.paymentTermsDays} days`],
            ["Period", `${contract.startsOn} – ${contract.endsOn ?? "open-ended"}`],
            ["Billing account", billingAccount.name],
            ["Invoices", <Link href={hrefWith("/billing/invoices", { q: contract.customerName })}>Invoices of the customer</Link>]
          ]}
        />
        <h2>Lines</h2>
        <Table caption="Contract lines" head={["Description", "Monthly, net", "VAT"]}>
          {lines.map((line) => (
            <tr key={line.id}>
              <td>{line.description}</td>
              <td className="number"><Money minorUnits={line.monthlyNetMinorUnits} currency={contract.currency} /></td>
              <td>{percent(line.vatRateBasisPoints)}</td>
            </tr>
          ))}
        </Table>
        <ContractSigning contractId={contract.id} contractStatus={contract.status} />
      </>
    )}
  </RecordPage>
)
