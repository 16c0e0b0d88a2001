/**
 * The team (issue 25): the organization's operators with their roles and second factor, invitations by a
 * single-use link (shown once, with a copy button), role changes and removal, each confirmed in the page. The
 * server decides who may change what (a read-only operator gets 403 from every change; only an owner touches
 * owners); the page offers the changes the signed-in role can make.
 */
import type { OperatorRole, TeamMember } from "@propline/contract/TeamAdmin"
import { type FormEvent, useState } from "react"
import { call, type Result } from "../api.js"
import { dateTime } from "../format.js"
import { useAction, useLoad, useSignedIn } from "../session.js"
import { ConfirmButton, Field, Loading, PageHeader, ProblemNotice, Table, useCopy } from "../ui.js"
import { useCanChange } from "../ui/Change.js"

const ROLES: ReadonlyArray<OperatorRole> = ["owner", "admin", "read_only"]

/** A change with no answer body, as `true` when it succeeded (so `useAction().run` tells success from refusal). */
export const succeeded = async <A,>(change: Promise<Result<A>>): Promise<Result<true>> => {
  const result = await change
  return result.ok ? { ok: true, value: true } : result
}

/** A role in words. */
export const roleLabel = (role: OperatorRole): string => (role === "read_only" ? "read-only" : role)

const InviteLink = ({ url, email }: { readonly url: string; readonly email: string }) => {
  const copying = useCopy(url)
  return (
    <section className="secret-once" aria-labelledby="invite-link-heading">
      <h2 id="invite-link-heading">Invitation link for {email}</h2>
      <p>Send this link to {email}. It works once and for 7 days; it is not shown again.</p>
      <div className="secret-value">
        <label htmlFor="invite-link">Invitation link</label>
        <input id="invite-link" readOnly value={url} onFocus={(event) => event.target.select()} />
        <button type="button" onClick={copying.copy}>
          Copy link
        </button>
      </div>
      {copying.status}
    </section>
  )
}

const RoleChange = ({ member, canOwn, onChanged }: { readonly member: TeamMember; readonly canOwn: boolean; readonly onChanged: () => void }) => {
  const action = useAction()
  const [role, setRole] = useState<OperatorRole>(member.role)
  const id = `role-${member.id}`
  return (
    <div className="inline-form">
      <label htmlFor={id} className="visually-hidden">
        Role of {member.email}
      </label>
      <select id={id} value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
        {ROLES.filter((candidate) => canOwn || candidate !== "owner").map((candidate) => (
          <option key={candidate} value={candidate}>
            {roleLabel(candidate)}
          </option>
        ))}
      </select>
      <ConfirmButton
        label="Change role"
        tone="secondary"
        disabled={role === member.role || action.busy}
        question={`Make ${member.email} ${roleLabel(role)}?`}
        confirm={`Make ${roleLabel(role)}`}
        onConfirm={async () => {
          const changed = await action.run(() => call((client) => client.team.changeRole({ path: { operatorId: member.id }, payload: { role } })))
          if (changed !== undefined) onChanged()
        }}
      />
      <ProblemNotice problem={action.problem} />
    </div>
  )
}

export const TeamPage = () => {
  const session = useSignedIn()
  const { load, reload } = useLoad("team", () => call((client) => client.team.team()))
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<OperatorRole>("admin")
  const [link, setLink] = useState<{ readonly url: string; readonly email: string } | undefined>()
  const [done, setDone] = useState<string | undefined>()
  const inviting = useAction()
  const changing = useAction()
  const myRole = session.operator.role
  const canChange = useCanChange().allowed
  const canOwn = myRole === "owner"

  const invite = async (event: FormEvent) => {
    event.preventDefault()
    const made = await inviting.run(() => call((client) => client.team.invite({ payload: { email, role } })))
    if (made !== undefined) {
      setLink({ url: made.url, email: made.invite.email })
      setEmail("")
      reload()
    }
  }

  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const { operators, invites } = load.value
  return (
    <>
      <PageHeader title="Team" />
      <p>
        Owners change everything, the team included; admins change everything but owners; read-only operators see
        everything and change only their own account. You are {roleLabel(myRole)}.
      </p>
      {done === undefined ? null : (
        <p className="notice" role="status">
          {done}
        </p>
      )}
      <ProblemNotice problem={changing.problem} />
      <Table caption="Operators" head={["Name", "E-mail address", "Role", "Second factor", "Since", "Actions"]}>
        {operators.map((member) => {
          const mayTouch = canChange && member.id !== session.operator.id && (canOwn || member.role !== "owner")
          return (
            <tr key={member.id}>
              <td>{member.name}</td>
              <td>{member.email}</td>
              <td>{mayTouch ? <RoleChange member={member} canOwn={canOwn} onChanged={reload} /> : roleLabel(member.role)}</td>
              <td>{member.secondFactor ? "on" : "off"}</td>
              <td>{dateTime(member.createdAt)}</td>
              <td>
                {mayTouch ? (
                  <ConfirmButton
                    label="Remove"
                    tone="danger"
                    question={`Remove ${member.email}? Their sessions end at once and they can no longer sign in.`}
                    confirm="Remove operator"
                    onConfirm={async () => {
                      const removed = await changing.run(() => succeeded(call((client) => client.team.remove({ path: { operatorId: member.id } }))))
                      if (removed === true) {
                        setDone(`${member.email} was removed.`)
                        reload()
                      }
                    }}
                  />
                ) : member.id === session.operator.id ? (
                  "you"
                ) : null}
              </td>
            </tr>
          )
        })}
      </Table>

      {canChange ? (
        <form onSubmit={invite} aria-labelledby="invite-heading" noValidate>
          <h2 id="invite-heading">Invite an operator</h2>
          <ProblemNotice problem={inviting.problem} />
          <Field label="E-mail address" name="email" problem={inviting.problem}>
            {(input) => <input {...input} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}
          </Field>
          <Field label="Role" name="role" problem={inviting.problem}>
            {(input) => (
              <select {...input} value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
                {ROLES.filter((candidate) => canOwn || candidate !== "owner").map((candidate) => (
                  <option key={candidate} value={candidate}>
                    {roleLabel(candidate)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" disabled={inviting.busy}>
            Create invitation link
          </button>
        </form>
      ) : null}
      {link === undefined ? null : <InviteLink url={link.url} email={link.email} />}

      <h2>Open invitations</h2>
      <Table caption="Open invitations" head={["E-mail address", "Role", "Invited by", "Expires", "Actions"]}>
        {invites.length === 0 ? (
          <tr>
            <td colSpan={5}>No open invitations.</td>
          </tr>
        ) : (
          invites.map((open) => (
            <tr key={open.id}>
              <td>{open.email}</td>
              <td>{roleLabel(open.role)}</td>
              <td>{open.invitedBy}</td>
              <td>{dateTime(open.expiresAt)}</td>
              <td>
                {canChange ? (
                  <ConfirmButton
                    label="Revoke"
                    tone="danger"
                    question={`Revoke the invitation for ${open.email}? Its link stops working.`}
                    confirm="Revoke invitation"
                    onConfirm={async () => {
                      const revoked = await changing.run(() => succeeded(call((client) => client.team.revokeInvite({ path: { inviteId: open.id } }))))
                      if (revoked === true) {
                        setDone(`The invitation for ${open.email} was revoked.`)
                        reload()
                      }
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))
        )}
      </Table>
    </>
  )
}
