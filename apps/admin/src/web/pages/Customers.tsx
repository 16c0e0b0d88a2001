/** Customers and contracts: lists filtered in the URL, and each record's page. */
import type { ContractSummary } from "../../Customers.js"
import { call } from "../api.js"
import { dateTime, money, percent } from "../format.js"
import { hrefWith, Link } from "../router.js"
import { useLoad } from "../session.js"
import { Empty, Facts, Filters, Loading, PageHeader, Pager, ProblemNotice, Status, Table, useQuery } from "../ui.js"

const kind = (value: string | undefined) => (value === "company" || value === "private" ? value : undefined)
const contractStatus = (value: string | undefined) => (value === "active" || value === "terminated" ? value : undefined)

export const CustomersPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`customers ${key}`, () =>
    call((client) =>
      client.customers.list({
        urlParams: { q: query["q"], kind: kind(query["kind"]), cursor: query["cursor"] }
      })
    )
  )
  return (
    <>
      <PageHeader title="Customers" />
      <Filters
        key={key}
        problem={load._tag === "failed" ? load.problem : undefined}
        specs={[
          { name: "q", label: "Name or number" },
          { name: "kind", label: "Kind", options: [["company", "Company"], ["private", "Private person"]] }
        ]}
      />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Customers" head={["Number", "Name", "Kind", "Country", "Organisation number", "Contracts"]}>
            {load.value.items.length === 0 ? <Empty columns={6} text="No customer matches." /> : null}
            {load.value.items.map((customer) => (
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
            ))}
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

const ContractRows = ({ contracts }: { readonly contracts: ReadonlyArray<ContractSummary> }) => (
  <>
    {contracts.length === 0 ? <Empty columns={7} text="No contract matches." /> : null}
    {contracts.map((contract) => (
      <tr key={contract.id}>
        <td>
          <Link href={`/contracts/${contract.id}`}>{contract.contractNumber}</Link>
        </td>
        <td>
          <Link href={`/customers/${contract.customerId}`}>{contract.customerName}</Link>
        </td>
        <td>{contract.operationalContextName}</td>
        <td className="number">{money(contract.monthlyNetMinorUnits, contract.currency)}</td>
        <td>{contract.startsOn}</td>
        <td>{contract.endsOn ?? "open-ended"}</td>
        <td>
          <Status value={contract.status} />
        </td>
      </tr>
    ))}
  </>
)

const contractHead = ["Contract", "Customer", "Context", "Monthly, net", "Starts", "Ends", "Status"]

export const CustomerPage = ({ id }: { readonly id: string }) => {
  const { load } = useLoad(`customer ${id}`, () => call((client) => client.customers.get({ path: { customerId: id } })))
  return (
    <>
      <PageHeader title={load._tag === "loaded" ? load.value.customer.name : "Customer"}>
        <Link href="/customers">All customers</Link>
      </PageHeader>
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loaded" ? (
        <>
          <Facts
            items={[
              ["Customer number", load.value.customer.customerNumber],
              ["Kind", load.value.customer.kind],
              ["Country", load.value.customer.country],
              ["Organisation number", load.value.customer.organisationNumber ?? "—"],
              ["Created", dateTime(load.value.customer.createdAt)]
            ]}
          />
          <h2>Billing accounts</h2>
          <Table caption="Billing accounts" head={["Name", "E-mail", "Address"]}>
            {load.value.billingAccounts.map((account) => (
              <tr key={account.id}>
                <td>{account.name}</td>
                <td>{account.email ?? "—"}</td>
                <td>{[account.addressLine, account.postalCode, account.city, account.country].filter(Boolean).join(", ")}</td>
              </tr>
            ))}
          </Table>
          <h2>Contracts</h2>
          <Table caption="Contracts of the customer" head={contractHead}>
            <ContractRows contracts={load.value.contracts} />
          </Table>
        </>
      ) : null}
    </>
  )
}

export const ContractsPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`contracts ${key}`, () =>
    call((client) =>
      client.customers.listContracts({
        urlParams: { q: query["q"], status: contractStatus(query["status"]), cursor: query["cursor"] }
      })
    )
  )
  return (
    <>
      <PageHeader title="Contracts" />
      <Filters
        key={key}
        problem={load._tag === "failed" ? load.problem : undefined}
        specs={[
          { name: "q", label: "Contract number or customer" },
          { name: "status", label: "Status", options: [["active", "Active"], ["terminated", "Terminated"]] }
        ]}
      />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Contracts" head={contractHead}>
            <ContractRows contracts={load.value.items} />
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

export const ContractPage = ({ id }: { readonly id: string }) => {
  const { load } = useLoad(`contract ${id}`, () => call((client) => client.customers.getContract({ path: { contractId: id } })))
  return (
    <>
      <PageHeader title={load._tag === "loaded" ? `Contract ${load.value.contract.contractNumber}` : "Contract"}>
        <Link href="/contracts">All contracts</Link>
      </PageHeader>
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loaded" ? (
        <>
          <Facts
            items={[
              ["Customer", <Link href={`/customers/${load.value.contract.customerId}`}>{load.value.contract.customerName}</Link>],
              ["Context", load.value.contract.operationalContextName],
              ["Status", <Status value={load.value.contract.status} />],
              ["Currency", load.value.contract.currency],
              ["Payment terms", `${load.value.contract.paymentTermsDays} days`],
              ["Period", `${load.value.contract.startsOn} – ${load.value.contract.endsOn ?? "open-ended"}`],
              ["Billing account", load.value.billingAccount.name],
              ["Invoices", <Link href={hrefWith("/billing/invoices", { q: load.value.contract.customerName })}>Invoices of the customer</Link>]
            ]}
          />
          <h2>Lines</h2>
          <Table caption="Contract lines" head={["Description", "Monthly, net", "VAT"]}>
            {load.value.lines.map((line) => (
              <tr key={line.id}>
                <td>{line.description}</td>
                <td className="number">{money(line.monthlyNetMinorUnits, load.value.contract.currency)}</td>
                <td>{percent(line.vatRateBasisPoints)}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}
    </>
  )
}
