import { describe, expect, it } from "@effect/vitest"
import {
  bookableStarts,
  bookingReachMs,
  freePeriods,
  isBookableDuration,
  resourceAvailability,
  searchPageSize,
  windowProblem
} from "../src/Availability.js"
import type { BookableResource } from "../src/Resource.js"
import { at, EVERY_DAY, flat, NOW, parking, room } from "./fixtures.js"

const window = (from: string, to: string) => ({ from: at(from), to: at(to) })
const iso = (periods: ReadonlyArray<{ start: Date; end: Date }>) =>
  periods.map((p) => [p.start.toISOString(), p.end.toISOString()])

const tuesday = window("2026-03-24T00:00:00+01:00", "2026-03-25T00:00:00+01:00")
const takenTenToEleven = [{ start: at("2026-03-24T10:00:00+01:00"), end: at("2026-03-24T11:00:00+01:00") }]

// Stockholm, open around the clock, 30-minute starts, no notice.
const allHours: BookableResource = {
  ...parking,
  timeZone: "Europe/Stockholm",
  horizonDays: 365,
  openingHours: { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" })), closures: [] }
}

describe("windowProblem", () => {
  it("accepts a window of up to 31 days", () => {
    expect(windowProblem(window("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"))).toBeUndefined()
  })
  it("refuses a window longer than 31 days", () => {
    expect(windowProblem(window("2026-03-01T00:00:00Z", "2026-04-01T00:00:01Z"))).toBe("must be at most 31 days after from")
  })
  it("refuses a window that does not end after it starts", () => {
    expect(windowProblem(window("2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"))).toBe("must be after from")
  })
})

describe("freePeriods", () => {
  it("gives the opening hours of a free day", () => {
    expect(iso(freePeriods({ resource: room, otherBookings: [] }, tuesday, NOW))).toStrictEqual([
      ["2026-03-24T07:00:00.000Z", "2026-03-24T17:00:00.000Z"]
    ])
  })
  it("leaves out another booking and the buffers it needs on both sides", () => {
    expect(iso(freePeriods({ resource: room, otherBookings: takenTenToEleven }, tuesday, NOW))).toStrictEqual([
      ["2026-03-24T07:00:00.000Z", "2026-03-24T08:45:00.000Z"],
      ["2026-03-24T10:15:00.000Z", "2026-03-24T17:00:00.000Z"]
    ])
  })
  it("starts no earlier than now plus the notice", () => {
    const today = window("2026-03-23T00:00:00+01:00", "2026-03-24T00:00:00+01:00")
    expect(iso(freePeriods({ resource: room, otherBookings: [] }, today, NOW))).toStrictEqual([
      ["2026-03-23T09:00:00.000Z", "2026-03-23T17:00:00.000Z"]
    ])
  })
  it("gives nothing on a closure or a closed weekday", () => {
    const easter = window("2026-04-03T00:00:00+02:00", "2026-04-06T00:00:00+02:00")
    expect(freePeriods({ resource: room, otherBookings: [] }, easter, NOW)).toStrictEqual([])
  })
  it("ends at the horizon", () => {
    const late = window("2026-06-21T00:00:00+02:00", "2026-06-24T00:00:00+02:00")
    const open = { ...allHours, horizonDays: 90 }
    expect(iso(freePeriods({ resource: open, otherBookings: [] }, late, NOW))).toStrictEqual([
      ["2026-06-20T22:00:00.000Z", "2026-06-21T22:00:00.000Z"]
    ])
  })
  it("gives open time across midnight as one period", () => {
    const twoDays = window("2026-03-24T00:00:00+01:00", "2026-03-26T00:00:00+01:00")
    expect(iso(freePeriods({ resource: allHours, otherBookings: [] }, twoDays, NOW))).toStrictEqual([
      ["2026-03-23T23:00:00.000Z", "2026-03-25T23:00:00.000Z"]
    ])
  })
  it("reads opening hours in local time on the day of DST change", () => {
    const shop = { ...allHours, openingHours: { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "01:00", closes: "05:00" })), closures: [] } }
    const sunday = window("2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00")
    expect(iso(freePeriods({ resource: shop, otherBookings: [] }, sunday, NOW))).toStrictEqual([
      ["2026-03-29T00:00:00.000Z", "2026-03-29T03:00:00.000Z"]
    ])
  })
  it("is the same for a stay-priced resource (free time, not nights)", () => {
    expect(iso(freePeriods({ resource: flat, otherBookings: [] }, window("2026-03-24T00:00:00Z", "2026-03-24T06:00:00Z"), NOW))).toStrictEqual([
      ["2026-03-24T00:00:00.000Z", "2026-03-24T06:00:00.000Z"]
    ])
  })
})

describe("isBookableDuration", () => {
  const cases: ReadonlyArray<readonly [number, boolean]> = [[15, false], [30, true], [45, true], [50, false], [480, true], [495, false], [30.5, false]]
  for (const [minutes, bookable] of cases) {
    it(`${minutes} minutes is ${bookable ? "" : "not "}sold by the room`, () => {
      expect(isBookableDuration(room, minutes)).toBe(bookable)
    })
  }
})

describe("bookableStarts", () => {
  it("the largest window a client may ask (31 days, a 1-minute grid, across a DST change) costs well under a second", () => {
    const minutely = { ...parking, startIncrementMinutes: 1, minDurationMinutes: 1, durationIncrementMinutes: 1 }
    const from = new Date("2026-10-10T00:00:00Z")
    const window = { from, to: new Date(from.getTime() + 31 * 24 * 3_600_000) }
    bookableStarts({ resource: minutely, otherBookings: [] }, window, 1, from)
    const started = performance.now()
    const starts = bookableStarts({ resource: minutely, otherBookings: [] }, window, 1, from)
    // Issue 19: a time-zone lookup per start took 1.3 s here, on the event loop; the arithmetic grid ~50 ms.
    expect(performance.now() - started).toBeLessThan(500)
    // Open around the clock: every minute of the 31 days (25 October, 25 hours long in Oslo, included) is a start.
    expect(starts.length).toBe(31 * 24 * 60)
    expect(starts.every((start, index) => start.getTime() === from.getTime() + index * 60_000)).toBe(true)
  })

  it("gives every 15-minute start where an hour fits around another booking and its buffers", () => {
    const starts = bookableStarts({ resource: room, otherBookings: takenTenToEleven }, tuesday, 60, NOW)
    const local = starts.map((s) => s.toLocaleTimeString("sv-SE", { timeZone: "Europe/Stockholm", hour: "2-digit", minute: "2-digit" }))
    expect(local.slice(0, 5)).toStrictEqual(["08:00", "08:15", "08:30", "08:45", "11:15"])
    expect(local.at(-1)).toBe("17:00")
    expect(starts).toHaveLength(4 + 24)
  })
  it("gives nothing for a duration the resource does not sell", () => {
    expect(bookableStarts({ resource: room, otherBookings: [] }, tuesday, 50, NOW)).toStrictEqual([])
  })
  it("gives nothing for a resource sold by the night", () => {
    expect(bookableStarts({ resource: flat, otherBookings: [] }, tuesday, 60, NOW)).toStrictEqual([])
  })
  it("skips wall-clock times a spring-forward gap removes", () => {
    const sunday = window("2026-03-29T00:00:00+01:00", "2026-03-29T05:00:00+02:00")
    const starts = bookableStarts({ resource: allHours, otherBookings: [] }, sunday, 60, NOW)
    expect(starts.map((s) => s.toISOString())).toStrictEqual([
      "2026-03-28T23:00:00.000Z", // 00:00 CET
      "2026-03-28T23:30:00.000Z",
      "2026-03-29T00:00:00.000Z", // 01:00 CET
      "2026-03-29T00:30:00.000Z", // 01:30 CET; 02:00 and 02:30 do not exist
      "2026-03-29T01:00:00.000Z", // 03:00 CEST
      "2026-03-29T01:30:00.000Z",
      "2026-03-29T02:00:00.000Z",
      "2026-03-29T02:30:00.000Z" // 04:30 CEST, the last start before 05:00
    ])
  })
  it("gives both instants of wall-clock times a fall-back repeats", () => {
    const sunday = window("2026-10-25T01:30:00+02:00", "2026-10-25T03:01:00+01:00")
    const starts = bookableStarts({ resource: allHours, otherBookings: [] }, sunday, 60, NOW)
    expect(starts.map((s) => s.toISOString())).toStrictEqual([
      "2026-10-24T23:30:00.000Z", // 01:30 CEST
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:00:00.000Z", // 02:00 CET
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:00:00.000Z" // 03:00 CET
    ])
  })
})

describe("searchPageSize", () => {
  it.each([
    ["a day", "2026-03-02T00:00:00Z", 100, 100],
    ["a day, a smaller limit", "2026-03-02T00:00:00Z", 7, 7],
    ["an hour: a started day counts whole", "2026-03-01T01:00:00Z", 100, 100],
    ["four days: 100 resources", "2026-03-05T00:00:00Z", 100, 100],
    ["a day and a minute: two days", "2026-03-02T00:01:00Z", 100, 100],
    ["a week: 57 resources", "2026-03-08T00:00:00Z", 100, 57],
    ["31 days: 12 resources", "2026-04-01T00:00:00Z", 100, 12],
    ["31 days, limit 5", "2026-04-01T00:00:00Z", 5, 5]
  ])("bounds a page of %s", (_, to, limit, size) => {
    expect(searchPageSize(window("2026-03-01T00:00:00Z", to), limit)).toBe(size)
  })
  it("never pages fewer than one resource", () => {
    expect(searchPageSize(window("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"), 1)).toBe(1)
  })
})

describe("resourceAvailability", () => {
  it("is freePeriods and, with a duration, bookableStarts, and far-away bookings change nothing", () => {
    const far = [...takenTenToEleven, { start: at("2026-05-01T10:00:00+02:00"), end: at("2026-05-01T11:00:00+02:00") }]
    const state = { resource: room, otherBookings: takenTenToEleven }
    expect(resourceAvailability(state, tuesday, undefined, NOW)).toStrictEqual({ freePeriods: freePeriods(state, tuesday, NOW) })
    const answer = resourceAvailability(state, tuesday, 60, NOW)
    expect(answer).toStrictEqual({ freePeriods: freePeriods(state, tuesday, NOW), startTimes: bookableStarts(state, tuesday, 60, NOW) })
    expect(resourceAvailability({ resource: room, otherBookings: far }, tuesday, 60, NOW)).toStrictEqual(answer)
  })
  it("reaches both buffers and the duration around a window", () => {
    expect(bookingReachMs(room, 60)).toBe((room.bufferBeforeMinutes + room.bufferAfterMinutes + 60) * 60_000)
    expect(bookingReachMs(room, undefined)).toBe((room.bufferBeforeMinutes + room.bufferAfterMinutes) * 60_000)
  })
})
