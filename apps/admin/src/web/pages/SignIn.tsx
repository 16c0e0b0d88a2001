/** Sign-in: e-mail and password; wrong credentials and throttling are shown as the API answers them. */
import { type FormEvent, useState } from "react"
import type { Problem } from "../api.js"
import { useSession } from "../session.js"
import { Field, ProblemNotice } from "../ui.js"

export const SignIn = ({ reason }: { readonly reason?: string | undefined }) => {
  const { signIn } = useSession()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [problem, setProblem] = useState<Problem | undefined>()
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    const result = await signIn(email, password)
    setBusy(false)
    if (!result.ok) setProblem(result.problem)
  }

  // Here a 401 means wrong credentials and a 429 says how long to wait: the API's own sentences say so.
  const message = problem !== undefined && (problem.status === 401 || problem.status === 429) ? problem.detail : undefined

  return (
    <main className="sign-in" id="main">
      <h1>Propline admin</h1>
      <form onSubmit={submit} aria-labelledby="sign-in-heading" noValidate>
        <h2 id="sign-in-heading">Sign in</h2>
        {reason !== undefined && problem === undefined ? (
          <p className="notice" role="status">
            {reason}
          </p>
        ) : null}
        <ProblemNotice problem={problem} message={message} />
        <Field label="E-mail address" name="email" problem={problem}>
          {(input) => (
            <input {...input} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </Field>
        <Field label="Password" name="password" problem={problem}>
          {(input) => (
            <input
              {...input}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  )
}
