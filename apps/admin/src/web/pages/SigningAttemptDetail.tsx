/**
 * A signing attempt's page (issue 25, item 3): its status, parties and signers, the outcome with the signed PDF's
 * size and SHA-256, the PDFs to download, and asking for withdrawal while it is under way (asked in the console's
 * dialog first). Reads `GET /api/signing-attempts/{id}` (the signing operator service's outcome).
 */
import { pdfPath, type SigningOutcome } from "@propline/contract/SigningAdmin"
import { call } from "../api.js"
import { Link } from "../router.js"
import { useAction } from "../session.js"
import { Facts, ProblemNotice, RecordPage, Status, Table } from "../ui.js"
import { ChangeButton } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"
import { When } from "../ui/Time.js"

const LIVE = new Set(["queued", "started"])

const AttemptContent = ({ outcome, reload }: { readonly outcome: SigningOutcome; readonly reload: () => void }) => {
  const { attempt, signedDocument } = outcome
  const action = useAction()
  const dialog = useDialog()
  const withdraw = async () => {
    const confirmed = await dialog.confirm({
      title: `Withdraw "${attempt.title}" from signing?`,
      body: <p>The e-signing system is asked to withdraw it; its signers can no longer sign it. This can't be undone.</p>,
      confirm: "Ask for withdrawal",
      tone: "danger"
    })
    if (!confirmed) return
    if ((await action.run(() => call((client) => client.signing.requestWithdrawal({ path: { attemptId: attempt.id } })))) !== undefined) reload()
  }
  return (
    <>
      <ProblemNotice problem={action.problem} />
      <Facts
        items={[
          ["Status", <Status value={attempt.status} />],
          ["Contract", <Link href={`/contracts/${attempt.contractId}`}>Open the contract</Link>],
          ["Queued", <When at={attempt.queuedAt} />],
          ["Changed", <When at={attempt.updatedAt} />],
          ["Withdrawal asked", <When at={attempt.withdrawalRequestedAt} />],
          ["Declined because", attempt.declineReason ?? "—"],
          ["Failed because", attempt.failureReason ?? "—"],
          ["Signed PDF", signedDocument === null ? "—" : `${signedDocument.sizeBytes.toLocaleString()} bytes`],
          ["Signed PDF's SHA-256", signedDocument === null ? "—" : <code>{signedDocument.sha256}</code>]
        ]}
      />
      <div className="record-actions actions">
        <a className="button secondary" href={pdfPath(attempt.id, "contract")} download>
          Download the contract PDF
        </a>
        {attempt.status === "signed" ? (
          <a className="button secondary" href={pdfPath(attempt.id, "signed")} download>
            Download the signed PDF
          </a>
        ) : null}
        {LIVE.has(attempt.status) && attempt.withdrawalRequestedAt === null ? (
          <ChangeButton type="button" className="danger" onClick={() => void withdraw()} disabled={action.busy}>
            Ask for withdrawal
          </ChangeButton>
        ) : null}
      </div>
      <h2>Parties and signers</h2>
      <Table caption="Parties and signers" head={["Party", "Signer", "E-mail", "Role", "Order"]} narrow={[4, 5]}>
        {attempt.parties.flatMap((party) =>
          party.signers.map((signer) => (
            <tr key={`${party.kind} ${signer.email}`}>
              <td>
                {party.name} <span className="muted">({party.kind})</span>
              </td>
              <td>{signer.name}</td>
              <td>{signer.email}</td>
              <td>{signer.role}</td>
              <td className="number">{signer.signingOrder}</td>
            </tr>
          ))
        )}
      </Table>
    </>
  )
}

export const SigningAttemptPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`signing attempt ${id}`}
    fetch={() => call((client) => client.signing.outcome({ path: { attemptId: id } }))}
    fallback="Signing attempt"
    title={(outcome) => `Signing of ${outcome.attempt.title}`}
    back={["/contracts", "All contracts"]}
  >
    {(outcome, reload) => <AttemptContent outcome={outcome} reload={reload} />}
  </RecordPage>
)
