/**
 * Billing as operators see it: invoice runs, invoices and credit notes (with their lines), proposals and the send
 * queue. Read views for now; each action arrives with its billing operator service.
 */
import type { InvoiceSummary } from "../../Billing.js"
import { call } from "../api.js"
import { dateTime, money, percent } from "../format.js"
import { hrefWith, Link } from "../router.js"
import { useLoad } from "../session.js"
import { Empty, Facts, type FilterSpec, Filters, Loading, PageHeader, Pager, ProblemNotice, Status, Table, useQuery } from "../ui.js"

const currencies = ["SEK", "NOK", "DKK", "EUR", "USD", "GBP"] as const
const pick = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

const invoiceStatuses = ["created", "approved", "sent", "paid", "written-off", "failed"] as const
const proposalStatuses = ["proposed", "passed", "rejected", "cancelled"] as const

const currencyFilter: FilterSpec = { name: "currency", label: "Currency", options: currencies.map((c) => [c, c] as const) }

export const InvoiceRunsPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`runs ${key}`, () =>
    call((client) => client.billing.listInvoiceRuns({ urlParams: { status: query["status"], cursor: query["cursor"] } }))
  )
  return (
    <>
      <PageHeader title="Invoice runs" />
      <Filters key={key} problem={load._tag === "failed" ? load.problem : undefined} specs={[{ name: "status", label: "Status", options: [["draft", "Draft"], ["approved", "Approved"]] }]} />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Invoice runs" head={["Period", "Context", "Status", "Invoices", "Proposals", "Approved", "Created"]}>
            {load.value.items.length === 0 ? <Empty columns={7} text="No invoice run matches." /> : null}
            {load.value.items.map((run) => (
              <tr key={run.id}>
                <td>
                  {run.periodStart} – {run.periodEnd}
                </td>
                <td>{run.operationalContextName}</td>
                <td>
                  <Status value={run.status} />
                </td>
                <td>
                  <Link href={hrefWith("/billing/invoices", { invoiceRunId: run.id })}>{run.invoiceCount}</Link>
                </td>
                <td>
                  <Link href={hrefWith("/billing/proposals", { invoiceRunId: run.id })}>{run.proposalCount}</Link>
                </td>
                <td>{dateTime(run.approvedAt)}</td>
                <td>{dateTime(run.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

const InvoiceRows = ({ invoices }: { readonly invoices: ReadonlyArray<InvoiceSummary> }) => (
  <>
    {invoices.length === 0 ? <Empty columns={8} text="No invoice matches." /> : null}
    {invoices.map((invoice) => (
      <tr key={invoice.id}>
        <td>
          <Link href={`/billing/invoices/${invoice.id}`}>{invoice.invoiceNumber}</Link>
        </td>
        <td>{invoice.documentKind}</td>
        <td>{invoice.recipientAgentName}</td>
        <td className="number">{money(invoice.totalGrossMinorUnits, invoice.currency)}</td>
        <td className="number">{invoice.balanceMinorUnits === null ? "—" : money(invoice.balanceMinorUnits, invoice.currency)}</td>
        <td>
          <Status value={invoice.status} />
          {invoice.failureReason === null ? null : <p className="muted">{invoice.failureReason}</p>}
        </td>
        <td>{invoice.requestedInvoiceDate}</td>
        <td>{dateTime(invoice.approvedAt)}</td>
      </tr>
    ))}
  </>
)

const invoiceHead = ["Number", "Kind", "Customer", "Total", "Balance", "Status", "Invoice date", "Approved"]

export const InvoicesPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`invoices ${key}`, () =>
    call((client) =>
      client.billing.listInvoices({
        urlParams: {
          q: query["q"],
          status: pick(invoiceStatuses, query["status"]),
          documentKind: pick(["invoice", "credit-note"] as const, query["documentKind"]),
          currency: pick(currencies, query["currency"]),
          invoiceRunId: query["invoiceRunId"],
          cursor: query["cursor"]
        }
      })
    )
  )
  return (
    <>
      <PageHeader title="Invoices" />
      <Filters
        key={key}
        problem={load._tag === "failed" ? load.problem : undefined}
        specs={[
          { name: "q", label: "Customer, reference or number" },
          { name: "status", label: "Status", options: invoiceStatuses.map((s) => [s, s] as const) },
          { name: "documentKind", label: "Kind", options: [["invoice", "Invoice"], ["credit-note", "Credit note"]] },
          currencyFilter
        ]}
      />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Invoices" head={invoiceHead}>
            <InvoiceRows invoices={load.value.items} />
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

export const SendQueuePage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`send-queue ${key}`, () =>
    call((client) =>
      client.billing.sendQueue({ urlParams: { q: query["q"], currency: pick(currencies, query["currency"]), cursor: query["cursor"] } })
    )
  )
  return (
    <>
      <PageHeader title="Send queue" />
      <p className="hint">Approved invoices and credit notes waiting for the ERP to send them, oldest approval first.</p>
      <Filters key={key} problem={load._tag === "failed" ? load.problem : undefined} specs={[{ name: "q", label: "Customer, reference or number" }, currencyFilter]} />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Send queue" head={invoiceHead}>
            <InvoiceRows invoices={load.value.items} />
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

export const InvoicePage = ({ id }: { readonly id: string }) => {
  const { load } = useLoad(`invoice ${id}`, () => call((client) => client.billing.getInvoice({ path: { invoiceId: id } })))
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") {
    return (
      <>
        <PageHeader title="Invoice">
          <Link href="/billing/invoices">All invoices</Link>
        </PageHeader>
        <ProblemNotice problem={load.problem} />
      </>
    )
  }
  const { invoice, lines } = load.value
  return (
    <>
      <PageHeader title={`${invoice.documentKind === "invoice" ? "Invoice" : "Credit note"} ${invoice.invoiceNumber}`}>
        <Link href="/billing/invoices">All invoices</Link>
      </PageHeader>
      <Facts
        items={[
          ["Customer", invoice.recipientAgentName],
          ["Status", <Status value={invoice.status} />],
          ["Total, net", money(invoice.totalNetMinorUnits, invoice.currency)],
          ["VAT", money(invoice.totalVatMinorUnits, invoice.currency)],
          ["Total", money(invoice.totalGrossMinorUnits, invoice.currency)],
          ["Balance", invoice.balanceMinorUnits === null ? "not sent yet" : money(invoice.balanceMinorUnits, invoice.currency)],
          ["Invoice date", invoice.requestedInvoiceDate],
          ["Due date", invoice.requestedDueDate ?? "—"],
          ["External reference", invoice.externalReference ?? "—"],
          ["Issued number", invoice.issuedInvoiceNumber ?? "—"],
          ["Approved", dateTime(invoice.approvedAt)],
          ["Sent", dateTime(invoice.sentAt)],
          ["Failed", invoice.failureReason === null ? "—" : `${dateTime(invoice.failedAt)}: ${invoice.failureReason}`],
          ["Contract", <Link href={`/contracts/${invoice.contractId}`}>Open the contract</Link>]
        ]}
      />
      <h2>Lines</h2>
      <Table caption="Invoice lines" head={["#", "Description", "Net", "VAT rate", "VAT", "Total"]}>
        {lines.map((line) => (
          <tr key={line.position}>
            <td>{line.position}</td>
            <td>{line.description}</td>
            <td className="number">{money(line.netMinorUnits, invoice.currency)}</td>
            <td>{percent(line.vatRateBasisPoints)}</td>
            <td className="number">{money(line.vatMinorUnits, invoice.currency)}</td>
            <td className="number">{money(line.grossMinorUnits, invoice.currency)}</td>
          </tr>
        ))}
      </Table>
    </>
  )
}

export const ProposalsPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`proposals ${key}`, () =>
    call((client) =>
      client.billing.listProposals({
        urlParams: {
          q: query["q"],
          status: pick(proposalStatuses, query["status"]),
          currency: pick(currencies, query["currency"]),
          invoiceRunId: query["invoiceRunId"],
          cursor: query["cursor"]
        }
      })
    )
  )
  return (
    <>
      <PageHeader title="Invoice proposals" />
      <Filters
        key={key}
        problem={load._tag === "failed" ? load.problem : undefined}
        specs={[
          { name: "q", label: "Customer or number" },
          { name: "status", label: "Status", options: proposalStatuses.map((s) => [s, s] as const) },
          currencyFilter
        ]}
      />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Invoice proposals" head={["Number", "Kind", "Customer", "Total", "Status", "Invoice date", "Created"]}>
            {load.value.items.length === 0 ? <Empty columns={7} text="No proposal matches." /> : null}
            {load.value.items.map((proposal) => (
              <tr key={proposal.id}>
                <td>{proposal.invoiceNumber ?? "—"}</td>
                <td>{proposal.documentKind}</td>
                <td>{proposal.recipientAgentName}</td>
                <td className="number">{money(proposal.totalGrossMinorUnits, proposal.currency)}</td>
                <td>
                  <Status value={proposal.status} />
                  {proposal.rejectionReason === null ? null : <p className="muted">{proposal.rejectionReason}</p>}
                </td>
                <td>{proposal.requestedInvoiceDate}</td>
                <td>{dateTime(proposal.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}
