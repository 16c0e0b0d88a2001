/**
 * An invoice run's page (issue 25, item 3): the run, its documents counted per status (each a link to the list of
 * them), warnings for an empty run and for other runs of the same context and period, and its actions — approve
 * (asked in the console's dialog, naming what will happen) and continue — each followed by a message that says
 * what happened, counted as the run's page counts. The list page uses the same actions and message.
 */
import { useState } from "react"
import type { InvoiceRunDetail, InvoiceRunSummary, RunOutcome } from "@propline/contract/BillingAdmin"
import { call } from "../api.js"
import { hrefWith, Link } from "../router.js"
import { useAction } from "../session.js"
import { Facts, ProblemNotice, RecordPage, Status, Table } from "../ui.js"
import { ChangeButton } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"
import { Period, When } from "../ui/Time.js"

/** "1 invoice", "23 invoices". */
export const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`

/** `YYYY-MM-DD` of today in UTC (a continued run's invoice date). */
const today = () => new Date().toISOString().slice(0, 10)

/** What a run action did, in a sentence, with warnings for an empty run and for another run of the same period. */
export const RunOutcomeNotice = ({ outcome, verb }: { readonly outcome: RunOutcome; readonly verb: "created" | "continued" | "approved" }) => {
  const documents = `${counted(outcome.invoiceCount, "invoice")} and ${counted(outcome.proposalCount, "proposal")}`
  const what =
    verb === "approved"
      ? `${counted(outcome.changedCount, "invoice")} approved now and put on the send queue. The run has ${documents}.`
      : `${counted(outcome.changedCount, "document")} drafted. The run has ${documents}.`
  const empty = outcome.invoiceCount + outcome.proposalCount === 0
  return (
    <>
      <div className="notice" role="status">
        <p>
          Invoice run <Period start={outcome.run.periodStart} end={outcome.run.periodEnd} /> {verb}: {what}{" "}
          <Link href={`/billing/invoice-runs/${outcome.run.id}`}>Open the run</Link>
        </p>
      </div>
      {empty || outcome.samePeriodRunCount > 0 ? (
        <div className="notice notice-warning" role="status">
          {empty ? <p>The run is empty: no contract of its operational context bills in this period, or earlier runs drafted it all.</p> : null}
          {outcome.samePeriodRunCount > 0 ? (
            <p>
              {outcome.samePeriodRunCount === 1
                ? "Another run of the same operational context covers this period."
                : `${outcome.samePeriodRunCount} other runs of the same operational context cover this period.`}
            </p>
          ) : null}
        </div>
      ) : null}
    </>
  )
}

/** A run's warnings as the list and its page show them. */
export const runWarnings = (run: InvoiceRunSummary): ReadonlyArray<string> => [
  ...(run.invoiceCount + run.proposalCount === 0 ? ["empty"] : []),
  ...(run.samePeriodRunCount > 0 ? [`${counted(run.samePeriodRunCount, "other run")} for this period`] : [])
]

/**
 * Approve (asked first) and continue a run: `approve(run)` and `carryOn(run)` answer the outcome for
 * {@link RunOutcomeNotice}; `problem` holds a refusal.
 */
export const useRunActions = (onDone: (outcome: RunOutcome, verb: "continued" | "approved") => void) => {
  const action = useAction()
  const dialog = useDialog()
  const approve = async (run: InvoiceRunSummary) => {
    const confirmed = await dialog.confirm({
      title: `Approve the invoice run ${run.periodStart} – ${run.periodEnd}?`,
      body: (
        <p>
          Its invoices that still wait for approval (of {counted(run.invoiceCount, "invoice")} in the run) are approved and go on the send
          queue to the ERP; approved invoices can't be changed, only credited. {counted(run.proposalCount, "proposal")} awaiting
          verification stay as they are.
        </p>
      ),
      confirm: "Approve the run"
    })
    if (!confirmed) return
    const result = await action.run(() => call((client) => client.billing.approveInvoiceRun({ path: { invoiceRunId: run.id } })))
    if (result !== undefined) onDone(result, "approved")
  }
  const carryOn = async (run: InvoiceRunSummary) => {
    const result = await action.run(() =>
      call((client) => client.billing.continueInvoiceRun({ path: { invoiceRunId: run.id }, payload: { invoiceDate: today() } }))
    )
    if (result !== undefined) onDone(result, "continued")
  }
  return { approve, carryOn, problem: action.problem, busy: action.busy }
}

const StatusCounts = ({ caption, counts, href }: { readonly caption: string; readonly counts: InvoiceRunDetail["invoicesByStatus"]; readonly href: (status: string) => string }) => (
  <Table caption={caption} head={["Status", "Count"]}>
    {counts.length === 0 ? (
      <tr>
        <td colSpan={2} className="empty">
          None.
        </td>
      </tr>
    ) : null}
    {counts.map((row) => (
      <tr key={row.status}>
        <td>
          <Status value={row.status} />
        </td>
        <td className="number">
          <Link href={href(row.status)}>
            {row.count}
            <span className="visually-hidden"> {row.status}</span>
          </Link>
        </td>
      </tr>
    ))}
  </Table>
)

const RunContent = ({ detail, reload }: { readonly detail: InvoiceRunDetail; readonly reload: () => void }) => {
  const { run } = detail
  const [outcome, setOutcome] = useState<{ outcome: RunOutcome; verb: "continued" | "approved" } | undefined>()
  const actions = useRunActions((result, verb) => {
    setOutcome({ outcome: result, verb })
    reload()
  })
  const empty = run.invoiceCount + run.proposalCount === 0
  return (
    <>
      <ProblemNotice problem={actions.problem} />
      {outcome === undefined ? null : <RunOutcomeNotice outcome={outcome.outcome} verb={outcome.verb} />}
      {empty || detail.samePeriodRuns.length > 0 ? (
        <div className="notice notice-warning" role="note" aria-label="Warnings">
          {empty ? <p>This run is empty: no contract of {run.operationalContextName} bills in this period, or earlier runs drafted it all.</p> : null}
          {detail.samePeriodRuns.length > 0 ? (
            <>
              <p>Other runs of {run.operationalContextName} cover this period:</p>
              <ul>
                {detail.samePeriodRuns.map((other) => (
                  <li key={other.id}>
                    <Link href={`/billing/invoice-runs/${other.id}`}>
                      <Period start={other.periodStart} end={other.periodEnd} />
                    </Link>{" "}
                    ({other.status}, {counted(other.invoiceCount, "invoice")}, {counted(other.proposalCount, "proposal")}, created{" "}
                    <When at={other.createdAt} />)
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
      <Facts
        items={[
          ["Status", <Status value={run.status} />],
          ["Operational context", run.operationalContextName],
          ["Period", <Period start={run.periodStart} end={run.periodEnd} />],
          ["Invoices", <Link href={hrefWith("/billing/invoices", { invoiceRunId: run.id })}>{counted(run.invoiceCount, "invoice")}</Link>],
          ["Proposals", <Link href={hrefWith("/billing/proposals", { invoiceRunId: run.id })}>{counted(run.proposalCount, "proposal")}</Link>],
          ["Created", <When at={run.createdAt} />],
          ["Approved", <When at={run.approvedAt} />]
        ]}
      />
      {run.status === "draft" ? (
        <div className="record-actions actions">
          <ChangeButton type="button" onClick={() => void actions.approve(run)} disabled={actions.busy}>
            Approve the run
          </ChangeButton>
          <ChangeButton type="button" className="secondary" onClick={() => void actions.carryOn(run)} disabled={actions.busy}>
            Continue the run
          </ChangeButton>
        </div>
      ) : null}
      <h2>Invoices by status</h2>
      <StatusCounts
        caption="Invoices by status"
        counts={detail.invoicesByStatus}
        href={(status) => hrefWith("/billing/invoices", { invoiceRunId: run.id, status })}
      />
      <h2>Proposals by status</h2>
      <StatusCounts
        caption="Proposals by status"
        counts={detail.proposalsByStatus}
        href={(status) => hrefWith("/billing/proposals", { invoiceRunId: run.id, status })}
      />
    </>
  )
}

export const InvoiceRunPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`invoice run ${id}`}
    fetch={() => call((client) => client.billing.getInvoiceRun({ path: { invoiceRunId: id } }))}
    fallback="Invoice run"
    title={(detail) => `Invoice run ${detail.run.periodStart} – ${detail.run.periodEnd}`}
    back={["/billing/invoice-runs", "All invoice runs"]}
  >
    {(detail, reload) => <RunContent detail={detail} reload={reload} />}
  </RecordPage>
)
