/**
 * The booking part of the demo (spec 4.2 Booking; decisions 7): rooms, desks and parking at Nordhavn's Stockholm
 * Slussen and Oslo Bjørvika properties, each in its own time zone, with price rules (hourly with an evening rate,
 * half days, days, nights) and add-on products (catering with lead time, cut-off and special portions;
 * equipment). Every resource and product passes the operator's setup checks (`@propline/booking/ResourceSetup`),
 * so the demo can't hold what an operator could not set up. The demo Application may sell all of them.
 */
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource, IsoWeekday, PriceRule } from "@propline/booking/Resource"
import { addOnProductSetupIssues, checkResourceSetup, resourceSetupIssues } from "@propline/booking/ResourceSetup"
import type {
  BookingAddOnProductTable,
  BookingPriceRuleTable,
  BookingResourceAddOnProductTable,
  BookingResourceTable
} from "@propline/db/Database"
import type { Insertable } from "kysely"
import { addOnProductRow, resourceRows } from "../../booking/ResourceRepository.js"
import { DEMO_IDS, type DemoTimeline, demoId, orDie } from "../DemoIds.js"
import { nordhavnContextId } from "../tenancy/DemoTenancy.js"

/** Every row of the booking demo, per table. */
export interface DemoBookingPlan {
  readonly bookingResources: ReadonlyArray<Insertable<BookingResourceTable>>
  readonly bookingPriceRules: ReadonlyArray<Insertable<BookingPriceRuleTable>>
  readonly bookingAddOnProducts: ReadonlyArray<Insertable<BookingAddOnProductTable>>
  readonly bookingResourceAddOnProducts: ReadonlyArray<Insertable<BookingResourceAddOnProductTable>>
}

/** Ids of the booking demo's notable records (name-based, stable across databases). */
export const BOOKING_DEMO_IDS = {
  roomSlussen: demoId("booking:resource:sthlm:room-slussen"),
  roomSaltsjon: demoId("booking:resource:sthlm:room-saltsjon"),
  deskSlussen: demoId("booking:resource:sthlm:desk-12"),
  parkingSlussen: demoId("booking:resource:sthlm:parking-p3"),
  roomFjorden: demoId("booking:resource:oslo:room-fjorden"),
  deskBjorvika: demoId("booking:resource:oslo:desk-4"),
  garageBjorvika: demoId("booking:resource:oslo:garage-g1"),
  lunchStockholm: demoId("booking:add-on:sthlm:lunch"),
  fikaStockholm: demoId("booking:add-on:sthlm:fika"),
  projectorStockholm: demoId("booking:add-on:sthlm:projector"),
  lunchOslo: demoId("booking:add-on:oslo:lunch"),
  projectorOslo: demoId("booking:add-on:oslo:projector")
} as const

const WEEKDAYS: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5]
const EVERY_DAY: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5, 6, 7]
const office = (opens: string, closes: string) => WEEKDAYS.map((weekday) => ({ weekday, opens, closes }))
const aroundTheClock = EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" }))

const rule = (
  key: string,
  name: string,
  unit: PriceRule["unit"],
  amountMinorUnits: number,
  vatRateBasisPoints: number,
  weekdays: ReadonlyArray<IsoWeekday>,
  window?: { readonly from: string; readonly to: string }
): PriceRule => ({
  id: demoId(`booking:rule:${key}`),
  name,
  unit,
  amountMinorUnits,
  vatRateBasisPoints,
  weekdays,
  ...(window === undefined ? {} : { window })
})

const meetingRoom = {
  kind: "room",
  minDurationMinutes: 30,
  maxDurationMinutes: 600,
  durationIncrementMinutes: 15,
  startIncrementMinutes: 15,
  minimumNoticeMinutes: 60,
  horizonDays: 90,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 15,
  holdMinutes: 24 * 60
} as const

const desk = {
  kind: "desk",
  capacity: 1,
  minDurationMinutes: 60,
  maxDurationMinutes: 600,
  durationIncrementMinutes: 60,
  startIncrementMinutes: 60,
  minimumNoticeMinutes: 0,
  horizonDays: 30,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  holdMinutes: 4 * 60
} as const

/** The demo's resources and products as domain records (what an operator would set up). */
export const demoBookingCatalog = (): {
  readonly resources: ReadonlyArray<BookableResource>
  readonly products: ReadonlyArray<AddOnProduct>
  readonly offers: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
} => {
  const organizationId = DEMO_IDS.organization
  const sthlm = { organizationId, operationalContextId: nordhavnContextId("sthlm"), timeZone: "Europe/Stockholm", currency: "SEK" } as const
  const oslo = { organizationId, operationalContextId: nordhavnContextId("oslo"), timeZone: "Europe/Oslo", currency: "NOK" } as const
  const ids = BOOKING_DEMO_IDS
  const resources: ReadonlyArray<BookableResource> = [
    {
      ...sthlm,
      ...meetingRoom,
      id: ids.roomSlussen,
      name: "Mötesrum Slussen",
      description: "Eight seats, screen and whiteboard, view over Saltsjön.",
      capacity: 8,
      openingHours: { weekly: office("07:00", "19:00"), closures: [] },
      priceRules: [
        rule("slussen:hour", "Timpris dagtid", "hour", 45_000, 2500, WEEKDAYS, { from: "07:00", to: "17:00" }),
        rule("slussen:evening", "Timpris kväll", "hour", 35_000, 2500, WEEKDAYS, { from: "17:00", to: "19:00" }),
        rule("slussen:morning", "Halvdag förmiddag", "half-day", 140_000, 2500, WEEKDAYS, { from: "07:00", to: "12:00" }),
        rule("slussen:afternoon", "Halvdag eftermiddag", "half-day", 140_000, 2500, WEEKDAYS, { from: "12:00", to: "17:00" }),
        rule("slussen:day", "Heldag", "day", 250_000, 2500, WEEKDAYS, { from: "07:00", to: "19:00" })
      ]
    },
    {
      ...sthlm,
      ...meetingRoom,
      id: ids.roomSaltsjon,
      name: "Konferensrum Saltsjön",
      description: "Twenty seats for board meetings and workshops.",
      capacity: 20,
      minDurationMinutes: 60,
      bufferBeforeMinutes: 15,
      bufferAfterMinutes: 30,
      openingHours: { weekly: office("08:00", "18:00"), closures: [] },
      priceRules: [
        rule("saltsjon:hour", "Timpris", "hour", 90_000, 2500, WEEKDAYS, { from: "08:00", to: "18:00" }),
        rule("saltsjon:session", "Workshoppass 09–12", "session", 220_000, 2500, WEEKDAYS, { from: "09:00", to: "12:00" }),
        rule("saltsjon:day", "Heldag", "day", 550_000, 2500, WEEKDAYS)
      ]
    },
    {
      ...sthlm,
      ...desk,
      id: ids.deskSlussen,
      name: "Skrivbord 12",
      openingHours: { weekly: office("07:00", "19:00"), closures: [] },
      priceRules: [
        rule("desk12:hour", "Timpris", "hour", 6_000, 2500, WEEKDAYS),
        rule("desk12:day", "Dagspass", "day", 29_000, 2500, WEEKDAYS)
      ]
    },
    {
      ...sthlm,
      id: ids.parkingSlussen,
      kind: "parking",
      name: "Parkering P3",
      capacity: 1,
      openingHours: { weekly: aroundTheClock, closures: [] },
      minDurationMinutes: 60,
      maxDurationMinutes: 7 * 24 * 60,
      durationIncrementMinutes: 30,
      startIncrementMinutes: 30,
      minimumNoticeMinutes: 30,
      horizonDays: 60,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      holdMinutes: 60,
      priceRules: [
        rule("p3:hour", "Timtaxa", "hour", 3_000, 2500, EVERY_DAY),
        rule("p3:day", "Dygnstak", "day", 25_000, 2500, EVERY_DAY)
      ]
    },
    {
      ...oslo,
      ...meetingRoom,
      id: ids.roomFjorden,
      name: "Møterom Fjorden",
      description: "Ten seats by the Opera, video conferencing.",
      capacity: 10,
      openingHours: { weekly: office("08:00", "18:00"), closures: [] },
      priceRules: [
        rule("fjorden:hour", "Timepris", "hour", 60_000, 2500, WEEKDAYS, { from: "08:00", to: "18:00" }),
        rule("fjorden:day", "Heldag", "day", 380_000, 2500, WEEKDAYS)
      ]
    },
    {
      ...oslo,
      ...desk,
      id: ids.deskBjorvika,
      name: "Skrivebord 4",
      openingHours: { weekly: office("07:00", "20:00"), closures: [] },
      priceRules: [rule("desk4:day", "Dagspass", "day", 35_000, 2500, WEEKDAYS)]
    },
    {
      ...oslo,
      id: ids.garageBjorvika,
      kind: "parking",
      name: "Garasjeplass G1",
      description: "Indoor space with charger, sold by the night.",
      capacity: 1,
      openingHours: { weekly: aroundTheClock, closures: [] },
      minDurationMinutes: 60,
      maxDurationMinutes: 60,
      durationIncrementMinutes: 60,
      startIncrementMinutes: 60,
      minimumNoticeMinutes: 0,
      horizonDays: 120,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      holdMinutes: 12 * 60,
      nightStays: { checkInTime: "17:00", checkOutTime: "09:00", minNights: 1, maxNights: 14 },
      priceRules: [
        rule("g1:weeknight", "Natt, søn–tor", "night", 15_000, 2500, [7, 1, 2, 3, 4]),
        rule("g1:weekend", "Natt, fre–lør", "night", 10_000, 2500, [5, 6])
      ]
    }
  ]
  const product = (fields: Omit<AddOnProduct, "organizationId" | "retired" | "deliveryHours"> & Partial<AddOnProduct>): AddOnProduct => ({
    organizationId,
    retired: false,
    deliveryHours: [],
    ...fields
  })
  const products: ReadonlyArray<AddOnProduct> = [
    product({
      id: ids.lunchStockholm,
      operationalContextId: nordhavnContextId("sthlm"),
      name: "Lunchbuffé",
      description: "Seasonal buffet from the house kitchen; vegetarian and allergy portions on request.",
      category: "catering",
      currency: "SEK",
      unitPriceMinorUnits: 14_500,
      vatRateBasisPoints: 1200,
      leadTimeMinutes: 24 * 60,
      cutOff: { daysBefore: 1, time: "14:00" },
      maxQuantityPerLine: 40,
      specialPortions: true,
      deliveryHours: office("11:00", "14:00")
    }),
    product({
      id: ids.fikaStockholm,
      operationalContextId: nordhavnContextId("sthlm"),
      name: "Fika",
      description: "Coffee, tea and a cinnamon bun.",
      category: "catering",
      currency: "SEK",
      unitPriceMinorUnits: 6_500,
      vatRateBasisPoints: 1200,
      leadTimeMinutes: 4 * 60,
      maxQuantityPerLine: 40,
      specialPortions: true,
      deliveryHours: office("08:00", "16:00")
    }),
    product({
      id: ids.projectorStockholm,
      operationalContextId: nordhavnContextId("sthlm"),
      name: "Projektor",
      category: "equipment",
      currency: "SEK",
      unitPriceMinorUnits: 30_000,
      vatRateBasisPoints: 2500,
      leadTimeMinutes: 60,
      maxQuantityPerLine: 2,
      specialPortions: false
    }),
    product({
      id: ids.lunchOslo,
      operationalContextId: nordhavnContextId("oslo"),
      name: "Lunsj",
      category: "catering",
      currency: "NOK",
      unitPriceMinorUnits: 19_500,
      vatRateBasisPoints: 1500,
      leadTimeMinutes: 24 * 60,
      cutOff: { daysBefore: 1, time: "12:00" },
      maxQuantityPerLine: 30,
      specialPortions: true,
      deliveryHours: office("11:00", "13:30")
    }),
    product({
      id: ids.projectorOslo,
      operationalContextId: nordhavnContextId("oslo"),
      name: "Projektor",
      category: "equipment",
      currency: "NOK",
      unitPriceMinorUnits: 40_000,
      vatRateBasisPoints: 2500,
      leadTimeMinutes: 60,
      maxQuantityPerLine: 2,
      specialPortions: false
    })
  ]
  const offers: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    [ids.roomSlussen, [ids.lunchStockholm, ids.fikaStockholm, ids.projectorStockholm]],
    [ids.roomSaltsjon, [ids.lunchStockholm, ids.fikaStockholm, ids.projectorStockholm]],
    [ids.roomFjorden, [ids.lunchOslo, ids.projectorOslo]]
  ]
  for (const resource of resources) {
    const issues = resourceSetupIssues(resource)
    if (issues.length > 0) throw new Error(`demo catalog: ${resource.name}: ${JSON.stringify(issues)}`)
    const offered = offers.find(([id]) => id === resource.id)?.[1] ?? []
    orDie(checkResourceSetup(resource, products.filter((p) => offered.includes(p.id))))
  }
  for (const item of products) {
    const issues = addOnProductSetupIssues(item)
    if (issues.length > 0) throw new Error(`demo catalog: ${item.name}: ${JSON.stringify(issues)}`)
  }
  return { resources, products, offers }
}

/** The booking demo's rows, dated at the organizations' setup, one second apart so lists keep catalog order. */
export const demoBooking = (timeline: DemoTimeline): DemoBookingPlan => {
  const { resources, products, offers } = demoBookingCatalog()
  const at = (index: number) => new Date(timeline.setupAt.getTime() + index * 1000)
  const rows = resources.map((resource, index) => resourceRows(resource, at(index)))
  return {
    bookingResources: rows.map((row) => row.resource),
    bookingPriceRules: rows.flatMap((row) => row.priceRules),
    bookingAddOnProducts: products.map((item, index) => addOnProductRow(item, at(index))),
    bookingResourceAddOnProducts: offers.flatMap(([resourceId, productIds]) =>
      productIds.map((addOnProductId, position) => ({ resourceId, addOnProductId, position }))
    )
  }
}
