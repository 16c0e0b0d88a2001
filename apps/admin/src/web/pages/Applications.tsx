/**
 * Applications: the list, creating one (name, roles, granted contexts) and its page (secrets: issue, revoke). A new
 * secret is shown once, with a button that copies it; the console keeps it nowhere.
 */
import { type FormEvent, useState } from "react"
import type { ApplicationDetail, ApplicationRole, IssuedSecret } from "@propline/contract/ApplicationsAdmin"
import type { ContextNode } from "@propline/contract/OrganizationAdmin"
import { call, type Problem } from "../api.js"
import { When } from "../ui/Time.js"
import { Link } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Empty, Facts, Field, GroupError, ListPage, Loading, PageHeader, ProblemNotice, RecordPage, SecretOnce, Status, Table } from "../ui.js"
import { Change, ChangeButton, ChangeForm } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"

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
      <Change hide>
        <Link className="button" href="/applications/new">
          New Application
        </Link>
      </Change>
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
        <td><When at={application.createdAt} /></td>
      </tr>
    )}
  />
)

/** A client secret shown once, with the client_id it goes with. */
const ClientSecretOnce = ({ clientId, secret }: { readonly clientId: string; readonly secret: IssuedSecret }) => (
  <SecretOnce heading="Client secret" secret={secret.secret} lastFour={secret.lastFour}>
    <p>
      Copy the secret now: it is shown only this once. The Application authenticates with its client_id <code>{clientId}</code> and
      this secret.
    </p>
  </SecretOnce>
)

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

/** The organization's contexts as a tree of checkboxes named `name` (default `contextIds`). */
export const ContextChoices = (props: {
  readonly contexts: ReadonlyArray<ContextNode>
  readonly chosen: ReadonlySet<string>
  readonly toggle: (id: string) => void
  readonly name?: string
}) => (
  <ul className="choices">
    {depthFirst(props.contexts).map(([context, depth]) => (
      <li key={context.id} className={`depth-${Math.min(depth, 4)}`}>
        <label>
          <input type="checkbox" name={props.name ?? "contextIds"} value={context.id} checked={props.chosen.has(context.id)} onChange={() => props.toggle(context.id)} />{" "}
          {context.name} <span className="kind">{context.kind}</span>
        </label>
      </li>
    ))}
  </ul>
)

export const toggled = <A,>(set: ReadonlySet<A>, value: A): ReadonlySet<A> => {
  const next = new Set(set)
  if (next.has(value)) next.delete(value)
  else next.add(value)
  return next
}

/** Roles and granted contexts being edited; `grant()` gives them in the order the API expects. */
export const useGrant = (initial: { readonly roles: ReadonlyArray<string>; readonly contextIds: ReadonlyArray<string> }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  const [roles, setRoles] = useState<ReadonlySet<string>>(() => new Set(initial.roles))
  const [contextIds, setContextIds] = useState<ReadonlySet<string>>(() => new Set(initial.contextIds))
  const order = organization.load._tag === "loaded" ? organization.load.value.contexts.map((c) => c.id) : []
  return {
    organization,
    roles,
    contextIds,
    toggleRole: (role: string) => setRoles(toggled(roles, role)),
    toggleContext: (id: string) => setContextIds(toggled(contextIds, id)),
    grant: () => ({
      roles: ROLES.map(([role]) => role).filter((role) => roles.has(role)),
      contextIds: order.filter((id) => contextIds.has(id))
    })
  }
}

/** The roles and contexts fieldsets, each with its field's message; `who` names whose tokens carry them. */
export const GrantFields = ({ grant, problem, who = "the Application's" }: { readonly grant: ReturnType<typeof useGrant>; readonly problem: Problem | undefined; readonly who?: string }) => (
  <>
    <fieldset>
      <legend>Roles</legend>
      <p className="hint">What {who} tokens may do.</p>
      <GroupError problem={problem} name="roles" />
      {ROLES.map(([role, label]) => (
        <label key={role} className="choice">
          <input type="checkbox" name="roles" value={role} checked={grant.roles.has(role)} onChange={() => grant.toggleRole(role)} /> {label}
        </label>
      ))}
    </fieldset>
    <fieldset>
      <legend>Operational contexts</legend>
      <p className="hint">Where it may act; a context includes everything below it.</p>
      <GroupError problem={problem} name="contextIds" />
      {grant.organization.load._tag === "loading" ? <Loading /> : null}
      {grant.organization.load._tag === "failed" ? <ProblemNotice problem={grant.organization.load.problem} /> : null}
      {grant.organization.load._tag === "loaded" ? (
        <ContextChoices contexts={grant.organization.load.value.contexts} chosen={grant.contextIds} toggle={grant.toggleContext} />
      ) : null}
    </fieldset>
  </>
)

export const NewApplicationPage = () => {
  const [name, setName] = useState("")
  const grant = useGrant({ roles: [], contextIds: [] })
  const action = useAction()
  const problem = action.problem
  const [created, setCreated] = useState<{ application: ApplicationDetail; secret: IssuedSecret } | undefined>()

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await action.run(() => call((client) => client.applications.create({ payload: { name, ...grant.grant() } })))
    if (answer !== undefined) setCreated(answer)
  }

  if (created !== undefined) {
    return (
      <>
        <PageHeader title={`Application ${created.application.application.name} created`} />
        <ClientSecretOnce clientId={created.application.application.clientId} secret={created.secret} />
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
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        <Field label="Name" name="name" problem={problem} hint="How operators recognise it, e.g. the ERP's name.">
          {(input) => <input {...input} type="text" maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <GrantFields grant={grant} problem={problem} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create Application"}
        </button>
      </ChangeForm>
    </>
  )
}

/** Replace the roles and contexts of an Application; its new tokens carry them. */
const GrantForm = (props: { readonly detail: ApplicationDetail; readonly onDone: () => void }) => {
  const grant = useGrant({ roles: props.detail.application.roles, contextIds: props.detail.contextIds })
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const changed = await action.run(() =>
      call((client) => client.applications.changeGrant({ path: { applicationId: props.detail.application.id }, payload: grant.grant() }))
    )
    if (changed !== undefined) props.onDone()
  }
  return (
    <details className="form-panel">
      <summary>Change roles and contexts</summary>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <p className="hint">Tokens already issued keep their roles and contexts until they expire (at most 10 minutes).</p>
        <GrantFields grant={grant} problem={action.problem} />
        <button type="submit" disabled={action.busy}>
          Save roles and contexts
        </button>
      </ChangeForm>
    </details>
  )
}

export const ApplicationPage = ({ id }: { readonly id: string }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  const action = useAction()
  const dialog = useDialog()
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
      {(detail, reload) => {
        const { application, contextIds, secrets } = detail
        const issue = async () => {
          const secret = await action.run(() => call((client) => client.applications.issueSecret({ path: { applicationId: id } })))
          if (secret === undefined) return
          setIssued(secret)
          reload()
        }
        const revoke = async (secretId: string, lastFour: string) => {
          if (!(await dialog.confirm({ title: `Revoke the secret ending in ${lastFour}?`, body: "It stops getting new tokens at once; tokens already issued run out on their own.", confirm: "Revoke the secret", tone: "danger" }))) return
          const done = await action.run(() => call((client) => client.applications.revokeSecret({ path: { applicationId: id, secretId } })))
          if (done === undefined) return
          if (issued?.id === secretId) setIssued(undefined)
          reload()
        }
        const toggleStatus = async () => {
          const verb = application.status === "active" ? "disable" : "enable"
          if (verb === "disable" && !(await dialog.confirm({ title: `Disable ${application.name}?`, body: "Its secrets stop getting tokens at once, until it is enabled again.", confirm: `Disable ${application.name}`, tone: "danger" }))) return
          const done = await action.run(() =>
            call((client) =>
              verb === "disable"
                ? client.applications.disable({ path: { applicationId: id } })
                : client.applications.enable({ path: { applicationId: id } })
            )
          )
          if (done !== undefined) reload()
        }
        return (
          <>
            <ProblemNotice problem={action.problem} />
            <div className="record-actions actions">
              <ChangeButton type="button" className={application.status === "active" ? "danger" : undefined} onClick={toggleStatus} disabled={action.busy}>
                {application.status === "active" ? "Disable" : "Enable"}
              </ChangeButton>
            </div>
            <Facts
              items={[
                ["client_id", <code>{application.clientId}</code>],
                ["Status", <Status value={application.status} />],
                ["Roles", application.roles.join(", ")],
                ["Contexts", contextIds.map(contextName).join(", ")],
                ["Created", <When at={application.createdAt} />]
              ]}
            />
            <GrantForm key={`${application.roles.join()} ${contextIds.join()}`} detail={detail} onDone={reload} />
            {issued === undefined ? null : <ClientSecretOnce clientId={application.clientId} secret={issued} />}
            <section aria-labelledby="secrets-heading">
              <div className="section-header">
                <h2 id="secrets-heading">Secrets</h2>
                <ChangeButton type="button" onClick={issue} disabled={action.busy}>
                  New secret
                </ChangeButton>
              </div>
              <p className="hint">At most 2 active secrets, so one can replace the other without downtime.</p>
              <Table caption="Secrets" head={["Ends in", "Created", "Last used", "Revoked", ""]}>
                {secrets.length === 0 ? <Empty columns={5} text="No secret yet." /> : null}
                {secrets.map((secret) => (
                  <tr key={secret.id}>
                    <td>
                      <code>…{secret.lastFour}</code>
                    </td>
                    <td><When at={secret.createdAt} /></td>
                    <td><When at={secret.lastUsedAt} /></td>
                    <td>{secret.revokedAt === null ? <Status value="active" /> : <When at={secret.revokedAt} />}</td>
                    <td>
                      {secret.revokedAt === null ? (
                        <ChangeButton type="button" className="danger" onClick={() => revoke(secret.id, secret.lastFour)} disabled={action.busy}>
                          Revoke<span className="visually-hidden"> the secret ending in {secret.lastFour}</span>
                        </ChangeButton>
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
