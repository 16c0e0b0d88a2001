/**
 * An invitation link (`/invitation#<token>`, issue 25): what it offers (organization, address, role), and the form
 * that accepts it with a name and a password; the new operator is then signed in. The token stays in the URL's
 * fragment, which no server receives or logs, and is removed from the address bar once read.
 */
import type { InvitationView } from "@propline/contract/TeamAdmin"
import { type FormEvent, useEffect, useState } from "react"
import { call, type Problem } from "../api.js"
import { navigate } from "../router.js"
import { useSession } from "../session.js"
import { Field, Loading, ProblemNotice } from "../ui.js"
import { roleLabel } from "./Team.js"

const tokenFromLocation = () => window.location.hash.replace(/^#/, "")

export const InvitationPage = () => {
  const { signIn } = useSession()
  const [token] = useState(tokenFromLocation)
  const [invitation, setInvitation] = useState<InvitationView | undefined>()
  const [readProblem, setReadProblem] = useState<Problem | undefined>()
  const [name, setName] = useState("")
  const [password, setPassword] = useState("")
  const [problem, setProblem] = useState<Problem | undefined>()
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    void call((client) => client.invitation.read({ payload: { token } })).then((result) => {
      if (result.ok) setInvitation(result.value)
      else setReadProblem(result.problem)
    })
  }, [token])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (invitation === undefined) return
    setBusy(true)
    const accepted = await call((client) => client.invitation.accept({ payload: { token, name, password } }))
    if (!accepted.ok) {
      setBusy(false)
      setProblem(accepted.problem)
      return
    }
    const signedIn = await signIn(invitation.email, password)
    setBusy(false)
    navigate(signedIn.ok && "csrfToken" in signedIn.value ? "/organization" : "/", { replace: true })
  }

  return (
    <main className="sign-in" id="main">
      <h1>Propline admin</h1>
      {readProblem !== undefined ? (
        <div className="notice notice-error" role="alert">
          <p>
            {readProblem.status === 404
              ? "This invitation link doesn't work: it was used, revoked or has expired. Ask for a new one."
              : (readProblem.detail ?? "The invitation could not be read.")}
          </p>
        </div>
      ) : invitation === undefined ? (
        <Loading />
      ) : (
        <form onSubmit={submit} aria-labelledby="invitation-heading" noValidate>
          <h2 id="invitation-heading">Join {invitation.organization.name}</h2>
          <p>
            You are invited as <strong>{roleLabel(invitation.role)}</strong> with the address <strong>{invitation.email}</strong>.
          </p>
          <ProblemNotice problem={problem} />
          <Field label="Your name" name="name" problem={problem}>
            {(input) => <input {...input} autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Choose a password" name="password" problem={problem} hint="At least 12 characters.">
            {(input) => (
              <input
                {...input}
                type="password"
                autoComplete="new-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <button type="submit" disabled={busy}>
            {busy ? "Joining…" : "Accept and sign in"}
          </button>
        </form>
      )}
    </main>
  )
}
