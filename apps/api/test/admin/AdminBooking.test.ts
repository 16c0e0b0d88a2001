/**
 * The console's booking pages over the admin API, black box, on PGlite and PostgreSQL (issue 11): resources with
 * their rules, and booking requests an operator approves or declines through the booking operator service — each
 * refusal with its spec code, another organization's ids 404, every decision audited with the operator.
 */
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
})
