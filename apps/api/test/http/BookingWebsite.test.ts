/**
 * What a booking website needs beyond preview and request (issue 26), black box over HTTP on PGlite and
 * PostgreSQL: its own booking requests (listed with filters and a cursor, found by its own requestId), prices on
 * free times, and cancelling and rescheduling under the resource's terms (every code, idempotency by the caller's
 * id, events), with the races: 20 reschedules into one slot move one, a cancel racing an approval ends one way.
 */
import type { BookableResource } from "@propline/booking/Resource"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { type BookingFixture, at, bookingSetup, localDate, OPERATOR } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const STOCKHOLM = "Europe/Stockholm"

describe.each(TestDatabase.kinds())("a booking website's own bookings on %s", (kind) => {
  let app: TestApp
  let fixture: BookingFixture
  let sellerToken: string
  let secondSellerToken: string
  let otherOrgToken: string
  let org: Fixtures.OrganizationFixture
  let late: BookableResource
  let strict: BookableResource

  const url = (path: string) => `${app.apiUrl}${path}`
  const get = (path: string, tokenValue = sellerToken) => call(url(path), { token: tokenValue })
  const post = (path: string, body: unknown, tokenValue = sellerToken) => call(url(path), { token: tokenValue, body })
  const guest = { name: "Astrid Lindqvist", email: "astrid@example.se" }
  const roomPeriod = (date: string, from: string, to: string) => ({ start: at(STOCKHOLM, date, from), end: at(STOCKHOLM, date, to) })
  const book = (requestId: string, period: { start: string; end: string }, resourceId = fixture.room.id, tokenValue = sellerToken) =>
    post("/v1/booking/booking-requests", { requestId, guest, resourceId, period }, tokenValue)

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const secondSeller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const otherOrg = await app.run(Fixtures.application(other, { roles: ["booking"] }))
    fixture = await app.run(bookingSetup(org, [seller.id, secondSeller.id]))
    sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    secondSellerToken = await token(app.authUrl, secondSeller.clientId, secondSeller.secret)
    otherOrgToken = await token(app.authUrl, otherOrg.clientId, otherOrg.secret)
    // Parking spaces open around the clock: free cancellation until 48 hours before; then half the price, or none.
    const rules = () => fixture.parking.priceRules.map((rule) => ({ ...rule, id: randomUUID() }))
    late = { ...fixture.parking, id: randomUUID(), name: "P-plass 9", priceRules: rules(), cancellationNoticeMinutes: 48 * 60, lateCancellationChargeBasisPoints: 5000 }
    strict = { ...fixture.parking, id: randomUUID(), name: "P-plass 10", priceRules: rules(), cancellationNoticeMinutes: 48 * 60 }
    await app.run(
      Effect.gen(function* () {
        const operator = yield* BookingOperatorService
        for (const resource of [late, strict]) yield* operator.setUpResource(OPERATOR, resource)
        yield* operator.allowApplication(OPERATOR, org.organizationId, seller.id, [late.id, strict.id])
      }).pipe(Effect.provide(BookingOperatorService.Default), Effect.orDie)
    )
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

  // ---- cancel and reschedule ---------------------------------------------------------------------------------------

  const OSLO = "Europe/Oslo"
  let counter = 0
  const hoursFromNow = (hours: number) => new Date(Math.ceil((Date.now() + hours * 3_600_000) / 1_800_000) * 1_800_000)
  const slot = (startAt: Date, hours = 1) => ({ start: startAt.toISOString(), end: new Date(startAt.getTime() + hours * 3_600_000).toISOString() })
  const request = (resourceId: string, period: { start: string; end: string }) => book(`cr-${++counter}`, period, resourceId)
  const cancelIt = (id: string, body: Record<string, unknown> = {}, tokenValue = sellerToken) =>
    post(`/v1/booking/booking-requests/${id}/cancel`, { cancellationId: `c-${++counter}`, ...body }, tokenValue)
  const move = (id: string, body: Record<string, unknown>, tokenValue = sellerToken) =>
    post(`/v1/booking/booking-requests/${id}/reschedule`, { rescheduleId: `m-${++counter}`, ...body }, tokenValue)
  const operator = <A, E>(use: (service: BookingOperatorService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(Effect.either(Effect.flatMap(BookingOperatorService, use)).pipe(Effect.provide(BookingOperatorService.Default)))
  const approve = (id: string) => operator((service) => service.approve(OPERATOR, org.organizationId, id))
  const eventTypes = async (id: string) =>
    (await app.run(Db.query((db) => db.selectFrom("events").select("type").where(sql<boolean>`payload ->> ${"bookingId"} = ${id}`).orderBy("occurredAt").execute()))).map((e) => e.type)
  const starts = async (resourceId: string, from: Date, hours: number) => {
    const answer = await get(
      `/v1/booking/resources/${resourceId}/availability?from=${from.toISOString()}&to=${new Date(from.getTime() + 24 * 3_600_000).toISOString()}&durationMinutes=${hours * 60}&prices=true`
    )
    expect(answer.status).toBe(200)
    return answer.body.startPrices as ReadonlyArray<{ start: string; totalGrossMinorUnits: number }>
  }

  describe("POST /v1/booking/booking-requests/{bookingId}/cancel", () => {
    it("cancels a pending request free; its slot is free at once; idempotent by cancellationId", async () => {
      const startAt = hoursFromNow(24 * 10)
      const made = await request(fixture.parking.id, slot(startAt))
      expect(made.status).toBe(201)
      expect((await starts(fixture.parking.id, startAt, 1)).map((p) => p.start)).not.toContain(startAt.toISOString())
      const body = { cancellationId: "web-cancel-1", reason: "Plans changed" }
      const cancelled = await post(`/v1/booking/booking-requests/${made.body.id}/cancel`, body)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body).toMatchObject({ status: "cancelled", cancelledBy: "application", cancellationReason: "Plans changed" })
      expect(cancelled.body.lateCancellation).toBeUndefined()
      expect((await starts(fixture.parking.id, startAt, 1)).map((p) => p.start)).toContain(startAt.toISOString())
      const again = await post(`/v1/booking/booking-requests/${made.body.id}/cancel`, body)
      expect([again.status, again.body]).toEqual([200, cancelled.body])
      const changed = await post(`/v1/booking/booking-requests/${made.body.id}/cancel`, { ...body, reason: "Another" })
      expect([changed.status, changed.body.code]).toEqual([409, "BOOKING_REQUEST_ID_ALREADY_USED"])
      const twice = await cancelIt(made.body.id)
      expect([twice.status, twice.body.code]).toEqual([400, "BOOKING_NOT_RESCHEDULABLE"])
      expect(await eventTypes(made.body.id)).toEqual(["booking.booking_request.created", "booking.booking_request.cancelled"])
      expect((await request(fixture.parking.id, slot(startAt))).status).toBe(201)
      expect((await get(`/v1/booking/booking-requests?status=cancelled`)).body.items.map((i: { id: string }) => i.id)).toContain(made.body.id)
    })

    it("answers every late-cancellation code under the resource's terms, and a refused cancel changes nothing", async () => {
      const soonAt = hoursFromNow(6)
      const lateOne = await request(late.id, slot(soonAt, 2))
      expect(lateOne.status).toBe(201)
      // pending: free, so a decision is out of place
      const early = await cancelIt(lateOne.body.id, { lateCancellation: { decision: "charge", chargeGrossMinorUnits: 1 } })
      expect([early.status, early.body.code]).toEqual([400, "BOOKING_NOT_PAST_CANCELLATION_DEADLINE"])
      expect(Either.isRight(await approve(lateOne.body.id))).toBe(true)
      const undecided = await cancelIt(lateOne.body.id)
      expect([undecided.status, undecided.body.code]).toEqual([400, "BOOKING_LATE_CANCELLATION_DECISION_REQUIRED"])
      const charge = lateOne.body.price.totalGrossMinorUnits / 2
      expect(undecided.body.detail).toContain(`charged ${charge} `)
      const stale = await cancelIt(lateOne.body.id, { lateCancellation: { decision: "charge", chargeGrossMinorUnits: charge + 1 } })
      expect([stale.status, stale.body.code]).toEqual([409, "BOOKING_LATE_CANCELLATION_ITEMS_CHANGED"])
      expect((await get(`/v1/booking/booking-requests/${lateOne.body.id}`)).body.status).toBe("approved")
      const charged = await cancelIt(lateOne.body.id, { lateCancellation: { decision: "charge", chargeGrossMinorUnits: charge } })
      expect(charged.status).toBe(200)
      expect(charged.body).toMatchObject({ status: "cancelled", lateCancellation: { decision: "charged", chargeBasisPoints: 5000, grossMinorUnits: charge } })

      const strictOne = await request(strict.id, slot(soonAt, 2))
      expect(Either.isRight(await approve(strictOne.body.id))).toBe(true)
      const expired = await cancelIt(strictOne.body.id, { lateCancellation: { decision: "charge", chargeGrossMinorUnits: 0 } })
      expect([expired.status, expired.body.code]).toEqual([400, "BOOKING_CANCELLATION_NOTICE_EXPIRED"])
      const movedLate = await move(strictOne.body.id, { period: slot(hoursFromNow(24 * 20)) })
      expect([movedLate.status, movedLate.body.code]).toEqual([400, "BOOKING_CANCELLATION_NOTICE_EXPIRED"])
      const waived = await operator((service) => service.cancel(OPERATOR, org.organizationId, strictOne.body.id, { lateCancellation: { decision: "waive" } }))
      expect(Either.isRight(waived) && waived.right).toMatchObject({ status: "cancelled", cancelledBy: "operator", lateCancellation: { decision: "waived", grossMinorUnits: 0 } })

      const started = await request(fixture.parking.id, slot(hoursFromNow(24 * 12)))
      await app.run(
        Db.query((db) =>
          db
            .updateTable("bookingRequests")
            .set(() => {
              // Under way: it started an hour ago and ends in an hour.
              const [startsAt, endsAt] = [new Date(Date.now() - 3_600_000), new Date(Date.now() + 3_600_000)]
              return { startsAt, endsAt, blocked: sql<string>`tstzrange(${startsAt}::timestamptz, ${endsAt}::timestamptz)` }
            })
            .where("id", "=", started.body.id)
            .execute()
        )
      )
      const tooLate = await cancelIt(started.body.id)
      expect([tooLate.status, tooLate.body.code]).toEqual([400, "BOOKING_ALREADY_STARTED"])
      expect((await cancelIt(started.body.id, {}, secondSellerToken)).status).toBe(404)
      expect((await cancelIt(randomUUID())).status).toBe(404)
    })

    it("a cancel racing an operator's approval ends one way: cancelled with approval refused, or approved with the cancel refused", async () => {
      for (let round = 0; round < 5; round++) {
        const made = await request(strict.id, slot(hoursFromNow(5 + round), 1))
        expect(made.status).toBe(201)
        const [cancelled, approved] = await Promise.all([cancelIt(made.body.id), approve(made.body.id)])
        const status = (await get(`/v1/booking/booking-requests/${made.body.id}`)).body.status
        if (cancelled.status === 200) {
          expect(Either.isLeft(approved) && approved.left).toMatchObject({ code: "BOOKING_NOT_PENDING_APPROVAL" })
          expect(status).toBe("cancelled")
          expect(await eventTypes(made.body.id)).toEqual(["booking.booking_request.created", "booking.booking_request.cancelled"])
        } else {
          expect(Either.isRight(approved)).toBe(true)
          expect([cancelled.status, cancelled.body.code]).toEqual([400, "BOOKING_CANCELLATION_NOTICE_EXPIRED"])
          expect(status).toBe("approved")
          expect(await eventTypes(made.body.id)).toEqual(["booking.booking_request.created", "booking.booking_request.approved"])
        }
      }
    })
  })

  describe("POST /v1/booking/booking-requests/{bookingId}/reschedule", () => {
    it("moves a request with the checks and price of a new one, frees the old slot, and replays by rescheduleId", async () => {
      const date = localDate(STOCKHOLM, 30, 2)
      const made = await book("to-move", roomPeriod(date, "09:00", "10:00"))
      expect(made.status).toBe(201)
      const body = { rescheduleId: "web-move-1", period: roomPeriod(date, "13:00", "15:30") }
      const previewed = await post("/v1/booking/booking-requests/preview", { resourceId: fixture.room.id, period: body.period })
      expect(previewed.status).toBe(200)
      const moved = await post(`/v1/booking/booking-requests/${made.body.id}/reschedule`, body)
      expect(moved.status).toBe(200)
      const iso = (period: { start: string; end: string }) => ({ start: new Date(period.start).toISOString(), end: new Date(period.end).toISOString() })
      expect(moved.body).toMatchObject({ id: made.body.id, requestId: "to-move", status: "pending", period: iso(body.period), price: previewed.body.price })
      expect(moved.body.rescheduledAt).toBeDefined()
      expect((await book("after-move", roomPeriod(date, "09:00", "10:00"))).status).toBe(201)
      const again = await post(`/v1/booking/booking-requests/${made.body.id}/reschedule`, body)
      expect([again.status, again.body.id, again.body.period]).toEqual([200, made.body.id, iso(body.period)])
      const reused = await post(`/v1/booking/booking-requests/${made.body.id}/reschedule`, { ...body, period: roomPeriod(date, "16:00", "17:00") })
      expect([reused.status, reused.body.code]).toEqual([409, "BOOKING_REQUEST_ID_ALREADY_USED"])
      const taken = await move(made.body.id, { period: roomPeriod(date, "09:00", "10:00") })
      expect([taken.status, taken.body.code]).toEqual([409, "BOOKING_SLOT_TAKEN"])
      const offGrid = await move(made.body.id, { period: roomPeriod(date, "13:05", "14:05") })
      expect([offGrid.status, offGrid.body.code]).toEqual([400, "BOOKING_START_NOT_ON_INCREMENT"])
      expect((await get(`/v1/booking/booking-requests/${made.body.id}`)).body.period).toEqual(iso(body.period))
      expect(await eventTypes(made.body.id)).toEqual(["booking.booking_request.created", "booking.booking_request.rescheduled"])
      const declined = await book("declined-move", roomPeriod(date, "17:00", "18:00"))
      await operator((service) => service.decline(OPERATOR, org.organizationId, declined.body.id, "Closed"))
      const dead = await move(declined.body.id, { period: roomPeriod(localDate(STOCKHOLM, 31, 3), "09:00", "10:00") })
      expect([dead.status, dead.body.code]).toEqual([400, "BOOKING_NOT_RESCHEDULABLE"])
      expect((await move(made.body.id, { period: roomPeriod(date, "16:00", "17:00") }, secondSellerToken)).status).toBe(404)
    })

    it("of 20 concurrent reschedules into one slot, exactly one moves; the rest get 409 BOOKING_SLOT_TAKEN and stay put", async () => {
      const base = hoursFromNow(24 * 40)
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, index) => request(fixture.parking.id, slot(new Date(base.getTime() + index * 2 * 3_600_000))))
      )
      for (const answer of made) expect(answer.status).toBe(201)
      const target = slot(new Date(base.getTime() - 24 * 3_600_000), 1)
      const answers = await Promise.all(made.map((answer) => move(answer.body.id, { period: target })))
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
      for (const answer of answers.filter((a) => a.status !== 200)) expect([answer.status, answer.body.code]).toEqual([409, "BOOKING_SLOT_TAKEN"])
      const rows = await app.run(
        Db.query((db) => db.selectFrom("bookingRequests").select("id").where("resourceId", "=", fixture.parking.id).where("startsAt", "=", new Date(target.start)).execute())
      )
      expect(rows).toHaveLength(1)
    })
  })

  describe("property (fast-check): a priced free start previews at its price, requests, and is free again at once when cancelled", () => {
    it("holds for random starts, lengths and resources", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("parking", "room"),
          fc.integer({ min: 20, max: 80 }),
          fc.integer({ min: 1, max: 4 }),
          fc.nat(),
          async (which, days, hours, pick) => {
            const resourceId = which === "parking" ? fixture.parking.id : fixture.room.id
            const zone = which === "parking" ? OSLO : STOCKHOLM
            const dayStart = new Date(at(zone, localDate(zone, days), "00:00"))
            const priced = await starts(resourceId, dayStart, hours)
            if (priced.length === 0) return
            const chosen = priced[pick % priced.length]!
            const period = slot(new Date(chosen.start), hours)
            const previewed = await post("/v1/booking/booking-requests/preview", { resourceId, period })
            expect([previewed.status, previewed.body.price?.totalGrossMinorUnits]).toEqual([200, chosen.totalGrossMinorUnits])
            const made = await request(resourceId, period)
            expect([made.status, made.body.price?.totalGrossMinorUnits]).toEqual([201, chosen.totalGrossMinorUnits])
            expect((await starts(resourceId, dayStart, hours)).map((p) => p.start)).not.toContain(chosen.start)
            expect((await cancelIt(made.body.id)).status).toBe(200)
            expect(await starts(resourceId, dayStart, hours)).toContainEqual(chosen)
          }
        ),
        { numRuns: 8 }
      )
    }, 120_000)
  })
})
