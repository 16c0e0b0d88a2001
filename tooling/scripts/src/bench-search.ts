/**
 * `pnpm bench:search`: the CPU the search across resources (`GET /v1/booking/availability`, issue 26 item 4)
 * spends per resource and day of its window, measured on the pure functions a page runs for each resource —
 * `resourceAvailability` (free periods and start times) and, with `prices=true`, `pricedStarts` (the preview's
 * check on every start) — the code that runs on the event loop; the three statements a page reads are not in it.
 * Throughput under load would say nothing on a shared machine; CPU time per unit of work does.
 *
 * Resources (no I/O): the demo's kinds of rule — a meeting room open Monday to Friday 08–18 on a 15-minute grid with
 * hourly, half-day and day rules; a parking space open around the clock on a 30-minute grid; and the worst case, a
 * room open around the clock on a 1-minute grid — each with a booking every other day. For each, windows of 1, 7 and
 * 31 days, one-hour bookings, without and with prices: `BENCH_ITERATIONS` runs (default 200, after 20 dropped as
 * warm-up), `process.cpuUsage()` (user + system) around them: per resource-day, for the largest page the window
 * allows (`searchPageSize` at limit 100), and per priced start (priced run less plain run, over the starts). Prints
 * a Markdown table; writes nothing.
 */
import { type AvailabilityState, pricedStarts, resourceAvailability, searchPageSize, type TimeRange } from "@propline/booking/Availability"
import type { BookingState } from "@propline/booking/BookingCheck"
import { MAX_PRICED_STARTS } from "@propline/booking/BookingRefusal"
import type { BookableResource, IsoWeekday, PriceRule } from "@propline/booking/Resource"
import { Either } from "effect"

const DAY = 86_400_000
const WEEKDAYS: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5]
const EVERY_DAY: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5, 6, 7]
const ITERATIONS = Number(process.env["BENCH_ITERATIONS"] ?? 200)
const WARM_UP = 20
/** The largest `limit` a search page takes (the contract's `MAX_LIMIT`). */
const MAX_LIMIT = 100

/** A price rule of 25 % VAT on `weekdays`, inside `window` when given. */
const rule = (id: string, unit: PriceRule["unit"], amountMinorUnits: number, weekdays: ReadonlyArray<IsoWeekday>, window?: PriceRule["window"]): PriceRule => ({
  id,
  name: id,
  unit,
  amountMinorUnits,
  vatRateBasisPoints: 2500,
  weekdays,
  ...(window === undefined ? {} : { window })
})

// The rules of the demo's meeting rooms; ids and names are no input of the functions measured.
const room: BookableResource = {
  ...{ id: "00000000-0000-4000-8000-000000000001", organizationId: "00000000-0000-4000-8000-000000000002" },
  ...{ operationalContextId: "00000000-0000-4000-8000-000000000003", kind: "room", name: "Boardroom", capacity: 10 },
  ...{ timeZone: "Europe/Stockholm", currency: "SEK", holdMinutes: 1440, horizonDays: 90, minimumNoticeMinutes: 60 },
  openingHours: { weekly: WEEKDAYS.map((weekday) => ({ weekday, opens: "08:00", closes: "18:00" })), closures: [] },
  ...{ minDurationMinutes: 30, maxDurationMinutes: 480, durationIncrementMinutes: 15, startIncrementMinutes: 15 },
  ...{ bufferBeforeMinutes: 0, bufferAfterMinutes: 15 },
  priceRules: [
    rule("Hourly, daytime", "hour", 50_000, WEEKDAYS, { from: "08:00", to: "17:00" }),
    rule("Hourly, evening", "hour", 40_000, WEEKDAYS, { from: "17:00", to: "18:00" }),
    rule("Half day", "half-day", 150_000, WEEKDAYS, { from: "08:00", to: "12:00" }),
    rule("Full day", "day", 300_000, WEEKDAYS, { from: "08:00", to: "18:00" })
  ]
}
const aroundTheClock = { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" })), closures: [] }
const parking: BookableResource = {
  ...room,
  kind: "parking",
  ...{ name: "P-plass 7", timeZone: "Europe/Oslo", capacity: 1, currency: "NOK", openingHours: aroundTheClock },
  ...{ minDurationMinutes: 60, maxDurationMinutes: 10_080, durationIncrementMinutes: 30, startIncrementMinutes: 30 },
  ...{ minimumNoticeMinutes: 120, bufferAfterMinutes: 0 },
  priceRules: [rule("Per hour", "hour", 4_000, EVERY_DAY)]
}
const everyMinute: BookableResource = {
  ...room,
  name: "Open room, 1-minute grid",
  openingHours: aroundTheClock,
  durationIncrementMinutes: 1,
  startIncrementMinutes: 1,
  bufferAfterMinutes: 0,
  priceRules: [rule("Per hour", "hour", 50_000, EVERY_DAY)]
}

const now = new Date(Math.floor(Date.now() / DAY) * DAY)
/** A two-hour booking at 10:00 UTC every other day of the coming 40 days. */
const bookings = Array.from({ length: 20 }, (_, index) => {
  const start = new Date(now.getTime() + (2 * index + 1) * DAY + 10 * 3_600_000)
  return { start, end: new Date(start.getTime() + 2 * 3_600_000) }
})

/** CPU microseconds (user + system) per run of `work`, over ITERATIONS runs after the warm-up. */
const cpuPerRun = (work: () => number): { readonly micros: number; readonly starts: number } => {
  let starts = 0
  for (let index = 0; index < WARM_UP; index++) starts = work()
  const before = process.cpuUsage()
  for (let index = 0; index < ITERATIONS; index++) starts = work()
  const used = process.cpuUsage(before)
  return { micros: (used.user + used.system) / ITERATIONS, starts }
}

const rows: Array<string> = []
let worstPerPricedStart = 0
for (const resource of [room, parking, everyMinute]) {
  const state: AvailabilityState & BookingState = { resource, otherBookings: bookings, offeredAddOns: [] }
  for (const days of [1, 7, 31]) {
    // From tomorrow, so no start is cut by the notice.
    const window: TimeRange = { from: new Date(now.getTime() + DAY), to: new Date(now.getTime() + (1 + days) * DAY) }
    const plain = cpuPerRun(() => resourceAvailability(state, window, 60, now).startTimes?.length ?? 0)
    const priced = cpuPerRun(() => {
      const base = resourceAvailability(state, window, 60, now)
      const prices = pricedStarts(state, base.startTimes ?? [], 60, [], now)
      // More than 5000 starts is refused (400) before any is priced, as the API does.
      return Either.isRight(prices) ? prices.right.length : -1
    })
    const pageSize = searchPageSize(window, MAX_LIMIT)
    const perPricedStart = priced.starts > 0 ? (priced.micros - plain.micros) / priced.starts : undefined
    if (perPricedStart !== undefined) worstPerPricedStart = Math.max(worstPerPricedStart, perPricedStart)
    rows.push(
      `| ${resource.name} (${resource.startIncrementMinutes}-min grid) | ${days} | ${plain.starts} | ${(plain.micros / days).toFixed(1)} | ` +
        `${pageSize} | ${((plain.micros * pageSize) / 1000).toFixed(1)} | ` +
        `${perPricedStart === undefined ? "refused (over 5000 starts)" : perPricedStart.toFixed(1)} |`
    )
  }
}

console.log(`Node ${process.version}; ${ITERATIONS} runs each after ${WARM_UP} warm-up runs; one-hour bookings; CPU = user + system.\n`)
console.log(
  "| Resource | Window (days) | Start times | µs CPU per resource-day | Resources on the largest page | ms CPU for that page | µs CPU per priced start |"
)
console.log("|---|---|---|---|---|---|---|")
for (const row of rows) console.log(row)
console.log(
  `\nWith prices=true a page also stops at ${MAX_PRICED_STARTS} priced starts: at most ${((worstPerPricedStart * MAX_PRICED_STARTS) / 1000).toFixed(0)} ms ` +
    "of pricing for the dearest start measured here, on top of the free time."
)
