/**
 * The signed-in operator's own account (issue 25): change the password (the current one required; other sessions
 * end), the TOTP second factor (enrol with a QR code or the secret, confirm with a code, ten recovery codes shown
 * once; new codes or turning it off need the password), and the operator's sessions, each of which can be ended.
 * The QR code is drawn as SVG in the page from the `otpauth://` URI (`uqr`): the secret never leaves the browser
 * for an image service.
 */
import type { RecoveryCodes, TotpEnrolment } from "@propline/contract/TeamAdmin"
import { type FormEvent, useMemo, useState } from "react"
import { encode } from "uqr"
import { call } from "../api.js"
import { dateTime } from "../format.js"
import { useAction, useLoad, useSession } from "../session.js"
import { ConfirmButton, Field, Loading, PageHeader, ProblemNotice, Table } from "../ui.js"
import { roleLabel, succeeded } from "./Team.js"

/** The QR code of `text` as SVG squares (dark modules), with a quiet zone; labelled for screen readers. */
const QrCode = ({ text }: { readonly text: string }) => {
  const path = useMemo(() => {
    const { data, size } = encode(text, { border: 0 })
    const squares: Array<string> = []
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (data[y]?.[x] === true) squares.push(`M${x + 4} ${y + 4}h1v1h-1z`)
    return { d: squares.join(""), size: size + 8 }
  }, [text])
  return (
    <svg className="qr" viewBox={`0 0 ${path.size} ${path.size}`} role="img" aria-label="QR code to scan with an authenticator app">
      <rect width={path.size} height={path.size} fill="#fff" />
      <path d={path.d} fill="#000" />
    </svg>
  )
}

const CodesOnce = ({ codes }: { readonly codes: RecoveryCodes }) => (
  <section className="secret-once" aria-labelledby="recovery-heading">
    <h2 id="recovery-heading">Recovery codes</h2>
    <p>Keep these somewhere safe. Each signs you in once if you lose your authenticator; they are not shown again.</p>
    <ul className="recovery-codes">
      {codes.codes.map((code) => (
        <li key={code}>
          <code>{code}</code>
        </li>
      ))}
    </ul>
  </section>
)

const PasswordForm = () => {
  const action = useAction()
  const [currentPassword, setCurrent] = useState("")
  const [newPassword, setNew] = useState("")
  const [done, setDone] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const changed = await action.run(() => succeeded(call((client) => client.account.changePassword({ payload: { currentPassword, newPassword } }))))
    setDone(changed === true)
    if (changed === true) {
      setCurrent("")
      setNew("")
    }
  }
  return (
    <form onSubmit={submit} aria-labelledby="password-heading" noValidate>
      <h2 id="password-heading">Password</h2>
      {done ? (
        <p className="notice" role="status">
          Your password was changed, and your other sessions were ended.
        </p>
      ) : null}
      <ProblemNotice problem={action.problem} />
      <Field label="Current password" name="currentPassword" problem={action.problem}>
        {(input) => (
          <input {...input} type="password" autoComplete="current-password" value={currentPassword} onChange={(e) => setCurrent(e.target.value)} />
        )}
      </Field>
      <Field label="New password" name="newPassword" problem={action.problem} hint="At least 12 characters.">
        {(input) => <input {...input} type="password" autoComplete="new-password" value={newPassword} onChange={(e) => setNew(e.target.value)} />}
      </Field>
      <button type="submit" disabled={action.busy}>
        Change password
      </button>
    </form>
  )
}

const SecondFactor = (props: { readonly on: boolean; readonly codesLeft: number }) => {
  // Kept here rather than reloaded, so the recovery codes shown once stay on the page.
  const [on, setOn] = useState(props.on)
  const [codesLeft, setCodesLeft] = useState(props.codesLeft)
  const action = useAction()
  const [enrolment, setEnrolment] = useState<TotpEnrolment | undefined>()
  const [code, setCode] = useState("")
  const [password, setPassword] = useState("")
  const [codes, setCodes] = useState<RecoveryCodes | undefined>()
  const [message, setMessage] = useState<string | undefined>()

  const start = async () => {
    const started = await action.run(() => call((client) => client.account.enrolTotp()))
    if (started !== undefined) setEnrolment(started)
  }
  const confirm = async (event: FormEvent) => {
    event.preventDefault()
    const confirmed = await action.run(() => call((client) => client.account.confirmTotp({ payload: { code } })))
    if (confirmed !== undefined) {
      setCodes(confirmed)
      setEnrolment(undefined)
      setCode("")
      setMessage("The second factor is on: sign-in now asks for a code.")
      setOn(true)
      setCodesLeft(confirmed.codes.length)
    }
  }
  const replaceCodes = async () => {
    const fresh = await action.run(() => call((client) => client.account.newRecoveryCodes({ payload: { password } })))
    if (fresh !== undefined) {
      setCodes(fresh)
      setPassword("")
      setCodesLeft(fresh.codes.length)
    }
  }
  const turnOff = async () => {
    const off = await action.run(() => succeeded(call((client) => client.account.disableTotp({ payload: { password } }))))
    if (off === true) {
      setPassword("")
      setCodes(undefined)
      setMessage("The second factor is off.")
      setOn(false)
      setCodesLeft(0)
    }
  }

  return (
    <section aria-labelledby="second-factor-heading">
      <h2 id="second-factor-heading">Second factor</h2>
      {message === undefined ? null : (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      <ProblemNotice problem={action.problem} />
      {codes === undefined ? null : <CodesOnce codes={codes} />}
      {on ? (
        <>
          <p>
            An authenticator app is set up. {codesLeft} recovery code{codesLeft === 1 ? "" : "s"} left.
          </p>
          <Field label="Password (to change the second factor)" name="password" problem={action.problem}>
            {(input) => (
              <input {...input} type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
            )}
          </Field>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => void replaceCodes()} disabled={action.busy}>
              New recovery codes
            </button>
            <ConfirmButton
              own
              label="Turn off"
              tone="danger"
              question="Turn the second factor off? Sign-in will ask only for the password."
              confirm="Turn off second factor"
              onConfirm={turnOff}
            />
          </div>
        </>
      ) : enrolment === undefined ? (
        <>
          <p>Sign-in asks only for your password. Add an authenticator app (TOTP) so it also asks for a code.</p>
          <button type="button" onClick={() => void start()} disabled={action.busy}>
            Set up an authenticator
          </button>
        </>
      ) : (
        <form onSubmit={confirm} aria-labelledby="enrol-heading" noValidate>
          <h3 id="enrol-heading">Scan the code, then enter the code the app shows</h3>
          <QrCode text={enrolment.uri} />
          <p>
            Or type the key: <code className="totp-secret">{enrolment.secret}</code>
          </p>
          <Field label="Code from the app" name="code" problem={action.problem}>
            {(input) => <input {...input} autoComplete="one-time-code" inputMode="numeric" value={code} onChange={(e) => setCode(e.target.value.trim())} />}
          </Field>
          <button type="submit" disabled={action.busy}>
            Turn on
          </button>
        </form>
      )}
    </section>
  )
}

const Sessions = () => {
  const { load, reload } = useLoad("sessions", () => call((client) => client.account.sessions()))
  const action = useAction()
  const { signOut } = useSession()
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const others = load.value.items.filter((item) => !item.current).length
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <ProblemNotice problem={action.problem} />
      <Table caption="Your sessions" head={["Signed in", "Last used", "From", "Actions"]}>
        {load.value.items.map((item) => (
          <tr key={item.id}>
            <td>{dateTime(item.createdAt)}</td>
            <td>{dateTime(item.lastSeenAt)}</td>
            <td>{item.clientAddress ?? "—"}</td>
            <td>
              {item.current ? (
                "this session"
              ) : (
                <ConfirmButton
                  own
                  label="End"
                  tone="secondary"
                  question="End this session? It is signed out at once."
                  confirm="End session"
                  onConfirm={async () => {
                    if ((await action.run(() => succeeded(call((client) => client.account.endSession({ path: { sessionId: item.id } }))))) === true) reload()
                  }}
                />
              )}
            </td>
          </tr>
        ))}
      </Table>
      <div className="actions">
        <ConfirmButton
          own
          label="End all other sessions"
          tone="danger"
          disabled={others === 0}
          question={`End your ${others} other session${others === 1 ? "" : "s"}?`}
          confirm="End other sessions"
          onConfirm={async () => {
            if ((await action.run(() => succeeded(call((client) => client.account.endOtherSessions())))) === true) reload()
          }}
        />
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out here
        </button>
      </div>
    </section>
  )
}

export const AccountPage = () => {
  const { load } = useLoad("account", () => call((client) => client.account.account()))
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const account = load.value
  return (
    <>
      <PageHeader title="Your account" />
      <p>
        {account.operator.name} · {account.operator.email} · {roleLabel(account.operator.role)}
      </p>
      <PasswordForm />
      <SecondFactor on={account.secondFactor} codesLeft={account.recoveryCodesLeft} />
      <Sessions />
    </>
  )
}
