/**
 * Sign-in: e-mail and password, then, for an operator with a second factor, the authenticator's code or a recovery
 * code; wrong credentials and throttling are shown as the API answers them.
 */
import { type FormEvent, useState } from "react"
import type { Problem } from "../api.js"
import { useSession } from "../session.js"
import { Field, ProblemNotice } from "../ui.js"

export const SignIn = ({ reason }: { readonly reason?: string | undefined }) => {
  const { signIn, secondFactor } = useSession()
  const [step, setStep] = useState<"password" | "code">("password")
  const [code, setCode] = useState("")
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
    else if (!("csrfToken" in result.value)) {
      setProblem(undefined)
      setPassword("")
      setStep("code")
    }
  }

  const submitCode = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    const result = await secondFactor(code)
    setBusy(false)
    if (!result.ok) setProblem(result.problem)
  }

  // Here a 401 means wrong credentials and a 429 says how long to wait: the API's own sentences say so.
  const message = problem !== undefined && (problem.status === 401 || problem.status === 429) ? problem.detail : undefined

  if (step === "code") {
    return (
      <main className="sign-in" id="main">
        <h1>Propline admin</h1>
        <form onSubmit={submitCode} aria-labelledby="code-heading" noValidate>
          <h2 id="code-heading">Second factor</h2>
          <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
          <ProblemNotice problem={problem} message={message} />
          <Field label="Code" name="code" problem={problem}>
            {(input) => (
              <input
                {...input}
                autoComplete="one-time-code"
                inputMode="text"
                required
                value={code}
                onChange={(e) => setCode(e.target.value.trim())}
              />
            )}
          </Field>
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Verify"}
          </button>
        </form>
      </main>
    )
  }

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
