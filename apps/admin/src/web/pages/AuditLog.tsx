/** The audit log: who did what, when, with which request id; filtered in the URL, newest first. */
import { call } from "../api.js"
import { dateTime } from "../format.js"
import { ListPage } from "../ui.js"

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
    empty="No entry matches."
    row={(entry) => (
      <tr key={entry.id}>
        <td className="nowrap">{dateTime(entry.occurredAt)}</td>
        <td>
          {actorTypeLabel(entry.actorType)}
          <br />
          <span className="muted">{entry.actorLabel ?? entry.actorId}</span>
        </td>
        <td>
          <code>{entry.action}</code>
        </td>
        <td>
          {entry.targetType}
          <br />
          <code className="muted">{entry.targetId}</code>
        </td>
        <td>{entry.requestId === null ? "—" : <code>{entry.requestId}</code>}</td>
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
