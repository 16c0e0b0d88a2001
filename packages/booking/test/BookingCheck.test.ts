import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { AddOnProduct } from "../src/AddOnProduct.js"
import { type BookingCommand, type BookingState, CHECK_ORDER, checkBooking } from "../src/BookingCheck.js"
import type { BookableResource } from "../src/Resource.js"
import {
  at,
  flat,
  getLeft,
  getRight,
  line,
  lunch,
  NOW,
  period,
  projectorNoCutOff,
  retiredCoffee,
  room,
  roomState,
  stay,
  WEEKDAYS
} from "./fixtures.js"

const codeOf = (state: BookingState, command: BookingCommand, now: Date = NOW): string => {
  const result = checkBooking(state, command, now)
  return Either.isLeft(result) ? result.left.code : "OK"
}

const flatState = (resource: BookableResource = flat): BookingState => ({ resource, offeredAddOns: [], otherBookings: [] })
const stateOf = (resource: BookableResource, offeredAddOns: ReadonlyArray<AddOnProduct> = []): BookingState => ({
  resource,
  offeredAddOns,
  otherBookings: []
})

// Tuesday 24 March 2026, 10:00–12:00 in Stockholm: passes every rule.
const GOOD = ["2026-03-24T10:00:00+01:00", "2026-03-24T12:00:00+01:00"] as const

describe("the kind of time asked", () => {
  it("refuses check-in/check-out dates for a resource priced by time", () => {
    expect(codeOf(roomState(), stay("2026-03-24", "2026-03-25"))).toBe("BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING")
  })
  it("refuses a period for a resource priced by the night", () => {
    expect(codeOf(flatState(), period("2026-03-24T15:00:00+01:00", "2026-03-25T11:00:00+01:00"))).toBe(
      "BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL"
    )
  })
  it("refuses a stay whose check-out date is its check-in date", () => {
    expect(codeOf(flatState(), stay("2026-03-24", "2026-03-24"))).toBe("BOOKING_DATE_INTERVAL_EMPTY")
  })
  it("refuses a stay whose check-out date is before its check-in date", () => {
    const refusal = getLeft(checkBooking(flatState(), stay("2026-03-25", "2026-03-24"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_DATE_INTERVAL_EMPTY", status: 400, checkInDate: "2026-03-25" })
  })
})

describe("BOOKING_IN_THE_PAST", () => {
  it("refuses a start before now", () => {
    expect(codeOf(roomState(), period("2026-03-23T08:00:00+01:00", "2026-03-23T10:00:00+01:00"))).toBe("BOOKING_IN_THE_PAST")
  })
  it("refuses a start one minute before now, even with no notice required", () => {
    expect(codeOf(stateOf(parking0()), period("2026-03-23T08:59:00+01:00", "2026-03-23T09:59:00+01:00"))).toBe(
      "BOOKING_IN_THE_PAST"
    )
  })
  it("accepts a start at now when no notice is required", () => {
    expect(codeOf(stateOf(parking0()), period("2026-03-23T09:00:00+01:00", "2026-03-23T10:00:00+01:00"))).toBe("OK")
  })
  it("refuses a stay whose check-in time has passed", () => {
    expect(codeOf(flatState(), stay("2026-03-22", "2026-03-24"))).toBe("BOOKING_IN_THE_PAST")
  })
})

// The parking space's rules with Stockholm's clock, so NOW reads the same wall time.
function parking0(): BookableResource {
  return { ...room, priceRules: [{ ...room.priceRules[0]!, window: { from: "00:00", to: "24:00" }, weekdays: [1, 2, 3, 4, 5, 6, 7] }], minimumNoticeMinutes: 0, openingHours: { weekly: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday: weekday as 1, opens: "00:00", closes: "24:00" })), closures: [] } }
}

describe("BOOKING_NOTICE_TOO_SHORT", () => {
  it("refuses a start sooner than the minimum notice (45 of 60 minutes)", () => {
    const refusal = getLeft(checkBooking(roomState(), period("2026-03-23T09:45:00+01:00", "2026-03-23T10:45:00+01:00"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_NOTICE_TOO_SHORT", status: 400, minimumNoticeMinutes: 60 })
  })
  it("accepts a start exactly the minimum notice away", () => {
    expect(codeOf(roomState(), period("2026-03-23T10:00:00+01:00", "2026-03-23T11:00:00+01:00"))).toBe("OK")
  })
})

describe("BOOKING_HORIZON_EXCEEDED", () => {
  it("refuses a start on the local date after today + horizonDays (2026-03-23 + 90 = 2026-06-21)", () => {
    const refusal = getLeft(checkBooking(roomState(), period("2026-06-22T10:00:00+02:00", "2026-06-22T11:00:00+02:00"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_HORIZON_EXCEEDED", horizonDays: 90, lastDate: "2026-06-21" })
  })
  it("accepts a start on the last local date of the horizon", () => {
    const open = { ...parking0(), horizonDays: 90 }
    expect(codeOf(stateOf(open), period("2026-06-21T23:00:00+02:00", "2026-06-22T01:00:00+02:00"))).toBe("OK")
  })
  it("counts the horizon in the resource's local dates: 00:30 local on the next date is outside", () => {
    const open = { ...parking0(), horizonDays: 90 }
    expect(codeOf(stateOf(open), period("2026-06-22T00:30:00+02:00", "2026-06-22T01:30:00+02:00"))).toBe(
      "BOOKING_HORIZON_EXCEEDED"
    )
  })
})

describe("BOOKING_START_NOT_ON_INCREMENT", () => {
  it("refuses a start off the 15-minute grid", () => {
    expect(codeOf(roomState(), period("2026-03-24T10:10:00+01:00", "2026-03-24T11:10:00+01:00"))).toBe(
      "BOOKING_START_NOT_ON_INCREMENT"
    )
  })
  it("refuses a start with seconds", () => {
    expect(codeOf(roomState(), period("2026-03-24T10:00:30+01:00", "2026-03-24T11:00:30+01:00"))).toBe(
      "BOOKING_START_NOT_ON_INCREMENT"
    )
  })
  it("reads the grid on the local wall clock (Kathmandu, UTC+05:45)", () => {
    const kathmandu = { ...parking0(), timeZone: "Asia/Kathmandu", startIncrementMinutes: 60 }
    expect(codeOf(stateOf(kathmandu), period("2026-03-24T10:00:00+05:45", "2026-03-24T11:00:00+05:45"))).toBe("OK")
    expect(codeOf(stateOf(kathmandu), period("2026-03-24T04:00:00Z", "2026-03-24T05:00:00Z"))).toBe(
      "BOOKING_START_NOT_ON_INCREMENT"
    )
  })
})

describe("BOOKING_DURATION_*", () => {
  it("refuses a booking shorter than the minimum (15 of 30 minutes)", () => {
    const refusal = getLeft(checkBooking(roomState(), period("2026-03-24T10:00:00+01:00", "2026-03-24T10:15:00+01:00"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_DURATION_TOO_SHORT", minDurationMinutes: 30, durationMinutes: 15 })
  })
  it("refuses an end equal to the start as too short", () => {
    expect(codeOf(roomState(), period(GOOD[0], GOOD[0]))).toBe("BOOKING_DURATION_TOO_SHORT")
  })
  it("refuses an end before the start as too short", () => {
    expect(codeOf(roomState(), period(GOOD[1], GOOD[0]))).toBe("BOOKING_DURATION_TOO_SHORT")
  })
  it("refuses a booking longer than the maximum (540 of 480 minutes)", () => {
    expect(codeOf(roomState(), period("2026-03-24T08:00:00+01:00", "2026-03-24T17:00:00+01:00"))).toBe("BOOKING_DURATION_TOO_LONG")
  })
  it("refuses a duration off the 15-minute increment", () => {
    expect(codeOf(roomState(), period("2026-03-24T10:00:00+01:00", "2026-03-24T10:40:00+01:00"))).toBe(
      "BOOKING_DURATION_NOT_ON_INCREMENT"
    )
  })
  it("refuses an end with seconds as off the increment", () => {
    expect(codeOf(roomState(), period("2026-03-24T10:00:00+01:00", "2026-03-24T10:45:01+01:00"))).toBe(
      "BOOKING_DURATION_NOT_ON_INCREMENT"
    )
  })
  it("accepts the minimum and the maximum", () => {
    expect(codeOf(roomState(), period("2026-03-24T10:00:00+01:00", "2026-03-24T10:30:00+01:00"))).toBe("OK")
    expect(codeOf(roomState(), period("2026-03-24T08:00:00+01:00", "2026-03-24T16:00:00+01:00"))).toBe("OK")
  })
  it("measures elapsed time across a DST change (01:00–04:00 on 29 March in Stockholm is 2 hours)", () => {
    const twoHoursOnly = { ...parking0(), minDurationMinutes: 60, maxDurationMinutes: 120, horizonDays: 365 }
    expect(codeOf(stateOf(twoHoursOnly), period("2026-03-29T01:00:00+01:00", "2026-03-29T04:00:00+02:00"))).toBe("OK")
    expect(codeOf(stateOf(twoHoursOnly), period("2026-10-25T01:00:00+02:00", "2026-10-25T03:00:00+01:00"))).toBe(
      "BOOKING_DURATION_TOO_LONG"
    )
  })
})

describe("BOOKING_STAY_TOO_SHORT / _TOO_LONG", () => {
  it("refuses fewer nights than the minimum", () => {
    const refusal = getLeft(checkBooking(flatState({ ...flat, nightStays: { ...flat.nightStays!, minNights: 2 } }), stay("2026-03-24", "2026-03-25"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_STAY_TOO_SHORT", minNights: 2, nights: 1 })
  })
  it("refuses more nights than the maximum", () => {
    expect(codeOf(flatState(), stay("2026-03-24", "2026-04-08"))).toBe("BOOKING_STAY_TOO_LONG")
  })
  it("accepts the maximum", () => {
    expect(codeOf(flatState(), stay("2026-03-24", "2026-04-07"))).toBe("OK")
  })
})

describe("BOOKING_OUTSIDE_OPEN_HOURS", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["runs past closing", "2026-03-24T17:30:00+01:00", "2026-03-24T18:30:00+01:00"],
    ["starts before opening", "2026-03-24T07:45:00+01:00", "2026-03-24T08:45:00+01:00"],
    ["on a Saturday", "2026-03-28T10:00:00+01:00", "2026-03-28T11:00:00+01:00"],
    ["on a closure (Good Friday)", "2026-04-03T10:00:00+02:00", "2026-04-03T11:00:00+02:00"],
    ["over the closed night", "2026-03-24T16:00:00+01:00", "2026-03-25T09:00:00+01:00"]
  ]
  for (const [why, start, end] of cases) {
    it(`refuses a booking that ${why}`, () => {
      const resource = { ...room, maxDurationMinutes: 24 * 60 }
      expect(codeOf(stateOf(resource), period(start, end))).toBe("BOOKING_OUTSIDE_OPEN_HOURS")
    })
  }
  it("accepts opening to closing", () => {
    const resource = { ...room, maxDurationMinutes: 600 }
    expect(codeOf(stateOf(resource), period("2026-03-24T08:00:00+01:00", "2026-03-24T18:00:00+01:00"))).toBe("OK")
  })
  it("joins opening hours across midnight (22:00–24:00 and 00:00–02:00)", () => {
    const night = {
      ...parking0(),
      openingHours: {
        weekly: [
          { weekday: 2 as const, opens: "22:00", closes: "24:00" },
          { weekday: 3 as const, opens: "00:00", closes: "02:00" }
        ],
        closures: []
      }
    }
    expect(codeOf(stateOf(night), period("2026-03-24T23:00:00+01:00", "2026-03-25T01:00:00+01:00"))).toBe("OK")
  })
})

describe("BOOKING_BUFFER_CONFLICT and BOOKING_SLOT_TAKEN", () => {
  // Another booking holds Tuesday 10:00–11:00; the room needs 15 minutes after each booking.
  const taken = roomState([{ start: at("2026-03-24T10:00:00+01:00"), end: at("2026-03-24T11:00:00+01:00") }])
  it("refuses a booking starting when the other ends (no clearing time)", () => {
    const refusal = getLeft(checkBooking(taken, period("2026-03-24T11:00:00+01:00", "2026-03-24T12:00:00+01:00"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_BUFFER_CONFLICT", status: 400, bufferAfterMinutes: 15 })
  })
  it("refuses a booking ending when the other starts (its own clearing time)", () => {
    expect(codeOf(taken, period("2026-03-24T09:00:00+01:00", "2026-03-24T10:00:00+01:00"))).toBe("BOOKING_BUFFER_CONFLICT")
  })
  it("accepts a booking that leaves the buffer", () => {
    expect(codeOf(taken, period("2026-03-24T11:15:00+01:00", "2026-03-24T12:15:00+01:00"))).toBe("OK")
    expect(codeOf(taken, period("2026-03-24T08:45:00+01:00", "2026-03-24T09:45:00+01:00"))).toBe("OK")
  })
  it("refuses an overlapping booking with 409", () => {
    const refusal = getLeft(checkBooking(taken, period("2026-03-24T10:30:00+01:00", "2026-03-24T11:30:00+01:00"), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_SLOT_TAKEN", status: 409 })
  })
  it("refuses the same period as taken", () => {
    expect(codeOf(taken, period("2026-03-24T10:00:00+01:00", "2026-03-24T11:00:00+01:00"))).toBe("BOOKING_SLOT_TAKEN")
  })
  it("answers the buffer before the overlap when a booking hits both", () => {
    const two = roomState([
      { start: at("2026-03-24T09:00:00+01:00"), end: at("2026-03-24T10:00:00+01:00") },
      { start: at("2026-03-24T11:00:00+01:00"), end: at("2026-03-24T12:00:00+01:00") }
    ])
    expect(codeOf(two, period("2026-03-24T10:00:00+01:00", "2026-03-24T11:30:00+01:00"))).toBe("BOOKING_BUFFER_CONFLICT")
  })
})

describe("BOOKING_ADD_ON_* (line by line)", () => {
  const booking = (...lines: Parameters<typeof period>[2] & object) => period(GOOD[0], GOOD[1], lines)
  it("refuses more than 20 lines", () => {
    const lines = Array.from({ length: 21 }, () => line(projectorNoCutOff, "2026-03-24T10:00:00+01:00"))
    expect(getLeft(checkBooking(roomState(), booking(...lines), NOW))).toMatchObject({
      code: "BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED",
      limit: 20
    })
  })
  it("refuses a product the resource does not offer", () => {
    const refusal = getLeft(checkBooking(stateOf(room, [lunch]), booking(line(projectorNoCutOff, "2026-03-24T10:00:00+01:00")), NOW))
    expect(refusal).toMatchObject({ code: "BOOKING_ADD_ON_NOT_OFFERED", line: 0, addOnProductId: projectorNoCutOff.id })
  })
  it("refuses a retired product", () => {
    expect(codeOf(roomState(), booking(line(retiredCoffee, "2026-03-24T10:00:00+01:00")))).toBe("BOOKING_ADD_ON_PRODUCT_RETIRED")
  })
  it("refuses a line above the product's quantity limit", () => {
    expect(getLeft(checkBooking(roomState(), booking(line(projectorNoCutOff, "2026-03-24T10:00:00+01:00", 3)), NOW))).toMatchObject({
      code: "BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED",
      line: 0,
      limit: 2
    })
  })
  it("refuses special portions on a product without them", () => {
    expect(codeOf(roomState(), booking(line(projectorNoCutOff, "2026-03-24T10:00:00+01:00", 1, [{ label: "vegan", quantity: 1 }])))).toBe(
      "BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID"
    )
  })
  it("refuses more special portions than the line's quantity", () => {
    const portions = [{ label: "vegetarian", quantity: 3 }, { label: "gluten-free", quantity: 2 }]
    expect(codeOf(roomState(), booking(line(lunch, "2026-03-24T11:00:00+01:00", 4, portions)))).toBe(
      "BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID"
    )
  })
  it("refuses a special-portion label given twice", () => {
    const portions = [{ label: "vegetarian", quantity: 1 }, { label: "vegetarian", quantity: 1 }]
    expect(codeOf(roomState(), booking(line(lunch, "2026-03-24T11:00:00+01:00", 4, portions)))).toBe(
      "BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID"
    )
  })
  it("refuses a delivery before the booking starts", () => {
    expect(codeOf(roomState(), booking(line(projectorNoCutOff, "2026-03-24T09:45:00+01:00")))).toBe(
      "BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING"
    )
  })
  it("refuses a delivery at the booking's end", () => {
    expect(codeOf(roomState(), booking(line(projectorNoCutOff, GOOD[1])))).toBe("BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING")
  })
  it("refuses a delivery outside the product's delivery hours (lunch at 10:30)", () => {
    expect(codeOf(roomState(), booking(line(lunch, "2026-03-24T10:30:00+01:00")))).toBe(
      "BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY"
    )
  })
  it("refuses a delivery sooner than the lead time", () => {
    const slowLunch = { ...lunch, leadTimeMinutes: 48 * 60 }
    expect(getLeft(checkBooking(stateOf(room, [slowLunch]), booking(line(slowLunch, "2026-03-24T11:00:00+01:00")), NOW))).toMatchObject({
      code: "BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT",
      leadTimeMinutes: 2880
    })
  })
  it("refuses an order after the cut-off (14:00 the day before)", () => {
    const noLead = { ...lunch, leadTimeMinutes: 0 }
    const refusal = getLeft(
      checkBooking(stateOf(room, [noLead]), booking(line(noLead, "2026-03-24T11:00:00+01:00")), at("2026-03-23T14:01:00+01:00"))
    )
    expect(refusal).toMatchObject({ code: "BOOKING_ADD_ON_CUTOFF_PASSED", deadline: at("2026-03-23T14:00:00+01:00") })
  })
  it("accepts an order at the cut-off", () => {
    const noLead = { ...lunch, leadTimeMinutes: 0 }
    expect(codeOf(stateOf(room, [noLead]), booking(line(noLead, "2026-03-24T11:00:00+01:00")), at("2026-03-23T14:00:00+01:00"))).toBe("OK")
  })
  it("answers the first failing line", () => {
    const refusal = getLeft(
      checkBooking(roomState(), booking(line(projectorNoCutOff, "2026-03-24T10:00:00+01:00"), line(lunch, "2026-03-24T10:30:00+01:00"), line(retiredCoffee, GOOD[0])), NOW)
    )
    expect(refusal).toMatchObject({ code: "BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY", line: 1 })
  })
})

describe("BOOKING_PRICE_RULE_AMBIGUOUS / _NOT_APPLICABLE", () => {
  it("refuses when two hourly rules claim the same time", () => {
    const resource = { ...room, priceRules: [...room.priceRules, { ...room.priceRules[0]!, id: "dup", window: { from: "11:00", to: "13:00" } }] }
    expect(getLeft(checkBooking(stateOf(resource), period(GOOD[0], GOOD[1]), NOW))).toMatchObject({
      code: "BOOKING_PRICE_RULE_AMBIGUOUS",
      localDate: "2026-03-24",
      unit: "hour"
    })
  })
  it("refuses when two day rules both contain the booking", () => {
    const resource = { ...room, priceRules: [...room.priceRules, { ...room.priceRules[3]!, id: "day-2" }] }
    expect(codeOf(stateOf(resource), period(GOOD[0], GOOD[1]))).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
  })
  it("refuses when two night rules price the same weekday", () => {
    const resource = { ...flat, priceRules: [...flat.priceRules, { ...flat.priceRules[0]!, id: "n-dup", weekdays: [2 as const] }] }
    expect(codeOf(flatState(resource), stay("2026-03-24", "2026-03-25"))).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
  })
  it("refuses a day no rule prices (open on Friday, rules Monday–Thursday)", () => {
    const resource = { ...room, priceRules: room.priceRules.map((rule) => ({ ...rule, weekdays: WEEKDAYS.slice(0, 4) })) }
    expect(getLeft(checkBooking(stateOf(resource), period("2026-03-27T10:00:00+01:00", "2026-03-27T11:00:00+01:00"), NOW))).toMatchObject({
      code: "BOOKING_PRICE_RULE_NOT_APPLICABLE",
      localDate: "2026-03-27"
    })
  })
  it("refuses time only partly covered by hourly rules and by no flat rule", () => {
    const resource = { ...room, priceRules: [room.priceRules[0]!] }
    expect(codeOf(stateOf(resource), period("2026-03-24T16:00:00+01:00", "2026-03-24T18:00:00+01:00"))).toBe(
      "BOOKING_PRICE_RULE_NOT_APPLICABLE"
    )
  })
  it("refuses a night no rule prices", () => {
    const resource = { ...flat, priceRules: [flat.priceRules[0]!] }
    expect(codeOf(flatState(resource), stay("2026-03-26", "2026-03-28"))).toBe("BOOKING_PRICE_RULE_NOT_APPLICABLE")
  })
})

describe("BOOKING_RESOURCE_CURRENCY_MISMATCH", () => {
  it("refuses a request in another currency than the resource's", () => {
    expect(getLeft(checkBooking(roomState(), { ...period(GOOD[0], GOOD[1]), currency: "NOK" }, NOW))).toMatchObject({
      code: "BOOKING_RESOURCE_CURRENCY_MISMATCH",
      resourceCurrency: "SEK",
      currency: "NOK"
    })
  })
  it("refuses an add-on product priced in another currency", () => {
    const norwegian = { ...projectorNoCutOff, currency: "NOK" as const }
    expect(codeOf(stateOf(room, [norwegian]), period(GOOD[0], GOOD[1], [line(norwegian, GOOD[0])]))).toBe(
      "BOOKING_RESOURCE_CURRENCY_MISMATCH"
    )
  })
  it("accepts the resource's own currency", () => {
    expect(codeOf(roomState(), { ...period(GOOD[0], GOOD[1]), currency: "SEK" })).toBe("OK")
  })
})

describe("the order of the checks", () => {
  it("lists every code once", () => {
    expect(new Set(CHECK_ORDER).size).toBe(CHECK_ORDER.length)
  })
  const cases: ReadonlyArray<readonly [string, BookingState, BookingCommand, string]> = [
    ["past and outside hours and taken", roomState([{ start: at("2026-03-21T10:00:00+01:00"), end: at("2026-03-21T12:00:00+01:00") }]), period("2026-03-21T10:00:00+01:00", "2026-03-21T11:07:00+01:00"), "BOOKING_IN_THE_PAST"],
    ["short notice and off the grid", roomState(), period("2026-03-23T09:10:00+01:00", "2026-03-23T09:20:00+01:00"), "BOOKING_NOTICE_TOO_SHORT"],
    ["beyond the horizon and off the grid", roomState(), period("2026-07-01T10:10:00+02:00", "2026-07-01T10:20:00+02:00"), "BOOKING_HORIZON_EXCEEDED"],
    ["off the grid and too short", roomState(), period("2026-03-24T10:10:00+01:00", "2026-03-24T10:20:00+01:00"), "BOOKING_START_NOT_ON_INCREMENT"],
    ["too short and outside hours", roomState(), period("2026-03-28T10:00:00+01:00", "2026-03-28T10:15:00+01:00"), "BOOKING_DURATION_TOO_SHORT"],
    ["outside hours and taken", roomState([{ start: at("2026-03-24T17:00:00+01:00"), end: at("2026-03-24T18:00:00+01:00") }]), period("2026-03-24T17:00:00+01:00", "2026-03-24T19:00:00+01:00"), "BOOKING_OUTSIDE_OPEN_HOURS"],
    ["taken and a bad add-on", roomState([{ start: at(GOOD[0]), end: at(GOOD[1]) }]), period(GOOD[0], GOOD[1], [line(retiredCoffee, GOOD[0])]), "BOOKING_SLOT_TAKEN"],
    ["a bad add-on and the wrong currency", roomState(), { ...period(GOOD[0], GOOD[1], [line(retiredCoffee, GOOD[0])]), currency: "EUR" }, "BOOKING_ADD_ON_PRODUCT_RETIRED"],
    ["no price and the wrong currency", stateOf({ ...room, priceRules: [] }), { ...period(GOOD[0], GOOD[1]), currency: "EUR" }, "BOOKING_PRICE_RULE_NOT_APPLICABLE"]
  ]
  for (const [why, state, command, code] of cases) {
    it(`answers ${code} first for a booking ${why}`, () => {
      expect(codeOf(state, command)).toBe(code)
    })
  }
})

describe("a booking that passes", () => {
  it("holds its period, widened by the buffers, and prices it with its add-ons", () => {
    const checked = getRight(
      checkBooking(
        roomState(),
        period(GOOD[0], GOOD[1], [line(lunch, "2026-03-24T11:00:00+01:00", 10, [{ label: "vegetarian", quantity: 2 }])]),
        NOW
      )
    )
    expect(checked.start).toStrictEqual(at(GOOD[0]))
    expect(checked.end).toStrictEqual(at(GOOD[1]))
    expect(checked.blockedStart).toStrictEqual(at(GOOD[0]))
    expect(checked.blockedEnd).toStrictEqual(at("2026-03-24T12:15:00+01:00"))
    expect(checked.price).toMatchObject({
      currency: "SEK",
      totalNetMinorUnits: 245_000,
      totalVatMinorUnits: 42_400,
      totalGrossMinorUnits: 287_400,
      vatRates: [
        { vatRateBasisPoints: 2500, netMinorUnits: 100_000, vatMinorUnits: 25_000, grossMinorUnits: 125_000 },
        { vatRateBasisPoints: 1200, netMinorUnits: 145_000, vatMinorUnits: 17_400, grossMinorUnits: 162_400 }
      ]
    })
    expect(checked.price.lines.map((l) => [l.kind, l.description, l.netMinorUnits])).toStrictEqual([
      ["resource", "Hourly, daytime", 100_000],
      ["add-on", "Lunch buffet", 145_000]
    ])
  })
  it("holds a stay from check-in time to check-out time and counts its nights", () => {
    const checked = getRight(checkBooking(flatState(), stay("2026-03-27", "2026-03-30"), NOW))
    expect(checked.start).toStrictEqual(at("2026-03-27T15:00:00+01:00"))
    expect(checked.end).toStrictEqual(at("2026-03-30T11:00:00+02:00"))
    expect(checked.nights).toBe(3)
  })
})
