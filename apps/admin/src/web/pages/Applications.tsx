/**
 * Applications: the list, creating one (name, roles, granted contexts) and its page (secrets: issue, revoke). A new
 * secret is shown once, with a button that copies it; the console keeps it nowhere.
 */
import { type FormEvent, useState } from "react"
import type { ApplicationDetail, ApplicationRole, IssuedSecret } from "../../Applications.js"
import type { ContextNode } from "../../Organization.js"
import { call } from "../api.js"
import { dateTime } from "../format.js"
import { Link } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Empty, Facts, Field, GroupError, ListPage, Loading, PageHeader, ProblemNotice, RecordPage, Status, Table } from "../ui.js"

const ROLES: ReadonlyArray<readonly [ApplicationRole, string]> = [
  ["billing", "Billing — invoices, proposals and payments"],
  ["signing", "Signing — contracts out for signature"],
  ["booking", "Booking — resources and booking requests"]
]

const status = (value: string | undefined) => (value === "active" || value === "disabled" ? value : undefined)

export const ApplicationsPage = () => (
  <ListPage
    title="Applications"
    actions={
      <Link className="button" href="/applications/new">
        New Application
      </Link>
    }
    filters={[
      { name: "q", label: "Name or client_id" },
      { name: "status", label: "Status", options: [["active", "Active"], ["disabled", "Disabled"]] }
    ]}
    fetch={(query) =>
      call((client) => client.applications.list({ urlParams: { q: query["q"], status: status(query["status"]), cursor: query["cursor"] } }))
    }
    head={["Name", "client_id", "Roles", "Active secrets", "Status", "Created"]}
    empty="No Application matches."
    row={(application) => (
      <tr key={application.id}>
        <td>
          <Link href={`/applications/${application.id}`}>{application.name}</Link>
        </td>
        <td>
          <code>{application.clientId}</code>
        </td>
        <td>{application.roles.join(", ")}</td>
        <td>{application.activeSecretCount}</td>
        <td>
          <Status value={application.status} />
        </td>
        <td>{dateTime(application.createdAt)}</td>
      </tr>
    )}
  />
)

/** A secret shown once: the value, a copy button, and what to do with it. */
const SecretOnce = ({ clientId, secret }: { readonly clientId: string; readonly secret: IssuedSecret }) => {
  const [copied, setCopied] = useState<"copied" | "failed" | undefined>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret.secret)
      setCopied("copied")
    } catch {
      setCopied("failed")
    }
  }
  return (
    <section className="secret-once" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Client secret</h2>
      <p>
        Copy the secret now: it is shown only this once. The Application authenticates with its client_id{" "}
        <code>{clientId}</code> and this secret.
      </p>
      <div className="secret-value">
        <label htmlFor="new-secret">Secret ending in {secret.lastFour}</label>
        <input id="new-secret" readOnly value={secret.secret} onFocus={(event) => event.target.select()} />
        <button type="button" onClick={copy}>
          Copy secret
        </button>
      </div>
      <p role="status" className="copy-status">
        {copied === "copied" ? "Copied to the clipboard." : copied === "failed" ? "Copying failed: select the text and copy it." : ""}
      </p>
    </section>
  )
}

/** The contexts depth-first, each with its depth: the order and indentation of the tree. */
const depthFirst = (contexts: ReadonlyArray<ContextNode>): ReadonlyArray<readonly [ContextNode, number]> => {
  const out: Array<readonly [ContextNode, number]> = []
  const visit = (parentId: string | null, depth: number) => {
    for (const node of contexts) {
      if (node.parentId !== parentId) continue
      out.push([node, depth])
      visit(node.id, depth + 1)
    }
  }
  visit(null, 0)
  return out
}

const ContextChoices = (props: {
  readonly contexts: ReadonlyArray<ContextNode>
  readonly chosen: ReadonlySet<string>
  readonly toggle: (id: string) => void
}) => (
  <ul className="choices">
    {depthFirst(props.contexts).map(([context, depth]) => (
      <li key={context.id} className={`depth-${Math.min(depth, 4)}`}>
        <label>
          <input type="checkbox" name="contextIds" value={context.id} checked={props.chosen.has(context.id)} onChange={() => props.toggle(context.id)} />{" "}
          {context.name} <span className="kind">{context.kind}</span>
        </label>
      </li>
    ))}
  </ul>
)

export const NewApplicationPage = () => {
  const contexts = useLoad("organization", () => call((client) => client.organization.get()))
  const [name, setName] = useState("")
  const [roles, setRoles] = useState<ReadonlySet<ApplicationRole>>(new Set())
  const [contextIds, setContextIds] = useState<ReadonlySet<string>>(new Set())
  const action = useAction()
  const problem = action.problem
  const [created, setCreated] = useState<{ application: ApplicationDetail; secret: IssuedSecret } | undefined>()

  const toggle = <A,>(set: ReadonlySet<A>, value: A): ReadonlySet<A> => {
    const next = new Set(set)
    if (next.has(value)) next.delete(value)
    else next.add(value)
    return next
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const order = contexts.load._tag === "loaded" ? contexts.load.value.contexts.map((c) => c.id) : []
    const answer = await action.run(() =>
      call((client) =>
        client.applications.create({
          payload: {
            name,
            roles: ROLES.map(([role]) => role).filter((role) => roles.has(role)),
            contextIds: order.filter((id) => contextIds.has(id))
          }
        })
      )
    )
    if (answer !== undefined) setCreated(answer)
  }

  if (created !== undefined) {
    return (
      <>
        <PageHeader title={`Application ${created.application.application.name} created`} />
        <SecretOnce clientId={created.application.application.clientId} secret={created.secret} />
        <p>
          <Link className="button" href={`/applications/${created.application.application.id}`}>
            Go to the Application
          </Link>
        </p>
      </>
    )
  }

  return (
    <>
      <PageHeader title="New Application">
        <Link href="/applications">All Applications</Link>
      </PageHeader>
      <form className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        <Field label="Name" name="name" problem={problem} hint="How operators recognise it, e.g. the ERP's name.">
          {(input) => <input {...input} type="text" maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <fieldset>
          <legend>Roles</legend>
          <p className="hint">What the Application's tokens may do.</p>
          <GroupError problem={problem} name="roles" />
          {ROLES.map(([role, label]) => (
            <label key={role} className="choice">
              <input type="checkbox" name="roles" value={role} checked={roles.has(role)} onChange={() => setRoles(toggle(roles, role))} /> {label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Operational contexts</legend>
          <p className="hint">Where it may act; a context includes everything below it.</p>
          <GroupError problem={problem} name="contextIds" />
          {contexts.load._tag === "loading" ? <Loading /> : null}
          {contexts.load._tag === "failed" ? <ProblemNotice problem={contexts.load.problem} /> : null}
          {contexts.load._tag === "loaded" ? (
            <ContextChoices contexts={contexts.load.value.contexts} chosen={contextIds} toggle={(id) => setContextIds(toggle(contextIds, id))} />
          ) : null}
        </fieldset>
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create Application"}
        </button>
      </form>
    </>
  )
}

export const ApplicationPage = ({ id }: { readonly id: string }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  const action = useAction()
  const [issued, setIssued] = useState<IssuedSecret | undefined>()

  const contextName = (contextId: string) =>
    organization.load._tag === "loaded" ? (organization.load.value.contexts.find((c) => c.id === contextId)?.name ?? contextId) : contextId

  return (
    <RecordPage
      loadKey={`application ${id}`}
      fetch={() => call((client) => client.applications.get({ path: { applicationId: id } }))}
      fallback="Application"
      title={(found) => found.application.name}
      back={["/applications", "All Applications"]}
    >
      {({ application, contextIds, secrets }, reload) => {
        const issue = async () => {
          const secret = await action.run(() => call((client) => client.applications.issueSecret({ path: { applicationId: id } })))
          if (secret === undefined) return
          setIssued(secret)
          reload()
        }
        const revoke = async (secretId: string, lastFour: string) => {
          if (!window.confirm(`Revoke the secret ending in ${lastFour}? It stops new tokens at once.`)) return
          const done = await action.run(() => call((client) => client.applications.revokeSecret({ path: { applicationId: id, secretId } })))
          if (done === undefined) return
          if (issued?.id === secretId) setIssued(undefined)
          reload()
        }
        return (
          <>
            <ProblemNotice problem={action.problem} />
            <Facts
              items={[
                ["client_id", <code>{application.clientId}</code>],
                ["Status", <Status value={application.status} />],
                ["Roles", application.roles.join(", ")],
                ["Contexts", contextIds.map(contextName).join(", ")],
                ["Created", dateTime(application.createdAt)]
              ]}
            />
            {issued === undefined ? null : <SecretOnce clientId={application.clientId} secret={issued} />}
            <section aria-labelledby="secrets-heading">
              <div className="section-header">
                <h2 id="secrets-heading">Secrets</h2>
                <button type="button" onClick={issue} disabled={action.busy}>
                  New secret
                </button>
              </div>
              <p className="hint">At most 2 active secrets, so one can replace the other without downtime.</p>
              <Table caption="Secrets" head={["Ends in", "Created", "Last used", "Revoked", ""]}>
                {secrets.length === 0 ? <Empty columns={5} text="No secret yet." /> : null}
                {secrets.map((secret) => (
                  <tr key={secret.id}>
                    <td>
                      <code>…{secret.lastFour}</code>
                    </td>
                    <td>{dateTime(secret.createdAt)}</td>
                    <td>{dateTime(secret.lastUsedAt)}</td>
                    <td>{secret.revokedAt === null ? <Status value="active" /> : dateTime(secret.revokedAt)}</td>
                    <td>
                      {secret.revokedAt === null ? (
                        <button type="button" className="danger" onClick={() => revoke(secret.id, secret.lastFour)} disabled={action.busy}>
                          Revoke<span className="visually-hidden"> the secret ending in {secret.lastFour}</span>
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </Table>
            </section>
            <p>
              <Link href={`/audit-log?targetId=${application.id}`}>Changes to this Application in the audit log</Link>
            </p>
          </>
        )
      }}
    </RecordPage>
  )
}
