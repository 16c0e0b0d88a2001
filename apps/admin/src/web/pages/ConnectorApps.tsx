/**
 * Connector apps: every registered app with the organization's installation of it; registering one (the
 * organization becomes its publisher); an app's page with its public keys (add and retire: the publisher's
 * operators only) and the organization's installation (install with roles and contexts, suspend, resume, remove,
 * change roles and contexts). The identity services decide every rule; their codes show as sentences.
 */
import { type FormEvent, useState } from "react"
import type { ConnectorAppDetail, InstallationView } from "@propline/contract/ConnectorAppsAdmin"
import { call, type Problem } from "../api.js"
import { dateTime } from "../format.js"
import { When } from "../ui/Time.js"
import { Link, navigate } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Empty, Facts, Field, ListPage, PageHeader, ProblemNotice, RecordPage, Status, Table } from "../ui.js"
import { Change, ChangeButton, ChangeForm } from "../ui/Change.js"
import { GrantFields, useGrant } from "./Applications.js"
import { AppWebhookSection } from "./Webhooks.js"
import { useDialog } from "../ui/Dialog.js"

const choice = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

export const ConnectorAppsPage = () => (
  <ListPage
    title="Connector apps"
    intro="Apps that integrate through installations: each signs its own token requests with its keys. Install one to let it act in your organization."
    actions={
      <Change hide>
        <Link className="button" href="/connector-apps/new">
          Register a connector app
        </Link>
      </Change>
    }
    filters={[
      { name: "q", label: "Name or app id" },
      { name: "installed", label: "Installed here", options: [["yes", "Installed"], ["no", "Not installed"]] },
      { name: "published", label: "Published", options: [["yes", "By your organization"]] }
    ]}
    fetch={(query) =>
      call((client) =>
        client.connectorApps.list({
          urlParams: {
            q: query["q"],
            installed: choice(["yes", "no"] as const, query["installed"]),
            published: choice(["yes"] as const, query["published"]),
            cursor: query["cursor"]
          }
        })
      )
    }
    head={["Name", "App id", "Active keys", "Published by you", "Installation", "Registered"]}
    empty="No connector app matches."
    row={(app) => (
      <tr key={app.id}>
        <td>
          <Link href={`/connector-apps/${encodeURIComponent(app.id)}`}>{app.name}</Link>
        </td>
        <td>
          <code>{app.id}</code>
        </td>
        <td>{app.activeKeyCount}</td>
        <td>{app.publishedByYou ? "yes" : "no"}</td>
        <td>{app.installationStatus === null ? "not installed" : <Status value={app.installationStatus} />}</td>
        <td><When at={app.createdAt} /></td>
      </tr>
    )}
  />
)

/** The JWK typed as JSON, or a field issue the form shows beside the textarea. */
const parseJwk = (text: string, pointer: string): { readonly jwk: Record<string, unknown> } | { readonly problem: Problem } => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { jwk: value as Record<string, unknown> }
  } catch {
    // reported below
  }
  return {
    problem: { status: 400, code: "VALIDATION_FAILED", issues: [{ path: pointer, message: "must be a public JWK as a JSON object" }] }
  }
}

const JWK_HINT = 'An ES256 public key as a JSON Web Key with its "kid": {"kty":"EC","crv":"P-256","x":"…","y":"…","kid":"…"}. Never the private key.'

export const NewConnectorAppPage = () => {
  const [form, setForm] = useState({ appId: "", name: "", setupUrl: "", jwk: "" })
  const [local, setLocal] = useState<Problem | undefined>()
  const action = useAction()
  const problem = local ?? action.problem
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseJwk(form.jwk, "/keys")
    if ("problem" in parsed) return setLocal(parsed.problem)
    setLocal(undefined)
    const registered = await action.run(() =>
      call((client) =>
        client.connectorApps.register({ payload: { appId: form.appId, name: form.name, setupUrl: form.setupUrl, keys: [parsed.jwk] } })
      )
    )
    if (registered !== undefined) navigate(`/connector-apps/${encodeURIComponent(registered.app.id)}`)
  }
  const text = (label: string, field: "appId" | "name" | "setupUrl", hint: string) => (
    <Field label={label} name={field} hint={hint} problem={problem}>
      {(input) => <input {...input} type="text" value={form[field]} onChange={(event) => setForm({ ...form, [field]: event.target.value })} />}
    </Field>
  )
  return (
    <>
      <PageHeader title="Register a connector app">
        <Link href="/connector-apps">All connector apps</Link>
      </PageHeader>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        <p className="hint">Your organization publishes the app: only its operators can add or retire the app's keys.</p>
        {text("App id", "appId", "3 to 64 lower-case letters, digits and single hyphens, starting with a letter: the app's client_id for good.")}
        {text("Name", "name", "How operators recognise it.")}
        {text("Setup URL", "setupUrl", "The https address Connect sends a connection reference to.")}
        <Field label="Public key (JWK)" name="keys" hint={JWK_HINT} problem={problem}>
          {(input) => <textarea {...input} rows={5} className="code" value={form.jwk} onChange={(event) => setForm({ ...form, jwk: event.target.value })} />}
        </Field>
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Registering…" : "Register the app"}
        </button>
      </ChangeForm>
    </>
  )
}

/** The publisher's key form: one more active key (kids are never reused). */
const AddKeyForm = ({ appId, onDone }: { readonly appId: string; readonly onDone: () => void }) => {
  const [jwk, setJwk] = useState("")
  const [local, setLocal] = useState<Problem | undefined>()
  const action = useAction()
  const problem = local ?? action.problem
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseJwk(jwk, "/jwk")
    if ("problem" in parsed) return setLocal(parsed.problem)
    setLocal(undefined)
    if ((await action.run(() => call((client) => client.connectorApps.addKey({ path: { appId }, payload: { jwk: parsed.jwk } })))) !== undefined) {
      setJwk("")
      onDone()
    }
  }
  return (
    <details className="form-panel">
      <summary>Add a key</summary>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        <Field label="Public key (JWK)" name="jwk" hint={JWK_HINT} problem={problem}>
          {(input) => <textarea {...input} rows={5} className="code" value={jwk} onChange={(event) => setJwk(event.target.value)} />}
        </Field>
        <button type="submit" disabled={action.busy}>
          Add the key
        </button>
      </ChangeForm>
    </details>
  )
}

/** Install the app into the organization, or change the installation's roles and contexts. */
const GrantForm = (props: { readonly appId: string; readonly installation: InstallationView | null; readonly onDone: () => void }) => {
  const grant = useGrant({ roles: props.installation?.roles ?? [], contextIds: props.installation?.contextIds ?? [] })
  const action = useAction()
  const installationId = props.installation?.id
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const done = await action.run(() =>
      call((client) =>
        installationId === undefined
          ? client.connectorApps.install({ path: { appId: props.appId }, payload: grant.grant() })
          : client.connectorApps.changeGrant({ path: { installationId }, payload: grant.grant() })
      )
    )
    if (done !== undefined) props.onDone()
  }
  return (
    <ChangeForm className="form" onSubmit={submit} noValidate>
      <ProblemNotice problem={action.problem} />
      <p className="hint">Its tokens always carry the integrations role too. Tokens already issued keep theirs until they expire (at most 10 minutes).</p>
      <GrantFields grant={grant} problem={action.problem} who="the installation's" />
      <button type="submit" disabled={action.busy}>
        {installationId === undefined ? "Install" : "Save roles and contexts"}
      </button>
    </ChangeForm>
  )
}

const InstallationSection = ({ detail, reload }: { readonly detail: ConnectorAppDetail; readonly reload: () => void }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  const action = useAction()
  const dialog = useDialog()
  const { installation } = detail
  const contextName = (id: string) =>
    organization.load._tag === "loaded" ? (organization.load.value.contexts.find((context) => context.id === id)?.name ?? id) : id
  const act = async (verb: "suspend" | "resume" | "remove", installationId: string) => {
    if (verb !== "resume" && !(await dialog.confirm(verb === "remove" ? { title: `Remove ${detail.app.name} for good?`, body: "Its tokens stop at once; installing it again starts afresh.", confirm: `Remove ${detail.app.name}`, tone: "danger" } : { title: `Suspend ${detail.app.name}?`, body: "Its tokens stop until it is resumed.", confirm: `Suspend ${detail.app.name}`, tone: "danger" }))) return
    const done = await action.run(() => call((client) => client.connectorApps[verb]({ path: { installationId } })))
    if (done !== undefined) reload()
  }
  return (
    <section aria-labelledby="installation-heading">
      <h2 id="installation-heading">Installation in your organization</h2>
      <ProblemNotice problem={action.problem} />
      {installation === null ? (
        <>
          <p>Not installed.</p>
          <GrantForm key="install" appId={detail.app.id} installation={null} onDone={reload} />
        </>
      ) : (
        <>
          <Facts
            items={[
              ["Installation id", <code>{installation.id}</code>],
              ["Status", <Status value={installation.status} />],
              ["Roles", installation.roles.join(", ")],
              ["Contexts", installation.contextIds.map(contextName).join(", ")],
              ["Installed", <When at={installation.createdAt} />]
            ]}
          />
          <div className="actions record-actions">
            {installation.status === "active" ? (
              <ChangeButton type="button" className="danger" onClick={() => act("suspend", installation.id)} disabled={action.busy}>
                Suspend
              </ChangeButton>
            ) : (
              <ChangeButton type="button" onClick={() => act("resume", installation.id)} disabled={action.busy}>
                Resume
              </ChangeButton>
            )}
            <ChangeButton type="button" className="danger" onClick={() => act("remove", installation.id)} disabled={action.busy}>
              Remove
            </ChangeButton>
          </div>
          <p>
            <Link href={`/integration-configurations?installationId=${installation.id}`}>Integration configurations of this installation</Link>
            <Change hide>
              {" · "}
              <Link href={`/integration-configurations/new?installationId=${installation.id}`}>New configuration</Link>
            </Change>
          </p>
          <details className="form-panel">
            <summary>Change roles and contexts</summary>
            <GrantForm key={`${installation.roles.join()} ${installation.contextIds.join()}`} appId={detail.app.id} installation={installation} onDone={reload} />
          </details>
        </>
      )}
      {detail.removedInstallations.length === 0 ? null : (
        <p className="muted">Removed earlier: {detail.removedInstallations.map((removed) => dateTime(removed.removedAt)).join(", ")}.</p>
      )}
    </section>
  )
}

export const ConnectorAppPage = ({ id }: { readonly id: string }) => {
  const action = useAction()
  const dialog = useDialog()
  return (
    <RecordPage
      loadKey={`connector app ${id}`}
      fetch={() => call((client) => client.connectorApps.get({ path: { appId: id } }))}
      fallback="Connector app"
      title={(found) => found.app.name}
      back={["/connector-apps", "All connector apps"]}
    >
      {(detail, reload) => {
        const retire = async (kid: string) => {
          if (!(await dialog.confirm({ title: `Retire the key ${kid}?`, body: "Assertions signed with it are refused from now on, in every organization that installed the app.", confirm: "Retire the key", tone: "danger" }))) return
          if ((await action.run(() => call((client) => client.connectorApps.retireKey({ path: { appId: id, kid } })))) !== undefined) reload()
        }
        const { app, keys } = detail
        return (
          <>
            <Facts
              items={[
                ["App id", <code>{app.id}</code>],
                ["Setup URL", app.setupUrl],
                ["Published by your organization", app.publishedByYou ? "yes" : "no"],
                ["Registered", <When at={app.createdAt} />]
              ]}
            />
            <section aria-labelledby="keys-heading">
              <h2 id="keys-heading">Public keys</h2>
              <p className="hint">
                {app.publishedByYou
                  ? "Add the new key before retiring the old one, so its installations keep getting tokens."
                  : "Only the organization that published the app changes its keys."}
              </p>
              <ProblemNotice problem={action.problem} />
              <Table caption="Public keys" head={["kid", "Status", "Added", "Retired", ""]}>
                {keys.length === 0 ? <Empty columns={5} text="No key." /> : null}
                {keys.map((key) => (
                  <tr key={key.kid}>
                    <td>
                      <code>{key.kid}</code>
                    </td>
                    <td>
                      <Status value={key.status} />
                    </td>
                    <td><When at={key.addedAt} /></td>
                    <td><When at={key.retiredAt} /></td>
                    <td className="row-actions">
                      {app.publishedByYou && key.status === "active" ? (
                        <ChangeButton type="button" className="danger" onClick={() => retire(key.kid)} disabled={action.busy}>
                          Retire<span className="visually-hidden"> the key {key.kid}</span>
                        </ChangeButton>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </Table>
              {app.publishedByYou ? <AddKeyForm appId={app.id} onDone={reload} /> : null}
            </section>
            <InstallationSection detail={detail} reload={reload} />
            <AppWebhookSection appId={app.id} publishedByYou={app.publishedByYou} />
            <p>
              <Link href={`/audit-log?targetId=${encodeURIComponent(app.id)}`}>Changes to this app in the audit log</Link>
            </p>
          </>
        )
      }}
    </RecordPage>
  )
}
