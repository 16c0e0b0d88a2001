/**
 * Billing as operators see it: invoice runs (create for a period, continue, approve), invoices and credit notes
 * (approve, delete, credit in full or by lines; lines, payments and balance), proposals (cancel), the send queue and
 * the withdrawal queue. Every action is the billing service's; a refusal shows its code's sentence.
 */
import { type FormEvent, useState } from "react"
import type { InvoiceDetail, InvoiceSummary, RunOutcome } from "@propline/contract/BillingAdmin"
import { call } from "../api.js"
import { percent } from "../format.js"
import { Money } from "../ui/Money.js"
import { Period, When } from "../ui/Time.js"
import { hrefWith, Link, navigate } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Empty, Facts, Field, type FilterSpec, GroupError, ListPage, ProblemNotice, RecordPage, Status, Table } from "../ui.js"
import { ChangeButton, ChangeForm } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"
import { RunOutcomeNotice, runWarnings, useRunActions } from "./InvoiceRunDetail.js"
import { CancelledNotice, useProposalCancel } from "./ProposalDetail.js"

const currencies = ["SEK", "NOK", "DKK", "EUR", "USD", "GBP"] as const
const pick = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

const invoiceStatuses = ["created", "approved", "sent", "paid", "written-off", "failed"] as const
const proposalStatuses = ["proposed", "passed", "rejected", "cancelled"] as const

const textFilter: FilterSpec = { name: "q", label: "Customer, reference or number" }
const currencyFilter: FilterSpec = { name: "currency", label: "Currency", options: currencies.map((c) => [c, c] as const) }

/** A random UUID (version 4); `crypto.randomUUID` exists only in secure contexts, `getRandomValues` everywhere. */
const newUuid = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** `YYYY-MM-DD` of a date in UTC. */
const isoDate = (date: Date) => date.toISOString().slice(0, 10)

/** The first and last day of the calendar month after today (UTC): the period an operator usually bills next. */
const nextMonth = () => {
  const now = new Date()
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 0))
  return { periodStart: isoDate(first), periodEnd: isoDate(last), invoiceDate: isoDate(first) }
}

const NewRunForm = ({ onDone }: { readonly onDone: (outcome: RunOutcome) => void }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  const [values, setValues] = useState(() => ({ operationalContextId: "", ...nextMonth() }))
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const outcome = await action.run(() => call((client) => client.billing.createInvoiceRun({ payload: values })))
    if (outcome !== undefined) onDone(outcome)
  }
  const set = (name: keyof typeof values) => (event: { target: { value: string } }) => setValues({ ...values, [name]: event.target.value })
  return (
    <details className="form-panel">
      <summary>New invoice run</summary>
      <ChangeForm className="form inline-form" onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <Field label="Operational context" name="operationalContextId" problem={action.problem} hint="Its contracts and those of the contexts below it.">
          {(input) => (
            <select {...input} value={values.operationalContextId} onChange={set("operationalContextId")}>
              <option value="">Choose…</option>
              {organization.load._tag === "loaded"
                ? organization.load.value.contexts.map((context) => (
                    <option key={context.id} value={context.id}>
                      {context.name} ({context.kind})
                    </option>
                  ))
                : null}
            </select>
          )}
        </Field>
        <Field label="Period starts" name="periodStart" problem={action.problem} hint="The first day of a month.">
          {(input) => <input {...input} type="date" value={values.periodStart} onChange={set("periodStart")} />}
        </Field>
        <Field label="Period ends" name="periodEnd" problem={action.problem} hint="The last day of a month.">
          {(input) => <input {...input} type="date" value={values.periodEnd} onChange={set("periodEnd")} />}
        </Field>
        <Field label="Invoice date" name="invoiceDate" problem={action.problem}>
          {(input) => <input {...input} type="date" value={values.invoiceDate} onChange={set("invoiceDate")} />}
        </Field>
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create invoice run"}
        </button>
      </ChangeForm>
    </details>
  )
}

export const InvoiceRunsPage = () => {
  const [version, setVersion] = useState(0)
  const [outcome, setOutcome] = useState<{ outcome: RunOutcome; verb: "created" | "continued" | "approved" } | undefined>()
  const done = (result: RunOutcome, verb: "created" | "continued" | "approved") => {
    setOutcome({ outcome: result, verb })
    setVersion((n) => n + 1)
  }
  const actions = useRunActions(done)
  return (
    <ListPage
      title="Invoice runs"
      version={version}
      filters={[{ name: "status", label: "Status", options: [["draft", "Draft"], ["approved", "Approved"]] }]}
      fetch={(query) => call((client) => client.billing.listInvoiceRuns({ urlParams: { status: query["status"], cursor: query["cursor"] } }))}
      head={["Period", "Context", "Status", "Invoices", "Proposals", "Approved", "Created", "Actions"]}
      narrow={[2, 6, 7]}
      empty="No invoice run matches."
      row={(run) => (
        <tr key={run.id}>
          <td className="nowrap">
            <Link href={`/billing/invoice-runs/${run.id}`}>
              <Period start={run.periodStart} end={run.periodEnd} />
            </Link>
            {runWarnings(run).map((warning) => (
              <p key={warning} className="warning-text">
                Warning: {warning}
              </p>
            ))}
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
          <td><When at={run.approvedAt} /></td>
          <td><When at={run.createdAt} /></td>
          <td className="row-actions">
            {run.status === "draft" ? (
              <>
                <ChangeButton type="button" onClick={() => void actions.approve(run)} disabled={actions.busy}>
                  Approve<span className="visually-hidden"> the run {run.periodStart} – {run.periodEnd}</span>
                </ChangeButton>
                <ChangeButton type="button" className="secondary" onClick={() => void actions.carryOn(run)} disabled={actions.busy}>
                  Continue<span className="visually-hidden"> the run {run.periodStart} – {run.periodEnd}</span>
                </ChangeButton>
              </>
            ) : null}
          </td>
        </tr>
      )}
    >
      <NewRunForm onDone={(result) => done(result, "created")} />
      <ProblemNotice problem={actions.problem} />
      {outcome === undefined ? null : <RunOutcomeNotice outcome={outcome.outcome} verb={outcome.verb} />}
    </ListPage>
  )
}

const invoiceHead = ["Number", "Kind", "Customer", "Total", "Balance", "Status", "Invoice date", "Approved"]
/** Left out on a phone-sized screen: kind, balance, invoice date and approval (the invoice's page has them). */
const invoiceNarrow = [2, 5, 7, 8]

const InvoiceRow = (invoice: InvoiceSummary) => (
  <tr key={invoice.id}>
    <td>
      <Link href={`/billing/invoices/${invoice.id}`}>{invoice.invoiceNumber}</Link>
    </td>
    <td>{invoice.documentKind}</td>
    <td>{invoice.recipientAgentName}</td>
    <td className="number"><Money minorUnits={invoice.totalGrossMinorUnits} currency={invoice.currency} /></td>
    <td className="number">{invoice.balanceMinorUnits === null ? "—" : <Money minorUnits={invoice.balanceMinorUnits} currency={invoice.currency} />}</td>
    <td>
      <Status value={invoice.status} />
      {invoice.failureReason === null ? null : <p className="muted">{invoice.failureReason}</p>}
    </td>
    <td>{invoice.requestedInvoiceDate}</td>
    <td><When at={invoice.approvedAt} /></td>
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
    narrow={invoiceNarrow}
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
    narrow={invoiceNarrow}
    empty="The send queue is empty."
    row={InvoiceRow}
  />
)

/** Credit in full or by lines: the amount left on each line, and manual lines are the service's to check. */
const CreditForm = ({ detail, onDone }: { readonly detail: InvoiceDetail; readonly onDone: (note: InvoiceSummary) => void }) => {
  const { invoice, lines } = detail
  const [scope, setScope] = useState<"full" | "lines">("full")
  const [reason, setReason] = useState("")
  const [invoiceDate, setInvoiceDate] = useState(() => isoDate(new Date()))
  const [amounts, setAmounts] = useState<Record<string, string>>({})
  // One act per form: a repeated submit (a double click, a retry after a lost answer) credits once.
  const [creditActId] = useState(newUuid)
  const action = useAction()
  // The lines sent, in the order sent: an issue at `/scope/lines/{i}/…` belongs to the i-th of them.
  const [sentLineIds, setSentLineIds] = useState<ReadonlyArray<string>>([])
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const chosen = lines.flatMap((line) => {
      const text = amounts[line.id] ?? ""
      return text === "" ? [] : [{ lineId: line.id, netMinorUnits: Math.round(Number(text) * 100) }]
    })
    setSentLineIds(chosen.map((line) => line.lineId))
    const note = await action.run(() =>
      call((client) =>
        client.billing.creditInvoice({
          path: { invoiceId: invoice.id },
          payload: {
            creditActId,
            reason,
            invoiceDate,
            scope: scope === "full" ? { kind: "full" } : { kind: "lines", lines: chosen, manualLines: [] }
          }
        })
      )
    )
    if (note !== undefined) onDone(note)
  }
  return (
    <details className="form-panel">
      <summary>Credit this invoice</summary>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <fieldset>
          <legend>What to credit</legend>
          <label className="choice">
            <input type="radio" name="scope" value="full" checked={scope === "full"} onChange={() => setScope("full")} /> Everything not yet
            credited
          </label>
          <label className="choice">
            <input type="radio" name="scope" value="lines" checked={scope === "lines"} onChange={() => setScope("lines")} /> Chosen lines
          </label>
          <GroupError problem={action.problem} name="scope" />
          {scope === "lines"
            ? lines.map((line) => (
                <Field
                  key={line.id}
                  label={`${line.description}, net to credit (${invoice.currency})`}
                  name={`line-${line.id}`}
                  pointer={`/scope/lines/${sentLineIds.indexOf(line.id)}/netMinorUnits`}
                  problem={action.problem}
                  hint={
                    <>
                      Up to <Money minorUnits={line.netMinorUnits + line.creditedNetMinorUnits} currency={invoice.currency} /> left of{" "}
                      <Money minorUnits={line.netMinorUnits} currency={invoice.currency} />.
                    </>
                  }
                >
                  {(input) => (
                    <input
                      {...input}
                      type="number"
                      inputMode="decimal"
                      min="0"
                      step="0.01"
                      value={amounts[line.id] ?? ""}
                      onChange={(event) => setAmounts({ ...amounts, [line.id]: event.target.value })}
                    />
                  )}
                </Field>
              ))
            : null}
        </fieldset>
        <Field label="Reason" name="reason" problem={action.problem} hint="Kept with the credit note; 1 to 1000 characters.">
          {(input) => <input {...input} type="text" value={reason} onChange={(event) => setReason(event.target.value)} />}
        </Field>
        <Field label="Credit note date" name="invoiceDate" problem={action.problem}>
          {(input) => <input {...input} type="date" value={invoiceDate} onChange={(event) => setInvoiceDate(event.target.value)} />}
        </Field>
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Crediting…" : "Create credit note"}
        </button>
      </ChangeForm>
    </details>
  )
}

const InvoiceActions = ({ detail, reload }: { readonly detail: InvoiceDetail; readonly reload: () => void }) => {
  const { invoice } = detail
  const action = useAction()
  const dialog = useDialog()
  const [credited, setCredited] = useState<InvoiceSummary | undefined>()
  const approve = async () => {
    if ((await action.run(() => call((client) => client.billing.approveInvoice({ path: { invoiceId: invoice.id } })))) !== undefined) reload()
  }
  const remove = async () => {
    if (!(await dialog.confirm({ title: `Delete invoice ${invoice.invoiceNumber}?`, body: "It leaves every list, and an ERP that has it is told to discard it. This can't be undone.", confirm: `Delete invoice ${invoice.invoiceNumber}`, tone: "danger" }))) return
    const deleted = await action.run(() => call((client) => client.billing.deleteInvoice({ path: { invoiceId: invoice.id } })))
    if (deleted !== undefined) navigate(deleted.withdrawn ? "/billing/withdrawal-queue" : "/billing/invoices")
  }
  const creditable = invoice.documentKind === "invoice" && ["sent", "paid", "written-off"].includes(invoice.status)
  const deletable = ["created", "approved", "failed"].includes(invoice.status)
  return (
    <section aria-label="Actions" className="record-actions">
      <ProblemNotice problem={action.problem} />
      {credited === undefined ? null : (
        <p className="notice" role="status">
          Credit note <Link href={`/billing/invoices/${credited.id}`}>{credited.invoiceNumber}</Link> created, <Money minorUnits={credited.totalGrossMinorUnits} currency={credited.currency} />.
        </p>
      )}
      <div className="actions">
        {invoice.status === "created" ? (
          <ChangeButton type="button" onClick={approve} disabled={action.busy}>
            Approve
          </ChangeButton>
        ) : null}
        {deletable ? (
          <ChangeButton type="button" className="danger" onClick={remove} disabled={action.busy}>
            Delete
          </ChangeButton>
        ) : null}
      </div>
      {creditable ? (
        <CreditForm
          detail={detail}
          onDone={(note) => {
            setCredited(note)
            reload()
          }}
        />
      ) : null}
    </section>
  )
}

export const InvoicePage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`invoice ${id}`}
    fetch={() => call((client) => client.billing.getInvoice({ path: { invoiceId: id } }))}
    fallback="Invoice"
    title={({ invoice }) => `${invoice.documentKind === "invoice" ? "Invoice" : "Credit note"} ${invoice.invoiceNumber}`}
    back={["/billing/invoices", "All invoices"]}
  >
    {(detail, reload) => {
      const { invoice, lines, payments, writeOffs, creditNotes } = detail
      return (
        <>
          <InvoiceActions detail={detail} reload={reload} />
          <Facts
            items={[
              ["Customer", invoice.recipientAgentName],
              ["Status", <Status value={invoice.status} />],
              ["Total, net", <Money minorUnits={invoice.totalNetMinorUnits} currency={invoice.currency} />],
              ["VAT", <Money minorUnits={invoice.totalVatMinorUnits} currency={invoice.currency} />],
              ["Total", <Money minorUnits={invoice.totalGrossMinorUnits} currency={invoice.currency} />],
              ["Balance", invoice.balanceMinorUnits === null ? "not sent yet" : <Money minorUnits={invoice.balanceMinorUnits} currency={invoice.currency} />],
              ["Invoice date", invoice.requestedInvoiceDate],
              ["Due date", invoice.requestedDueDate ?? "—"],
              ["External reference", invoice.externalReference ?? "—"],
              ["Issued number", invoice.issuedInvoiceNumber ?? "—"],
              ["Approved", <When at={invoice.approvedAt} />],
              ["Sent", <When at={invoice.sentAt} />],
              ["Failed", invoice.failureReason === null ? "—" : `$<When at={invoice.failedAt} />: ${invoice.failureReason}`],
              ["Contract", <Link href={`/contracts/${invoice.contractId}`}>Open the contract</Link>]
            ]}
          />
          <h2>Lines</h2>
          <Table caption="Invoice lines" head={["#", "Description", "Net", "VAT rate", "VAT", "Total", "Credited, net"]}>
            {lines.map((line) => (
              <tr key={line.id}>
                <td>{line.position}</td>
                <td>{line.description}</td>
                <td className="number"><Money minorUnits={line.netMinorUnits} currency={invoice.currency} /></td>
                <td>{percent(line.vatRateBasisPoints)}</td>
                <td className="number"><Money minorUnits={line.vatMinorUnits} currency={invoice.currency} /></td>
                <td className="number"><Money minorUnits={line.grossMinorUnits} currency={invoice.currency} /></td>
                <td className="number">{line.creditedNetMinorUnits === 0 ? "—" : <Money minorUnits={line.creditedNetMinorUnits} currency={invoice.currency} />}</td>
              </tr>
            ))}
          </Table>
          <h2>Payments</h2>
          <Table caption="Payments" head={["Payment id", "Amount", "Paid on", "Reversed"]}>
            {payments.length === 0 ? <Empty columns={4} text="No payment reported." /> : null}
            {payments.map((payment) => (
              <tr key={payment.paymentId}>
                <td>
                  <code>{payment.paymentId}</code>
                </td>
                <td className="number"><Money minorUnits={payment.amountMinorUnits} currency={invoice.currency} /></td>
                <td>{payment.paidOn}</td>
                <td>{payment.reversedOn === null ? "—" : `${payment.reversedOn}${payment.reversalReason === null ? "" : `: ${payment.reversalReason}`}`}</td>
              </tr>
            ))}
          </Table>
          {writeOffs.length === 0 ? null : (
            <>
              <h2>Write-offs</h2>
              <Table caption="Write-offs" head={["Write-off id", "Amount", "On", "Reason"]}>
                {writeOffs.map((writeOff) => (
                  <tr key={writeOff.writeOffId}>
                    <td>
                      <code>{writeOff.writeOffId}</code>
                    </td>
                    <td className="number"><Money minorUnits={writeOff.amountMinorUnits} currency={invoice.currency} /></td>
                    <td>{writeOff.writtenOffOn}</td>
                    <td>{writeOff.reason ?? "—"}</td>
                  </tr>
                ))}
              </Table>
            </>
          )}
          {creditNotes.length === 0 ? null : (
            <>
              <h2>Credit notes</h2>
              <Table caption="Credit notes" head={invoiceHead}>
                {creditNotes.map(InvoiceRow)}
              </Table>
            </>
          )}
        </>
      )
    }}
  </RecordPage>
)

export const ProposalsPage = () => {
  const [version, setVersion] = useState(0)
  const cancelling = useProposalCancel(() => setVersion((n) => n + 1))
  return (
    <ListPage
      title="Invoice proposals"
      version={version}
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
      head={["Number", "Kind", "Customer", "Total", "Status", "Invoice date", "Created", "Actions"]}
      narrow={[2, 6, 7]}
      empty="No proposal matches."
      row={(proposal) => (
        <tr key={proposal.id}>
          <td>
            <Link href={`/billing/proposals/${proposal.id}`}>
              {proposal.invoiceNumber ?? "—"}
              <span className="visually-hidden"> proposal for {proposal.recipientAgentName}</span>
            </Link>
          </td>
          <td>{proposal.documentKind}</td>
          <td>{proposal.recipientAgentName}</td>
          <td className="number"><Money minorUnits={proposal.totalGrossMinorUnits} currency={proposal.currency} /></td>
          <td>
            <Status value={proposal.status} />
            {proposal.rejectionReason === null ? null : <p className="muted">{proposal.rejectionReason}</p>}
          </td>
          <td>{proposal.requestedInvoiceDate}</td>
          <td><When at={proposal.createdAt} /></td>
          <td className="row-actions">
            {proposal.status === "proposed" ? (
              <ChangeButton type="button" className="danger" onClick={() => void cancelling.cancel(proposal)} disabled={cancelling.busy}>
                Cancel<span className="visually-hidden"> proposal {proposal.invoiceNumber ?? ""} for {proposal.recipientAgentName}</span>
              </ChangeButton>
            ) : null}
          </td>
        </tr>
      )}
    >
      <ProblemNotice problem={cancelling.problem} />
      <CancelledNotice proposal={cancelling.done} />
    </ListPage>
  )
}

export const WithdrawalQueuePage = () => (
  <ListPage
    title="Withdrawal queue"
    intro="Deleted invoices that had been in the send queue, until the ERP reports them discarded; oldest deletion first."
    filters={[]}
    fetch={(query) => call((client) => client.billing.withdrawalQueue({ urlParams: { cursor: query["cursor"] } }))}
    head={["Number", "Kind", "Total", "Status when deleted", "External reference", "Deleted"]}
    empty="Nothing waits to be withdrawn."
    row={(withdrawal) => (
      <tr key={withdrawal.invoiceId}>
        <td>{withdrawal.invoiceNumber}</td>
        <td>{withdrawal.documentKind}</td>
        <td className="number"><Money minorUnits={withdrawal.totalGrossMinorUnits} currency={withdrawal.currency} /></td>
        <td>
          <Status value={withdrawal.invoiceStatus} />
        </td>
        <td>{withdrawal.externalReference ?? "—"}</td>
        <td><When at={withdrawal.deletedAt} /></td>
      </tr>
    )}
  />
)
