/**
 * Booking: resources (opening hours, rules, price rules, add-ons), add-on products, and booking requests — the
 * ones waiting for approval first, then a week calendar per resource. Approve, decline and cancel (`BookingCancel.tsx`)
 * are the booking service's.
 * Setting resources and products up is in `BookingSetup.tsx`.
 */
import type { BookingRequestView } from "@propline/contract/BookingAdmin"
import { call } from "../api.js"
import { currentLocale, percent } from "../format.js"
import { Money } from "../ui/Money.js"
import { When } from "../ui/Time.js"
import { hrefWith, Link, useLocation } from "../router.js"
import { useLoad } from "../session.js"
import { CancelBooking } from "./BookingCancel.js"
import { ResourceOffer } from "./BookingSetup.js"
import { Empty, Facts, ListPage, Loading, PageHeader, ProblemNotice, RecordPage, Status, Table, useQuery } from "../ui.js"
import { Change, ChangeButton } from "../ui/Change.js"
import { DecisionNotice, useBookingDecision } from "./BookingRequestDetail.js"

const WEEKDAY_NAMES = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

const pick = <const A extends string>(values: ReadonlyArray<A>, value: string | undefined): A | undefined =>
  values.find((candidate) => candidate === value)

export const ResourcesPage = () => (
  <ListPage
    title="Resources"
    actions={
      <Change hide>
        <Link className="button" href="/booking/resources/new">
          New resource
        </Link>
      </Change>
    }
    filters={[
      { name: "q", label: "Name" },
      { name: "kind", label: "Kind", options: [["room", "Room"], ["desk", "Desk"], ["parking", "Parking"]] },
      { name: "status", label: "Status", options: [["active", "Active"], ["retired", "Retired"]] }
    ]}
    fetch={(query) =>
      call((client) =>
        client.booking.listResources({
          urlParams: {
            q: query["q"],
            kind: pick(["room", "desk", "parking"] as const, query["kind"]),
            status: pick(["active", "retired"] as const, query["status"]),
            cursor: query["cursor"]
          }
        })
      )
    }
    head={["Name", "Kind", "Context", "Seats", "Time zone", "Pending requests", "Status"]}
    empty="No resource matches."
    row={(resource) => (
      <tr key={resource.id}>
        <td>
          <Link href={`/booking/resources/${resource.id}`}>{resource.name}</Link>
        </td>
        <td>{resource.kind}</td>
        <td>{resource.operationalContextName}</td>
        <td>{resource.capacity}</td>
        <td>{resource.timeZone}</td>
        <td>
          <Link href={hrefWith("/booking/requests", { resourceId: resource.id })}>{resource.pendingRequests}</Link>
        </td>
        <td>
          <Status value={resource.status} />
        </td>
      </tr>
    )}
  />
)

export const ResourcePage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`resource ${id}`}
    fetch={() => call((client) => client.booking.getResource({ path: { resourceId: id } }))}
    fallback="Resource"
    title={(found) => found.resource.name}
    back={["/booking/resources", "All resources"]}
  >
    {(found, reload) => (
      <>
        <div className="record-actions actions">
          <Change hide>
            <Link className="button" href={`/booking/resources/${found.resource.id}/setup`}>
              Edit the setup
            </Link>
          </Change>
        </div>
        <Facts
          items={[
            ["Kind", found.resource.kind],
            ["Context", found.resource.operationalContextName],
            ["Seats", found.resource.capacity],
            ["Time zone", found.resource.timeZone],
            ["Duration", `${found.rules.minDurationMinutes}–${found.rules.maxDurationMinutes} min, steps of ${found.rules.durationIncrementMinutes}`],
            ["Starts every", `${found.rules.startIncrementMinutes} min`],
            ["Notice", `${found.rules.minimumNoticeMinutes} min`],
            ["Horizon", `${found.rules.horizonDays} days`],
            ["Buffers", `${found.rules.bufferBeforeMinutes} min before, ${found.rules.bufferAfterMinutes} min after`],
            ["A request holds its slot", `${found.rules.holdMinutes} min`],
            ["Requests", <Link href={hrefWith("/booking/requests", { resourceId: found.resource.id })}>Calendar</Link>]
          ]}
        />
        <h2>Opening hours</h2>
        <Table caption="Opening hours" head={["Day", "Opens", "Closes"]}>
          {found.weekly.length === 0 ? <Empty columns={3} text="Never open." /> : null}
          {found.weekly.map((opening) => (
            <tr key={`${opening.weekday} ${opening.opens}`}>
              <td>{WEEKDAY_NAMES[opening.weekday]}</td>
              <td>{opening.opens}</td>
              <td>{opening.closes}</td>
            </tr>
          ))}
        </Table>
        {found.closures.length === 0 ? null : (
          <p>Closed {found.closures.map((closure) => `${closure.fromDate} – ${closure.toDate}`).join(", ")}.</p>
        )}
        <h2>Price rules</h2>
        <Table caption="Price rules" head={["Name", "Unit", "Net", "VAT", "Days", "Hours"]}>
          {found.priceRules.length === 0 ? <Empty columns={6} text="No price rule." /> : null}
          {found.priceRules.map((rule) => (
            <tr key={rule.name}>
              <td>{rule.name}</td>
              <td>{rule.unit}</td>
              <td className="number"><Money minorUnits={rule.amountMinorUnits} currency={found.resource.currency} /></td>
              <td>{percent(rule.vatRateBasisPoints)}</td>
              <td>{rule.weekdays.map((weekday) => WEEKDAY_NAMES[weekday]?.slice(0, 3)).join(", ")}</td>
              <td>{rule.windowFrom === null ? "all day" : `${rule.windowFrom}–${rule.windowTo}`}</td>
            </tr>
          ))}
        </Table>
        <h2>Add-ons</h2>
        <Table caption="Add-ons offered" head={["Name", "Category", "Unit price", "VAT", "Lead time"]}>
          {found.addOnProducts.length === 0 ? <Empty columns={5} text="No add-on offered." /> : null}
          {found.addOnProducts.map((product) => (
            <tr key={product.id}>
              <td>{product.name}</td>
              <td>{product.category}</td>
              <td className="number"><Money minorUnits={product.unitPriceMinorUnits} currency={product.currency} /></td>
              <td>{percent(product.vatRateBasisPoints)}</td>
              <td>{product.leadTimeMinutes} min</td>
            </tr>
          ))}
        </Table>
        <ResourceOffer key={`${found.addOnProducts.map((p) => p.id).join()} ${found.sellers.map((s) => s.id).join()}`} detail={found} onDone={reload} />
        <p>
          <Link href={`/audit-log?targetId=${found.resource.id}`}>Changes to this resource in the audit log</Link>
        </p>
      </>
    )}
  </RecordPage>
)

export const AddOnProductsPage = () => (
  <ListPage
    title="Add-on products"
    actions={
      <Change hide>
        <Link className="button" href="/booking/add-on-products/new">
          New add-on product
        </Link>
      </Change>
    }
    filters={[{ name: "q", label: "Name" }]}
    fetch={(query) => call((client) => client.booking.listAddOnProducts({ urlParams: { q: query["q"], cursor: query["cursor"] } }))}
    head={["Name", "Category", "Unit price", "VAT", "Lead time", "Sold"]}
    empty="No add-on product matches."
    row={(product) => (
      <tr key={product.id}>
        <td>
          <Link href={`/booking/add-on-products/${product.id}`}>{product.name}</Link>
        </td>
        <td>{product.category}</td>
        <td className="number"><Money minorUnits={product.unitPriceMinorUnits} currency={product.currency} /></td>
        <td>{percent(product.vatRateBasisPoints)}</td>
        <td>{product.leadTimeMinutes} min</td>
        <td>{product.retiredAt === null ? "yes" : `retired $<When at={product.retiredAt} />`}</td>
      </tr>
    )}
  />
)

/** `YYYY-MM-DD` of an instant in a time zone. */
const localDay = (at: Date, timeZone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at)

const localTime = (at: Date, timeZone: string) =>
  new Intl.DateTimeFormat(currentLocale(), { timeZone, hour: "2-digit", minute: "2-digit" }).format(at)

/** The Monday (UTC date) of the week holding `date` (`YYYY-MM-DD`). */
const mondayOf = (date: string) => {
  const day = new Date(`${date}T00:00:00.000Z`)
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7))
  return day
}

const plusDays = (day: Date, days: number) => new Date(day.getTime() + days * 24 * 60 * 60 * 1000)
const isoDay = (day: Date) => day.toISOString().slice(0, 10)

/** One request with its decision buttons. */
const RequestCard = ({
  request,
  decide,
  reload
}: {
  readonly request: BookingRequestView
  readonly decide: (request: BookingRequestView, verdict: "approve" | "decline") => void
  readonly reload: () => void
}) => (
  <article className="booking" aria-label={`${request.resourceName}, ${request.guestName}`}>
    <p>
      <strong>
        {localTime(request.startsAt, request.timeZone)}–{localTime(request.endsAt, request.timeZone)}
      </strong>{" "}
      {request.resourceName}
    </p>
    <p>
      <Link href={`/booking/requests/${request.id}`}>{request.guestName}</Link>
      {request.companyName === null ? "" : `, ${request.companyName}`} · <Money minorUnits={request.totalGrossMinorUnits} currency={request.currency} />
    </p>
    <p>
      <Status value={request.status} />
      {request.status === "pending" ? <span className="muted"> held until <When at={request.holdExpiresAt} /></span> : null}
    </p>
    {request.declineReason === null ? null : <p className="muted">{request.declineReason}</p>}
    {request.status === "pending" ? (
      <p className="row-actions">
        <ChangeButton type="button" onClick={() => decide(request, "approve")}>
          Approve<span className="visually-hidden"> {request.guestName}'s booking of {request.resourceName}</span>
        </ChangeButton>
        <ChangeButton type="button" className="danger" onClick={() => decide(request, "decline")}>
          Decline<span className="visually-hidden"> {request.guestName}'s booking of {request.resourceName}</span>
        </ChangeButton>
      </p>
    ) : null}
    <CancelBooking request={request} onCancelled={reload} />
  </article>
)

export const BookingRequestsPage = () => {
  const query = useQuery()
  const { pathname } = useLocation()
  const resourceId = query["resourceId"]
  const monday = mondayOf(query["week"] ?? isoDay(new Date()))
  const key = `${resourceId ?? ""} ${isoDay(monday)}`
  // The requests waiting for approval, 20 at a time: their page's cursor is `pendingCursor` in the URL.
  const pendingCursor = query["pendingCursor"]
  const pending = useLoad(`pending ${key} ${pendingCursor ?? ""}`, () =>
    call((client) => client.booking.listRequests({ urlParams: { status: "pending", resourceId, limit: 20, cursor: pendingCursor } }))
  )
  const week = useLoad(`week ${key}`, () =>
    call((client) =>
      client.booking.listRequests({ urlParams: { resourceId, from: isoDay(monday), to: isoDay(plusDays(monday, 6)), limit: 100 } })
    )
  )
  const reload = () => {
    pending.reload()
    week.reload()
  }
  const decision = useBookingDecision(reload)
  const decide = (request: BookingRequestView, verdict: "approve" | "decline") => void decision.decide(request, verdict)
  const days = [0, 1, 2, 3, 4, 5, 6].map((offset) => plusDays(monday, offset))
  const weekLink = (offset: number) => hrefWith(pathname, { ...query, week: isoDay(plusDays(monday, offset * 7)) })
  return (
    <>
      <PageHeader title="Booking requests">
        <Link href="/booking/resources">Resources</Link>
      </PageHeader>
      <ProblemNotice problem={decision.problem} />
      <DecisionNotice request={decision.decided} />
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Waiting for approval</h2>
        {pending.load._tag === "loading" ? <Loading /> : null}
        {pending.load._tag === "failed" ? <ProblemNotice problem={pending.load.problem} /> : null}
        {pending.load._tag === "loaded" ? (
          pending.load.value.items.length === 0 ? (
            <p>No request waits for approval.</p>
          ) : (
            <div className="booking-list">
              {pending.load.value.items.map((request) => (
                <div key={request.id}>
                  <p className="muted">{localDay(request.startsAt, request.timeZone)}</p>
                  <RequestCard request={request} decide={decide} reload={reload} />
                </div>
              ))}
            </div>
          )
        ) : null}
        {pending.load._tag === "loaded" && (pendingCursor !== undefined || pending.load.value.nextCursor !== null) ? (
          <nav className="pager" aria-label="Pages of requests waiting for approval">
            {pendingCursor === undefined ? <span /> : <Link href={hrefWith(pathname, { ...query, pendingCursor: undefined })}>First page</Link>}
            {pending.load.value.nextCursor === null ? null : (
              <Link href={hrefWith(pathname, { ...query, pendingCursor: pending.load.value.nextCursor })} rel="next">
                Next page
              </Link>
            )}
          </nav>
        ) : null}
      </section>
      <section aria-labelledby="week-heading">
        <div className="section-header">
          <h2 id="week-heading">
            Week of {isoDay(monday)}
            {resourceId === undefined ? "" : " for one resource"}
          </h2>
          <nav className="pager" aria-label="Weeks">
            <Link href={weekLink(-1)}>Previous week</Link> <Link href={weekLink(1)}>Next week</Link>
          </nav>
        </div>
        {week.load._tag === "loading" ? <Loading /> : null}
        {week.load._tag === "failed" ? <ProblemNotice problem={week.load.problem} /> : null}
        {week.load._tag === "loaded" ? (
          <ol className="calendar">
            {days.map((day) => {
              const items = (week.load._tag === "loaded" ? week.load.value.items : []).filter(
                (request) => localDay(request.startsAt, request.timeZone) === isoDay(day)
              )
              return (
                <li key={isoDay(day)}>
                  <h3>
                    {WEEKDAY_NAMES[((day.getUTCDay() + 6) % 7) + 1]} <span className="muted">{isoDay(day)}</span>
                  </h3>
                  {items.length === 0 ? <p className="muted">—</p> : items.map((request) => <RequestCard key={request.id} request={request} decide={decide} reload={reload} />)}
                </li>
              )
            })}
          </ol>
        ) : null}
      </section>
    </>
  )
}
