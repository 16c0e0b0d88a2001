/**
 * An invoice proposal's page (issue 25, item 3) and its one action, cancel — asked in the console's dialog, then
 * a message that says what happened (issue 25: cancelling was one click with no confirmation and no message). The
 * proposals list uses the same action and message.
 */
import { useState } from "react"
import type { ProposalSummary } from "@propline/contract/BillingAdmin"
import { call } from "../api.js"
import { Money } from "../ui/Money.js"
import { Link } from "../router.js"
import { useAction } from "../session.js"
import { Facts, ProblemNotice, RecordPage, Status } from "../ui.js"
import { ChangeButton } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"
import { Day, When } from "../ui/Time.js"

/** "proposal 1042 for Acme AB" (a proposal gets its number when it is proposed). */
export const proposalName = (proposal: ProposalSummary): string =>
  `proposal ${proposal.invoiceNumber === null ? "" : `${proposal.invoiceNumber} `}for ${proposal.recipientAgentName}`

/** Cancel a proposal, asked first; `done` holds the cancelled proposal for {@link CancelledNotice}. */
export const useProposalCancel = (onDone: (proposal: ProposalSummary) => void) => {
  const action = useAction()
  const dialog = useDialog()
  const [done, setDone] = useState<ProposalSummary | undefined>()
  const cancel = async (proposal: ProposalSummary) => {
    const confirmed = await dialog.confirm({
      title: `Cancel ${proposalName(proposal)}?`,
      body: (
        <p>
          The <Money minorUnits={proposal.totalGrossMinorUnits} currency={proposal.currency} /> {proposal.documentKind} is never sent to the customer, and its
          verification stops. This can't be undone.
        </p>
      ),
      confirm: "Cancel the proposal",
      tone: "danger"
    })
    if (!confirmed) return
    const cancelled = await action.run(() => call((client) => client.billing.cancelProposal({ path: { proposalId: proposal.id } })))
    if (cancelled === undefined) return
    setDone(cancelled)
    onDone(cancelled)
  }
  return { cancel, done, problem: action.problem, busy: action.busy }
}

export const CancelledNotice = ({ proposal }: { readonly proposal: ProposalSummary | undefined }) =>
  proposal === undefined ? null : (
    <p className="notice" role="status">
      <Link href={`/billing/proposals/${proposal.id}`}>{proposalName(proposal).replace(/^p/, "P")}</Link> cancelled: it won't become an
      invoice.
    </p>
  )

const ProposalContent = ({ proposal, reload }: { readonly proposal: ProposalSummary; readonly reload: () => void }) => {
  const cancelling = useProposalCancel(reload)
  return (
    <>
      <ProblemNotice problem={cancelling.problem} />
      <CancelledNotice proposal={cancelling.done} />
      <Facts
        items={[
          ["Status", <Status value={proposal.status} />],
          ["Customer", proposal.recipientAgentName],
          ["Kind", proposal.documentKind],
          ["Total", <Money minorUnits={proposal.totalGrossMinorUnits} currency={proposal.currency} />],
          ["Invoice date", <Day iso={proposal.requestedInvoiceDate} />],
          ["External reference", proposal.externalReference ?? "—"],
          ["Invoice run", <Link href={`/billing/invoice-runs/${proposal.invoiceRunId}`}>Open the run</Link>],
          ["Contract", <Link href={`/contracts/${proposal.contractId}`}>Open the contract</Link>],
          ["Created", <When at={proposal.createdAt} />],
          ["Passed", <When at={proposal.passedAt} />],
          ["Rejected", <When at={proposal.rejectedAt} />],
          ["Cancelled", <When at={proposal.cancelledAt} />]
        ]}
      />
      {proposal.rejectionReason === null ? null : (
        <p>
          Rejected because: <q>{proposal.rejectionReason}</q>
        </p>
      )}
      {proposal.status === "proposed" ? (
        <div className="record-actions actions">
          <ChangeButton type="button" className="danger" onClick={() => void cancelling.cancel(proposal)} disabled={cancelling.busy}>
            Cancel the proposal
          </ChangeButton>
        </div>
      ) : null}
    </>
  )
}

export const ProposalPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`proposal ${id}`}
    fetch={() => call((client) => client.billing.getProposal({ path: { proposalId: id } }))}
    fallback="Invoice proposal"
    title={(proposal) => `Invoice proposal${proposal.invoiceNumber === null ? "" : ` ${proposal.invoiceNumber}`}`}
    back={["/billing/proposals", "All proposals"]}
  >
    {(proposal, reload) => <ProposalContent proposal={proposal} reload={reload} />}
  </RecordPage>
)
