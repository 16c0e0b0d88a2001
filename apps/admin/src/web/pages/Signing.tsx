/**
 * A contract's signing: its attempts (status, parties, outcome) and the form that prepares a new one — the signing
 * service renders the contract as the PDF to sign and puts the attempt on the signing queue — and asking for the
 * withdrawal of a live attempt; each attempt's PDFs download from the admin API (the contract as sent, and the
 * signed PDF once it is signed).
 */
import { type FormEvent, useState } from "react"
import { pdfPath } from "@propline/contract/SigningAdmin"
import { call } from "../api.js"
import { When } from "../ui/Time.js"
import { useAction, useLoad } from "../session.js"
import { Link } from "../router.js"
import { Empty, Field, GroupError, Loading, ProblemNotice, Status, Table } from "../ui.js"
import { ChangeButton, ChangeForm } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"

const LIVE = new Set(["queued", "started"])

/**
 * `contractStatus`: a terminated contract is not offered for signing (issue 25: "Prepare for signing" was offered
 * and then refused), nor is one whose attempt is still under way.
 */
export const ContractSigning = ({ contractId, contractStatus }: { readonly contractId: string; readonly contractStatus: string }) => {
  const attempts = useLoad(`signing ${contractId}`, () => call((client) => client.signing.attemptsOfContract({ path: { contractId } })))
  const action = useAction()
  const dialog = useDialog()
  const [title, setTitle] = useState("")
  const [customer, setCustomer] = useState({ name: "", email: "" })
  const [organization, setOrganization] = useState({ name: "", email: "" })

  const prepare = async (event: FormEvent) => {
    event.preventDefault()
    const signer = (who: { name: string; email: string }) => [{ name: who.name, email: who.email, role: "signatory", signingOrder: 1 }]
    const parties = [
      { kind: "customer", signers: signer(customer) },
      ...(organization.name === "" && organization.email === "" ? [] : [{ kind: "organization", signers: signer(organization) }])
    ]
    const payload = { ...(title === "" ? {} : { title }), parties }
    if ((await action.run(() => call((client) => client.signing.prepare({ path: { contractId }, payload })))) !== undefined) attempts.reload()
  }
  const withdraw = async (attemptId: string) => {
    if (!(await dialog.confirm({ title: "Withdraw this document from signing?", body: "The e-signing system is asked to withdraw it; signers can no longer sign it.", confirm: "Ask for withdrawal", tone: "danger" }))) return
    if ((await action.run(() => call((client) => client.signing.requestWithdrawal({ path: { attemptId } })))) !== undefined) attempts.reload()
  }

  const live = attempts.load._tag === "loaded" && attempts.load.value.items.some((attempt) => LIVE.has(attempt.status))
  return (
    <section aria-labelledby="signing-heading">
      <h2 id="signing-heading">Signing</h2>
      <ProblemNotice problem={action.problem} />
      {attempts.load._tag === "loading" ? <Loading /> : null}
      {attempts.load._tag === "failed" ? <ProblemNotice problem={attempts.load.problem} /> : null}
      {attempts.load._tag === "loaded" ? (
        <Table caption="Signing attempts" head={["Document", "Status", "Signers", "Queued", "Note", "PDF", "Actions"]}>
          {attempts.load.value.items.length === 0 ? <Empty columns={7} text="Never sent for signing." /> : null}
          {attempts.load.value.items.map((attempt) => (
            <tr key={attempt.id}>
              <td>
                <Link href={`/signing-attempts/${attempt.id}`}>{attempt.title}</Link>
              </td>
              <td>
                <Status value={attempt.status} />
                {attempt.withdrawalRequestedAt === null ? null : <p className="muted">withdrawal asked <When at={attempt.withdrawalRequestedAt} /></p>}
              </td>
              <td>{attempt.parties.flatMap((party) => party.signers.map((signer) => `${signer.name} (${party.kind})`)).join(", ")}</td>
              <td><When at={attempt.queuedAt} /></td>
              <td>{attempt.declineReason ?? attempt.failureReason ?? "—"}</td>
              <td>
                <div className="downloads">
                  {/* Plain links: the browser downloads the attachment with the session cookie. */}
                  <a href={pdfPath(attempt.id, "contract")} download>
                    Contract PDF<span className="visually-hidden"> of {attempt.title}</span>
                  </a>
                  {attempt.status === "signed" ? (
                    <a href={pdfPath(attempt.id, "signed")} download>
                      Signed PDF<span className="visually-hidden"> of {attempt.title}</span>
                    </a>
                  ) : null}
                </div>
              </td>
              <td className="row-actions">
                {LIVE.has(attempt.status) && attempt.withdrawalRequestedAt === null ? (
                  <ChangeButton type="button" className="danger" onClick={() => withdraw(attempt.id)} disabled={action.busy}>
                    Ask withdrawal
                  </ChangeButton>
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
      ) : null}
      {contractStatus === "terminated" ? (
        <p className="hint">The contract is terminated, so it can't be sent for signing.</p>
      ) : live ? (
        <p className="hint">An attempt is under way: ask for its withdrawal before preparing another.</p>
      ) : (
      <details className="form-panel">
        <summary>Prepare for signing</summary>
        <ChangeForm className="form" onSubmit={prepare} noValidate>
          <Field label="Document title (optional)" name="title" pointer="/title" problem={action.problem}>
            {(input) => <input {...input} type="text" value={title} onChange={(event) => setTitle(event.target.value)} />}
          </Field>
          <GroupError problem={action.problem} name="parties" pointer="/parties" exact />
          <fieldset>
            <legend>The customer's signatory</legend>
            <Field label="Name" name="customerName" pointer="/parties/0/signers/0/name" problem={action.problem}>
              {(input) => <input {...input} type="text" value={customer.name} onChange={(event) => setCustomer({ ...customer, name: event.target.value })} />}
            </Field>
            <Field label="E-mail" name="customerEmail" pointer="/parties/0/signers/0/email" problem={action.problem}>
              {(input) => <input {...input} type="email" value={customer.email} onChange={(event) => setCustomer({ ...customer, email: event.target.value })} />}
            </Field>
          </fieldset>
          <fieldset>
            <legend>Your organization's signatory (optional)</legend>
            <Field label="Name" name="organizationName" pointer="/parties/1/signers/0/name" problem={action.problem}>
              {(input) => (
                <input {...input} type="text" value={organization.name} onChange={(event) => setOrganization({ ...organization, name: event.target.value })} />
              )}
            </Field>
            <Field label="E-mail" name="organizationEmail" pointer="/parties/1/signers/0/email" problem={action.problem}>
              {(input) => (
                <input {...input} type="email" value={organization.email} onChange={(event) => setOrganization({ ...organization, email: event.target.value })} />
              )}
            </Field>
          </fieldset>
          <button type="submit" disabled={action.busy}>
            {action.busy ? "Preparing…" : "Prepare for signing"}
          </button>
        </ChangeForm>
      </details>
      )}
    </section>
  )
}
