/**
 * The console's booking pages over the admin API, black box, on PGlite and PostgreSQL (issue 11): resources with
 * their rules, and booking requests an operator approves or declines through the booking operator service — each
 * refusal with its spec code, another organization's ids 404, every decision audited with the operator. Setting
 * up: a resource created with a price rule and allowed to an Application is sold through the public API; the
 * service's setup issues come back as VALIDATION_FAILED at the body's paths and its refusals with their codes;
 * add-on products and the ones a resource offers; each change audited; CSRF and tenancy as everywhere.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { adminCall, auditCount, operator, type Session, signIn } from "../support/AdminClient.js"
import { at, type BookingFixture, bookingSetup, localDate } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const STOCKHOLM = "Europe/Stockholm"

describe.each(TestDatabase.kinds())("the console's booking pages on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let fixture: BookingFixture
  let session: Session
  let otherSession: Session
  let bookingToken: string
  let sellerId: string
  let requests = 0

  const url = (path: string) => `${app.adminUrl}${path}`
  /** A pending request for the room on a Tuesday `weeks` weeks ahead, 10:00–11:00 local time. */
  const request = async (weeks: number) => {
    const date = localDate(STOCKHOLM, 7 * weeks, 2)
    const answer = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
      token: bookingToken,
      body: {
        requestId: `admin-${++requests}-${Math.random()}`,
        guest: { name: "Astrid Lindqvist", email: "astrid@example.se" },
        resourceId: fixture.room.id,
        period: { start: at(STOCKHOLM, date, "10:00"), end: at(STOCKHOLM, date, "11:00") }
      }
    })
    if (answer.status !== 201) throw new Error(`booking request failed: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body.id as string
  }

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    sellerId = seller.id
    fixture = await app.run(bookingSetup(org, [seller.id]).pipe(Effect.provide(BookingOperatorService.Default)))
    bookingToken = await token(app.authUrl, seller.clientId, seller.secret)
    session = await signIn(app.adminUrl, await app.run(operator(org.organizationId)))
    otherSession = await signIn(app.adminUrl, await app.run(operator(other.organizationId)))
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("lists the resources and shows one with its opening hours, rules and price rules", async () => {
    const list = await adminCall(url("/api/booking/resources?kind=room"), session)
    expect(list.body.items.map((resource: { id: string }) => resource.id)).toContain(fixture.room.id)
    const detail = await adminCall(url(`/api/booking/resources/${fixture.room.id}`), session)
    expect(detail.status).toBe(200)
    expect(detail.body.resource).toMatchObject({ name: "Boardroom", timeZone: STOCKHOLM, currency: "SEK" })
    expect(detail.body.weekly).toHaveLength(5)
    expect(detail.body.priceRules.length).toBeGreaterThan(0)
    expect((await adminCall(url(`/api/booking/resources/${fixture.room.id}`), otherSession)).status).toBe(404)
    expect((await adminCall(url("/api/booking/resources"), otherSession)).body.items).toEqual([])
  })

  it("shows one booking request on its page (issue 25); another organization's is 404, a malformed id 400", async () => {
    const bookingId = await request(5)
    const page = await adminCall(url(`/api/booking/requests/${bookingId}`), session)
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ id: bookingId, status: "pending", resourceName: "Boardroom", guestName: "Astrid Lindqvist", timeZone: STOCKHOLM })
    expect((await adminCall(url(`/api/booking/requests/${bookingId}`), otherSession)).status).toBe(404)
    const malformed = await adminCall(url("/api/booking/requests/nope"), session)
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("VALIDATION_FAILED")
  })

  it("pages the requests waiting for approval: the next page goes on where the first stopped", async () => {
    await request(6)
    await request(7)
    const first = await adminCall(url("/api/booking/requests?status=pending&limit=1"), session)
    expect(first.body.items).toHaveLength(1)
    expect(first.body.nextCursor).toEqual(expect.any(String))
    const second = await adminCall(url(`/api/booking/requests?status=pending&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`), session)
    expect(second.body.items).toHaveLength(1)
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id)
  })

  it("lists requests by start within the calendar's days, and approves one once", async () => {
    const bookingId = await request(3)
    const date = localDate(STOCKHOLM, 21, 2)
    const week = await adminCall(url(`/api/booking/requests?resourceId=${fixture.room.id}&from=${date}&to=${date}`), session)
    expect(week.body.items).toEqual([expect.objectContaining({ id: bookingId, status: "pending", resourceName: "Boardroom" })])
    const before = await app.run(auditCount(org.organizationId, "booking.booking_request.approve"))
    const approved = await adminCall(url(`/api/booking/requests/${bookingId}/approve`), session, { method: "POST" })
    expect(approved.status).toBe(200)
    expect(approved.body.status).toBe("approved")
    expect(await app.run(auditCount(org.organizationId, "booking.booking_request.approve"))).toBe(before + 1)
    const again = await adminCall(url(`/api/booking/requests/${bookingId}/approve`), session, { method: "POST" })
    expect(again.status).toBe(400)
    expect(again.body.code).toBe("BOOKING_NOT_PENDING_APPROVAL")
    const seen = await call(`${app.apiUrl}/v1/booking/booking-requests/${bookingId}`, { token: bookingToken })
    expect(seen.body.status).toBe("approved")
  })

  it("declines with a reason (required), and another organization's request is 404", async () => {
    const bookingId = await request(4)
    const noReason = await adminCall(url(`/api/booking/requests/${bookingId}/decline`), session, { method: "POST", body: { reason: "" } })
    expect(noReason.status).toBe(400)
    expect(noReason.body.issues[0].path).toBe("/reason")
    const foreign = await adminCall(url(`/api/booking/requests/${bookingId}/approve`), otherSession, { method: "POST" })
    expect(foreign.status).toBe(404)
    const declined = await adminCall(url(`/api/booking/requests/${bookingId}/decline`), session, {
      method: "POST",
      body: { reason: "The room is closed for maintenance" }
    })
    expect(declined.status).toBe(200)
    expect(declined.body).toMatchObject({ status: "declined", declineReason: "The room is closed for maintenance" })
  })

  it("cancels a request from the console (issue 26): free before its deadline, then refused as no longer live; 404 across organizations", async () => {
    const bookingId = await request(2)
    expect((await adminCall(url(`/api/booking/requests/${bookingId}/cancel`), otherSession, { method: "POST", body: {} })).status).toBe(404)
    const early = await adminCall(url(`/api/booking/requests/${bookingId}/cancel`), session, { method: "POST", body: { lateCancellation: "waive" } })
    expect([early.status, early.body.code]).toEqual([400, "BOOKING_NOT_PAST_CANCELLATION_DEADLINE"])
    const cancelled = await adminCall(url(`/api/booking/requests/${bookingId}/cancel`), session, { method: "POST", body: { reason: "Double booked" } })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.status).toBe("cancelled")
    const seen = await call(`${app.apiUrl}/v1/booking/booking-requests/${bookingId}`, { token: bookingToken })
    expect(seen.body).toMatchObject({ status: "cancelled", cancelledBy: "operator", cancellationReason: "Double booked" })
    const twice = await adminCall(url(`/api/booking/requests/${bookingId}/cancel`), session, { method: "POST", body: {} })
    expect([twice.status, twice.body.code]).toEqual([400, "BOOKING_NOT_RESCHEDULABLE"])
  })

  /** A valid setup body: a desk in the organization's property, open weekdays 08–18, one hourly price rule. */
  const deskSetup = (overrides: Record<string, unknown> = {}) => ({
    operationalContextId: org.propertyId,
    kind: "desk",
    name: `Desk ${Math.random().toString(36).slice(2, 8)}`,
    timeZone: STOCKHOLM,
    capacity: 1,
    currency: "SEK",
    openingHours: { weekly: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opens: "08:00", closes: "18:00" })), closures: [] },
    minDurationMinutes: 60,
    maxDurationMinutes: 480,
    durationIncrementMinutes: 30,
    startIncrementMinutes: 30,
    minimumNoticeMinutes: 0,
    horizonDays: 60,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    holdMinutes: 120,
    priceRules: [{ name: "Hourly", unit: "hour", amountMinorUnits: 12_500, vatRateBasisPoints: 2500, weekdays: [1, 2, 3, 4, 5] }],
    ...overrides
  })
  const resourceCount = () =>
    app.run(
      Db.query((db) =>
        db.selectFrom("bookingResources").select((eb) => eb.fn.countAll<number>().as("n")).where("organizationId", "=", org.organizationId).executeTakeFirstOrThrow()
      ).pipe(
        Effect.orDie,
        Effect.map((row) => Number(row.n))
      )
    )

  describe("setting up", () => {
    it("creates a resource with a price rule; allowed to an Application, the public API sells it; replacing it changes the price", async () => {
      const before = await app.run(auditCount(org.organizationId, "booking.resource.create"))
      const created = await adminCall(url("/api/booking/resources"), session, { body: deskSetup({ name: "Hot desk 12" }) })
      expect(created.status).toBe(201)
      const resourceId = created.body.resource.id as string
      expect(created.body).toMatchObject({
        resource: { name: "Hot desk 12", kind: "desk", operationalContextId: org.propertyId, status: "active" },
        priceRules: [{ name: "Hourly", unit: "hour", amountMinorUnits: 12_500, windowFrom: null }],
        sellers: []
      })
      expect(await app.run(auditCount(org.organizationId, "booking.resource.create"))).toBe(before + 1)
      const hidden = await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: bookingToken })
      expect(hidden.status).toBe(404)

      const allowed = await adminCall(url(`/api/booking/resources/${resourceId}/sellers`), session, { body: { applicationId: sellerId } })
      expect(allowed.status).toBe(200)
      expect(allowed.body.sellers.map((seller: { id: string }) => seller.id)).toEqual([sellerId])
      expect(await app.run(auditCount(org.organizationId, "booking.application.allow_resources"))).toBeGreaterThan(0)
      const sold = await call(`${app.apiUrl}/v1/booking/resources?limit=100`, { token: bookingToken })
      expect(sold.body.items.map((item: { id: string }) => item.id)).toContain(resourceId)

      const setup = await adminCall(url(`/api/booking/resources/${resourceId}/setup`), session)
      expect(setup.status).toBe(200)
      expect(setup.body).toEqual(deskSetup({ name: "Hot desk 12" }))
      const replaced = await adminCall(url(`/api/booking/resources/${resourceId}`), session, {
        method: "PUT",
        body: { ...setup.body, name: "Hot desk 12b", priceRules: [{ ...setup.body.priceRules[0], amountMinorUnits: 15_000 }] }
      })
      expect(replaced.status).toBe(200)
      expect(replaced.body.resource.name).toBe("Hot desk 12b")
      expect(replaced.body.priceRules[0].amountMinorUnits).toBe(15_000)
      expect(await app.run(auditCount(org.organizationId, "booking.resource.update"))).toBeGreaterThan(0)
      const seen = await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: bookingToken })
      expect(seen.body.name).toBe("Hot desk 12b")
    })

    it("answers the service's setup issues at the body's paths, and its refusals with their codes; nothing is created", async () => {
      const count = await resourceCount()
      const invalid = await adminCall(url("/api/booking/resources"), session, {
        body: deskSetup({
          timeZone: "Mars/Olympus",
          priceRules: [{ name: "Hourly", unit: "hour", amountMinorUnits: -1, vatRateBasisPoints: 2500, weekdays: [1] }]
        })
      })
      expect(invalid.status).toBe(400)
      expect(invalid.body.code).toBe("VALIDATION_FAILED")
      expect(invalid.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/timeZone", "/priceRules/0/amountMinorUnits"])
      const ambiguous = await adminCall(url("/api/booking/resources"), session, {
        body: deskSetup({
          priceRules: [
            { name: "Day rate", unit: "hour", amountMinorUnits: 10_000, vatRateBasisPoints: 2500, weekdays: [1, 2], window: { from: "08:00", to: "17:00" } },
            { name: "Late", unit: "hour", amountMinorUnits: 8_000, vatRateBasisPoints: 2500, weekdays: [2], window: { from: "16:00", to: "18:00" } }
          ]
        })
      })
      expect(ambiguous.status).toBe(400)
      expect(ambiguous.body.code).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
      const buffer = await adminCall(url("/api/booking/resources"), session, { body: deskSetup({ bufferAfterMinutes: 10 }) })
      expect(buffer.body.code).toBe("BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT")
      const foreignContext = await adminCall(url("/api/booking/resources"), session, { body: deskSetup({ operationalContextId: other.propertyId }) })
      expect(foreignContext.status).toBe(400)
      expect(foreignContext.body.issues).toEqual([{ path: "/operationalContextId", message: "is not an operational context of your organization" }])
      const shape = await adminCall(url("/api/booking/resources"), session, { body: deskSetup({ capacity: "one", kind: "sofa" }) })
      expect(shape.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/capacity", "/kind"])
      const noCsrf = await adminCall(url("/api/booking/resources"), session, { body: deskSetup(), csrf: false })
      expect(noCsrf.status).toBe(403)
      expect(await resourceCount()).toBe(count)
    })

    it("takes the cancellation terms (issue 26): stored, sold with the resource, read back by the form; out of range at their paths", async () => {
      const count = await resourceCount()
      const invalid = await adminCall(url("/api/booking/resources"), session, {
        body: deskSetup({ cancellationNoticeMinutes: -1, lateCancellationChargeBasisPoints: 10_001 })
      })
      expect(invalid.status).toBe(400)
      expect(invalid.body.issues).toEqual([
        { path: "/cancellationNoticeMinutes", message: "must be an integer from 0 to 1051200" },
        { path: "/lateCancellationChargeBasisPoints", message: "must be an integer from 0 to 10000" }
      ])
      expect(await resourceCount()).toBe(count)
      const terms = { cancellationNoticeMinutes: 2880, lateCancellationChargeBasisPoints: 5000 }
      const created = await adminCall(url("/api/booking/resources"), session, { body: deskSetup({ name: "Termed desk", ...terms }) })
      expect(created.status).toBe(201)
      const resourceId = created.body.resource.id as string
      const setup = await adminCall(url(`/api/booking/resources/${resourceId}/setup`), session)
      expect(setup.body).toEqual(deskSetup({ name: "Termed desk", ...terms }))
      await adminCall(url(`/api/booking/resources/${resourceId}/sellers`), session, { body: { applicationId: sellerId } })
      expect((await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: bookingToken })).body).toMatchObject(terms)
      const { cancellationNoticeMinutes: _notice, lateCancellationChargeBasisPoints: _charge, ...withoutTerms } = setup.body
      const cleared = await adminCall(url(`/api/booking/resources/${resourceId}`), session, { method: "PUT", body: withoutTerms })
      expect(cleared.status).toBe(200)
      const sold = await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: bookingToken })
      expect(sold.body).not.toHaveProperty("cancellationNoticeMinutes")
      expect(sold.body).not.toHaveProperty("lateCancellationChargeBasisPoints")
    })

    it("keeps another organization's resources, products and Applications out of reach: 404, nothing changed", async () => {
      const own = await adminCall(url(`/api/booking/resources/${fixture.room.id}/setup`), session)
      expect(own.status).toBe(200)
      expect((await adminCall(url(`/api/booking/resources/${fixture.room.id}/setup`), otherSession)).status).toBe(404)
      const replaced = await adminCall(url(`/api/booking/resources/${fixture.room.id}`), otherSession, {
        method: "PUT",
        body: { ...own.body, operationalContextId: other.propertyId, name: "Taken over" }
      })
      expect(replaced.status).toBe(404)
      expect((await adminCall(url(`/api/booking/resources/${fixture.room.id}`), session)).body.resource.name).toBe("Boardroom")
      const offer = await adminCall(url(`/api/booking/resources/${fixture.room.id}/add-on-products`), otherSession, {
        method: "PUT",
        body: { addOnProductIds: [] }
      })
      expect(offer.status).toBe(404)
      const allow = await adminCall(url(`/api/booking/resources/${fixture.room.id}/sellers`), otherSession, { body: { applicationId: sellerId } })
      expect(allow.status).toBe(404)
      const foreignSeller = await app.run(Fixtures.application(other, { roles: ["booking"] }))
      const allowForeign = await adminCall(url(`/api/booking/resources/${fixture.room.id}/sellers`), session, { body: { applicationId: foreignSeller.id } })
      expect(allowForeign.status).toBe(404)
      const product = fixture.lunch
      expect((await adminCall(url(`/api/booking/add-on-products/${product.id}/setup`), otherSession)).status).toBe(404)
    })

    it("creates and replaces add-on products, and sets which a resource offers (in its currency only)", async () => {
      const product = {
        operationalContextId: org.rootId,
        name: "Projector",
        category: "equipment",
        currency: "SEK",
        unitPriceMinorUnits: 20_000,
        vatRateBasisPoints: 2500,
        leadTimeMinutes: 60,
        maxQuantityPerLine: 2,
        specialPortions: false,
        deliveryHours: [],
        retired: false
      }
      const before = await app.run(auditCount(org.organizationId, "booking.add_on_product.save"))
      const created = await adminCall(url("/api/booking/add-on-products"), session, { body: product })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ name: "Projector", unitPriceMinorUnits: 20_000, retiredAt: null })
      const productId = created.body.id as string
      const invalid = await adminCall(url(`/api/booking/add-on-products/${productId}`), session, {
        method: "PUT",
        body: { ...product, maxQuantityPerLine: 0, cutOff: { daysBefore: 1, time: "25:00" } }
      })
      expect(invalid.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/maxQuantityPerLine", "/cutOff/time"])
      const euro = await adminCall(url(`/api/booking/add-on-products/${productId}`), session, { method: "PUT", body: { ...product, currency: "EUR" } })
      expect(euro.status).toBe(200)
      expect(await app.run(auditCount(org.organizationId, "booking.add_on_product.save"))).toBe(before + 2)
      expect((await adminCall(url(`/api/booking/add-on-products/${productId}/setup`), session)).body).toEqual({ ...product, currency: "EUR" })

      const offerEuro = await adminCall(url(`/api/booking/resources/${fixture.room.id}/add-on-products`), session, {
        method: "PUT",
        body: { addOnProductIds: [productId] }
      })
      expect(offerEuro.status).toBe(400)
      expect(offerEuro.body.code).toBe("BOOKING_RESOURCE_CURRENCY_MISMATCH")
      await adminCall(url(`/api/booking/add-on-products/${productId}`), session, { method: "PUT", body: product })
      const offered = await adminCall(url(`/api/booking/resources/${fixture.room.id}/add-on-products`), session, {
        method: "PUT",
        body: { addOnProductIds: [productId] }
      })
      expect(offered.status).toBe(200)
      expect(offered.body.addOnProducts.map((offer: { id: string }) => offer.id)).toEqual([productId])
      expect(await app.run(auditCount(org.organizationId, "booking.resource.offer_add_ons"))).toBeGreaterThan(0)
      const sold = await call(`${app.apiUrl}/v1/booking/resources/${fixture.room.id}/add-on-products`, { token: bookingToken })
      expect(sold.body.items.map((item: { id: string }) => item.id)).toEqual([productId])
    })
  })
})
