/**
 * Integration configurations: the organization's list (by kind, status and installation, in the URL); creating one
 * for an installation (its kind and operational contexts); a configuration's page with its status, external
 * account, declared gates, settings and failure reason, and Connect — the setup address to open, with the
 * connection reference shown once — and Disconnect. The integrations operator service decides every rule; its
 * codes show as sentences, its issues beside the contexts they name.
 */
import { type FormEvent, useCallback, useState } from "react"
import type { ConfigurationDetail, ConnectAnswer, InstallationChoice } from "@propline/contract/IntegrationsAdmin"
import type { ContextNode } from "@propline/contract/OrganizationAdmin"
import { messageFor } from "../../ErrorMessages.js"
import { call } from "../api.js"
import { When } from "../ui/Time.js"
import { Link, navigate } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Facts, Field, GroupError, ListPage, Loading, PageHeader, ProblemNotice, RecordPage, Status, useCopy, useQuery } from "../ui.js"
import { Change, ChangeButton, ChangeForm } from "../ui/Change.js"
import { ContextChoices, toggled } from "./Applications.js"
import { useDialog } from "../ui/Dialog.js"
import { AutoRefresh } from "../ui/AutoRefresh.js"

const KINDS = [
  ["billing", "Billing — an ERP or invoicing system"],
  ["signing", "Signing — an e-signing system"],
  ["booking", "Booking — a booking website"]
] as const
type Kind = (typeof KINDS)[number][0]

const STATUSES = ["pending", "connecting", "ready", "failed", "disconnected"] as const

const choice = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

const useOrganization = () => useLoad("organization", () => call((client) => client.organization.get()))
const useInstallations = () => useLoad("installations", () => call((client) => client.integrationConfigurations.installations()))

/** Context ids as their names (the ids while the organization loads). */
const useContextNames = () => {
  const { load } = useOrganization()
  const contexts: ReadonlyArray<ContextNode> = load._tag === "loaded" ? load.value.contexts : []
  return (ids: ReadonlyArray<string>) => ids.map((id) => contexts.find((context) => context.id === id)?.name ?? id).join(", ")
}

const installationLabel = (installation: InstallationChoice) =>
  `${installation.appName} (${installation.appId})${installation.status === "suspended" ? " — suspended" : ""}`

export const IntegrationConfigurationsPage = () => {
  const installations = useInstallations()
  const contextNames = useContextNames()
  const options = installations.load._tag === "loaded" ? installations.load.value.items.map((row) => [row.id, installationLabel(row)] as const) : []
  const query = useQuery()
  // The statuses change at the connector (redeem, ready, failed): the list reads itself again every 10 seconds.
  const [version, setVersion] = useState(0)
  const refresh = useCallback(() => setVersion((n) => n + 1), [])
  return (
    <ListPage
      title="Integration configurations"
      version={version}
      intro="What each installed connector app does for which operational contexts. Create one, press Connect, and finish the set-up at the connector."
      actions={
        <Change hide>
          <Link className="button" href={query["installationId"] ? `/integration-configurations/new?installationId=${encodeURIComponent(query["installationId"])}` : "/integration-configurations/new"}>
            New configuration
          </Link>
        </Change>
      }
      filters={[
        { name: "kind", label: "Kind", options: KINDS.map(([kind]) => [kind, kind] as const) },
        { name: "status", label: "Status", options: STATUSES.map((status) => [status, status] as const) },
        { name: "installationId", label: "Installation", options }
      ]}
      fetch={(query) =>
        call((client) =>
          client.integrationConfigurations.list({
            urlParams: {
              kind: choice(KINDS.map(([kind]) => kind), query["kind"]),
              status: choice(STATUSES, query["status"]),
              installationId: query["installationId"],
              cursor: query["cursor"]
            }
          })
        )
      }
      head={["Kind", "Connector app", "Operational contexts", "Status", "External account", "Created"]}
      narrow={[3, 5, 6]}
      empty="No integration configuration matches."
      row={(configuration) => (
        <tr key={configuration.id}>
          <td>
            <Link href={`/integration-configurations/${configuration.id}`}>
              {configuration.kind}
              <span className="visually-hidden"> configuration of {configuration.appName ?? "the former billing integration"}</span>
            </Link>
          </td>
          <td>{configuration.appName ?? <span className="muted">former billing integration</span>}</td>
          <td>{contextNames(configuration.operationalContextIds)}</td>
          <td>
            <Status value={configuration.status} />
          </td>
          <td>{configuration.externalAccount?.name ?? "—"}</td>
          <td><When at={configuration.createdAt} /></td>
        </tr>
      )}
    >
      <AutoRefresh reload={refresh} />
    </ListPage>
  )
}

export const NewIntegrationConfigurationPage = () => {
  const query = useQuery()
  const organization = useOrganization()
  const installations = useInstallations()
  const [installationId, setInstallationId] = useState(query["installationId"] ?? "")
  const [kind, setKind] = useState<Kind | "">("")
  const [contextIds, setContextIds] = useState<ReadonlySet<string>>(() => new Set())
  const [sent, setSent] = useState<ReadonlyArray<string>>([])
  const action = useAction()
  const problem = action.problem
  const contexts = organization.load._tag === "loaded" ? organization.load.value.contexts : []
  const chosen = installations.load._tag === "loaded" ? installations.load.value.items.find((row) => row.id === installationId) : undefined
  const contextName = (id: string | undefined) => contexts.find((context) => context.id === id)?.name ?? id ?? ""

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const operationalContextIds = contexts.map((context) => context.id).filter((id) => contextIds.has(id))
    setSent(operationalContextIds)
    const created = await action.run(() =>
      call((client) =>
        // An empty choice is sent as it is: the contract's message names the field.
        client.integrationConfigurations.create({ payload: { installationId, kind: kind as Kind, operationalContextIds } })
      )
    )
    if (created !== undefined) navigate(`/integration-configurations/${created.id}`)
  }
  // The service's issues name contexts by their index in what was sent: show each beside the context's name.
  const contextIssues = (problem?.issues ?? []).flatMap((issue) => {
    const match = /^\/operationalContextIds\/(\d+)$/.exec(issue.path)
    return match === null ? [] : [`${contextName(sent[Number(match[1])])}: ${issue.message}`]
  })

  return (
    <>
      <PageHeader title="New integration configuration">
        <Link href="/integration-configurations">All integration configurations</Link>
      </PageHeader>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        {installations.load._tag === "failed" ? <ProblemNotice problem={installations.load.problem} /> : null}
        <Field label="Installation" name="installationId" problem={problem} hint="The connector app that does the work: installed in your organization on its page under Connector apps.">
          {(input) => (
            <select {...input} value={installationId} onChange={(event) => setInstallationId(event.target.value)}>
              <option value="">Choose an installation</option>
              {installations.load._tag === "loaded"
                ? installations.load.value.items.map((row) => (
                    <option key={row.id} value={row.id}>
                      {installationLabel(row)}
                    </option>
                  ))
                : null}
            </select>
          )}
        </Field>
        {chosen === undefined ? null : (
          <p className="hint">
            Its roles: {chosen.roles.join(", ")}. Its contexts: {chosen.contextIds.map(contextName).join(", ")} (each with everything below it).
          </p>
        )}
        <Field label="Kind" name="kind" problem={problem} hint="The installation needs the role of the same name.">
          {(input) => (
            <select {...input} value={kind} onChange={(event) => setKind(choice(KINDS.map(([value]) => value), event.target.value) ?? "")}>
              <option value="">Choose a kind</option>
              {KINDS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset>
          <legend>Operational contexts</legend>
          <p className="hint">Where it applies: within the installation's contexts. One ready configuration of a kind serves a context at a time.</p>
          <GroupError problem={problem} name="operationalContextIds" />
          {contextIssues.length === 0 ? null : (
            <ul className="field-error">
              {contextIssues.map((text) => (
                <li key={text}>{text}</li>
              ))}
            </ul>
          )}
          {organization.load._tag === "loading" ? <Loading /> : null}
          {organization.load._tag === "failed" ? <ProblemNotice problem={organization.load.problem} /> : null}
          <ContextChoices contexts={contexts} chosen={contextIds} toggle={(id) => setContextIds(toggled(contextIds, id))} name="operationalContextIds" />
        </fieldset>
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create configuration"}
        </button>
      </ChangeForm>
    </>
  )
}

/** What Connect answered: the link that opens the connector's set-up, and the reference, shown only this once. */
const ConnectionOnce = ({ answer }: { readonly answer: ConnectAnswer }) => {
  const copying = useCopy(answer.connectionReference)
  return (
    <section className="secret-once" aria-labelledby="connect-heading">
      <h2 id="connect-heading">Finish the set-up at the connector</h2>
      <p>
        Open the connector's set-up page: it receives the connection reference and sets itself up. The reference works once, until{" "}
        <When at={answer.expiresAt} />, and is shown only this once.
      </p>
      <p>
        <a className="button" href={answer.setupAddress} target="_blank" rel="noopener noreferrer">
          Open the connector's set-up
        </a>
      </p>
      <div className="secret-value">
        <label htmlFor="setup-address">Setup address</label>
        <input id="setup-address" readOnly value={answer.setupAddress} onFocus={(event) => event.target.select()} />
      </div>
      <div className="secret-value">
        <label htmlFor="connection-reference">Connection reference</label>
        <input id="connection-reference" readOnly value={answer.connectionReference} onFocus={(event) => event.target.select()} />
        <button type="button" onClick={copying.copy}>
          Copy reference
        </button>
      </div>
      {copying.status}
      <p className="hint">Reload this page to see the connector's progress: connecting, then ready or failed.</p>
    </section>
  )
}

const ConfigurationFacts = ({ configuration }: { readonly configuration: ConfigurationDetail }) => {
  const contextNames = useContextNames()
  return (
    <Facts
      items={[
        ["Kind", configuration.kind],
        ["Status", <Status value={configuration.status} />],
        [
          "Connector app",
          configuration.appId === null ? (
            "the former billing integration"
          ) : (
            <Link href={`/connector-apps/${encodeURIComponent(configuration.appId)}`}>{configuration.appName ?? configuration.appId}</Link>
          )
        ],
        ["Installation", configuration.installationStatus === null ? "—" : <Status value={configuration.installationStatus} />],
        ["Operational contexts", contextNames(configuration.operationalContextIds)],
        ["External account", configuration.externalAccount === null ? "—" : `${configuration.externalAccount.name} (${configuration.externalAccount.id})`],
        ["Declared gates", configuration.declaredGates.length === 0 ? "none" : configuration.declaredGates.join(", ")],
        ["Failure reason", configuration.failureReason ?? "—"],
        ["Created", <When at={configuration.createdAt} />],
        ["Connected", <When at={configuration.connectedAt} />],
        ["Ready", <When at={configuration.readyAt} />],
        ["Failed", <When at={configuration.failedAt} />],
        ["Disconnected", <When at={configuration.disconnectedAt} />]
      ]}
    />
  )
}

export const IntegrationConfigurationPage = ({ id }: { readonly id: string }) => {
  const action = useAction()
  const dialog = useDialog()
  const contextNames = useContextNames()
  const [connection, setConnection] = useState<ConnectAnswer | undefined>()
  return (
    <RecordPage
      loadKey={`integration configuration ${id}`}
      fetch={() => call((client) => client.integrationConfigurations.get({ path: { configurationId: id } }))}
      fallback="Integration configuration"
      title={(found) => `${found.kind[0]!.toUpperCase()}${found.kind.slice(1)} configuration${found.appName === null ? "" : ` of ${found.appName}`}`}
      back={["/integration-configurations", "All integration configurations"]}
    >
      {(configuration, reload) => {
        const connect = async () => {
          const answer = await action.run(() => call((client) => client.integrationConfigurations.connect({ path: { configurationId: id } })))
          if (answer !== undefined) setConnection(answer)
        }
        const disconnect = async () => {
          if (!(await dialog.confirm({ title: "Disconnect this configuration for good?", body: "Its connector stops serving these contexts; to connect again, create a new configuration.", confirm: "Disconnect", tone: "danger" }))) return
          if ((await action.run(() => call((client) => client.integrationConfigurations.disconnect({ path: { configurationId: id } })))) !== undefined) {
            setConnection(undefined)
            reload()
          }
        }
        const live = configuration.status !== "disconnected"
        return (
          <>
            {live ? <AutoRefresh reload={reload} /> : null}
            <ConfigurationFacts configuration={configuration} />
            {configuration.filledElsewhere.length === 0 ? null : (
              <div className="notice notice-warning" role="note">
                <p>
                  {messageFor({ status: 409, code: "INTEGRATIONS_POINT_ALREADY_FILLED" })} Filled in:{" "}
                  {contextNames(configuration.filledElsewhere)}.{" "}
                  <Link href={`/integration-configurations?kind=${configuration.kind}&status=ready`}>Ready {configuration.kind} configurations</Link>
                </p>
                <p className="code">
                  The connector's ready report is refused with <code>INTEGRATIONS_POINT_ALREADY_FILLED</code> until then.
                </p>
              </div>
            )}
            {configuration.settings === null ? null : (
              <section aria-labelledby="settings-heading">
                <h2 id="settings-heading">Settings</h2>
                <pre className="details code">{JSON.stringify(configuration.settings, null, 2)}</pre>
              </section>
            )}
            <ProblemNotice problem={action.problem} />
            {live ? (
              <div className="actions record-actions">
                <ChangeButton type="button" onClick={connect} disabled={action.busy}>
                  {configuration.status === "pending" ? "Connect" : "Connect again"}
                </ChangeButton>
                <ChangeButton type="button" className="danger" onClick={disconnect} disabled={action.busy}>
                  Disconnect
                </ChangeButton>
              </div>
            ) : (
              <p className="muted">Disconnected for good: create a new configuration to connect again.</p>
            )}
            {connection === undefined ? null : <ConnectionOnce answer={connection} />}
            <p>
              {configuration.installationId === null ? null : (
                <>
                  <Link href={`/integration-configurations?installationId=${configuration.installationId}`}>Other configurations of this installation</Link>
                  {" · "}
                </>
              )}
              <Link href={`/audit-log?targetId=${encodeURIComponent(configuration.id)}`}>Changes to this configuration in the audit log</Link>
            </p>
          </>
        )
      }}
    </RecordPage>
  )
}
