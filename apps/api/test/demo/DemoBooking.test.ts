import { describe, expect, it } from "@effect/vitest"
import { checkBooking } from "@propline/booking/BookingCheck"
import { Either } from "effect"
import { Temporal } from "temporal-polyfill"
import { BOOKING_DEMO_IDS, demoBooking, demoBookingCatalog } from "../../src/demo/booking/DemoBooking.js"
import { demoTimeline } from "../../src/demo/DemoIds.js"

describe("the booking demo", () => {
  const { resources, products, offers } = demoBookingCatalog()

  it("has rooms, desks and parking in Stockholm and in Oslo", () => {
    const byZone = (zone: string) => new Set(resources.filter((r) => r.timeZone === zone).map((r) => r.kind))
    expect(byZone("Europe/Stockholm")).toEqual(new Set(["room", "desk", "parking"]))
    expect(byZone("Europe/Oslo")).toEqual(new Set(["room", "desk", "parking"]))
    expect(resources.some((r) => r.nightStays !== undefined)).toBe(true)
  })

  it("prices a weekday lunch meeting in the Slussen room with catering", () => {
    const room = resources.find((r) => r.id === BOOKING_DEMO_IDS.roomSlussen)!
    const offered = products.filter((p) => offers.find(([id]) => id === room.id)?.[1].includes(p.id))
    const date = Temporal.PlainDate.from("2026-12-09") // a Wednesday
    const at = (time: string) => new Date(date.toPlainDateTime(Temporal.PlainTime.from(time)).toZonedDateTime(room.timeZone).epochMilliseconds)
    const checked = checkBooking(
      { resource: room, offeredAddOns: offered, otherBookings: [] },
      {
        time: { _tag: "Period", start: at("10:00"), end: at("13:00") },
        addOns: [{ addOnProductId: BOOKING_DEMO_IDS.lunchStockholm, quantity: 6, deliverAt: at("12:00"), specialPortions: [{ label: "vegetarian", quantity: 2 }] }]
      },
      new Date("2026-12-01T09:00:00Z")
    )
    expect(Either.isRight(checked) && checked.right.price.totalGrossMinorUnits).toBe(3 * 45_000 * 1.25 + 6 * 14_500 * 1.12)
  })

  it("writes one row per resource, rule, product and offer", () => {
    const plan = demoBooking(demoTimeline(new Date("2026-11-22T10:00:00Z")))
    expect(plan.bookingResources).toHaveLength(resources.length)
    expect(plan.bookingPriceRules).toHaveLength(resources.reduce((n, r) => n + r.priceRules.length, 0))
    expect(plan.bookingAddOnProducts).toHaveLength(products.length)
    expect(plan.bookingResourceAddOnProducts).toHaveLength(offers.reduce((n, [, ids]) => n + ids.length, 0))
  })
})
