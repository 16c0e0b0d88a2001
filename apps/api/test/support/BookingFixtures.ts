/**
 * Booking fixtures, set up through the operator service (as the admin console would) on top of an organization
 * fixture: a meeting room in Stockholm (Mon–Fri 08–18), a parking space open around the clock in Oslo, a guest
 * flat in Oslo sold by the night, their add-on products, and an Application allowed to sell them. Dates are
 * computed from the real clock (the product runs on it), in the resources' own time zones.
 */
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource, IsoWeekday } from "@propline/booking/Resource"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Temporal } from "temporal-polyfill"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import type { OrganizationFixture } from "./Fixtures.js"

const WEEKDAYS: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5]
const EVERY_DAY: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5, 6, 7]
export const OPERATOR = { type: "operator", id: "test-operator" } as const

export interface BookingFixture {
  readonly room: BookableResource
  readonly parking: BookableResource
  readonly flat: BookableResource
  /** Open on Saturdays but priced Monday to Friday only. */
  readonly unpriced: BookableResource
  readonly lunch: AddOnProduct
  readonly projector: AddOnProduct
  readonly retiredCoffee: AddOnProduct
  /** Offered by the parking space: ordered 10 days ahead. */
  readonly valet: AddOnProduct
  /** Offered by the parking space: order by 00:00 three days before. */
  readonly charger: AddOnProduct
  /** A product of the organization no resource offers. */
  readonly unoffered: AddOnProduct
}

export const bookingSetup = (org: OrganizationFixture, applicationIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const operator = yield* BookingOperatorService
    const base = { organizationId: org.organizationId, operationalContextId: org.propertyId }
    const rule = (name: string, unit: "hour" | "half-day" | "day" | "night", amountMinorUnits: number, weekdays: ReadonlyArray<IsoWeekday>, window?: { from: string; to: string }) => ({
      id: randomUUID(),
      name,
      unit,
      amountMinorUnits,
      vatRateBasisPoints: unit === "night" ? 1200 : 2500,
      weekdays,
      ...(window === undefined ? {} : { window })
    })
    const room: BookableResource = {
      ...base,
      id: randomUUID(),
      kind: "room",
      name: "Boardroom",
      timeZone: "Europe/Stockholm",
      capacity: 10,
      currency: "SEK",
      openingHours: { weekly: WEEKDAYS.map((weekday) => ({ weekday, opens: "08:00", closes: "18:00" })), closures: [] },
      minDurationMinutes: 30,
      maxDurationMinutes: 480,
      durationIncrementMinutes: 15,
      startIncrementMinutes: 15,
      minimumNoticeMinutes: 60,
      horizonDays: 90,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 15,
      holdMinutes: 24 * 60,
      priceRules: [
        rule("Hourly, daytime", "hour", 50_000, WEEKDAYS, { from: "08:00", to: "17:00" }),
        rule("Hourly, evening", "hour", 40_000, WEEKDAYS, { from: "17:00", to: "18:00" }),
        rule("Half day, morning", "half-day", 150_000, WEEKDAYS, { from: "08:00", to: "12:00" }),
        rule("Full day", "day", 300_000, WEEKDAYS, { from: "08:00", to: "18:00" })
      ]
    }
    const parking: BookableResource = {
      ...room,
      operationalContextId: org.otherPropertyId,
      id: randomUUID(),
      kind: "parking",
      name: "P-plass 7",
      timeZone: "Europe/Oslo",
      capacity: 1,
      currency: "NOK",
      openingHours: { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" })), closures: [] },
      minDurationMinutes: 60,
      maxDurationMinutes: 7 * 24 * 60,
      durationIncrementMinutes: 30,
      startIncrementMinutes: 30,
      minimumNoticeMinutes: 120,
      bufferAfterMinutes: 0,
      priceRules: [rule("Per hour", "hour", 4_000, EVERY_DAY)]
    }
    const flat: BookableResource = {
      ...parking,
      id: randomUUID(),
      kind: "room",
      name: "Guest flat",
      minimumNoticeMinutes: 0,
      nightStays: { checkInTime: "15:00", checkOutTime: "11:00", minNights: 2, maxNights: 14 },
      priceRules: [rule("Night", "night", 120_000, EVERY_DAY)]
    }
    const unpriced: BookableResource = {
      ...parking,
      id: randomUUID(),
      name: "P-plass 8",
      priceRules: [rule("Weekdays", "hour", 4_000, WEEKDAYS)]
    }
    const product = (fields: Partial<AddOnProduct> & Pick<AddOnProduct, "name">): AddOnProduct => ({
      ...base,
      id: randomUUID(),
      category: "equipment",
      currency: "SEK",
      unitPriceMinorUnits: 30_000,
      vatRateBasisPoints: 2500,
      leadTimeMinutes: 60,
      maxQuantityPerLine: 2,
      specialPortions: false,
      deliveryHours: [],
      retired: false,
      ...fields
    })
    const lunch = product({
      name: "Lunch buffet",
      category: "catering",
      unitPriceMinorUnits: 14_500,
      vatRateBasisPoints: 1200,
      leadTimeMinutes: 24 * 60,
      cutOff: { daysBefore: 1, time: "14:00" },
      maxQuantityPerLine: 30,
      specialPortions: true,
      deliveryHours: WEEKDAYS.map((weekday) => ({ weekday, opens: "11:00", closes: "14:00" }))
    })
    const projector = product({ name: "Projector" })
    const retiredCoffee = product({ name: "Coffee", retired: true })
    const valet = product({ name: "Valet wash", currency: "NOK", leadTimeMinutes: 10 * 24 * 60 })
    const charger = product({ name: "Charger", currency: "NOK", leadTimeMinutes: 0, cutOff: { daysBefore: 3, time: "00:00" } })
    const unoffered = product({ name: "Flowers" })
    for (const resource of [room, parking, flat, unpriced]) yield* operator.setUpResource(OPERATOR, resource)
    for (const item of [lunch, projector, retiredCoffee, valet, charger, unoffered]) yield* operator.setUpAddOnProduct(OPERATOR, item)
    yield* operator.offerAddOnProducts(OPERATOR, org.organizationId, room.id, [lunch.id, projector.id, retiredCoffee.id])
    yield* operator.offerAddOnProducts(OPERATOR, org.organizationId, parking.id, [valet.id, charger.id])
    for (const applicationId of applicationIds) {
      yield* operator.allowApplication(OPERATOR, org.organizationId, applicationId, [room.id, parking.id, flat.id, unpriced.id])
    }
    return { room, parking, flat, unpriced, lunch, projector, retiredCoffee, valet, charger, unoffered } satisfies BookingFixture
  }).pipe(Effect.provide(BookingOperatorService.Default), Effect.orDie)

/** The local date `days` after today in `timeZone`, moved forward to the next `weekday` when given. */
export const localDate = (timeZone: string, days: number, weekday?: IsoWeekday): string => {
  let date = Temporal.Now.plainDateISO(timeZone).add({ days })
  while (weekday !== undefined && date.dayOfWeek !== weekday) date = date.add({ days: 1 })
  return date.toString()
}

/** The instant (ISO 8601 UTC) of a local date and time in `timeZone`. */
export const at = (timeZone: string, date: string, time: string): string =>
  Temporal.PlainDateTime.from(`${date}T${time}`).toZonedDateTime(timeZone).toInstant().toString()

/** Now plus `minutes`, rounded up to the next `step` minutes (UTC; Oslo's offset is whole hours). */
export const soon = (minutes: number, step = 30): string => {
  const ms = step * 60_000
  return new Date(Math.ceil((Date.now() + minutes * 60_000) / ms) * ms).toISOString()
}

export const plusMinutes = (iso: string, minutes: number): string => new Date(Date.parse(iso) + minutes * 60_000).toISOString()
