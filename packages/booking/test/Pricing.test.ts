import { describe, expect, it } from "@effect/vitest"
import { breakdown, localDaySegments, pricePeriod, priceStay, type ResourceLine } from "../src/Pricing.js"
import type { BookableResource, PriceRule } from "../src/Resource.js"
import { at, EVERY_DAY, flat, getLeft, getRight, parking, room, WEEKDAYS } from "./fixtures.js"

const summary = (lines: ReadonlyArray<ResourceLine>) =>
  lines.map((line) => [line.priceRuleId, line.localDate, line.minutes, line.netMinorUnits])

const priced = (resource: BookableResource, start: string, end: string) => getRight(pricePeriod(resource, at(start), at(end)))

describe("pricePeriod: hourly rules split by their windows", () => {
  it("prices 10:00–12:00 at the daytime rate", () => {
    expect(summary(priced(room, "2026-03-24T10:00:00+01:00", "2026-03-24T12:00:00+01:00"))).toStrictEqual([
      ["r-hour-day", "2026-03-24", 120, 100_000]
    ])
  })
  it("splits 16:00–18:00 between the daytime and the evening rate", () => {
    expect(summary(priced(room, "2026-03-24T16:00:00+01:00", "2026-03-24T18:00:00+01:00"))).toStrictEqual([
      ["r-hour-day", "2026-03-24", 60, 50_000],
      ["r-hour-evening", "2026-03-24", 60, 40_000]
    ])
  })
  it("prices pro rata to the minute, halves away from zero (20 minutes of 500.00/h = 166.67)", () => {
    const [line] = priced(room, "2026-03-24T10:00:00+01:00", "2026-03-24T10:20:00+01:00")
    expect(line).toMatchObject({ netMinorUnits: 16_667, vatMinorUnits: 4_167, grossMinorUnits: 20_834 })
  })
  it("rounds one minute of 500.00/h down (8.333… → 8.33)", () => {
    expect(priced(room, "2026-03-24T10:00:00+01:00", "2026-03-24T10:01:00+01:00")[0]?.netMinorUnits).toBe(833)
  })
  it("gives each line its start, end, unit, rate and VAT", () => {
    const [line] = priced(room, "2026-03-24T10:00:00+01:00", "2026-03-24T11:00:00+01:00")
    expect(line).toStrictEqual({
      kind: "resource",
      priceRuleId: "r-hour-day",
      description: "Hourly, daytime",
      unit: "hour",
      localDate: "2026-03-24",
      start: at("2026-03-24T10:00:00+01:00"),
      end: at("2026-03-24T11:00:00+01:00"),
      minutes: 60,
      unitAmountMinorUnits: 50_000,
      vatRateBasisPoints: 2500,
      netMinorUnits: 50_000,
      vatMinorUnits: 12_500,
      grossMinorUnits: 62_500
    })
  })
})

describe("pricePeriod: flat rules cap the hourly price", () => {
  it("prices 08:00–12:00 as the half day (1 500 < 2 000)", () => {
    expect(summary(priced(room, "2026-03-24T08:00:00+01:00", "2026-03-24T12:00:00+01:00"))).toStrictEqual([
      ["r-half-day", "2026-03-24", 240, 150_000]
    ])
  })
  it("prices 08:00–11:00 as the half day when it costs the same as the hours (flat wins a tie)", () => {
    expect(summary(priced(room, "2026-03-24T08:00:00+01:00", "2026-03-24T11:00:00+01:00"))).toStrictEqual([
      ["r-half-day", "2026-03-24", 180, 150_000]
    ])
  })
  it("prices 08:00–16:00 as the day (3 000 < 4 000)", () => {
    expect(summary(priced(room, "2026-03-24T08:00:00+01:00", "2026-03-24T16:00:00+01:00"))).toStrictEqual([
      ["r-day", "2026-03-24", 480, 300_000]
    ])
  })
  it("does not apply a half day to time outside its window (12:00–16:00)", () => {
    expect(summary(priced(room, "2026-03-24T12:00:00+01:00", "2026-03-24T16:00:00+01:00"))).toStrictEqual([
      ["r-hour-day", "2026-03-24", 240, 200_000]
    ])
  })
  it("prices with flat rules alone when there are no hourly ones (a desk by the day)", () => {
    const desk = { ...room, priceRules: [room.priceRules[3]!] }
    expect(summary(priced(desk, "2026-03-24T09:00:00+01:00", "2026-03-24T10:00:00+01:00"))).toStrictEqual([
      ["r-day", "2026-03-24", 60, 300_000]
    ])
  })
  it("applies a session only to exactly its window", () => {
    const session: PriceRule = { id: "s", name: "Morning session", unit: "session", amountMinorUnits: 100_000, vatRateBasisPoints: 2500, weekdays: WEEKDAYS, window: { from: "09:00", to: "12:00" } }
    const withSession = { ...room, priceRules: [...room.priceRules, session] }
    expect(summary(priced(withSession, "2026-03-24T09:00:00+01:00", "2026-03-24T12:00:00+01:00"))).toStrictEqual([
      ["s", "2026-03-24", 180, 100_000]
    ])
    expect(summary(priced(withSession, "2026-03-24T09:00:00+01:00", "2026-03-24T11:00:00+01:00"))).toStrictEqual([
      ["r-hour-day", "2026-03-24", 120, 100_000]
    ])
  })
  it("prices each local day of a multi-day booking by itself", () => {
    const allDay: PriceRule = { id: "d", name: "Day", unit: "day", amountMinorUnits: 50_000, vatRateBasisPoints: 2500, weekdays: EVERY_DAY }
    const garage = { ...parking, priceRules: [...parking.priceRules, allDay] }
    // Tuesday 20:00 to Thursday 02:00 in Oslo: 4 h, 24 h (capped by the day), 2 h.
    expect(summary(priced(garage, "2026-03-24T20:00:00+01:00", "2026-03-26T02:00:00+01:00"))).toStrictEqual([
      ["p-hour", "2026-03-24", 240, 40_000],
      ["d", "2026-03-25", 1440, 50_000],
      ["p-hour", "2026-03-26", 120, 20_000]
    ])
  })
})

describe("pricePeriod on the days of DST change", () => {
  // 100.00 an hour at night (00–06), 200.00 by day (06–24), every day.
  const split: BookableResource = {
    ...parking,
    timeZone: "Europe/Stockholm",
    priceRules: [
      { id: "night", name: "Night", unit: "hour", amountMinorUnits: 10_000, vatRateBasisPoints: 2500, weekdays: EVERY_DAY, window: { from: "00:00", to: "06:00" } },
      { id: "day", name: "Day", unit: "hour", amountMinorUnits: 20_000, vatRateBasisPoints: 2500, weekdays: EVERY_DAY, window: { from: "06:00", to: "24:00" } }
    ]
  }
  it("prices the spring-forward day (29 March 2026, 23 hours) with 5 night hours and 18 day hours", () => {
    expect(summary(priced(split, "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"))).toStrictEqual([
      ["night", "2026-03-29", 300, 50_000],
      ["day", "2026-03-29", 1080, 360_000]
    ])
  })
  it("prices the fall-back day (25 October 2026, 25 hours) with 7 night hours and 18 day hours", () => {
    expect(summary(priced(split, "2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00"))).toStrictEqual([
      ["night", "2026-10-25", 420, 70_000],
      ["day", "2026-10-25", 1080, 360_000]
    ])
  })
  it("prices 100.00 an hour around the clock as 23 hours on the spring-forward day in Oslo", () => {
    expect(summary(priced(parking, "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"))).toStrictEqual([
      ["p-hour", "2026-03-29", 1380, 230_000]
    ])
  })
  it("prices 100.00 an hour around the clock as 25 hours on the fall-back day in Oslo", () => {
    expect(summary(priced(parking, "2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00"))).toStrictEqual([
      ["p-hour", "2026-10-25", 1500, 250_000]
    ])
  })
  it("splits a night across the change at local midnight (22:00 Saturday to 04:00 Sunday is 2 h + 3 h)", () => {
    expect(summary(priced(parking, "2026-03-28T22:00:00+01:00", "2026-03-29T04:00:00+02:00"))).toStrictEqual([
      ["p-hour", "2026-03-28", 120, 20_000],
      ["p-hour", "2026-03-29", 180, 30_000]
    ])
  })
  it("applies a flat day rule to the whole 23-hour day", () => {
    const byDay = { ...parking, priceRules: [{ id: "d", name: "Day", unit: "day" as const, amountMinorUnits: 99_000, vatRateBasisPoints: 2500, weekdays: EVERY_DAY }] }
    expect(summary(priced(byDay, "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"))).toStrictEqual([
      ["d", "2026-03-29", 1380, 99_000]
    ])
  })
  it("handles a half-hour DST shift (Lord Howe Island, 5 April 2026: 02:00 becomes 01:30)", () => {
    const lordHowe = { ...parking, timeZone: "Australia/Lord_Howe" }
    expect(summary(priced(lordHowe, "2026-04-05T00:00:00+11:00", "2026-04-06T00:00:00+10:30"))).toStrictEqual([
      ["p-hour", "2026-04-05", 1470, 245_000]
    ])
  })
})

describe("pricePeriod refusals", () => {
  it("walks the days in order and answers the first that cannot be priced", () => {
    const weekdaysOnly = { ...parking, priceRules: [{ ...parking.priceRules[0]!, weekdays: WEEKDAYS }] }
    expect(getLeft(pricePeriod(weekdaysOnly, at("2026-03-27T20:00:00+01:00"), at("2026-03-29T10:00:00+02:00")))).toMatchObject({
      code: "BOOKING_PRICE_RULE_NOT_APPLICABLE",
      localDate: "2026-03-28"
    })
  })
})

describe("priceStay", () => {
  it("prices each night by its check-in weekday and partitions the stay", () => {
    const lines = getRight(priceStay(flat, "2026-03-27", "2026-03-30"))
    expect(lines.map((line) => [line.priceRuleId, line.localDate, line.start, line.end, line.netMinorUnits])).toStrictEqual([
      ["n-weekend", "2026-03-27", at("2026-03-27T15:00:00+01:00"), at("2026-03-28T15:00:00+01:00"), 150_000],
      ["n-weekend", "2026-03-28", at("2026-03-28T15:00:00+01:00"), at("2026-03-29T15:00:00+02:00"), 150_000],
      ["n-week", "2026-03-29", at("2026-03-29T15:00:00+02:00"), at("2026-03-30T11:00:00+02:00"), 120_000]
    ])
    expect(lines[1]?.minutes).toBe(23 * 60)
  })
})

describe("breakdown", () => {
  it("sums VAT per rate, highest first, and totals every line", () => {
    const lines = [
      ...priced(room, "2026-03-24T16:00:00+01:00", "2026-03-24T18:00:00+01:00"),
      ...getRight(priceStay(flat, "2026-03-24", "2026-03-25"))
    ]
    expect(breakdown("SEK", lines)).toMatchObject({
      currency: "SEK",
      vatRates: [
        { vatRateBasisPoints: 2500, netMinorUnits: 90_000, vatMinorUnits: 22_500, grossMinorUnits: 112_500 },
        { vatRateBasisPoints: 1200, netMinorUnits: 120_000, vatMinorUnits: 14_400, grossMinorUnits: 134_400 }
      ],
      totalNetMinorUnits: 210_000,
      totalVatMinorUnits: 36_900,
      totalGrossMinorUnits: 246_900
    })
  })
  it("gives zeros and no rates for no lines", () => {
    expect(breakdown("NOK", [])).toStrictEqual({
      currency: "NOK",
      lines: [],
      vatRates: [],
      totalNetMinorUnits: 0,
      totalVatMinorUnits: 0,
      totalGrossMinorUnits: 0
    })
  })
})

describe("localDaySegments", () => {
  it("cuts at local midnights and keeps the elapsed length across DST", () => {
    const segments = localDaySegments(at("2026-03-28T12:00:00+01:00"), at("2026-03-30T12:00:00+02:00"), "Europe/Stockholm")
    expect(segments.map((s) => [s.localDate, (s.end.getTime() - s.start.getTime()) / 3_600_000])).toStrictEqual([
      ["2026-03-28", 12],
      ["2026-03-29", 23],
      ["2026-03-30", 12]
    ])
  })
  it("gives nothing for an empty period", () => {
    expect(localDaySegments(at("2026-03-28T12:00:00Z"), at("2026-03-28T12:00:00Z"), "Europe/Oslo")).toStrictEqual([])
  })
})
