import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { Temporal } from "temporal-polyfill"
import { bookableStarts, pricedStarts } from "../src/Availability.js"
import { type BookingState, checkBooking } from "../src/BookingCheck.js"
import { requestBooking } from "../src/BookingRequest.js"
import { pricePeriod } from "../src/Pricing.js"
import type { BookableResource } from "../src/Resource.js"
import { EVERY_DAY, parking, room } from "./fixtures.js"

// Zones with DST changes of an hour (Europe, America), of half an hour (Lord Howe) and none at an odd offset.
const ZONES = ["Europe/Stockholm", "Europe/Oslo", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"] as const
// The local dates of 2026 DST changes in those zones, and ordinary dates.
const DATES = ["2026-03-08", "2026-03-29", "2026-04-05", "2026-10-04", "2026-10-25", "2026-11-01", "2026-05-12"] as const
const NOW = new Date("2026-01-01T00:00:00Z")

const aroundTheClock = (timeZone: string, bufferSteps: number): BookableResource => ({
  ...parking,
  timeZone,
  horizonDays: 730,
  startIncrementMinutes: 30,
  durationIncrementMinutes: 30,
  minDurationMinutes: 30,
  maxDurationMinutes: 3 * 24 * 60,
  bufferBeforeMinutes: 30 * bufferSteps,
  bufferAfterMinutes: 30 * ((bufferSteps + 1) % 3),
  openingHours: { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" })), closures: [] },
  priceRules: [
    { id: "night", name: "Night", unit: "hour", amountMinorUnits: 3_333, vatRateBasisPoints: 1200, weekdays: EVERY_DAY, window: { from: "00:00", to: "07:00" } },
    { id: "day", name: "Day", unit: "hour", amountMinorUnits: 12_345, vatRateBasisPoints: 2500, weekdays: EVERY_DAY, window: { from: "07:00", to: "24:00" } },
    { id: "cap", name: "Day cap", unit: "day", amountMinorUnits: 200_000, vatRateBasisPoints: 2500, weekdays: [6, 7] }
  ]
})

const officeHours = (timeZone: string): BookableResource => ({ ...room, timeZone, horizonDays: 730 })

/** A local wall-clock start on one of DATES (± a day), on the 30-minute grid, as an instant. */
const localStart = (timeZone: string, date: string, dayShift: number, halfHours: number): Date => {
  const wall = Temporal.PlainDate.from(date).add({ days: dayShift }).toPlainDateTime({ hour: 0 }).add({ minutes: 30 * halfHours })
  return new Date(wall.toZonedDateTime(timeZone).epochMilliseconds)
}

const attempt = fc.record({
  dayShift: fc.integer({ min: -1, max: 1 }),
  halfHours: fc.integer({ min: 0, max: 47 }),
  durationSteps: fc.integer({ min: 1, max: 60 })
})

describe("property: no overlap is ever sold twice", () => {
  it("holds for any sequence of requests, in any zone, with any buffers", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...DATES),
        fc.integer({ min: 0, max: 2 }),
        fc.array(attempt, { minLength: 1, maxLength: 25 }),
        (zone, date, bufferSteps, attempts) => {
          const resource = aroundTheClock(zone, bufferSteps)
          const sold: Array<{ start: Date; end: Date }> = []
          for (const { dayShift, halfHours, durationSteps } of attempts) {
            const start = localStart(zone, date, dayShift, halfHours)
            const end = new Date(start.getTime() + durationSteps * 30 * 60_000)
            const state: BookingState = { resource, offeredAddOns: [], otherBookings: sold }
            const result = checkBooking(state, { time: { _tag: "Period", start, end }, addOns: [] }, NOW)
            if (Either.isRight(result)) sold.push({ start: result.right.start, end: result.right.end })
          }
          const gap = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes) * 60_000
          for (const [i, a] of sold.entries()) {
            for (const b of sold.slice(i + 1)) {
              const apart = a.end.getTime() + gap <= b.start.getTime() || b.end.getTime() + gap <= a.start.getTime()
              expect(apart).toBe(true)
            }
          }
        }
      ),
      { numRuns: 150 }
    )
  })
})

describe("property: totals equal the sum of lines", () => {
  it("holds for every priced booking, per VAT rate and overall", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.constantFrom(...DATES), attempt, (zone, date, { dayShift, halfHours, durationSteps }) => {
        const resource = aroundTheClock(zone, 0)
        const start = localStart(zone, date, dayShift, halfHours)
        const end = new Date(start.getTime() + durationSteps * 30 * 60_000)
        const { price } = Either.getOrThrow(
          checkBooking({ resource, offeredAddOns: [], otherBookings: [] }, { time: { _tag: "Period", start, end }, addOns: [] }, NOW)
        )
        const sum = (key: "netMinorUnits" | "vatMinorUnits" | "grossMinorUnits") =>
          price.lines.reduce((total, line) => total + line[key], 0)
        expect(price.totalNetMinorUnits).toBe(sum("netMinorUnits"))
        expect(price.totalVatMinorUnits).toBe(sum("vatMinorUnits"))
        expect(price.totalGrossMinorUnits).toBe(sum("grossMinorUnits"))
        expect(price.totalGrossMinorUnits).toBe(price.totalNetMinorUnits + price.totalVatMinorUnits)
        for (const line of price.lines) expect(line.grossMinorUnits).toBe(line.netMinorUnits + line.vatMinorUnits)
        for (const rate of price.vatRates) {
          const ofRate = price.lines.filter((line) => line.vatRateBasisPoints === rate.vatRateBasisPoints)
          expect(rate.netMinorUnits).toBe(ofRate.reduce((total, line) => total + line.netMinorUnits, 0))
          expect(rate.vatMinorUnits).toBe(ofRate.reduce((total, line) => total + line.vatMinorUnits, 0))
        }
        expect(price.vatRates.reduce((total, rate) => total + rate.grossMinorUnits, 0)).toBe(price.totalGrossMinorUnits)
      }),
      { numRuns: 300 }
    )
  })
})

describe("property: the days of DST change price and split correctly", () => {
  it("splits a booking into lines that cover it exactly, cut at local midnights and rule windows", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.constantFrom(...DATES), attempt, (zone, date, { dayShift, halfHours, durationSteps }) => {
        const resource = { ...aroundTheClock(zone, 0), priceRules: aroundTheClock(zone, 0).priceRules.slice(0, 2) }
        const start = localStart(zone, date, dayShift, halfHours)
        const end = new Date(start.getTime() + durationSteps * 30 * 60_000)
        const lines = Either.getOrThrow(pricePeriod(resource, start, end))
        expect(lines[0]?.start).toStrictEqual(start)
        expect(lines.at(-1)?.end).toStrictEqual(end)
        for (const [i, line] of lines.entries()) {
          if (i > 0) expect(line.start).toStrictEqual(lines[i - 1]?.end)
          expect(line.minutes).toBe((line.end.getTime() - line.start.getTime()) / 60_000)
          // Each line lies in one local day and one rule window, read on the local wall clock.
          const from = Temporal.Instant.fromEpochMilliseconds(line.start.getTime()).toZonedDateTimeISO(zone)
          expect(from.toPlainDate().toString()).toBe(line.localDate)
          const startsAt = from.hour * 60 + from.minute
          expect(line.priceRuleId).toBe(startsAt < 7 * 60 ? "night" : "day")
        }
        expect(lines.reduce((total, line) => total + line.minutes, 0)).toBe(durationSteps * 30)
      }),
      { numRuns: 300 }
    )
  })
  it("charges a flat hourly rate for exactly the elapsed hours of a whole local day (23, 24, 24.5 or 25)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.constantFrom(...DATES), (zone, date) => {
        const resource = { ...aroundTheClock(zone, 0), priceRules: [{ ...parking.priceRules[0]!, amountMinorUnits: 6_000 }] }
        const day = Temporal.PlainDate.from(date)
        const start = day.toZonedDateTime(zone)
        const end = day.add({ days: 1 }).toZonedDateTime(zone)
        const lines = Either.getOrThrow(pricePeriod(resource, new Date(start.epochMilliseconds), new Date(end.epochMilliseconds)))
        expect(lines).toHaveLength(1)
        expect(lines[0]?.netMinorUnits).toBe(start.hoursInDay * 6_000)
        expect(lines[0]?.minutes).toBe(start.hoursInDay * 60)
      })
    )
  })
})

describe("property: availability and the check agree", () => {
  it("every bookable start passes the check, and every start the check passes is offered", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...DATES),
        fc.array(attempt, { maxLength: 4 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 0, max: 2 }),
        fc.boolean(),
        (zone, date, taken, durationSteps, bufferSteps, office) => {
          const resource = office ? { ...officeHours(zone), minimumNoticeMinutes: 0, bufferAfterMinutes: 15 * bufferSteps } : aroundTheClock(zone, bufferSteps)
          const otherBookings = taken.map(({ dayShift, halfHours }) => {
            const start = localStart(zone, date, dayShift, halfHours)
            return { start, end: new Date(start.getTime() + 90 * 60_000) }
          })
          const state: BookingState = { resource, offeredAddOns: [], otherBookings }
          const minutes = durationSteps * 30
          const window = { from: localStart(zone, date, 0, 0), to: localStart(zone, date, 1, 12) }
          const offered = new Set(bookableStarts(state, window, minutes, NOW).map((s) => s.getTime()))
          for (let t = window.from.getTime(); t < window.to.getTime(); t += 15 * 60_000) {
            const result = checkBooking(state, { time: { _tag: "Period", start: new Date(t), end: new Date(t + minutes * 60_000) }, addOns: [] }, NOW)
            const passesTimeRules = Either.isRight(result) || result.left.code.startsWith("BOOKING_PRICE_RULE")
            expect(offered.has(t)).toBe(passesTimeRules)
          }
        }
      ),
      { numRuns: 30 }
    )
    // Each run checks ~150 starts through Temporal; on a loaded 2-core CI machine that takes tens of seconds.
  }, 180_000)
})

describe("property: preview and request agree", () => {
  it("a request is refused exactly when the preview is, with the same code", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.constantFrom(...DATES), attempt, attempt, (zone, date, other, asked) => {
        const resource = officeHours(zone)
        const otherStart = localStart(zone, date, other.dayShift, other.halfHours)
        const state: BookingState = {
          resource,
          offeredAddOns: [],
          otherBookings: [{ start: otherStart, end: new Date(otherStart.getTime() + 60 * 60_000) }]
        }
        const start = localStart(zone, date, asked.dayShift, asked.halfHours)
        const time = { _tag: "Period" as const, start, end: new Date(start.getTime() + asked.durationSteps * 15 * 60_000) }
        const preview = checkBooking(state, { time, addOns: [] }, NOW)
        const request = requestBooking(
          state,
          { time, addOns: [], id: "b", requestId: "r", fingerprint: "f", requestedBy: "a", guest: { name: "G", email: "g@example.com" } },
          NOW
        )
        expect(Either.isLeft(request)).toBe(Either.isLeft(preview))
        if (Either.isLeft(preview) && Either.isLeft(request)) expect(request.left.code).toBe(preview.left.code)
        if (Either.isRight(preview) && Either.isRight(request)) expect(request.right.record.price).toStrictEqual(preview.right.price)
      }),
      { numRuns: 200 }
    )
  })
})

describe("property: a start availability prices is one preview and request accept at that price (issue 26)", () => {
  const rules = fc.record({
    zone: fc.constantFrom(...ZONES),
    date: fc.constantFrom(...DATES),
    bufferSteps: fc.integer({ min: 0, max: 2 }),
    startIncrement: fc.constantFrom(15, 30, 60),
    dayRate: fc.integer({ min: 0, max: 500_000 }),
    nightRate: fc.integer({ min: 0, max: 500_000 }),
    cap: fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined }),
    vat: fc.constantFrom(0, 600, 1200, 2500),
    durationSteps: fc.integer({ min: 1, max: 16 }),
    taken: fc.array(fc.record({ halfHours: fc.integer({ min: 0, max: 47 }), steps: fc.integer({ min: 1, max: 8 }) }), { maxLength: 4 })
  })

  it("holds for random rules, zones, buffers and bookings", () => {
    fc.assert(
      fc.property(rules, (r) => {
        const base = aroundTheClock(r.zone, r.bufferSteps)
        const resource: BookableResource = {
          ...base,
          startIncrementMinutes: r.startIncrement,
          durationIncrementMinutes: 30,
          priceRules: [
            { id: "night", name: "Night", unit: "hour", amountMinorUnits: r.nightRate, vatRateBasisPoints: r.vat, weekdays: EVERY_DAY, window: { from: "00:00", to: "07:00" } },
            { id: "day", name: "Day", unit: "hour", amountMinorUnits: r.dayRate, vatRateBasisPoints: 2500, weekdays: EVERY_DAY, window: { from: "07:00", to: "24:00" } },
            ...(r.cap === undefined ? [] : [{ id: "cap", name: "Cap", unit: "day" as const, amountMinorUnits: r.cap, vatRateBasisPoints: 2500, weekdays: EVERY_DAY }])
          ]
        }
        const otherBookings = r.taken.map(({ halfHours, steps }) => {
          const start = localStart(r.zone, r.date, 0, halfHours)
          return { start, end: new Date(start.getTime() + steps * 30 * 60_000) }
        })
        const window = { from: localStart(r.zone, r.date, -1, 0), to: localStart(r.zone, r.date, 1, 0) }
        const durationMinutes = r.durationSteps * 30
        const state: BookingState = { resource, offeredAddOns: [], otherBookings }
        const starts = bookableStarts(state, window, durationMinutes, NOW)
        const priced = Either.getOrThrow(pricedStarts(state, starts, durationMinutes, [], NOW))
        expect(priced.map((p) => p.start)).toEqual(starts)
        for (const { start, totalGrossMinorUnits, totalNetMinorUnits } of priced) {
          const time = { _tag: "Period" as const, start, end: new Date(start.getTime() + durationMinutes * 60_000) }
          const previewed = checkBooking(state, { time, addOns: [] }, NOW)
          expect(Either.isRight(previewed)).toBe(true)
          if (Either.isLeft(previewed)) continue
          expect([previewed.right.price.totalNetMinorUnits, previewed.right.price.totalGrossMinorUnits]).toEqual([totalNetMinorUnits, totalGrossMinorUnits])
          const requested = requestBooking(state, { time, addOns: [], id: "b", requestId: "r", fingerprint: "f", requestedBy: "a", guest: { name: "G", email: "g@example.se" } }, NOW)
          expect(Either.isRight(requested) && requested.right.record.price.totalGrossMinorUnits).toBe(totalGrossMinorUnits)
        }
      }),
      { numRuns: 60 }
    )
  })
})
