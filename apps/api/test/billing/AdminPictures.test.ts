/**
 * The console's pictures over the admin API, black box, on PGlite and PostgreSQL (issue 25, item 6): the billing
 * charts' figures (invoiced, paid without reversals, overdue per month; overdue by age) and the booking week
 * calendar (bookings, live holds, booked minutes per day), each the organization's only.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { billingPictures, bookingPictures } from "../support/PictureFixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("the console's pictures on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let session: Session
  let otherSession: Session
  const url = (path: string) => `${app.adminUrl}${path}`

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    session = await signIn(app.adminUrl, await app.run(operator(org.organizationId)))
    otherSession = await signIn(app.adminUrl, await app.run(operator(other.organizationId, { role: "read_only" })))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  it("sums invoiced, paid and overdue per month and the overdue balance by age", async () => {
    const expected = await app.run(billingPictures(org))
    const answer = await adminCall(url("/api/billing/charts?months=3"), session)
    expect(answer.status).toBe(200)
    expect(answer.body.months).toHaveLength(3)
    expect(answer.body.months.at(-1)).toBe(expected.thisMonth)
    const month = (value: string) => answer.body.figures.find((row: { month: string }) => row.month === value)
    expect(month(expected.thisMonth)).toMatchObject({ currency: "SEK", invoicedMinorUnits: 20_500, paidMinorUnits: 3_000 })
    const overdue = answer.body.figures.reduce((sum: number, row: { overdueMinorUnits: number }) => sum + row.overdueMinorUnits, 0)
    expect(overdue).toBe(17_500)
    expect(month(expected.overdueMonth).overdueMinorUnits).toBeGreaterThanOrEqual(12_500)
    expect(answer.body.overdueByAge).toEqual([
      { currency: "SEK", age: "1-30", count: 1, balanceMinorUnits: 5_000 },
      { currency: "SEK", age: "31-60", count: 1, balanceMinorUnits: 12_500 }
    ])
    // Another organization's operator (read-only may read) sees none of it.
    const other = await adminCall(url("/api/billing/charts"), otherSession)
    expect(other.status).toBe(200)
    expect(other.body).toMatchObject({ figures: [], overdueByAge: [] })
    expect(other.body.months).toHaveLength(12)
    expect((await adminCall(url("/api/billing/charts?months=25"), session)).status).toBe(400)
  })

  it("shows each resource's bookings and live holds for the week, and its booked minutes per day", async () => {
    const { monday, booked, held, room } = await bookingPictures(app, org)
    const answer = await adminCall(url(`/api/booking/calendar?from=${monday}`), session)
    expect(answer.status).toBe(200)
    expect(answer.body.from).toBe(monday)
    const boardroom = answer.body.resources.find((resource: { id: string }) => resource.id === room.id)
    expect(boardroom.items.map((item: { id: string; status: string }) => [item.id, item.status])).toEqual([
      [booked, "approved"],
      [held, "pending"]
    ])
    expect(boardroom.bookedMinutesPerDay).toEqual([0, 120, 0, 0, 0, 0, 0])
    const empty = await adminCall(url("/api/booking/calendar?from=2020-01-06"), session)
    expect(empty.body.resources.every((resource: { items: unknown[] }) => resource.items.length === 0)).toBe(true)
    expect((await adminCall(url("/api/booking/calendar?from=2026-02-30"), session)).status).toBe(400)
    const other = await adminCall(url(`/api/booking/calendar?from=${monday}`), otherSession)
    expect(other.body.resources).toEqual([])
  })
})
