/** The audit log: who did what, when, with which request id; filtered in the URL, newest first. */
import { call } from "../api.js"
import { When } from "../ui/Time.js"
import { ListPage } from "../ui.js"
import { Link } from "../router.js"

/** The console page of each target type that has one (issue 25: targets were bare UUIDs). */
const targetPages: Readonly<Record<string, string>> = {
  add_on_product: "/booking/add-on-products/",
  application: "/applications/",
  bookable_resource: "/booking/resources/",
  booking_request: "/booking/requests/",
  connector_app: "/connector-apps/",
  contract: "/contracts/",
  customer: "/customers/",
  integration_configuration: "/integration-configurations/",
  invoice: "/billing/invoices/",
  invoice_proposal: "/billing/proposals/",
  invoice_run: "/billing/invoice-runs/",
  signing_attempt: "/signing-attempts/",
  webhook_delivery: "/webhooks/deliveries/",
  webhook_endpoint: "/webhooks/"
}

/** `invoice_run` → "invoice run". */
const targetLabel = (type: string) => type.replaceAll("_", " ")

/** The target's page, or undefined when it has none (an operator, a session, an e-mail address typed at sign-in). */
export const targetHref = (type: string, id: string): string | undefined => {
  const base = targetPages[type]
  return base === undefined ? undefined : `${base}${encodeURIComponent(id)}`
}

const actorTypes = ["application", "installation", "operator", "system", "client"] as const
const actorType = (value: string | undefined) => actorTypes.find((type) => type === value)
/** A `client` is someone not signed in, named by its network address: failed and throttled sign-ins. */
const actorTypeLabel = (type: (typeof actorTypes)[number]) => (type === "client" ? "client (not signed in)" : type)

export const AuditLogPage = () => (
  <ListPage
    title="Audit log"
    filters={[
      { name: "action", label: "Action starts with", placeholder: "application." },
      { name: "actorType", label: "Actor", options: actorTypes.map((type) => [type, actorTypeLabel(type)] as const) },
      { name: "targetType", label: "Target type" },
      { name: "targetId", label: "Target id" },
      { name: "requestId", label: "Request id" },
      { name: "from", label: "From (date)", type: "date" },
      { name: "to", label: "To (date)", type: "date" }
    ]}
    fetch={(query) =>
      call((client) =>
        client.auditLog.list({
          urlParams: {
            action: query["action"],
            actorType: actorType(query["actorType"]),
            targetType: query["targetType"],
            targetId: query["targetId"],
            requestId: query["requestId"],
            from: query["from"],
            to: query["to"],
            cursor: query["cursor"]
          }
        })
      )
    }
    head={["When", "Who", "Action", "Target", "Request id", "Details"]}
    narrow={[2, 5, 6]}
    empty="No entry matches."
    row={(entry) => (
      <tr key={entry.id}>
        <td className="nowrap"><When at={entry.occurredAt} /></td>
        <td>
          {actorTypeLabel(entry.actorType)}
          <br />
          <span className="muted id">{entry.actorLabel ?? entry.actorId}</span>
        </td>
        <td>
          <code className="id">{entry.action}</code>
        </td>
        <td>
          {targetHref(entry.targetType, entry.targetId) === undefined ? (
            targetLabel(entry.targetType)
          ) : (
            <Link href={targetHref(entry.targetType, entry.targetId)!}>
              {targetLabel(entry.targetType)}
              <span className="visually-hidden"> {entry.targetId}</span>
            </Link>
          )}
          <br />
          <code className="muted id">{entry.targetId}</code>
        </td>
        <td>{entry.requestId === null ? "—" : <code className="id">{entry.requestId}</code>}</td>
        <td>
          {Object.keys(entry.details).length === 0 ? (
            "—"
          ) : (
            <details>
              <summary>
                {Object.keys(entry.details).length} {Object.keys(entry.details).length === 1 ? "field" : "fields"}
              </summary>
              <code className="details">{JSON.stringify(entry.details, null, 1)}</code>
            </details>
          )}
        </td>
      </tr>
    )}
  />
)
