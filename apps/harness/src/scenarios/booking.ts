/**
 * Scenarios of a booking website (spec 4.2 Booking; decisions 7): the resources the Application may sell and their
 * free time, preview and request answering the same codes, a request holding its slot and being idempotent by
 * requestId, 20 concurrent requests for one slot holding it once, and company lookups. They book real slots, so
 * each run picks start times that availability still offers; all skip when the token lacks the booking role.
 */
import { ResourceAvailabilityPage } from "@propline/contract/Booking"
import { Availability, BookableResource, BookingPreview, BookingRequest, type ResourceAvailability } from "@propline/contract/BookingRecords"
import {
  api,
  check,
  type Context,
  decode,
  equal,
  expectProblem,
  expectStatus,
  expectValidationFailed,
  type Scenario,
  Skip,
  walkDecoded
} from "../Harness.js"

const DAY = 86_400_000

/** A room priced by time that availability gives start times for, a week of them, two days from now on. */
const sellableRoom = async (context: Context, durationMinutes = 60) => {
  const list = await api(context, "GET", "/v1/booking/resources?limit=100")
  if (list.status === 403) throw new Skip("the token lacks the booking role")
  expectStatus(list, 200, "GET /v1/booking/resources")
  const resources = await walkDecoded(context, "/v1/booking/resources", 100, BookableResource, "resource")
  const rooms = resources.filter((r) => r.pricing === "time" && r.kind === "room")
  if (rooms.length === 0) throw new Skip("the Application may sell no room priced by time")
  const from = new Date(Math.ceil((Date.now() + 2 * DAY) / 3_600_000) * 3_600_000)
  const to = new Date(from.getTime() + 7 * DAY)
  for (const room of rooms) {
    const reply = await api(
      context,
      "GET",
      `/v1/booking/resources/${room.id}/availability?from=${from.toISOString()}&to=${to.toISOString()}&durationMinutes=${durationMinutes}`
    )
    expectStatus(reply, 200, `availability of ${room.name}`)
    const availability = decode(Availability, reply.body, "availability")
    const starts = availability.startTimes ?? []
    if (starts.length > 0) return { room, availability, starts, durationMinutes, to }
  }
  throw new Skip("no room has a free hour in the coming week")
}

const periodAt = (start: Date, minutes: number) => ({ start: start.toISOString(), end: new Date(start.getTime() + minutes * 60_000).toISOString() })
const guest = { name: "Harness Guest", email: "harness@example.com" }

const resourcesAndFreeTime: Scenario = {
  name: "booking: resources and their free time",
  run: async (context) => {
    const { room, availability, starts, to } = await sellableRoom(context)
    const one = await api(context, "GET", `/v1/booking/resources/${room.id}`)
    expectStatus(one, 200, "GET the resource")
    equal(decode(BookableResource, one.body, "the resource").id, room.id, "the resource's id")
    for (const start of starts) {
      // A start lies in the window; its hour may run past the window's end, where the free periods are cut off.
      const end = Math.min(start.getTime() + 60 * 60_000, to.getTime())
      check(
        availability.freePeriods.some((p) => p.start.getTime() <= start.getTime() && end <= p.end.getTime()),
        `start ${start.toISOString()} lies in no free period`
      )
    }
    const tooLong = await api(
      context,
      "GET",
      `/v1/booking/resources/${room.id}/availability?from=2030-01-01T00:00:00Z&to=2030-02-01T00:00:01Z`
    )
    expectValidationFailed(tooLong, "/to", "a window over 31 days")
    const addOns = await api(context, "GET", `/v1/booking/resources/${room.id}/add-on-products`)
    expectStatus(addOns, 200, "the add-on products")
    // The search across resources: the rooms of the room's context, each with its free time, paged by resource.
    const found: Array<ResourceAvailability> = []
    let cursor: string | null = null
    const query = `from=${availability.from.toISOString()}&to=${to.toISOString()}&durationMinutes=60&kind=room&operationalContextId=${room.operationalContextId}`
    do {
      const page = await api(context, "GET", `/v1/booking/availability?${query}${cursor === null ? "" : `&cursor=${cursor}`}`)
      expectStatus(page, 200, "GET /v1/booking/availability")
      const decoded = decode(ResourceAvailabilityPage, page.body, "a page of the search across resources")
      found.push(...decoded.items)
      cursor = decoded.nextCursor
    } while (cursor !== null && found.length < 1000)
    check(found.every((item) => item.resource.kind === "room" && item.availability.resourceId === item.resource.id), "the search answered another kind")
    check(found.some((item) => item.resource.id === room.id), `the search across resources left out ${room.name}`)
    expectValidationFailed(
      await api(context, "GET", "/v1/booking/availability?from=2030-01-01T00:00:00Z&to=2030-02-01T00:00:01Z"),
      "/to",
      "a search window over 31 days"
    )
    return `${room.name} (${room.timeZone}): ${availability.freePeriods.length} free periods, ${starts.length} start times for an hour; a 32-day window 400 VALIDATION_FAILED at /to; the search across resources found ${found.length} rooms in its context`
  }
}

const previewAndRequestAgree: Scenario = {
  name: "booking: preview and request answer the same refusal",
  run: async (context) => {
    const { room, starts } = await sellableRoom(context)
    const first = starts[0]!
    const offGrid = new Date(first.getTime() + 60_000)
    const otherCurrency = room.currency === "EUR" ? "SEK" : "EUR"
    const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
      ["in the past", { period: periodAt(new Date(Date.now() - 7 * DAY), 60) }, "BOOKING_IN_THE_PAST"],
      ["off the start grid", { period: periodAt(offGrid, 60) }, "BOOKING_START_NOT_ON_INCREMENT"],
      ["in another currency", { period: periodAt(first, 60), currency: otherCurrency }, "BOOKING_RESOURCE_CURRENCY_MISMATCH"],
      ["as a stay", { stay: { checkInDate: "2030-01-01", checkOutDate: "2030-01-02" } }, "BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING"]
    ]
    for (const [what, body, code] of cases) {
      const previewed = await api(context, "POST", "/v1/booking/booking-requests/preview", { resourceId: room.id, ...body })
      expectProblem(previewed, 400, code, `preview ${what}`)
      const requested = await api(context, "POST", "/v1/booking/booking-requests", {
        requestId: `harness-${context.runId}-${code}`,
        guest,
        resourceId: room.id,
        ...body
      })
      expectProblem(requested, 400, code, `request ${what}`)
    }
    return cases.map(([, , code]) => code).join(", ") + ": the same from preview and request"
  }
}

const requestHoldsItsSlot: Scenario = {
  name: "booking: a request holds its slot; one requestId books once",
  run: async (context) => {
    const { room, starts } = await sellableRoom(context)
    const period = periodAt(starts[0]!, 60)
    const previewed = await api(context, "POST", "/v1/booking/booking-requests/preview", { resourceId: room.id, period })
    expectStatus(previewed, 200, "the preview")
    const price = decode(BookingPreview, previewed.body, "the preview").price
    const body = { requestId: `harness-${context.runId}-hold`, guest, resourceId: room.id, period }
    const made = await api(context, "POST", "/v1/booking/booking-requests", body)
    expectStatus(made, 201, "the booking request")
    const request = decode(BookingRequest, made.body, "the booking request")
    equal(request.status, "pending", "its status")
    equal(request.price.totalGrossMinorUnits, price.totalGrossMinorUnits, "its total and the preview's")
    const again = await api(context, "POST", "/v1/booking/booking-requests", body)
    expectStatus(again, 201, "the same request again")
    equal(decode(BookingRequest, again.body, "the replay").id, request.id, "the replay's id")
    const changed = await api(context, "POST", "/v1/booking/booking-requests", { ...body, guest: { ...guest, name: "Someone Else" } })
    expectProblem(changed, 409, "BOOKING_REQUEST_ID_ALREADY_USED", "the requestId with another body")
    const taken = await api(context, "POST", "/v1/booking/booking-requests", { ...body, requestId: `${body.requestId}-2` })
    expectProblem(taken, 409, "BOOKING_SLOT_TAKEN", "another request for the slot")
    const read = await api(context, "GET", `/v1/booking/booking-requests/${request.id}`)
    expectStatus(read, 200, "reading it back")
    return `201 pending until ${request.holdExpiresAt.toISOString()} (${request.price.totalGrossMinorUnits / 100} ${request.price.currency}); replay same id; other body 409 BOOKING_REQUEST_ID_ALREADY_USED; same slot 409 BOOKING_SLOT_TAKEN`
  }
}

const concurrentRequests: Scenario = {
  name: "booking: 20 concurrent requests for one slot hold it once",
  run: async (context) => {
    const { room, starts } = await sellableRoom(context)
    const period = periodAt(starts[0]!, 60)
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(context, "POST", "/v1/booking/booking-requests", { requestId: `harness-${context.runId}-race-${i}`, guest, resourceId: room.id, period })
      )
    )
    equal(replies.filter((r) => r.status === 201).length, 1, "requests that hold the slot")
    for (const reply of replies.filter((r) => r.status !== 201)) expectProblem(reply, 409, "BOOKING_SLOT_TAKEN", "a losing request")
    return "1 × 201, 19 × 409 BOOKING_SLOT_TAKEN"
  }
}

const companyLookup: Scenario = {
  name: "booking: company lookup checks the organisation number",
  run: async (context) => {
    const bad = await api(context, "POST", "/v1/booking/company-lookups", { country: "SE", organisationNumber: "556036-0794" })
    if (bad.status === 403) throw new Skip("the token lacks the booking role")
    expectValidationFailed(bad, "/organisationNumber", "a wrong check digit")
    const good = await api(context, "POST", "/v1/booking/company-lookups", { country: "NO", organisationNumber: "923609016" })
    expectStatus(good, 200, "a valid Norwegian number")
    const finnish = await api(context, "POST", "/v1/booking/company-lookups", { country: "FI", organisationNumber: "0112038-9" })
    check(
      finnish.status === 200 || (finnish.status === 400 && (finnish.body as { code?: string }).code === "TENANT_COMPANY_REGISTRY_NOT_SUPPORTED"),
      `a Finnish number: expected 200 or 400 TENANT_COMPANY_REGISTRY_NOT_SUPPORTED, got ${finnish.status}`
    )
    return `bad check digit 400 VALIDATION_FAILED; NO 200; FI ${finnish.status === 200 ? "200" : "400 TENANT_COMPANY_REGISTRY_NOT_SUPPORTED"}`
  }
}

export const bookingScenarios: ReadonlyArray<Scenario> = [
  resourcesAndFreeTime,
  previewAndRequestAgree,
  requestHoldsItsSlot,
  concurrentRequests,
  companyLookup
]
