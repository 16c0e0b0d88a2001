/** The audit log: who did what, when, with which request id; filtered in the URL, newest first. */
import { call } from "../api.js"
import { dateTime } from "../format.js"
import { useLoad } from "../session.js"
import { Empty, Filters, Loading, PageHeader, Pager, ProblemNotice, Table, useQuery } from "../ui.js"

const actorTypes = ["application", "installation", "operator", "system"] as const
const actorType = (value: string | undefined) => actorTypes.find((type) => type === value)

export const AuditLogPage = () => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load } = useLoad(`audit ${key}`, () =>
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
  )
  return (
    <>
      <PageHeader title="Audit log" />
      <Filters
        key={key}
        problem={load._tag === "failed" ? load.problem : undefined}
        specs={[
          { name: "action", label: "Action starts with", placeholder: "application." },
          { name: "actorType", label: "Actor", options: actorTypes.map((type) => [type, type] as const) },
          { name: "targetType", label: "Target type" },
          { name: "targetId", label: "Target id" },
          { name: "requestId", label: "Request id" },
          { name: "from", label: "From (date)", type: "date" },
          { name: "to", label: "To (date)", type: "date" }
        ]}
      />
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption="Audit log" head={["When", "Who", "Action", "Target", "Request id", "Details"]}>
            {load.value.items.length === 0 ? <Empty columns={6} text="No entry matches." /> : null}
            {load.value.items.map((entry) => (
              <tr key={entry.id}>
                <td>{dateTime(entry.occurredAt)}</td>
                <td>
                  {entry.actorType}
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
                  {Object.keys(entry.details).length === 0 ? "—" : <code className="details">{JSON.stringify(entry.details)}</code>}
                </td>
              </tr>
            ))}
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}
