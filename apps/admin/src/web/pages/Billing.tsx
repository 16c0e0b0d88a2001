/**
 * Billing as operators see it: invoice runs, invoices and credit notes (with their lines), proposals and the send
 * queue. Read views for now; each action arrives with its billing operator service.
 */
import type { InvoiceSummary } from "../../Billing.js"
import { call } from "../api.js"
import { dateTime, money, percent } from "../format.js"
import { hrefWith, Link } from "../router.js"
import { Facts, type FilterSpec, ListPage, RecordPage, Status, Table } from "../ui.js"

const currencies = ["SEK", "NOK", "DKK", "EUR", "USD", "GBP"] as const
const pick = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

const invoiceStatuses = ["created", "approved", "sent", "paid", "written-off", "failed"] as const
const proposalStatuses = ["proposed", "passed", "rejected", "cancelled"] as const

const textFilter: FilterSpec = { name: "q", label: "Customer, reference or number" }
const currencyFilter: FilterSpec = { name: "currency", label: "Currency", options: currencies.map((c) => [c, c] as const) }

export const InvoiceRunsPage = () => (
  <ListPage
    title="Invoice runs"
    filters={[{ name: "status", label: "Status", options: [["draft", "Draft"], ["approved", "Approved"]] }]}
    fetch={(query) => call((client) => client.billing.listInvoiceRuns({ urlParams: { status: query["status"], cursor: query["cursor"] } }))}
    head={["Period", "Context", "Status", "Invoices", "Proposals", "Approved", "Created"]}
    empty="No invoice run matches."
    row={(run) => (
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
    )}
  />
)

const invoiceHead = ["Number", "Kind", "Customer", "Total", "Balance", "Status", "Invoice date", "Approved"]

const InvoiceRow = (invoice: InvoiceSummary) => (
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
)

export const InvoicesPage = () => (
  <ListPage
    title="Invoices"
    filters={[
      textFilter,
      { name: "status", label: "Status", options: invoiceStatuses.map((s) => [s, s] as const) },
      { name: "documentKind", label: "Kind", options: [["invoice", "Invoice"], ["credit-note", "Credit note"]] },
      currencyFilter
    ]}
    fetch={(query) =>
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
    }
    head={invoiceHead}
    empty="No invoice matches."
    row={InvoiceRow}
  />
)

export const SendQueuePage = () => (
  <ListPage
    title="Send queue"
    intro="Approved invoices and credit notes waiting for the ERP to send them, oldest approval first."
    filters={[textFilter, currencyFilter]}
    fetch={(query) =>
      call((client) => client.billing.sendQueue({ urlParams: { q: query["q"], currency: pick(currencies, query["currency"]), cursor: query["cursor"] } }))
    }
    head={invoiceHead}
    empty="The send queue is empty."
    row={InvoiceRow}
  />
)

export const InvoicePage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`invoice ${id}`}
    fetch={() => call((client) => client.billing.getInvoice({ path: { invoiceId: id } }))}
    fallback="Invoice"
    title={({ invoice }) => `${invoice.documentKind === "invoice" ? "Invoice" : "Credit note"} ${invoice.invoiceNumber}`}
    back={["/billing/invoices", "All invoices"]}
  >
    {({ invoice, lines }) => (
      <>
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
    )}
  </RecordPage>
)

export const ProposalsPage = () => (
  <ListPage
    title="Invoice proposals"
    filters={[
      { name: "q", label: "Customer or number" },
      { name: "status", label: "Status", options: proposalStatuses.map((s) => [s, s] as const) },
      currencyFilter
    ]}
    fetch={(query) =>
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
    }
    head={["Number", "Kind", "Customer", "Total", "Status", "Invoice date", "Created"]}
    empty="No proposal matches."
    row={(proposal) => (
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
    )}
  />
)
