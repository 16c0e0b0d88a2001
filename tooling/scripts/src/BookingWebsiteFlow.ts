/**
 * What a booking website does against the Integration API v1 (spec 4.2 Booking), end to end, with the published
 * client: get a token, list the resources it may sell, pick a meeting room and its catering, read the room's free
 * start times for a three-hour meeting a week ahead, look up the guest's company, price the booking with lunch
 * (a priced breakdown with VAT per rate), request it for a guest — twice with one requestId, which books once —
 * and read the request back. Returns a log of what it did; refusals are reported by their spec code.
 */
import type { Json } from "@propline/client"
import type { PriceBreakdown } from "@propline/contract/BookingRecords"
import { connect, type DemoCredentials, problemCode } from "./ConnectorFlow.js"

const money = (minorUnits: number, currency: string) => `${(minorUnits / 100).toFixed(2)} ${currency}`

/** The priced breakdown as lines of text: one per line, then VAT per rate and the totals. */
export const formatBreakdown = (price: Json<PriceBreakdown>): string =>
  [
    ...price.lines.map((line) =>
      line.kind === "resource"
        ? `${line.description}: ${line.minutes} min × ${money(line.unitAmountMinorUnits, price.currency)}/${line.unit} = ${money(line.netMinorUnits, price.currency)} + VAT ${line.vatRateBasisPoints / 100} % ${money(line.vatMinorUnits, price.currency)}`
        : `${line.description}: ${line.quantity} × ${money(line.unitAmountMinorUnits, price.currency)} = ${money(line.netMinorUnits, price.currency)} + VAT ${line.vatRateBasisPoints / 100} % ${money(line.vatMinorUnits, price.currency)}`
    ),
    ...price.vatRates.map((rate) => `VAT ${rate.vatRateBasisPoints / 100} % on ${money(rate.netMinorUnits, price.currency)}: ${money(rate.vatMinorUnits, price.currency)}`),
    `Total ${money(price.totalNetMinorUnits, price.currency)} + VAT ${money(price.totalVatMinorUnits, price.currency)} = ${money(price.totalGrossMinorUnits, price.currency)}`
  ].join("\n    ")

/** Local wall-clock hour and minute of an instant in a time zone. */
const localTime = (instant: Date, timeZone: string): string =>
  new Intl.DateTimeFormat("sv-SE", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(instant)

/**
 * Runs the flow once. `requestId` is the website's idempotency key for the booking (unique per run); `now` picks
 * the day (a weekday a week after it).
 */
export const runBookingWebsiteFlow = async (credentials: DemoCredentials, requestId: string, now: Date = new Date()) => {
  const { steps, log, client } = connect(credentials)

  const resources = await client.booking.listResources({ urlParams: {} })
  log(
    "GET /v1/booking/resources",
    `${resources.items.length} resources: ${resources.items.map((r) => `${r.name} (${r.kind}, ${r.timeZone})`).join(", ")}`
  )
  const room = resources.items.find((r) => r.kind === "room" && r.timeZone === "Europe/Stockholm" && r.pricing === "time")
  if (room === undefined) throw new Error("no meeting room in Stockholm to sell")

  const addOns = await client.booking.listAddOnProducts({ path: { resourceId: room.id }, urlParams: {} })
  log(
    `GET /v1/booking/resources/${room.id}/add-on-products`,
    addOns.items.map((p) => `${p.name} ${money(p.unitPriceMinorUnits, p.currency)}`).join(", ")
  )
  const lunch = addOns.items.find((p) => p.category === "catering" && p.specialPortions && !p.retired)
  if (lunch === undefined) throw new Error("the room sells no catering")

  // A weekday a week ahead, the whole day in UTC (Stockholm's day lies inside it with a margin).
  let day = new Date(now.getTime() + 7 * 86_400_000)
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day = new Date(day.getTime() + 86_400_000)
  const from = new Date(`${day.toISOString().slice(0, 10)}T00:00:00Z`)
  const to = new Date(from.getTime() + 86_400_000)
  const availability = await client.booking.getAvailability({
    path: { resourceId: room.id },
    urlParams: { from, to, durationMinutes: 180 }
  })
  // Lunch is delivered two hours in, inside the caterer's delivery hours.
  // Timestamps arrive as ISO strings (the Promise API returns the JSON as sent).
  const start = (availability.startTimes ?? []).map((s) => new Date(s)).find((s) => {
    const delivery = localTime(new Date(s.getTime() + 2 * 3_600_000), room.timeZone)
    return delivery >= "11:00" && delivery <= "13:00"
  })
  log(
    `GET /v1/booking/resources/${room.id}/availability`,
    `${availability.freePeriods.length} free periods; ${availability.startTimes?.length ?? 0} start times for 3 hours` +
      (start === undefined ? "" : `; booking ${localTime(start, room.timeZone)} local time`)
  )
  if (start === undefined) throw new Error("no free three-hour slot around lunch")
  const period = { start, end: new Date(start.getTime() + 3 * 3_600_000) }

  const company = await client.booking
    .lookUpCompany({ payload: { country: "SE", organisationNumber: "556036-0793" } })
    .catch((error: unknown) => problemCode(error))
  log(
    "POST /v1/booking/company-lookups",
    typeof company === "string"
      ? `refused: ${company}`
      : company.found
        ? `${company.organisationNumber}: ${company.company?.name ?? ""} (${company.registry})`
        : `${company.organisationNumber}: not in the ${company.registry}`
  )

  const draft = {
    resourceId: room.id,
    period,
    addOns: [
      {
        addOnProductId: lunch.id,
        quantity: 8,
        deliverAt: new Date(start.getTime() + 2 * 3_600_000),
        specialPortions: [{ label: "vegetarian", quantity: 2 }]
      }
    ],
    currency: room.currency
  }
  const preview = await client.booking.previewBookingRequest({ payload: draft })
  log("POST /v1/booking/booking-requests/preview", formatBreakdown(preview.price))

  const body = {
    ...draft,
    requestId,
    guest: { name: "Astrid Lindqvist", email: "astrid.lindqvist@example.se" },
    company: { country: "SE" as const, organisationNumber: "556036-0793", name: "Ljusgården Konsult AB" },
    message: "Eight people; two vegetarian lunches."
  }
  const requested = await client.booking.createBookingRequest({ payload: body })
  log(
    "POST /v1/booking/booking-requests",
    `${requested.status}, held until ${requested.holdExpiresAt}, ${money(requested.price.totalGrossMinorUnits, requested.price.currency)}`
  )
  const again = await client.booking.createBookingRequest({ payload: body })
  log("POST /v1/booking/booking-requests (same requestId)", again.id === requested.id ? "the same booking request" : "a second booking (wrong!)")

  const read = await client.booking.getBookingRequest({ path: { bookingId: requested.id } })
  log(`GET /v1/booking/booking-requests/${requested.id}`, `${read.status}, ${read.guest.name}, ${read.company?.name ?? "no company"}`)
  return steps
}
