/**
 * Webhooks (issue 22, item 7): the organization's endpoints (a notice names those disabled after days of
 * failing), a new endpoint (URL, event types from the catalog, operational contexts; its `whsec_` secret shown once),
 * an endpoint's page (send a test event, rotate the secret, disable, enable, delete — each change confirmed in the
 * page — change it, redeliver everything since a time, and its delivery log filtered by status and event type), the
 * organization's delivery log (every endpoint's delivery of one event: `?eventId=`), and a delivery's page (its
 * attempts with status, latency and the response's first 1 KB, the payload, redeliver). A connector app's one
 * webhook is declared on the app's page ({@link AppWebhookSection}). The webhooks services decide every rule.
 */
import { Effect } from "effect"
import { type FormEvent, useState } from "react"
import type { ContextNode } from "@propline/contract/OrganizationAdmin"
import type { RevealedWebhookSecret, WebhookDeliveryView, WebhookEndpointView } from "@propline/contract/WebhooksAdmin"
import { call, type Problem } from "../api.js"
import { When } from "../ui/Time.js"
import { hrefWith, Link, navigate } from "../router.js"
import { useAction, useLoad } from "../session.js"
import {
  ConfirmButton,
  Empty,
  Facts,
  Field,
  type FilterSpec,
  Filters,
  GroupError,
  ListPage,
  Loading,
  PageHeader,
  Pager,
  ProblemNotice,
  RecordPage,
  SecretOnce,
  Status,
  Table,
  useQuery
} from "../ui.js"
import { Change, ChangeButton, ChangeForm } from "../ui/Change.js"
import { ContextChoices, toggled } from "./Applications.js"

const choice = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const

const useEventTypes = () => useLoad("webhook event types", () => call((client) => client.webhooks.eventTypes()))
const useOrganization = () => useLoad("organization", () => call((client) => client.organization.get()))

/** The name of a context of the organization, or its id until the organization is loaded. */
const contextNamer = (organization: ReturnType<typeof useOrganization>) => (id: string) =>
  organization.load._tag === "loaded" ? (organization.load.value.contexts.find((context) => context.id === id)?.name ?? id) : id

const endpointName = (endpoint: WebhookEndpointView) => (endpoint.description === "" ? endpoint.url : endpoint.description)

/** The endpoint's signing secret, in the one answer that issues it. */
const WebhookSecretOnce = ({ secret }: { readonly secret: RevealedWebhookSecret }) => (
  <SecretOnce heading="Signing secret" secret={secret.secret} lastFour={secret.lastFour}>
    <p>
      Copy the secret now: it is shown only this once. The receiver verifies each delivery's <code>webhook-signature</code> with it (Standard
      Webhooks: HMAC-SHA256 over <code>webhook-id</code>, <code>webhook-timestamp</code> and the body).
    </p>
    {secret.previousSecretExpiresAt === null ? null : (
      <p>The previous secret keeps signing beside this one until <When at={secret.previousSecretExpiresAt} />, so the receiver can switch meanwhile.</p>
    )}
  </SecretOnce>
)

/** "Disabled after failing" and "failing since" as a notice; nothing for a healthy endpoint. */
const FailingNotice = ({ endpoint }: { readonly endpoint: WebhookEndpointView }) => {
  if (endpoint.disabledReason === "failing") {
    return (
      <div className="notice notice-warning" role="status">
        <p>
          Disabled on <When at={endpoint.disabledAt} />: no delivery succeeded for 3 days
          {endpoint.failingSince === null ? "" : ` (failing since $<When at={endpoint.failingSince} />)`}. Fix the receiver, enable the endpoint, then
          redeliver what it missed.
        </p>
      </div>
    )
  }
  if (endpoint.status === "enabled" && endpoint.failingSince !== null) {
    return (
      <div className="notice notice-warning" role="status">
        <p>
          Failing since <When at={endpoint.failingSince} />: deliveries are retried with back-off, and the endpoint is disabled after 3 days without a
          success.
        </p>
      </div>
    )
  }
  return null
}

/** The endpoints that were disabled after days of failing, named above the list. */
const AutoDisabledNotice = () => {
  const disabled = useLoad("webhook endpoints disabled", () =>
    call((client) => client.webhooks.list({ urlParams: { status: "disabled", limit: 100 } }))
  )
  if (disabled.load._tag !== "loaded") return null
  const failing = disabled.load.value.items.filter((endpoint) => endpoint.disabledReason === "failing")
  if (failing.length === 0) return null
  return (
    <div className="notice notice-warning" role="status">
      <p>
        {failing.length === 1 ? "An endpoint was" : `${failing.length} endpoints were`} disabled after 3 days without a successful delivery:{" "}
        {failing.map((endpoint, index) => (
          <span key={endpoint.id}>
            {index === 0 ? "" : ", "}
            <Link href={`/webhooks/${endpoint.id}`}>{endpointName(endpoint)}</Link>
          </span>
        ))}
        .
      </p>
    </div>
  )
}

const eventTypesText = (eventTypes: ReadonlyArray<string>) => (eventTypes.length === 0 ? "every event type" : eventTypes.join(", "))

export const WebhookEndpointsPage = () => (
  <ListPage
    title="Webhooks"
    intro="Endpoints that receive the organization's events as signed HTTP POSTs (Standard Webhooks), retried for 3 days until they answer 2xx."
    actions={
      <>
        <Link href="/webhooks/deliveries">Delivery log</Link>
        <Change hide>
          <Link className="button" href="/webhooks/new">
            New endpoint
          </Link>
        </Change>
      </>
    }
    filters={[
      { name: "q", label: "URL or description" },
      { name: "status", label: "Status", options: [["enabled", "Enabled"], ["disabled", "Disabled"]] },
      { name: "owner", label: "Owner", options: [["organization", "The organization"], ["connector-app", "A connector app"]] }
    ]}
    fetch={(query) =>
      call((client) =>
        client.webhooks.list({
          urlParams: {
            q: query["q"],
            status: choice(["enabled", "disabled"] as const, query["status"]),
            owner: choice(["organization", "connector-app"] as const, query["owner"]),
            cursor: query["cursor"]
          }
        })
      )
    }
    head={["Endpoint", "Owner", "Event types", "Status", "Failing since", "Created"]}
    empty="No webhook endpoint matches."
    row={(endpoint) => (
      <tr key={endpoint.id}>
        <td>
          <Link href={`/webhooks/${endpoint.id}`}>{endpointName(endpoint)}</Link>
          {endpoint.description === "" ? null : (
            <p>
              <code>{endpoint.url}</code>
            </p>
          )}
        </td>
        <td>{endpoint.connectorAppId === null ? "organization" : <code>{endpoint.connectorAppId}</code>}</td>
        <td>{eventTypesText(endpoint.eventTypes)}</td>
        <td>
          <Status value={endpoint.status} />
          {endpoint.disabledReason === "failing" ? <p>after failing</p> : null}
        </td>
        <td><When at={endpoint.failingSince} /></td>
        <td><When at={endpoint.createdAt} /></td>
      </tr>
    )}
  >
    <AutoDisabledNotice />
  </ListPage>
)

interface EndpointForm {
  readonly url: string
  readonly description: string
  readonly eventTypes: ReadonlySet<string>
  readonly contextIds: ReadonlySet<string>
}

const formOf = (endpoint: WebhookEndpointView | undefined): EndpointForm => ({
  url: endpoint?.url ?? "",
  description: endpoint?.description ?? "",
  eventTypes: new Set(endpoint?.eventTypes ?? []),
  contextIds: new Set(endpoint?.contextIds ?? [])
})

/** The event types of the catalog as checkboxes, one fieldset per area (`billing`, `crm`, …). */
const EventTypeChoices = (props: { readonly chosen: ReadonlySet<string>; readonly toggle: (type: string) => void; readonly problem: Problem | undefined }) => {
  const catalog = useEventTypes()
  const areas = new Map<string, Array<string>>()
  if (catalog.load._tag === "loaded") {
    for (const type of catalog.load.value.items) {
      const area = type.split(".")[0] ?? type
      areas.set(area, [...(areas.get(area) ?? []), type])
    }
  }
  return (
    <fieldset>
      <legend>Event types</legend>
      <p className="hint">None chosen: every type, including those added later.</p>
      <GroupError problem={props.problem} name="eventTypes" />
      {catalog.load._tag === "loading" ? <Loading /> : null}
      {catalog.load._tag === "failed" ? <ProblemNotice problem={catalog.load.problem} /> : null}
      <div className="event-type-areas">
        {[...areas].map(([area, types]) => (
          <fieldset key={area} className="event-type-area">
            <legend>{area}</legend>
            {types.map((type) => (
              <label key={type} className="choice">
                <input type="checkbox" name="eventTypes" value={type} checked={props.chosen.has(type)} onChange={() => props.toggle(type)} />{" "}
                <code>{type}</code>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
    </fieldset>
  )
}

/** URL, description, event types and (for the organization's own endpoints) contexts. */
const EndpointFields = (props: {
  readonly form: EndpointForm
  readonly setForm: (form: EndpointForm) => void
  readonly problem: Problem | undefined
  readonly contexts: ReadonlyArray<ContextNode> | undefined
}) => {
  const { form, setForm, problem } = props
  return (
    <>
      <Field
        label="URL"
        name="url"
        problem={problem}
        hint="Where the events are POSTed: an https address (http and private addresses only where the deployment allows them)."
      >
        {(input) => <input {...input} type="text" inputMode="url" maxLength={2000} value={form.url} onChange={(event) => setForm({ ...form, url: event.target.value })} />}
      </Field>
      <Field label="Description" name="description" problem={problem} hint="Optional: how operators recognise it.">
        {(input) => <input {...input} type="text" maxLength={500} value={form.description} onChange={(event) => setForm({ ...form, description: event.target.value })} />}
      </Field>
      <EventTypeChoices chosen={form.eventTypes} toggle={(type) => setForm({ ...form, eventTypes: toggled(form.eventTypes, type) })} problem={problem} />
      {props.contexts === undefined ? null : (
        <fieldset>
          <legend>Operational contexts</legend>
          <p className="hint">Only the events of these contexts, each with everything below it. None chosen: the whole organization.</p>
          <GroupError problem={problem} name="contextIds" />
          <ContextChoices contexts={props.contexts} chosen={form.contextIds} toggle={(id) => setForm({ ...form, contextIds: toggled(form.contextIds, id) })} />
        </fieldset>
      )}
    </>
  )
}

/** The form's fields in the API's order: event types as the catalog lists them, contexts as the tree does. */
const payloadOf = (form: EndpointForm, contexts: ReadonlyArray<ContextNode>) => ({
  url: form.url.trim(),
  description: form.description,
  eventTypes: [...form.eventTypes].sort(),
  contextIds: contexts.map((context) => context.id).filter((id) => form.contextIds.has(id))
})

export const NewWebhookEndpointPage = () => {
  const organization = useOrganization()
  const [form, setForm] = useState<EndpointForm>(() => formOf(undefined))
  const action = useAction()
  const [created, setCreated] = useState<{ readonly endpoint: WebhookEndpointView; readonly secret: RevealedWebhookSecret } | undefined>()
  const contexts = organization.load._tag === "loaded" ? organization.load.value.contexts : []

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await action.run(() => call((client) => client.webhooks.create({ payload: payloadOf(form, contexts) })))
    if (answer !== undefined) setCreated(answer)
  }

  if (created !== undefined) {
    return (
      <>
        <PageHeader title="Webhook endpoint created" />
        <p>
          Events go to <code>{created.endpoint.url}</code> from now on.
        </p>
        <WebhookSecretOnce secret={created.secret} />
        <p>
          <Link className="button" href={`/webhooks/${created.endpoint.id}`}>
            Go to the endpoint
          </Link>
        </p>
      </>
    )
  }

  return (
    <>
      <PageHeader title="New webhook endpoint">
        <Link href="/webhooks">All endpoints</Link>
      </PageHeader>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        {organization.load._tag === "failed" ? <ProblemNotice problem={organization.load.problem} /> : null}
        <EndpointFields form={form} setForm={setForm} problem={action.problem} contexts={organization.load._tag === "loaded" ? contexts : undefined} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create endpoint"}
        </button>
      </ChangeForm>
    </>
  )
}

/** Change the URL, description, event types and contexts. */
const EditEndpointForm = (props: { readonly endpoint: WebhookEndpointView; readonly onDone: () => void }) => {
  const organization = useOrganization()
  const [form, setForm] = useState<EndpointForm>(() => formOf(props.endpoint))
  const action = useAction()
  const contexts = organization.load._tag === "loaded" ? organization.load.value.contexts : []
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const changed = await action.run(() =>
      call((client) => client.webhooks.update({ path: { endpointId: props.endpoint.id }, payload: payloadOf(form, contexts) }))
    )
    if (changed !== undefined) props.onDone()
  }
  return (
    <details className="form-panel">
      <summary>Change URL, event types and contexts</summary>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <EndpointFields
          form={form}
          setForm={setForm}
          problem={action.problem}
          contexts={props.endpoint.connectorAppId !== null || organization.load._tag !== "loaded" ? undefined : contexts}
        />
        <button type="submit" disabled={action.busy}>
          Save the endpoint
        </button>
      </ChangeForm>
    </details>
  )
}

/** `value` of a `datetime-local` input (local time) for `date`, to the minute. */
const localInputValue = (date: Date) => {
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** Redeliver the endpoint's failed deliveries (or every one) created since a time. */
const RedeliverSinceForm = ({ endpoint, onDone }: { readonly endpoint: WebhookEndpointView; readonly onDone: () => void }) => {
  const [since, setSince] = useState(() => localInputValue(endpoint.failingSince ?? new Date(Date.now() - 24 * 3600 * 1000)))
  const [includeDelivered, setIncludeDelivered] = useState(false)
  const [queued, setQueued] = useState<number | undefined>()
  const action = useAction()
  const [local, setLocal] = useState<Problem | undefined>()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const at = new Date(since)
    if (since === "" || Number.isNaN(at.getTime())) {
      return setLocal({ status: 400, code: "VALIDATION_FAILED", issues: [{ path: "/since", message: "must be a date and time" }] })
    }
    setLocal(undefined)
    const answer = await action.run(() =>
      call((client) => client.webhooks.redeliverSince({ path: { endpointId: endpoint.id }, payload: { since: at, includeDelivered } }))
    )
    if (answer === undefined) return
    setQueued(answer.queued)
    onDone()
  }
  const problem = local ?? action.problem
  return (
    <details className="form-panel">
      <summary>Redeliver since a time</summary>
      <ChangeForm className="form" onSubmit={submit} noValidate>
        <ProblemNotice problem={problem} />
        <Field label="Since" name="since" problem={problem} hint="Deliveries created at or after this time (your local time).">
          {(input) => <input {...input} type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} />}
        </Field>
        <label className="choice">
          <input type="checkbox" name="includeDelivered" checked={includeDelivered} onChange={() => setIncludeDelivered(!includeDelivered)} /> Delivered ones
          too (otherwise only the failed)
        </label>
        <button type="submit" disabled={action.busy}>
          Redeliver
        </button>
        <p role="status">{queued === undefined ? "" : `${queued} ${queued === 1 ? "delivery" : "deliveries"} queued again.`}</p>
      </ChangeForm>
    </details>
  )
}

const deliveryHead = ["Event type", "Event", "Status", "Attempts", "Last answer", "Last attempt", "Next attempt", ""]

/** One delivery as a row of a log: its page, the event's every delivery, a redeliver button. */
const DeliveryRow = (props: {
  readonly delivery: WebhookDeliveryView
  readonly showEndpoint?: boolean
  readonly busy: boolean
  readonly redeliver: (delivery: WebhookDeliveryView) => void
}) => {
  const { delivery } = props
  return (
    <tr>
      <td>
        <Link href={`/webhooks/deliveries/${delivery.id}`}>
          <code>{delivery.eventType}</code>
        </Link>
        {delivery.manual ? <p>manual</p> : null}
      </td>
      <td>
        <Link href={hrefWith("/webhooks/deliveries", { eventId: delivery.eventId })} title="Every delivery of this event">
          <code>{delivery.eventId.slice(0, 8)}</code>
        </Link>
        {props.showEndpoint === true ? (
          <p>
            to <Link href={`/webhooks/${delivery.endpointId}`}>endpoint {delivery.endpointId.slice(0, 8)}</Link>
          </p>
        ) : null}
      </td>
      <td>
        <Status value={delivery.status} />
      </td>
      <td className="number">{delivery.attemptCount}</td>
      <td>{delivery.lastStatusCode === null ? "—" : `HTTP ${delivery.lastStatusCode}`}</td>
      <td className="nowrap"><When at={delivery.lastAttemptAt} seconds /></td>
      <td className="nowrap"><When at={delivery.nextAttemptAt} seconds /></td>
      <td className="row-actions">
        <ChangeButton type="button" className="secondary" disabled={props.busy} onClick={() => props.redeliver(delivery)}>
          Redeliver<span className="visually-hidden"> the {delivery.eventType} event {delivery.eventId}</span>
        </ChangeButton>
      </td>
    </tr>
  )
}

/** Redelivering a delivery from a log: the outcome line and the action. */
const useRedeliver = (onDone: () => void) => {
  const action = useAction()
  const [outcome, setOutcome] = useState<WebhookDeliveryView | undefined>()
  const redeliver = async (delivery: WebhookDeliveryView) => {
    const again = await action.run(() => call((client) => client.webhooks.redeliver({ path: { deliveryId: delivery.id } })))
    if (again === undefined) return
    setOutcome(again)
    onDone()
  }
  const status = (
    <p role="status" className="outcome">
      {outcome === undefined ? (
        ""
      ) : (
        <>
          The {outcome.eventType} event was queued again: <Link href={`/webhooks/deliveries/${outcome.id}`}>the new delivery</Link>.
        </>
      )}
    </p>
  )
  return { action, redeliver, status }
}

const eventTypeFilter = (catalog: ReturnType<typeof useEventTypes>): FilterSpec =>
  catalog.load._tag === "loaded"
    ? { name: "eventType", label: "Event type", options: ["webhook.test", ...catalog.load.value.items].map((type) => [type, type] as const) }
    : { name: "eventType", label: "Event type" }

/** The delivery log of one endpoint, newest first, filtered by status and event type in the URL. */
const EndpointDeliveryLog = ({ endpointId, version }: { readonly endpointId: string; readonly version: number }) => {
  const query = useQuery()
  const catalog = useEventTypes()
  const key = JSON.stringify(query)
  const log = useLoad(`webhook deliveries ${endpointId} ${key} ${version}`, () =>
    call((client) =>
      client.webhooks.deliveries({
        urlParams: { endpointId, eventType: query["eventType"], status: choice(DELIVERY_STATUSES, query["status"]), cursor: query["cursor"] }
      })
    )
  )
  const redelivering = useRedeliver(log.reload)
  const problem = log.load._tag === "failed" ? log.load.problem : undefined
  return (
    <section aria-labelledby="deliveries-heading">
      <div className="section-header">
        <h2 id="deliveries-heading">Delivery log</h2>
        <button type="button" className="secondary" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <Filters
        key={key}
        problem={problem}
        specs={[{ name: "status", label: "Status", options: DELIVERY_STATUSES.map((status) => [status, status] as const) }, eventTypeFilter(catalog)]}
      />
      <ProblemNotice problem={problem ?? redelivering.action.problem} />
      {redelivering.status}
      {log.load._tag === "loading" ? <Loading /> : null}
      {log.load._tag === "loaded" ? (
        <>
          <Table caption="Delivery log" head={deliveryHead}>
            {log.load.value.items.length === 0 ? <Empty columns={deliveryHead.length} text="No delivery matches." /> : null}
            {log.load.value.items.map((delivery) => (
              <DeliveryRow key={delivery.id} delivery={delivery} busy={redelivering.action.busy} redeliver={redelivering.redeliver} />
            ))}
          </Table>
          <Pager nextCursor={log.load.value.nextCursor} />
        </>
      ) : null}
    </section>
  )
}

/** The endpoint's changes: test event, rotate, disable or enable, delete (each confirmed in the page but the test). */
const EndpointActions = (props: {
  readonly endpoint: WebhookEndpointView
  readonly reload: () => void
  readonly onSecret: (secret: RevealedWebhookSecret) => void
  readonly onTest: (delivery: WebhookDeliveryView) => void
}) => {
  const { endpoint } = props
  const action = useAction()
  const endpointId = endpoint.id
  const sendTest = async () => {
    const delivery = await action.run(() => call((client) => client.webhooks.sendTestEvent({ path: { endpointId } })))
    if (delivery !== undefined) props.onTest(delivery)
  }
  const rotate = async () => {
    const rotated = await action.run(() => call((client) => client.webhooks.rotateSecret({ path: { endpointId } })))
    if (rotated === undefined) return
    props.onSecret(rotated.secret)
    props.reload()
  }
  const toggle = async () => {
    const done = await action.run(() =>
      call((client) => (endpoint.status === "enabled" ? client.webhooks.disable({ path: { endpointId } }) : client.webhooks.enable({ path: { endpointId } })))
    )
    if (done !== undefined) props.reload()
  }
  const remove = async () => {
    // 204 has no value: `true` tells the deletion from a refusal.
    const deleted = await action.run(() => call((client) => Effect.as(client.webhooks.delete({ path: { endpointId } }), true)))
    if (deleted === true) navigate("/webhooks")
  }
  return (
    <>
      <ProblemNotice problem={action.problem} />
      <div className="record-actions actions">
        <ChangeButton type="button" onClick={sendTest} disabled={action.busy}>
          Send a test event
        </ChangeButton>
        <ConfirmButton
          label="Rotate secret"
          question="Rotate the signing secret? The new one is shown once; the current one keeps signing beside it for 24 hours."
          confirm="Rotate the secret"
          onConfirm={rotate}
          disabled={action.busy}
          tone="secondary"
        />
        {endpoint.status === "enabled" ? (
          <ConfirmButton
            label="Disable"
            question="Disable the endpoint? No new event is delivered to it until it is enabled; pending deliveries stop."
            confirm="Disable the endpoint"
            onConfirm={toggle}
            disabled={action.busy}
            tone="danger"
          />
        ) : (
          <ChangeButton type="button" onClick={toggle} disabled={action.busy}>
            Enable
          </ChangeButton>
        )}
        <ConfirmButton
          label="Delete"
          question={`Delete the endpoint ${endpointName(endpoint)} for good? Its pending deliveries stop and its secret can't be used again.`}
          confirm="Delete the endpoint"
          onConfirm={remove}
          disabled={action.busy}
          tone="danger"
        />
      </div>
    </>
  )
}

export const WebhookEndpointPage = ({ id }: { readonly id: string }) => {
  const organization = useOrganization()
  const contextName = contextNamer(organization)
  const [secret, setSecret] = useState<RevealedWebhookSecret | undefined>()
  const [test, setTest] = useState<WebhookDeliveryView | undefined>()
  const [version, setVersion] = useState(0)
  return (
    <RecordPage
      loadKey={`webhook endpoint ${id}`}
      fetch={() => call((client) => client.webhooks.get({ path: { endpointId: id } }))}
      fallback="Webhook endpoint"
      title={endpointName}
      back={["/webhooks", "All endpoints"]}
    >
      {(endpoint, reload) => (
        <>
          <FailingNotice endpoint={endpoint} />
          <EndpointActions
            endpoint={endpoint}
            reload={reload}
            onSecret={setSecret}
            onTest={(delivery) => {
              setTest(delivery)
              setVersion((n) => n + 1)
            }}
          />
          <p role="status" className="outcome">
            {test === undefined ? (
              ""
            ) : (
              <>
                A test event was queued: <Link href={`/webhooks/deliveries/${test.id}`}>its delivery</Link>.
              </>
            )}
          </p>
          {secret === undefined ? null : <WebhookSecretOnce secret={secret} />}
          <Facts
            items={[
              ["URL", <code>{endpoint.url}</code>],
              ["Status", <Status value={endpoint.status} />],
              [
                "Owner",
                endpoint.connectorAppId === null ? (
                  "the organization"
                ) : (
                  <Link href={`/connector-apps/${encodeURIComponent(endpoint.connectorAppId)}`}>connector app {endpoint.connectorAppId}</Link>
                )
              ],
              ["Event types", eventTypesText(endpoint.eventTypes)],
              [
                "Operational contexts",
                endpoint.connectorAppId !== null
                  ? "as each installation's grant allows"
                  : endpoint.contextIds.length === 0
                    ? "the whole organization"
                    : endpoint.contextIds.map(contextName).join(", ")
              ],
              ["Secret", <code>…{endpoint.secretLastFour}</code>],
              ["Previous secret signs until", <When at={endpoint.previousSecretExpiresAt} />],
              ["Created", <When at={endpoint.createdAt} />],
              ["Changed", <When at={endpoint.updatedAt} />]
            ]}
          />
          <EditEndpointForm key={endpoint.updatedAt.getTime()} endpoint={endpoint} onDone={reload} />
          <RedeliverSinceForm endpoint={endpoint} onDone={() => setVersion((n) => n + 1)} />
          <EndpointDeliveryLog endpointId={endpoint.id} version={version} />
          <p>
            <Link href={`/audit-log?targetId=${endpoint.id}`}>Changes to this endpoint in the audit log</Link>
          </p>
        </>
      )}
    </RecordPage>
  )
}

/** The organization's delivery log; `?eventId=` shows every endpoint's delivery of one event. */
export const WebhookDeliveriesPage = () => {
  const catalog = useEventTypes()
  const [version, setVersion] = useState(0)
  const redelivering = useRedeliver(() => setVersion((n) => n + 1))
  return (
    <ListPage
      title="Webhook deliveries"
      intro="Every delivery of an event to an endpoint, newest first. Filter by an event's id to see where one event went."
      actions={<Link href="/webhooks">All endpoints</Link>}
      filters={[
        { name: "eventId", label: "Event id" },
        eventTypeFilter(catalog),
        { name: "status", label: "Status", options: DELIVERY_STATUSES.map((status) => [status, status] as const) },
        { name: "endpointId", label: "Endpoint id" }
      ]}
      fetch={(query) =>
        call((client) =>
          client.webhooks.deliveries({
            urlParams: {
              eventId: query["eventId"],
              eventType: query["eventType"],
              status: choice(DELIVERY_STATUSES, query["status"]),
              endpointId: query["endpointId"],
              cursor: query["cursor"]
            }
          })
        )
      }
      head={deliveryHead}
      empty="No delivery matches."
      version={version}
      row={(delivery) => <DeliveryRow key={delivery.id} delivery={delivery} showEndpoint busy={redelivering.action.busy} redeliver={redelivering.redeliver} />}
    >
      <ProblemNotice problem={redelivering.action.problem} />
      {redelivering.status}
    </ListPage>
  )
}

export const WebhookDeliveryPage = ({ id }: { readonly id: string }) => {
  const action = useAction()
  const redeliver = async () => {
    const again = await action.run(() => call((client) => client.webhooks.redeliver({ path: { deliveryId: id } })))
    if (again !== undefined) navigate(`/webhooks/deliveries/${again.id}`)
  }
  return (
    <RecordPage
      loadKey={`webhook delivery ${id}`}
      fetch={() => call((client) => client.webhooks.delivery({ path: { deliveryId: id } }))}
      fallback="Webhook delivery"
      title={(detail) => `Delivery of ${detail.delivery.eventType}`}
      back={["/webhooks/deliveries", "All deliveries"]}
    >
      {({ delivery, attempts, payload }, reload) => (
        <>
          <ProblemNotice problem={action.problem} />
          <div className="record-actions actions">
            <ChangeButton type="button" onClick={redeliver} disabled={action.busy}>
              Redeliver
            </ChangeButton>
            <button type="button" className="secondary" onClick={reload}>
              Refresh
            </button>
          </div>
          <Facts
            items={[
              ["Status", <Status value={delivery.status} />],
              ["Event id (webhook-id)", <code>{delivery.eventId}</code>],
              ["Endpoint", <Link href={`/webhooks/${delivery.endpointId}`}>{delivery.endpointId}</Link>],
              ["Attempts", String(delivery.attemptCount)],
              ["Created", <When at={delivery.createdAt} seconds />],
              ["Delivered", <When at={delivery.deliveredAt} seconds />],
              ["Next attempt", <When at={delivery.nextAttemptAt} seconds />],
              ["Asked for by an operator", delivery.manual ? "yes" : "no"]
            ]}
          />
          <p>
            <Link href={hrefWith("/webhooks/deliveries", { eventId: delivery.eventId })}>Every delivery of this event</Link>
          </p>
          <section aria-labelledby="attempts-heading">
            <h2 id="attempts-heading">Attempts</h2>
            <Table caption="Attempts" head={["#", "Started", "Answer", "Latency", "Error", "Response (first 1 KB)"]}>
              {attempts.length === 0 ? <Empty columns={6} text="No attempt yet." /> : null}
              {attempts.map((attempt) => (
                <tr key={attempt.number}>
                  <td className="number">{attempt.number}</td>
                  <td className="nowrap"><When at={attempt.startedAt} seconds /></td>
                  <td>{attempt.statusCode === null ? "—" : `HTTP ${attempt.statusCode}`}</td>
                  <td className="number">{attempt.latencyMs} ms</td>
                  <td>{attempt.error ?? "—"}</td>
                  <td>{attempt.responseBody === "" ? <span className="muted">empty</span> : <pre className="details">{attempt.responseBody}</pre>}</td>
                </tr>
              ))}
            </Table>
          </section>
          <section aria-labelledby="payload-heading">
            <h2 id="payload-heading">Payload</h2>
            <pre className="details payload" tabIndex={0} aria-labelledby="payload-heading">
              {JSON.stringify(payload, null, 2)}
            </pre>
          </section>
        </>
      )}
    </RecordPage>
  )
}

/**
 * A connector app's one webhook on the app's page: for the publisher, the webhook (with a link to its page: log,
 * rotation) or a form declaring it (URL and event types; the installations' grants decide the contexts), its secret
 * shown once. Other organizations read that the publisher declares it.
 */
export const AppWebhookSection = ({ appId, publishedByYou }: { readonly appId: string; readonly publishedByYou: boolean }) => {
  const found = useLoad(`app webhook ${appId}`, () =>
    call((client) => client.webhooks.list({ urlParams: { owner: "connector-app", limit: 100 } }))
  )
  const [form, setForm] = useState<EndpointForm>(() => formOf(undefined))
  const [created, setCreated] = useState<RevealedWebhookSecret | undefined>()
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const { url, description, eventTypes } = payloadOf(form, [])
    const answer = await action.run(() => call((client) => client.webhooks.create({ payload: { url, description, eventTypes, contextIds: [], connectorAppId: appId } })))
    if (answer === undefined) return
    setCreated(answer.secret)
    found.reload()
  }
  const webhook = found.load._tag === "loaded" ? found.load.value.items.find((endpoint) => endpoint.connectorAppId === appId) : undefined
  return (
    <section aria-labelledby="app-webhook-heading">
      <h2 id="app-webhook-heading">Webhook</h2>
      <p className="hint">
        The app's one webhook receives the events of every installation of the app, as far as the installation's roles and contexts let it read them.
      </p>
      {!publishedByYou ? (
        <p>The organization that published the app declares its webhook.</p>
      ) : found.load._tag === "loading" ? (
        <Loading />
      ) : found.load._tag === "failed" ? (
        <ProblemNotice problem={found.load.problem} />
      ) : (
        <>
          {created === undefined ? null : <WebhookSecretOnce secret={created} />}
          {webhook === undefined ? (
            <ChangeForm className="form" onSubmit={submit} noValidate>
              <ProblemNotice problem={action.problem} />
              <EndpointFields form={form} setForm={setForm} problem={action.problem} contexts={undefined} />
              <button type="submit" disabled={action.busy}>
                Declare the webhook
              </button>
            </ChangeForm>
          ) : (
            <>
              <FailingNotice endpoint={webhook} />
              <Facts
                items={[
                  ["URL", <code>{webhook.url}</code>],
                  ["Status", <Status value={webhook.status} />],
                  ["Event types", eventTypesText(webhook.eventTypes)],
                  ["Secret", <code>…{webhook.secretLastFour}</code>]
                ]}
              />
              <p>
                <Link href={`/webhooks/${webhook.id}`}>The webhook's page: delivery log, test event, secret rotation</Link>
              </p>
            </>
          )}
        </>
      )}
    </section>
  )
}
