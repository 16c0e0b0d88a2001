/**
 * The booking week calendar (issue 25, item 6): each active resource's approved bookings and the pending requests
 * that hold their slot, as floating bars over the 7 days (Chart.js), with the week in the URL (`?from=YYYY-MM-DD`),
 * the previous and next week a link away, and every item in a table (times in the resource's time zone).
 */
import type { BookingCalendar } from "@propline/contract/PicturesAdmin"
import type { ChartConfiguration } from "chart.js"
import { useMemo } from "react"
import { call } from "../api.js"
import { ChartCanvas, SERIES_COLOURS } from "../charts.js"
import { hrefWith, Link } from "../router.js"
import { useLoad } from "../session.js"
import { Loading, PageHeader, ProblemNotice, Table, useQuery } from "../ui.js"

const DAY_MS = 24 * 60 * 60 * 1000
const HOUR_MS = 60 * 60 * 1000

const shift = (from: string, days: number) => new Date(new Date(`${from}T00:00:00Z`).getTime() + days * DAY_MS).toISOString().slice(0, 10)

const dayLabel = (from: string, day: number) =>
  new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" }).format(new Date(`${shift(from, day)}T00:00:00Z`))

const localTime = (at: Date, timeZone: string) =>
  new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZone }).format(at)

const WeekChart = ({ calendar }: { readonly calendar: BookingCalendar }) => {
  const config = useMemo<ChartConfiguration<"bar", Array<{ x: [number, number]; y: string }>>>(() => {
    const start = new Date(`${calendar.from}T00:00:00Z`).getTime()
    const hours = (at: Date) => Math.min(168, Math.max(0, (at.getTime() - start) / HOUR_MS))
    const points = (status: "approved" | "pending") =>
      calendar.resources.flatMap((resource) =>
        resource.items.filter((item) => item.status === status).map((item) => ({ x: [hours(item.startsAt), hours(item.endsAt)] as [number, number], y: resource.name }))
      )
    return {
      type: "bar",
      data: {
        labels: calendar.resources.map((resource) => resource.name),
        datasets: [
          { label: "Booked", data: points("approved"), backgroundColor: SERIES_COLOURS.invoiced, grouped: false, barPercentage: 0.7 },
          { label: "Held (pending approval)", data: points("pending"), backgroundColor: SERIES_COLOURS.hold, grouped: false, barPercentage: 0.45 }
        ]
      },
      options: {
        indexAxis: "y",
        scales: {
          x: { min: 0, max: 168, ticks: { stepSize: 24, callback: (value) => (Number(value) < 168 ? dayLabel(calendar.from, Number(value) / 24) : "") } },
          y: { ticks: { autoSkip: false } }
        },
        plugins: { legend: { position: "bottom" }, tooltip: { enabled: true } }
      }
    }
  }, [calendar])
  return (
    <figure className="chart">
      <ChartCanvas
        config={config}
        height={Math.max(160, 48 * calendar.resources.length + 90)}
        label={`Bookings and holds per resource for the week from ${calendar.from}; every item is listed in the table below.`}
      />
      <figcaption>Week from {calendar.from} (UTC days)</figcaption>
    </figure>
  )
}

export const BookingCalendarPage = () => {
  const query = useQuery()
  const from = query["from"] ?? ""
  const { load } = useLoad(`calendar ${from}`, () => call((client) => client.bookingCalendar.bookingCalendar({ urlParams: from === "" ? {} : { from } })))
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const calendar = load.value
  const items = calendar.resources.flatMap((resource) => resource.items.map((item) => ({ resource, item })))
  return (
    <>
      <PageHeader title="Booking calendar" />
      <nav aria-label="Weeks" className="actions">
        <Link href={hrefWith("/booking/calendar", { from: shift(calendar.from, -7) })}>Previous week</Link>
        <Link href={hrefWith("/booking/calendar", { from: shift(calendar.from, 7) })}>Next week</Link>
      </nav>
      {calendar.resources.length === 0 ? <p>No active resources.</p> : <WeekChart calendar={calendar} />}
      <Table caption={`Bookings and holds in the week from ${calendar.from}`} head={["Resource", "From", "To", "Status", "Guest"]}>
        {items.length === 0 ? (
          <tr>
            <td colSpan={5}>Nothing booked or held this week.</td>
          </tr>
        ) : (
          items.map(({ resource, item }) => (
            <tr key={item.id}>
              <td>{resource.name}</td>
              <td>{localTime(item.startsAt, resource.timeZone)}</td>
              <td>{localTime(item.endsAt, resource.timeZone)}</td>
              <td>{item.status === "approved" ? "booked" : `held until ${localTime(item.holdExpiresAt, resource.timeZone)}`}</td>
              <td>{item.guestName}</td>
            </tr>
          ))
        )}
      </Table>
      <Table caption="Booked hours per day" head={["Resource", ...Array.from({ length: 7 }, (_, day) => dayLabel(calendar.from, day))]}>
        {calendar.resources.map((resource) => (
          <tr key={resource.id}>
            <td>{resource.name}</td>
            {resource.bookedMinutesPerDay.map((minutes, day) => (
              <td key={day} className="number">
                {minutes === 0 ? "—" : `${Math.round(minutes / 6) / 10} h`}
              </td>
            ))}
          </tr>
        ))}
      </Table>
    </>
  )
}
