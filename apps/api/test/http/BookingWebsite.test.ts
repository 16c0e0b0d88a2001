/**
 * What a booking website needs beyond preview and request (issue 26), black box over HTTP on PGlite and
 * PostgreSQL: its own booking requests (listed with filters and a cursor, found by its own requestId).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BookingFixture, at, bookingSetup, localDate } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const STOCKHOLM = "Europe/Stockholm"

describe.each(TestDatabase.kinds())("a booking website's own bookings on %s", (kind) => {
  let app: TestApp
  let fixture: BookingFixture
  let sellerToken: string
  let secondSellerToken: string
  let otherOrgToken: string

  const url = (path: string) => `${app.apiUrl}${path}`
  const get = (path: string, tokenValue = sellerToken) => call(url(path), { token: tokenValue })
  const post = (path: string, body: unknown, tokenValue = sellerToken) => call(url(path), { token: tokenValue, body })
  const guest = { name: "Astrid Lindqvist", email: "astrid@example.se" }
  const roomPeriod = (date: string, from: string, to: string) => ({ start: at(STOCKHOLM, date, from), end: at(STOCKHOLM, date, to) })
  const book = (requestId: string, period: { start: string; end: string }, resourceId = fixture.room.id, tokenValue = sellerToken) =>
    post("/v1/booking/booking-requests", { requestId, guest, resourceId, period }, tokenValue)

  beforeAll(async () => {
    app = await start(kind)
    const org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const secondSeller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const otherOrg = await app.run(Fixtures.application(other, { roles: ["booking"] }))
    fixture = await app.run(bookingSetup(org, [seller.id, secondSeller.id]))
    sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    secondSellerToken = await token(app.authUrl, secondSeller.clientId, secondSeller.secret)
    otherOrgToken = await token(app.authUrl, otherOrg.clientId, otherOrg.secret)
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  describe("GET /v1/booking/booking-requests and by-request-id", () => {
    it("lists only this Application's requests, oldest first, filtered and paged", async () => {
      const date = localDate(STOCKHOLM, 20, 2)
      const later = localDate(STOCKHOLM, 27, 3)
      const a = await book("list-a", roomPeriod(date, "08:00", "09:00"))
      const b = await book("list-b", roomPeriod(date, "10:00", "11:00"))
      const c = await book("list-c", roomPeriod(later, "08:00", "09:00"))
      const parked = await book("list-d", { start: at("Europe/Oslo", date, "08:00"), end: at("Europe/Oslo", date, "09:00") }, fixture.parking.id)
      for (const made of [a, b, c, parked]) expect(made.status).toBe(201)
      expect((await book("list-foreign", roomPeriod(date, "12:00", "13:00"), fixture.room.id, secondSellerToken)).status).toBe(201)

      const all = await get("/v1/booking/booking-requests")
      expect(all.status).toBe(200)
      expect(all.body.items.map((item: { requestId: string }) => item.requestId)).toEqual(["list-a", "list-b", "list-c", "list-d"])
      expect(all.body.nextCursor).toBeNull()
      expect(all.body.items[0]).toEqual(a.body)

      const first = await get("/v1/booking/booking-requests?limit=3")
      expect(first.body.items).toHaveLength(3)
      const second = await get(`/v1/booking/booking-requests?limit=3&cursor=${first.body.nextCursor}`)
      expect(second.body.items.map((item: { requestId: string }) => item.requestId)).toEqual(["list-d"])
      expect(second.body.nextCursor).toBeNull()

      const room = await get(`/v1/booking/booking-requests?resourceId=${fixture.parking.id}`)
      expect(room.body.items.map((item: { id: string }) => item.id)).toEqual([parked.body.id])
      const onDate = await get(`/v1/booking/booking-requests?resourceId=${fixture.room.id}&from=${at(STOCKHOLM, date, "08:30")}&to=${at(STOCKHOLM, date, "10:00")}`)
      expect(onDate.body.items.map((item: { id: string }) => item.id)).toEqual([a.body.id])
      expect((await get("/v1/booking/booking-requests?status=pending")).body.items).toHaveLength(4)
      expect((await get("/v1/booking/booking-requests?status=approved")).body.items).toEqual([])
      expect((await get("/v1/booking/booking-requests", otherOrgToken)).body.items).toEqual([])
    })

    it("finds a request by the website's own requestId, and 404 for another Application's or an unknown one", async () => {
      const made = await book("web/lost response #1", roomPeriod(localDate(STOCKHOLM, 34, 2), "14:00", "15:00"))
      expect(made.status).toBe(201)
      const found = await get(`/v1/booking/booking-requests/by-request-id/${encodeURIComponent("web/lost response #1")}`)
      expect(found.status).toBe(200)
      expect(found.body).toEqual(made.body)
      expect((await get(`/v1/booking/booking-requests/by-request-id/${encodeURIComponent("web/lost response #1")}`, secondSellerToken)).status).toBe(404)
      expect((await get("/v1/booking/booking-requests/by-request-id/never-used")).status).toBe(404)
    })

    it.each([
      ["a period that ends before it starts", "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "/to"],
      ["an unknown status", "status=done", "/status"],
      ["a cursor of another list", "cursor=eyJrIjoiYm9va2luZy1yZXNvdXJjZXMifQ", "/cursor"]
    ])("refuses %s with VALIDATION_FAILED", async (_, query, path) => {
      const answer = await get(`/v1/booking/booking-requests?${query}`)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [expect.objectContaining({ path })] })
    })
  })

  describe("GET /v1/booking/resources/{resourceId}/availability?prices=true", () => {
    it("prices every free start as preview does, add-ons included, and requests at that price", async () => {
      const date = localDate(STOCKHOLM, 23, 4)
      expect((await book("priced-busy", roomPeriod(date, "12:00", "13:00"))).status).toBe(201)
      const from = at(STOCKHOLM, date, "00:00")
      const to = at(STOCKHOLM, localDate(STOCKHOLM, 24, 5), "00:00")
      const plain = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=${from}&to=${to}&durationMinutes=90`)
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=${from}&to=${to}&durationMinutes=90&prices=true`)
      expect(answer.status).toBe(200)
      expect(answer.body.startTimes).toEqual(plain.body.startTimes)
      expect(answer.body.startPrices.map((p: { start: string }) => p.start)).toEqual(plain.body.startTimes)
      for (const priced of answer.body.startPrices.filter((_: unknown, index: number) => index % 7 === 0)) {
        const period = { start: priced.start, end: new Date(Date.parse(priced.start) + 90 * 60_000).toISOString() }
        const previewed = await post("/v1/booking/booking-requests/preview", { resourceId: fixture.room.id, period })
        expect(previewed.status).toBe(200)
        expect(previewed.body.price).toMatchObject({
          currency: priced.currency,
          totalNetMinorUnits: priced.totalNetMinorUnits,
          totalVatMinorUnits: priced.totalVatMinorUnits,
          totalGrossMinorUnits: priced.totalGrossMinorUnits
        })
      }
      const withLunch = await get(
        `/v1/booking/resources/${fixture.room.id}/availability?from=${from}&to=${to}&durationMinutes=90&prices=true&addOns=${fixture.lunch.id}:4`
      )
      expect(withLunch.status).toBe(200)
      const first = withLunch.body.startPrices[0]
      const lunchPreview = await post("/v1/booking/booking-requests/preview", {
        resourceId: fixture.room.id,
        period: { start: first.start, end: new Date(Date.parse(first.start) + 90 * 60_000).toISOString() },
        addOns: [{ addOnProductId: fixture.lunch.id, quantity: 4, deliverAt: first.start }]
      })
      expect(lunchPreview.status).toBe(200)
      expect(lunchPreview.body.price.totalGrossMinorUnits).toBe(first.totalGrossMinorUnits)
      const made = await post("/v1/booking/booking-requests", {
        requestId: "priced-lunch",
        guest,
        resourceId: fixture.room.id,
        period: { start: first.start, end: new Date(Date.parse(first.start) + 90 * 60_000).toISOString() },
        addOns: [{ addOnProductId: fixture.lunch.id, quantity: 4, deliverAt: first.start }]
      })
      expect(made.status).toBe(201)
      expect(made.body.price.totalGrossMinorUnits).toBe(first.totalGrossMinorUnits)
    })

    it.each([
      ["prices without durationMinutes", "prices=true", "/durationMinutes"],
      ["add-ons without prices", `durationMinutes=60&addOns=00000000-0000-4000-8000-000000000001:1`, "/addOns"],
      ["a malformed add-on list", "durationMinutes=60&prices=true&addOns=lunch:1", "/addOns"]
    ])("refuses %s with VALIDATION_FAILED", async (_, query, path) => {
      const answer = await get(`/v1/booking/resources/${fixture.room.id}/availability?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&${query}`)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [expect.objectContaining({ path })] })
    })
  })
})
