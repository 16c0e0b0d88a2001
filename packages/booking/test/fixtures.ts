import { Either } from "effect"
import type { AddOnLineCommand, AddOnProduct } from "../src/AddOnProduct.js"
import type { BookingCommand, BookingState } from "../src/BookingCheck.js"
import type { BookableResource, IsoWeekday } from "../src/Resource.js"

export const getRight = <R, L>(either: Either.Either<R, L>): R => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got Left: ${JSON.stringify(either.left)}`)
  return either.right
}

export const getLeft = <R, L>(either: Either.Either<R, L>): L => {
  if (Either.isRight(either)) throw new Error(`expected Left, got Right: ${JSON.stringify(either.right)}`)
  return either.left
}

/** An instant from an ISO string with an offset. */
export const at = (iso: string): Date => new Date(iso)

export const WEEKDAYS: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5]
export const EVERY_DAY: ReadonlyArray<IsoWeekday> = [1, 2, 3, 4, 5, 6, 7]

/** Monday 23 March 2026, 09:00 in Stockholm (CET, UTC+1). */
export const NOW = at("2026-03-23T09:00:00+01:00")

/**
 * A meeting room in Stockholm: Mon–Fri 08:00–18:00, 30 min to 8 h in 15-minute steps, starts every 15 minutes,
 * 60 minutes' notice, 90 days ahead, 15 minutes of clearing after. 500 SEK/h 08–17, 400 SEK/h 17–18,
 * half-day 08–12 for 1 500 SEK, day 08–18 for 3 000 SEK, all at 25 % VAT.
 */
export const room: BookableResource = {
  id: "00000000-0000-4000-8000-000000000001",
  organizationId: "00000000-0000-4000-8000-0000000000aa",
  operationalContextId: "00000000-0000-4000-8000-0000000000bb",
  kind: "room",
  name: "Boardroom Gamla Stan",
  timeZone: "Europe/Stockholm",
  capacity: 12,
  currency: "SEK",
  openingHours: {
    weekly: WEEKDAYS.map((weekday) => ({ weekday, opens: "08:00", closes: "18:00" })),
    closures: [{ fromDate: "2026-04-03", toDate: "2026-04-06" }]
  },
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
    { id: "r-hour-day", name: "Hourly, daytime", unit: "hour", amountMinorUnits: 50_000, vatRateBasisPoints: 2500, weekdays: WEEKDAYS, window: { from: "08:00", to: "17:00" } },
    { id: "r-hour-evening", name: "Hourly, evening", unit: "hour", amountMinorUnits: 40_000, vatRateBasisPoints: 2500, weekdays: WEEKDAYS, window: { from: "17:00", to: "18:00" } },
    { id: "r-half-day", name: "Half day, morning", unit: "half-day", amountMinorUnits: 150_000, vatRateBasisPoints: 2500, weekdays: WEEKDAYS, window: { from: "08:00", to: "12:00" } },
    { id: "r-day", name: "Full day", unit: "day", amountMinorUnits: 300_000, vatRateBasisPoints: 2500, weekdays: WEEKDAYS, window: { from: "08:00", to: "18:00" } }
  ]
}

/** A parking space in Oslo, open around the clock, 100 NOK/h every day, no buffers, no notice. */
export const parking: BookableResource = {
  id: "00000000-0000-4000-8000-000000000002",
  organizationId: room.organizationId,
  operationalContextId: "00000000-0000-4000-8000-0000000000cc",
  kind: "parking",
  name: "P-plass 14",
  timeZone: "Europe/Oslo",
  capacity: 1,
  currency: "NOK",
  openingHours: { weekly: EVERY_DAY.map((weekday) => ({ weekday, opens: "00:00", closes: "24:00" })), closures: [] },
  minDurationMinutes: 60,
  maxDurationMinutes: 7 * 24 * 60,
  durationIncrementMinutes: 60,
  startIncrementMinutes: 30,
  minimumNoticeMinutes: 0,
  horizonDays: 60,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  holdMinutes: 60,
  priceRules: [
    { id: "p-hour", name: "Per hour", unit: "hour", amountMinorUnits: 10_000, vatRateBasisPoints: 2500, weekdays: EVERY_DAY }
  ]
}

/** A guest flat in Oslo, sold by the night: 1 200 NOK Sun–Thu, 1 500 NOK Fri–Sat, 12 % VAT; 1 to 14 nights. */
export const flat: BookableResource = {
  ...parking,
  id: "00000000-0000-4000-8000-000000000003",
  kind: "room",
  name: "Gjesteleilighet",
  capacity: 2,
  minimumNoticeMinutes: 0,
  nightStays: { checkInTime: "15:00", checkOutTime: "11:00", minNights: 1, maxNights: 14 },
  priceRules: [
    { id: "n-week", name: "Night, Sun–Thu", unit: "night", amountMinorUnits: 120_000, vatRateBasisPoints: 1200, weekdays: [7, 1, 2, 3, 4] },
    { id: "n-weekend", name: "Night, Fri–Sat", unit: "night", amountMinorUnits: 150_000, vatRateBasisPoints: 1200, weekdays: [5, 6] }
  ]
}

/** Lunch for the room: 145 SEK a portion at 12 % VAT, delivered 11:00–14:00, 24 h lead time, order by 14:00 the day before. */
export const lunch: AddOnProduct = {
  id: "00000000-0000-4000-8000-0000000000d1",
  organizationId: room.organizationId,
  operationalContextId: room.operationalContextId,
  name: "Lunch buffet",
  category: "catering",
  currency: "SEK",
  unitPriceMinorUnits: 14_500,
  vatRateBasisPoints: 1200,
  leadTimeMinutes: 24 * 60,
  cutOff: { daysBefore: 1, time: "14:00" },
  maxQuantityPerLine: 30,
  specialPortions: true,
  deliveryHours: WEEKDAYS.map((weekday) => ({ weekday, opens: "11:00", closes: "14:00" })),
  retired: false
}

/** A projector: 300 SEK per booking at 25 % VAT, any time, 60 minutes' lead time, at most 2. */
export const projector: AddOnProduct = {
  ...lunch,
  id: "00000000-0000-4000-8000-0000000000d2",
  name: "Projector",
  category: "equipment",
  unitPriceMinorUnits: 30_000,
  vatRateBasisPoints: 2500,
  leadTimeMinutes: 60,
  maxQuantityPerLine: 2,
  specialPortions: false,
  deliveryHours: []
}
const { cutOff: _projectorHasNoCutOff, ...projectorWithoutCutOff } = projector
export const projectorNoCutOff: AddOnProduct = projectorWithoutCutOff

export const retiredCoffee: AddOnProduct = { ...projectorNoCutOff, id: "00000000-0000-4000-8000-0000000000d3", name: "Coffee", retired: true }

export const roomState = (otherBookings: BookingState["otherBookings"] = []): BookingState => ({
  resource: room,
  offeredAddOns: [lunch, projectorNoCutOff, retiredCoffee],
  otherBookings
})

export const period = (start: string, end: string, addOns: ReadonlyArray<AddOnLineCommand> = []): BookingCommand => ({
  time: { _tag: "Period", start: at(start), end: at(end) },
  addOns
})

export const stay = (checkInDate: string, checkOutDate: string): BookingCommand => ({
  time: { _tag: "Stay", checkInDate, checkOutDate },
  addOns: []
})

export const line = (product: AddOnProduct, deliverAt: string, quantity = 1, specialPortions: AddOnLineCommand["specialPortions"] = []): AddOnLineCommand => ({
  addOnProductId: product.id,
  quantity,
  deliverAt: at(deliverAt),
  specialPortions
})
