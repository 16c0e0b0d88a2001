import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { AddOnProduct } from "../src/AddOnProduct.js"
import type { BookableResource } from "../src/Resource.js"
import { addOnProductSetupIssues, checkResourceSetup, resourceSetupIssues } from "../src/ResourceSetup.js"
import { flat, getLeft, lunch, parking, projectorNoCutOff, room } from "./fixtures.js"

const pathsOf = (resource: BookableResource) => resourceSetupIssues(resource).map((issue) => issue.path)

describe("resourceSetupIssues", () => {
  it("finds nothing wrong with the fixtures", () => {
    for (const resource of [room, parking, flat]) expect(resourceSetupIssues(resource)).toStrictEqual([])
  })
  const cases: ReadonlyArray<readonly [string, Partial<BookableResource>, string]> = [
    ["a fixed offset as time zone", { timeZone: "+01:00" }, "/timeZone"],
    ["an unknown time zone", { timeZone: "Europe/Atlantis" }, "/timeZone"],
    ["capacity 0", { capacity: 0 }, "/capacity"],
    ["an opening time 25:00", { openingHours: { weekly: [{ weekday: 1, opens: "25:00", closes: "26:00" }], closures: [] } }, "/openingHours/weekly/0/opens"],
    ["closing before opening", { openingHours: { weekly: [{ weekday: 1, opens: "18:00", closes: "08:00" }], closures: [] } }, "/openingHours/weekly/0/closes"],
    ["weekday 8", { openingHours: { weekly: [{ weekday: 8 as 1, opens: "08:00", closes: "18:00" }], closures: [] } }, "/openingHours/weekly/0/weekday"],
    ["a closure that is not a date", { openingHours: { weekly: [], closures: [{ fromDate: "2026-02-30", toDate: "2026-03-01" }] } }, "/openingHours/closures/0/fromDate"],
    ["a closure ending before it starts", { openingHours: { weekly: [], closures: [{ fromDate: "2026-03-02", toDate: "2026-03-01" }] } }, "/openingHours/closures/0"],
    ["max below min", { minDurationMinutes: 60, maxDurationMinutes: 30 }, "/maxDurationMinutes"],
    ["min off the duration increment", { minDurationMinutes: 40 }, "/minDurationMinutes"],
    ["a start increment that does not divide a day", { startIncrementMinutes: 7 }, "/startIncrementMinutes"],
    ["a negative notice", { minimumNoticeMinutes: -1 }, "/minimumNoticeMinutes"],
    ["a horizon beyond two years", { horizonDays: 731 }, "/horizonDays"],
    ["a fractional buffer", { bufferAfterMinutes: 7.5 }, "/bufferAfterMinutes"],
    ["no hold", { holdMinutes: 0 }, "/holdMinutes"],
    ["no price rules", { priceRules: [] }, "/priceRules"],
    ["an amount too large", { priceRules: [{ ...room.priceRules[0]!, amountMinorUnits: 10_000_000_001 }] }, "/priceRules/0/amountMinorUnits"],
    ["a VAT rate above 100 %", { priceRules: [{ ...room.priceRules[0]!, vatRateBasisPoints: 10_001 }] }, "/priceRules/0/vatRateBasisPoints"],
    ["a rule with no weekdays", { priceRules: [{ ...room.priceRules[0]!, weekdays: [] }] }, "/priceRules/0/weekdays"],
    ["a rule with a weekday twice", { priceRules: [{ ...room.priceRules[0]!, weekdays: [1, 1] }] }, "/priceRules/0/weekdays"],
    ["a session without a window", { priceRules: [{ id: "s", name: "s", unit: "session", amountMinorUnits: 1, vatRateBasisPoints: 0, weekdays: [1] }] }, "/priceRules/0/window"],
    ["a night rule on a resource priced by time", { priceRules: [flat.priceRules[0]!] }, "/priceRules/0/unit"]
  ]
  for (const [why, change, path] of cases) {
    it(`points at ${path} for ${why}`, () => {
      expect(pathsOf({ ...room, ...change })).toContain(path)
    })
  }
  it("refuses an hourly rule on a resource priced by the night", () => {
    expect(pathsOf({ ...flat, priceRules: [parking.priceRules[0]!] })).toContain("/priceRules/0/unit")
  })
  it("refuses a night rule with a window", () => {
    expect(pathsOf({ ...flat, priceRules: [{ ...flat.priceRules[0]!, window: { from: "00:00", to: "12:00" } }] })).toContain("/priceRules/0/window")
  })
  it("refuses a check-out later than the check-in time and max nights below min", () => {
    const paths = pathsOf({ ...flat, nightStays: { checkInTime: "10:00", checkOutTime: "12:00", minNights: 3, maxNights: 2 } })
    expect(paths).toContain("/nightStays/checkOutTime")
    expect(paths).toContain("/nightStays/maxNights")
  })
})

describe("checkResourceSetup", () => {
  it("accepts the fixtures with their products", () => {
    expect(Either.isRight(checkResourceSetup(room, [lunch, projectorNoCutOff]))).toBe(true)
    expect(Either.isRight(checkResourceSetup(flat, []))).toBe(true)
  })
  it("refuses a buffer off the start increment with BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT", () => {
    expect(getLeft(checkResourceSetup({ ...room, bufferAfterMinutes: 10 }, []))).toMatchObject({
      code: "BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT",
      startIncrementMinutes: 15
    })
  })
  it("refuses two hourly rules with overlapping windows on a shared weekday", () => {
    const overlapping = { ...room.priceRules[0]!, id: "x", weekdays: [5 as const], window: { from: "16:00", to: "20:00" } }
    expect(getLeft(checkResourceSetup({ ...room, priceRules: [...room.priceRules, overlapping] }, [])).code).toBe(
      "BOOKING_PRICE_RULE_AMBIGUOUS"
    )
  })
  it("accepts same-unit rules on different weekdays or touching windows", () => {
    const weekend = { ...room.priceRules[0]!, id: "w", weekdays: [6 as const, 7 as const] }
    expect(Either.isRight(checkResourceSetup({ ...room, priceRules: [...room.priceRules, weekend] }, []))).toBe(true)
  })
  it("refuses two night rules for one weekday", () => {
    const twice = { ...flat.priceRules[0]!, id: "n2", weekdays: [3 as const] }
    expect(getLeft(checkResourceSetup({ ...flat, priceRules: [...flat.priceRules, twice] }, [])).code).toBe(
      "BOOKING_PRICE_RULE_AMBIGUOUS"
    )
  })
  it("refuses offering a product in another currency with BOOKING_RESOURCE_CURRENCY_MISMATCH", () => {
    expect(getLeft(checkResourceSetup(parking, [lunch]))).toMatchObject({
      code: "BOOKING_RESOURCE_CURRENCY_MISMATCH",
      resourceCurrency: "NOK",
      currency: "SEK"
    })
  })
})

describe("addOnProductSetupIssues", () => {
  it("finds nothing wrong with the fixtures", () => {
    expect(addOnProductSetupIssues(lunch)).toStrictEqual([])
  })
  const cases: ReadonlyArray<readonly [string, Partial<AddOnProduct>, string]> = [
    ["an unknown category", { category: "flowers" as "service" }, "/category"],
    ["a price above 1 000 000 minor units", { unitPriceMinorUnits: 1_000_001 }, "/unitPriceMinorUnits"],
    ["a negative lead time", { leadTimeMinutes: -5 }, "/leadTimeMinutes"],
    ["zero per line", { maxQuantityPerLine: 0 }, "/maxQuantityPerLine"],
    ["a cut-off time 14.00", { cutOff: { daysBefore: 1, time: "14.00" } }, "/cutOff/time"],
    ["a cut-off 61 days before", { cutOff: { daysBefore: 61, time: "14:00" } }, "/cutOff/daysBefore"],
    ["delivery hours ending before they start", { deliveryHours: [{ weekday: 1, opens: "14:00", closes: "11:00" }] }, "/deliveryHours/0/closes"]
  ]
  for (const [why, change, path] of cases) {
    it(`points at ${path} for ${why}`, () => {
      expect(addOnProductSetupIssues({ ...lunch, ...change }).map((issue) => issue.path)).toContain(path)
    })
  }
})
