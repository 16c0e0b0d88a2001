/**
 * The booking slice over HTTP, black box, on PGlite and on PostgreSQL: spec 4.2 (Booking), 7.3 (every BOOKING_*
 * code the rules produce, from preview and from request alike), decisions 2 (roles, 404 across tenants and
 * Applications), 4 (validation, idempotency) and 7 (holds, checks in order, company lookup). Plus the races:
 * 20 requests for one slot hold it once, one requestId sent 20 times books once.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BookingFixture, at, bookingSetup, localDate, plusMinutes, soon } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"
import { impossibleDate, impossibleInstant } from "../support/Hostile.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const STOCKHOLM = "Europe/Stockholm"
const OSLO = "Europe/Oslo"

describe.each(TestDatabase.kinds())("booking over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let fixture: BookingFixture
  let bookingToken: string
  let secondSellerToken: string
  let notAllowedToken: string
  let billingToken: string
  let otherOrgToken: string
  let requestCounter = 0

  const url = (path: string) => `${app.apiUrl}${path}`
  const get = (path: string, tokenValue = bookingToken) => call(url(path), { token: tokenValue })
  const post = (path: string, body: unknown, tokenValue = bookingToken) => call(url(path), { token: tokenValue, body })
  const preview = (body: Record<string, unknown>, tokenValue = bookingToken) => post("/v1/booking/booking-requests/preview", body, tokenValue)
  const guest = { name: "Astrid Lindqvist", email: "astrid@example.se" }
  const create = (body: Record<string, unknown>, tokenValue = bookingToken) =>
    post("/v1/booking/booking-requests", { requestId: `r-${++requestCounter}-${Math.random()}`, guest, ...body }, tokenValue)
  const bookingRows = () =>
    app.run(Db.query((db) => db.selectFrom("bookingRequests").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow())).then((row) => Number(row.n))

  // A Tuesday at least two weeks ahead, and the room's period on it.
  const tuesday = () => localDate(STOCKHOLM, 14, 2)
  const roomPeriod = (from: string, to: string, date = tuesday()) => ({ start: at(STOCKHOLM, date, from), end: at(STOCKHOLM, date, to) })

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const secondSeller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const notAllowed = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const billing = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    const otherOrg = await app.run(Fixtures.application(other, { roles: ["booking"] }))
    fixture = await app.run(bookingSetup(org, [seller.id, secondSeller.id]))
    bookingToken = await token(app.authUrl, seller.clientId, seller.secret)
    secondSellerToken = await token(app.authUrl, secondSeller.clientId, secondSeller.secret)
    notAllowedToken = await token(app.authUrl, notAllowed.clientId, notAllowed.secret)
    billingToken = await token(app.authUrl, billing.clientId, billing.secret)
    otherOrgToken = await token(app.authUrl, otherOrg.clientId, otherOrg.secret)
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  describe("roles and visibility (decisions 2)", () => {
    it("answers 401 without a token and 403 without the booking role, on every operation", async () => {
      const paths: ReadonlyArray<readonly [string, unknown?]> = [
        ["/v1/booking/resources"],
        [`/v1/booking/resources/${fixture.room.id}`],
        [`/v1/booking/resources/${fixture.room.id}/availability?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`],
        [`/v1/booking/resources/${fixture.room.id}/add-on-products`],
        ["/v1/booking/availability?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z"],
        ["/v1/booking/company-lookups", { country: "SE", organisationNumber: "556036-0793" }],
        ["/v1/booking/booking-requests/preview", {}],
        ["/v1/booking/booking-requests", {}],
        [`/v1/booking/booking-requests/${fixture.room.id}`]
      ]
      for (const [path, body] of paths) {
        expect((await call(url(path), body === undefined ? {} : { body })).status).toBe(401)
        const forbidden = await call(url(path), body === undefined ? { token: billingToken } : { token: billingToken, body })
        expect(forbidden.status).toBe(403)
        expect(forbidden.body).toMatchObject({ title: "Forbidden", status: 403 })
      }
    })

    it("lists only the resources the Application may sell", async () => {
      const answer = await get("/v1/booking/resources")
      expect(answer.status).toBe(200)
      expect(answer.body.items.map((r: { id: string }) => r.id).sort()).toEqual(
        [fixture.room.id, fixture.parking.id, fixture.flat.id, fixture.unpriced.id].sort()
      )
      expect((await get("/v1/booking/resources", notAllowedToken)).body.items).toEqual([])
      expect((await get("/v1/booking/resources", otherOrgToken)).body.items).toEqual([])
    })

    it("pages the list", async () => {
      const first = await get("/v1/booking/resources?limit=3")
      expect(first.body.items).toHaveLength(3)
      const second = await get(`/v1/booking/resources?limit=3&cursor=${first.body.nextCursor}`)
      expect(second.body.items).toHaveLength(1)
      expect(second.body.nextCursor).toBeNull()
    })

    it("shows a resource with its rules, in its time zone", async () => {
      const answer = await get(`/v1/booking/resources/${fixture.room.id}`)
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({
        id: fixture.room.id,
        kind: "room",
        timeZone: STOCKHOLM,
        currency: "SEK",
        pricing: "time",
        minimumNoticeMinutes: 60,
        openingHours: { weekly: expect.arrayContaining([{ weekday: 1, opens: "08:00", closes: "18:00" }]), closures: [] }
      })
      expect(answer.body.priceRules).toHaveLength(4)
      expect((await get(`/v1/booking/resources/${fixture.flat.id}`)).body).toMatchObject({ pricing: "night", nightStays: { checkInTime: "15:00" } })
    })

    it("answers 404 for a resource the Application may not sell, of another organization, or unknown", async () => {
      for (const [path, tokenValue] of [
        [`/v1/booking/resources/${fixture.room.id}`, notAllowedToken],
        [`/v1/booking/resources/${fixture.room.id}`, otherOrgToken],
        [`/v1/booking/resources/00000000-0000-4000-8000-000000000000`, bookingToken],
        [`/v1/booking/resources/${fixture.room.id}/add-on-products`, otherOrgToken]
      ] as const) {
        const answer = await get(path, tokenValue)
        expect(answer.status).toBe(404)
        expect(answer.body.status).toBe(404)
      }
      expect((await preview({ resourceId: fixture.room.id, period: roomPeriod("10:00", "11:00") }, otherOrgToken)).status).toBe(404)
    })

    it("refuses a malformed resource id with VALIDATION_FAILED", async () => {
      const answer = await get("/v1/booking/resources/not-a-uuid")
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
    })
  })

  describe("GET /v1/booking/resources/{resourceId}/add-on-products", () => {
    it("lists the products the resource offers, retired ones marked", async () => {
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/add-on-products`)
      expect(answer.status).toBe(200)
      expect(answer.body.items.map((p: { name: string; retired: boolean }) => [p.name, p.retired])).toEqual([
        ["Lunch buffet", false],
        ["Projector", false],
        ["Coffee", true]
      ])
      expect(answer.body.items[0]).toMatchObject({ cutOff: { daysBefore: 1, time: "14:00" }, specialPortions: true, currency: "SEK" })
    })
  })

  describe("GET /v1/booking/resources/{resourceId}/availability", () => {
    it("gives the free periods and start times, leaving out a booking and its buffer", async () => {
      const date = localDate(STOCKHOLM, 21, 3)
      const made = await create({ resourceId: fixture.room.id, period: roomPeriod("10:00", "11:00", date) })
      expect(made.status).toBe(201)
      const from = at(STOCKHOLM, date, "00:00")
      const to = at(STOCKHOLM, localDate(STOCKHOLM, 22, 4), "00:00")
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=${from}&to=${to}&durationMinutes=60`)
      expect(answer.status).toBe(200)
      expect(answer.body.freePeriods).toEqual([
        { start: at(STOCKHOLM, date, "08:00").replace("Z", ".000Z"), end: at(STOCKHOLM, date, "09:45").replace("Z", ".000Z") },
        { start: at(STOCKHOLM, date, "11:15").replace("Z", ".000Z"), end: at(STOCKHOLM, date, "18:00").replace("Z", ".000Z") }
      ])
      expect(answer.body.startTimes).toHaveLength(4 + 24)
      expect(answer.body).toMatchObject({ timeZone: STOCKHOLM, durationMinutes: 60 })
    })

    it.each([
      ["a window over 31 days", "2026-01-01T00:00:00Z", "2026-02-01T00:00:01Z"],
      ["a window that ends before it starts", "2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"]
    ])("refuses %s with VALIDATION_FAILED at /to", async (_, from, to) => {
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=${from}&to=${to}`)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [{ path: "/to" }] })
    })

    it("refuses a date without a time and offset", async () => {
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=2026-01-01&to=2026-01-02T00:00:00Z`)
      expect(answer.status).toBe(400)
      expect(answer.body.issues[0].path).toBe("/from")
    })
  })

  describe("POST /v1/booking/company-lookups", () => {
    it("finds a customer of the organization by organisation number", async () => {
      const answer = await post("/v1/booking/company-lookups", { country: "SE", organisationNumber: "5560360793" })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({
        country: "SE",
        organisationNumber: "556036-0793",
        registry: "customer-register",
        found: true,
        company: { name: "Ljusgården Konsult AB", customerNumber: "1001" }
      })
    })
    it("answers found false for a valid number the register does not know", async () => {
      const answer = await post("/v1/booking/company-lookups", { country: "NO", organisationNumber: "923 609 016" })
      expect(answer.body).toEqual({ country: "NO", organisationNumber: "923609016", registry: "customer-register", found: false })
    })
    it("refuses a wrong check digit with VALIDATION_FAILED at /organisationNumber", async () => {
      const answer = await post("/v1/booking/company-lookups", { country: "SE", organisationNumber: "556036-0794" })
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [{ path: "/organisationNumber" }] })
    })
    it.each([["FI", "0112038-9"], ["DK", "24256790"]])("refuses %s with TENANT_COMPANY_REGISTRY_NOT_SUPPORTED", async (country, number) => {
      const answer = await post("/v1/booking/company-lookups", { country, organisationNumber: number })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("TENANT_COMPANY_REGISTRY_NOT_SUPPORTED")
    })
  })

  describe("preview and request: every code, the same from both", () => {
    const stay = (checkIn: number, checkOut: number) => ({ checkInDate: localDate(OSLO, checkIn), checkOutDate: localDate(OSLO, checkOut) })
    const parkingAt = (startIso: string, minutes: number) => ({ start: startIso, end: plusMinutes(startIso, minutes) })
    // Two days ahead at noon in Oslo: inside the parking space's notice and horizon.
    const parkingNoon = () => at(OSLO, localDate(OSLO, 2), "12:00")

    const cases: ReadonlyArray<readonly [string, () => Record<string, unknown>, number]> = [
      ["BOOKING_DATE_INTERVAL_REQUIRES_NIGHT_PRICING", () => ({ resourceId: fixture.room.id, stay: stay(20, 22) }), 400],
      ["BOOKING_NIGHT_PRICING_REQUIRES_DATE_INTERVAL", () => ({ resourceId: fixture.flat.id, period: parkingAt(parkingNoon(), 60) }), 400],
      ["BOOKING_DATE_INTERVAL_EMPTY", () => ({ resourceId: fixture.flat.id, stay: stay(20, 20) }), 400],
      ["BOOKING_IN_THE_PAST", () => ({ resourceId: fixture.parking.id, period: parkingAt(at(OSLO, localDate(OSLO, -1), "10:00"), 60) }), 400],
      ["BOOKING_NOTICE_TOO_SHORT", () => ({ resourceId: fixture.parking.id, period: parkingAt(soon(30), 60) }), 400],
      ["BOOKING_HORIZON_EXCEEDED", () => ({ resourceId: fixture.parking.id, period: parkingAt(at(OSLO, localDate(OSLO, 91), "10:00"), 60) }), 400],
      ["BOOKING_START_NOT_ON_INCREMENT", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:10", "11:10") }), 400],
      ["BOOKING_DURATION_TOO_SHORT", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "10:15") }), 400],
      ["BOOKING_DURATION_TOO_LONG", () => ({ resourceId: fixture.room.id, period: roomPeriod("08:00", "17:00") }), 400],
      ["BOOKING_DURATION_NOT_ON_INCREMENT", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "10:40") }), 400],
      ["BOOKING_STAY_TOO_SHORT", () => ({ resourceId: fixture.flat.id, stay: stay(20, 21) }), 400],
      ["BOOKING_STAY_TOO_LONG", () => ({ resourceId: fixture.flat.id, stay: stay(20, 35) }), 400],
      ["BOOKING_OUTSIDE_OPEN_HOURS", () => ({ resourceId: fixture.room.id, period: roomPeriod("17:30", "18:30") }), 400],
      ["BOOKING_ADD_ON_LINE_LIMIT_EXCEEDED", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), addOns: Array.from({ length: 21 }, () => ({ addOnProductId: fixture.projector.id, quantity: 1, deliverAt: roomPeriod("10:00", "12:00").start })) }), 400],
      ["BOOKING_ADD_ON_NOT_OFFERED", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), addOns: [{ addOnProductId: fixture.unoffered.id, quantity: 1, deliverAt: roomPeriod("10:00", "12:00").start }] }), 400],
      ["BOOKING_ADD_ON_PRODUCT_RETIRED", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), addOns: [{ addOnProductId: fixture.retiredCoffee.id, quantity: 1, deliverAt: roomPeriod("10:00", "12:00").start }] }), 400],
      ["BOOKING_ADD_ON_SPECIAL_PORTIONS_INVALID", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), addOns: [{ addOnProductId: fixture.lunch.id, quantity: 2, deliverAt: roomPeriod("11:00", "12:00").start, specialPortions: [{ label: "vegan", quantity: 3 }] }] }), 400],
      ["BOOKING_ADD_ON_DELIVERY_OUTSIDE_BOOKING", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), addOns: [{ addOnProductId: fixture.projector.id, quantity: 1, deliverAt: roomPeriod("09:00", "10:00").start }] }), 400],
      ["BOOKING_ADD_ON_DELIVERY_OUTSIDE_AVAILABILITY", () => ({ resourceId: fixture.room.id, period: roomPeriod("09:00", "12:00"), addOns: [{ addOnProductId: fixture.lunch.id, quantity: 1, deliverAt: roomPeriod("10:30", "11:00").start }] }), 400],
      ["BOOKING_ADD_ON_ORDER_LEAD_TOO_SHORT", () => ({ resourceId: fixture.parking.id, period: parkingAt(parkingNoon(), 120), addOns: [{ addOnProductId: fixture.valet.id, quantity: 1, deliverAt: parkingNoon() }] }), 400],
      ["BOOKING_ADD_ON_CUTOFF_PASSED", () => ({ resourceId: fixture.parking.id, period: parkingAt(parkingNoon(), 120), addOns: [{ addOnProductId: fixture.charger.id, quantity: 1, deliverAt: parkingNoon() }] }), 400],
      ["BOOKING_PRICE_RULE_NOT_APPLICABLE", () => ({ resourceId: fixture.unpriced.id, period: parkingAt(at(OSLO, localDate(OSLO, 3, 6), "10:00"), 60) }), 400],
      ["BOOKING_RESOURCE_CURRENCY_MISMATCH", () => ({ resourceId: fixture.room.id, period: roomPeriod("10:00", "12:00"), currency: "NOK" }), 400]
    ]

    for (const [code, body, status] of cases) {
      it(`${code} (${status}) from preview and from request, and the request changes nothing`, async () => {
        const before = await bookingRows()
        const previewed = await preview(body())
        expect(previewed.status).toBe(status)
        expect(previewed.headers.get("content-type")).toContain("application/problem+json")
        expect(previewed.body).toMatchObject({ type: "about:blank", status, code })
        const requested = await create(body())
        expect(requested.status).toBe(status)
        expect(requested.body.code).toBe(code)
        expect(await bookingRows()).toBe(before)
      })
    }

    it("BOOKING_PRICE_RULE_AMBIGUOUS when two rules claim the same time (set up around the operator's check)", async () => {
      await app.run(
        Db.query((db) =>
          db
            .insertInto("bookingPriceRules")
            .values({ id: randomUUID(), resourceId: fixture.unpriced.id, position: 9, name: "Overlap", unit: "hour", amountMinorUnits: 1, vatRateBasisPoints: 2500, weekdays: [1, 2, 3, 4, 5], windowFrom: "09:00", windowTo: "11:00", createdAt: new Date() })
            .execute()
        )
      )
      const body = { resourceId: fixture.unpriced.id, period: parkingAt(at(OSLO, localDate(OSLO, 7, 3), "10:00"), 60) }
      expect((await preview(body)).body.code).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
      expect((await create(body)).body.code).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
    })

    it("BOOKING_BUFFER_CONFLICT and BOOKING_SLOT_TAKEN (409) next to a pending request", async () => {
      const date = localDate(STOCKHOLM, 28, 2)
      expect((await create({ resourceId: fixture.room.id, period: roomPeriod("10:00", "11:00", date) })).status).toBe(201)
      for (const [period, code, status] of [
        [roomPeriod("11:00", "12:00", date), "BOOKING_BUFFER_CONFLICT", 400],
        [roomPeriod("10:30", "11:30", date), "BOOKING_SLOT_TAKEN", 409]
      ] as const) {
        const previewed = await preview({ resourceId: fixture.room.id, period })
        const requested = await create({ resourceId: fixture.room.id, period })
        expect([previewed.status, previewed.body.code]).toEqual([status, code])
        expect([requested.status, requested.body.code]).toEqual([status, code])
      }
      expect((await create({ resourceId: fixture.room.id, period: roomPeriod("11:15", "12:15", date) })).status).toBe(201)
    })

    it("answers the first rule that fails: in the past before off the grid before outside hours", async () => {
      const past = roomPeriod("19:10", "19:20", localDate(STOCKHOLM, -3))
      expect((await preview({ resourceId: fixture.room.id, period: past })).body.code).toBe("BOOKING_IN_THE_PAST")
    })
  })

  describe("validation (400 VALIDATION_FAILED, before any lookup)", () => {
    it.each([
      ["both period and stay", { period: { start: "2026-01-01T10:00:00Z", end: "2026-01-01T11:00:00Z" }, stay: { checkInDate: "2026-01-01", checkOutDate: "2026-01-02" } }, "/stay"],
      ["neither period nor stay", {}, ""],
      ["a start without an offset", { period: { start: "2026-01-01T10:00:00", end: "2026-01-01T11:00:00Z" } }, "/period/start"],
      ["a quantity of 0", { period: { start: "2026-01-01T10:00:00Z", end: "2026-01-01T11:00:00Z" }, addOns: [{ addOnProductId: "00000000-0000-4000-8000-000000000000", quantity: 0, deliverAt: "2026-01-01T10:00:00Z" }] }, "/addOns/0/quantity"],
      ["an unknown currency", { period: { start: "2026-01-01T10:00:00Z", end: "2026-01-01T11:00:00Z" }, currency: "XXX" }, "/currency"]
    ])("refuses %s", async (_, fields, path) => {
      const answer = await preview({ resourceId: "00000000-0000-4000-8000-000000000000", ...fields })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues[0].path).toBe(path)
    })

    it("refuses a guest company with a wrong check digit", async () => {
      const answer = await create({ resourceId: fixture.room.id, period: roomPeriod("13:00", "14:00"), company: { country: "NO", organisationNumber: "923609017", name: "X AS" } })
      expect(answer.status).toBe(400)
      expect(answer.body.issues).toEqual([{ path: "/company/organisationNumber", message: "the check digit does not match the organisation number" }])
    })

    it("refuses a guest without a valid e-mail", async () => {
      const answer = await post("/v1/booking/booking-requests", { requestId: "v-1", resourceId: fixture.room.id, period: roomPeriod("13:00", "14:00"), guest: { name: "A", email: "not-an-email" } })
      expect(answer.status).toBe(400)
      expect(answer.body.issues[0].path).toBe("/guest/email")
    })
  })

  describe("strict input (issue 19): real dates, known members, readable messages", () => {
    const DATE = "must be a date (YYYY-MM-DD) that exists in the calendar, from 1900-01-01 to 2999-12-31"
    const INSTANT =
      "must be an ISO 8601 date-time with a UTC offset, e.g. 2026-03-24T10:00:00Z, that exists in the calendar, " +
      "from 1900-01-01 to 2999-12-31, at most to the millisecond"

    it.each(["2027-02-29", "2027-04-31", "2026-13-01", "0000-01-01", "1899-12-31", "3000-01-01"])(
      "refuses a stay from %s (400, never a 500), and books nothing",
      async (checkInDate) => {
        const before = await bookingRows()
        const answer = await create({ resourceId: fixture.flat.id, stay: { checkInDate, checkOutDate: localDate(OSLO, 22) } })
        expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
        expect(answer.body.issues).toEqual([{ path: "/stay/checkInDate", message: DATE }])
        expect(await bookingRows()).toBe(before)
      }
    )

    it.each(["2026-11-31T09:00:00Z", "2027-02-29T10:00:00+01:00", "2026-05-01T24:00:00Z", "2026-05-01T10:00:60Z", "0000-01-01T00:00:00Z", "2026-05-01T10:00:00.0001Z"])(
      "refuses a period starting %s, never read as another instant",
      async (start) => {
        const before = await bookingRows()
        const answer = await create({ resourceId: fixture.room.id, period: { start, end: roomPeriod("10:00", "11:00").end } })
        expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
        // One issue for the field: no "/period: Expected undefined" beside it.
        expect(answer.body.issues).toEqual([{ path: "/period/start", message: INSTANT }])
        expect(await bookingRows()).toBe(before)
      }
    )

    it("refuses an availability window from 0000-01-01T00:00:00Z or to 2026-11-31 (400, never a 500)", async () => {
      for (const [query, path] of [
        ["from=0000-01-01T00:00:00Z&to=2026-01-02T00:00:00Z", "/from"],
        ["from=2026-11-30T00:00:00Z&to=2026-11-31T00:00:00Z", "/to"]
      ] as const) {
        const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?${query}`)
        expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
        expect(answer.body.issues).toEqual([{ path, message: INSTANT }])
      }
    })

    it.each(["0x3c", "6e1", "060", "+60", "60.0", " 60", "", "0", "44641"])("refuses durationMinutes=%s like limit", async (spelling) => {
      const window = `from=${at(STOCKHOLM, tuesday(), "00:00")}&to=${at(STOCKHOLM, tuesday(), "23:00")}`
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?${window}&durationMinutes=${encodeURIComponent(spelling)}`)
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues).toEqual([{ path: "/durationMinutes", message: "must be an integer from 1 to 44640" }])
      expect((await get(`/v1/booking/resources/${fixture.room.id}/availability?${window}&durationMinutes=60`)).status).toBe(200)
    })

    it("refuses unknown members, naming each one, and books nothing (addons is not addOns)", async () => {
      const before = await bookingRows()
      const answer = await create({ resourceId: fixture.room.id, period: roomPeriod("15:00", "16:00"), addons: [{ addOnProductId: fixture.lunch.id, quantity: 2 }], note: "lunch" })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/addons", "/note"])
      expect(answer.body.issues[0].message).toMatch(/^is not a member of this request; its members are: .*addOns/)
      const nested = await preview({ resourceId: fixture.room.id, period: { ...roomPeriod("15:00", "16:00"), timeZone: STOCKHOLM } })
      expect(nested.body.issues).toEqual([{ path: "/period/timeZone", message: "is not a member of this request; its members are: start, end" }])
      expect(await bookingRows()).toBe(before)
    })

    it("answers sentences: one issue per failing field, every value of an enum, no value echoed", async () => {
      const answer = await create({
        resourceId: "room-1",
        period: roomPeriod("15:00", "16:00"),
        currency: "SEKK",
        guest: { name: "A", email: Array.from({ length: 1000 }, (_, index) => `xxxxxxxxxx${index}@example.se`) },
        addOns: [{ addOnProductId: fixture.lunch.id, quantity: 1.5, deliverAt: "2026-05-01T10:00:00Z" }]
      })
      expect(answer.status).toBe(400)
      const issues: Array<{ path: string; message: string }> = answer.body.issues
      expect(issues.find((issue) => issue.path === "/currency")?.message).toBe("must be one of: SEK, NOK, DKK, EUR, USD, GBP")
      expect(issues.find((issue) => issue.path === "/resourceId")?.message).toBe("must be a UUID")
      expect(issues.find((issue) => issue.path === "/guest/email")?.message).toBe("must be an e-mail address of at most 254 characters")
      expect(issues.find((issue) => issue.path === "/addOns/0/quantity")?.message).toBe("must be an integer from 1 to 10000")
      expect(new Set(issues.map((issue) => issue.path)).size).toBe(issues.length)
      for (const issue of issues) {
        expect(issue.message).not.toMatch(/Expected|actual/)
        expect(issue.message).not.toContain("xxxxxxxxxx")
        expect(issue.message.length).toBeLessThanOrEqual(300)
      }
    })
  })

  describe("hostile input (fast-check): never a 5xx, always problem details", () => {
    const expectBelow500 = (answer: { status: number; headers: Headers; body: unknown }, what: string) => {
      expect(answer.status, `${what} → ${JSON.stringify(answer.body).slice(0, 200)}`).toBeLessThan(500)
      if (answer.status >= 400) expect(answer.headers.get("content-type")).toContain("application/problem+json")
    }
    const instant = fc.oneof(
      fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string({ maxLength: 30 }),
      fc.constantFrom("2026-02-30T10:00:00Z", "9999-12-31T23:59:59+14:00", "2026-03-29T02:30:00+01:00", ""),
      impossibleInstant
    )
    const value = fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 20 }), fc.constant(null), fc.boolean())
    const body = fc.record(
      {
        resourceId: fc.oneof(fc.constantFrom(() => fixture.room.id, () => fixture.flat.id).map((f) => f()), fc.uuid(), value),
        period: fc.oneof(fc.record({ start: instant, end: instant }), value),
        stay: fc.oneof(fc.record({ checkInDate: fc.oneof(fc.string({ maxLength: 12 }), impossibleDate), checkOutDate: fc.oneof(fc.string({ maxLength: 12 }), impossibleDate) }), value),
        addOns: fc.oneof(
          fc.array(fc.record({ addOnProductId: fc.oneof(fc.constant(fixture?.lunch.id ?? ""), fc.uuid()), quantity: fc.oneof(fc.integer(), value), deliverAt: instant, specialPortions: fc.oneof(fc.array(fc.record({ label: fc.string({ maxLength: 5 }), quantity: fc.integer() }), { maxLength: 3 }), value) }), { maxLength: 4 }),
          value
        ),
        currency: fc.oneof(fc.constantFrom("SEK", "NOK", "EUR"), value),
        requestId: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), value),
        guest: fc.oneof(fc.record({ name: fc.string({ maxLength: 10 }), email: fc.oneof(fc.emailAddress(), fc.string({ maxLength: 10 })) }), value),
        company: fc.oneof(fc.record({ country: fc.constantFrom("SE", "NO", "FI", "DK", "XX"), organisationNumber: fc.string({ maxLength: 14 }), name: fc.string({ maxLength: 10 }) }), value)
      },
      { requiredKeys: [] }
    )

    it("preview, request and company lookup", async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom("preview", "create", "lookup"), body, async (operation, payload) => {
          const path =
            operation === "preview" ? "/v1/booking/booking-requests/preview" : operation === "create" ? "/v1/booking/booking-requests" : "/v1/booking/company-lookups"
          const sent = operation === "lookup" ? { country: (payload.company as { country?: unknown } | undefined)?.country, organisationNumber: (payload.company as { organisationNumber?: unknown } | undefined)?.organisationNumber } : payload
          expectBelow500(await post(path, sent), `${operation} ${JSON.stringify(sent).slice(0, 200)}`)
        }),
        { numRuns: 120 }
      )
    })

    it("availability queries", async () => {
      await fc.assert(
        fc.asyncProperty(instant, instant, fc.oneof(fc.integer({ min: -10, max: 50_000 }).map(String), fc.string({ maxLength: 6 })), async (from, to, duration) => {
          const query = new URLSearchParams({ from, to, durationMinutes: duration })
          expectBelow500(await get(`/v1/booking/resources/${fixture.room.id}/availability?${query.toString()}`), query.toString())
        }),
        { numRuns: 80 }
      )
    })
  })

  describe("POST /v1/booking/booking-requests", () => {
    it("creates a pending request with the priced breakdown, the same the preview gave, and reads it back", async () => {
      const date = localDate(STOCKHOLM, 35, 2)
      const lunchAt = at(STOCKHOLM, date, "11:00")
      const body = {
        resourceId: fixture.room.id,
        period: roomPeriod("10:00", "12:00", date),
        addOns: [{ addOnProductId: fixture.lunch.id, quantity: 10, deliverAt: lunchAt, specialPortions: [{ label: "vegetarian", quantity: 2 }] }],
        currency: "SEK"
      }
      const previewed = await preview(body)
      expect(previewed.status).toBe(200)
      const made = await create({ ...body, company: { country: "SE", organisationNumber: "5560360793", name: "Ljusgården Konsult AB" }, message: "Projector please" })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({
        status: "pending",
        resourceId: fixture.room.id,
        organizationId: org.organizationId,
        guest,
        company: { country: "SE", organisationNumber: "556036-0793", name: "Ljusgården Konsult AB" },
        price: {
          currency: "SEK",
          totalNetMinorUnits: 245_000,
          totalVatMinorUnits: 42_400,
          totalGrossMinorUnits: 287_400,
          vatRates: [
            { vatRateBasisPoints: 2500, netMinorUnits: 100_000, vatMinorUnits: 25_000, grossMinorUnits: 125_000 },
            { vatRateBasisPoints: 1200, netMinorUnits: 145_000, vatMinorUnits: 17_400, grossMinorUnits: 162_400 }
          ]
        }
      })
      expect(made.body.price).toEqual(previewed.body.price)
      expect(made.headers.get("x-request-id")).toBeTruthy()
      const read = await get(`/v1/booking/booking-requests/${made.body.id}`)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(made.body)
      const events = await app.run(
        Db.query((db) => db.selectFrom("events").select("type").where(sql<boolean>`payload ->> ${"bookingId"} = ${made.body.id}`).execute())
      )
      expect(events.map((e) => e.type)).toEqual(["booking.booking_request.created"])
    })

    it("books a stay by the night", async () => {
      const made = await create({ resourceId: fixture.flat.id, stay: { checkInDate: localDate(OSLO, 40), checkOutDate: localDate(OSLO, 43) } })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ nights: 3, price: { currency: "NOK", totalNetMinorUnits: 360_000, totalVatMinorUnits: 43_200 } })
      expect(made.body.stay).toEqual({ checkInDate: localDate(OSLO, 40), checkOutDate: localDate(OSLO, 43) })
    })

    it("answers the same request for the same requestId and body, and 409 BOOKING_REQUEST_ID_ALREADY_USED for another body", async () => {
      const body = { requestId: "web-idem-1", guest, resourceId: fixture.room.id, period: roomPeriod("13:00", "14:00", localDate(STOCKHOLM, 42, 2)) }
      const first = await post("/v1/booking/booking-requests", body)
      expect(first.status).toBe(201)
      const again = await post("/v1/booking/booking-requests", { ...body, period: { start: body.period.start.replace("Z", "+00:00"), end: body.period.end } })
      expect(again.status).toBe(201)
      expect(again.body.id).toBe(first.body.id)
      const changed = await post("/v1/booking/booking-requests", { ...body, guest: { ...guest, name: "Someone else" } })
      expect(changed.status).toBe(409)
      expect(changed.body.code).toBe("BOOKING_REQUEST_ID_ALREADY_USED")
      // requestIds are the Application's own: another Application may use the same one
      const otherSeller = await post("/v1/booking/booking-requests", { ...body, period: roomPeriod("15:00", "16:00", localDate(STOCKHOLM, 42, 2)) }, secondSellerToken)
      expect(otherSeller.status).toBe(201)
    })

    it("hides a request from another Application and another organization (404)", async () => {
      const made = await create({ resourceId: fixture.room.id, period: roomPeriod("08:00", "09:00", localDate(STOCKHOLM, 49, 2)) })
      expect((await get(`/v1/booking/booking-requests/${made.body.id}`, secondSellerToken)).status).toBe(404)
      expect((await get(`/v1/booking/booking-requests/${made.body.id}`, otherOrgToken)).status).toBe(404)
    })

    it("of 20 concurrent requests for one slot, exactly one holds it; the rest get 409 BOOKING_SLOT_TAKEN", async () => {
      const period = roomPeriod("14:00", "15:00", localDate(STOCKHOLM, 56, 2))
      const before = await bookingRows()
      const answers = await Promise.all(Array.from({ length: 20 }, () => create({ resourceId: fixture.room.id, period })))
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
      const refused = answers.filter((a) => a.status !== 201)
      expect(refused).toHaveLength(19)
      for (const answer of refused) expect([answer.status, answer.body.code]).toEqual([409, "BOOKING_SLOT_TAKEN"])
      expect(await bookingRows()).toBe(before + 1)
    })

    it("sent 20 times at once with one requestId, books once", async () => {
      const body = { requestId: "web-storm", guest, resourceId: fixture.room.id, period: roomPeriod("15:00", "16:00", localDate(STOCKHOLM, 63, 2)) }
      const before = await bookingRows()
      const answers = await Promise.all(Array.from({ length: 20 }, () => post("/v1/booking/booking-requests", body)))
      for (const answer of answers) expect(answer.status).toBe(201)
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
      expect(await bookingRows()).toBe(before + 1)
    })

    it("frees the slot once a hold has expired, writing the expiry down", async () => {
      const period = roomPeriod("16:00", "17:00", localDate(STOCKHOLM, 70, 2))
      const first = await create({ resourceId: fixture.room.id, period })
      expect(first.status).toBe(201)
      expect((await create({ resourceId: fixture.room.id, period })).status).toBe(409)
      // The hold's end is moved into the past: the clock the product runs on is the real one.
      await app.run(Db.query((db) => db.updateTable("bookingRequests").set({ holdExpiresAt: new Date(Date.now() - 1000) }).where("id", "=", first.body.id).execute()))
      expect((await get(`/v1/booking/booking-requests/${first.body.id}`)).body.status).toBe("expired")
      const second = await create({ resourceId: fixture.room.id, period })
      expect(second.status).toBe(201)
      const row = await app.run(Db.query((db) => db.selectFrom("bookingRequests").select(["status", "expiredAt"]).where("id", "=", first.body.id).executeTakeFirstOrThrow()))
      expect(row.status).toBe("expired")
      expect(row.expiredAt).not.toBeNull()
    })
  })
})
