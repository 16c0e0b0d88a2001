import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, ManagedRuntime } from "effect"
import { sql } from "kysely"
import { afterAll, beforeAll } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"

const now = new Date("2026-11-23T04:00:00.000Z")
const ORG = "00000000-0000-4000-8000-0000000000a1"
const CONTEXT = "00000000-0000-4000-8000-0000000000b1"
const APP = "00000000-0000-4000-8000-0000000000c1"
const RESOURCE = "00000000-0000-4000-8000-0000000000d1"

const seed = Db.query(async (db) => {
  await db.insertInto("organizations").values({ id: ORG, name: "Org", country: "SE", createdAt: now, updatedAt: now }).execute()
  await db
    .insertInto("operationalContexts")
    .values({ id: CONTEXT, organizationId: ORG, parentId: null, kind: "organization", name: "Org", createdAt: now, updatedAt: now })
    .execute()
  await db
    .insertInto("applications")
    .values({ id: APP, organizationId: ORG, clientId: "app_booking_schema", name: "Web", roles: ["booking"], status: "active", disabledAt: null, createdAt: now, updatedAt: now })
    .execute()
  await db
    .insertInto("bookingResources")
    .values({
      id: RESOURCE,
      organizationId: ORG,
      operationalContextId: CONTEXT,
      kind: "room",
      name: "Room",
      description: null,
      timeZone: "Europe/Stockholm",
      capacity: 8,
      currency: "SEK",
      openingHours: JSON.stringify({ weekly: [{ weekday: 1, opens: "08:00", closes: "18:00" }], closures: [] }),
      minDurationMinutes: 30,
      maxDurationMinutes: 480,
      durationIncrementMinutes: 15,
      startIncrementMinutes: 15,
      minimumNoticeMinutes: 0,
      horizonDays: 90,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 15,
      holdMinutes: 60,
      nightStays: null,
      status: "active",
      createdAt: now,
      updatedAt: now
    })
    .execute()
  await db
    .insertInto("bookingPriceRules")
    .values({ id: "00000000-0000-4000-8000-0000000000e1", resourceId: RESOURCE, position: 0, name: "Hourly", unit: "hour", amountMinorUnits: 50_000, vatRateBasisPoints: 2500, weekdays: [1, 2, 3, 4, 5], windowFrom: "08:00", windowTo: "17:00", createdAt: now })
    .execute()
})

let counter = 0
const request = (from: string, to: string, status: "pending" | "approved" | "declined" = "pending", requestId?: string) => {
  counter += 1
  const id = `00000000-0000-4000-8000-${String(counter).padStart(12, "0")}`
  const key = requestId ?? `r-${counter}`
  return Db.query((db) =>
    db
      .insertInto("bookingRequests")
      .values({
        id,
        organizationId: ORG,
        operationalContextId: CONTEXT,
        resourceId: RESOURCE,
        applicationId: APP,
        requestId: key,
        fingerprint: "f",
        status,
        checkInDate: null,
        checkOutDate: null,
        startsAt: new Date(from),
        endsAt: new Date(to),
        blocked: sql<string>`tstzrange(${new Date(from)}::timestamptz, ${new Date(new Date(to).getTime() + 15 * 60_000)}::timestamptz)`,
        nights: null,
        guestName: "Guest",
        guestEmail: "guest@example.com",
        guestPhone: null,
        companyCountry: null,
        companyOrganisationNumber: null,
        companyName: null,
        message: null,
        addOns: JSON.stringify([{ addOnProductId: "x", quantity: 2, deliverAt: from, specialPortions: [] }]),
        price: JSON.stringify({ lines: [] }),
        currency: "SEK",
        totalNetMinorUnits: 0,
        totalVatMinorUnits: 0,
        totalGrossMinorUnits: 0,
        holdExpiresAt: new Date(from),
        approvedAt: null,
        declinedAt: null,
        declineReason: null,
        expiredAt: null,
        createdAt: now,
        updatedAt: now
      })
      .returning("id")
      .executeTakeFirstOrThrow()
  )
}

describe.each(TestDatabase.kinds())("booking schema on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    await run(seed)
  }, 120_000)
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  it("keeps JSON columns as written", async () => {
    const row = await run(Db.query((db) => db.selectFrom("bookingResources").select(["openingHours", "nightStays"]).executeTakeFirstOrThrow()))
    expect(row).toEqual({ openingHours: { weekly: [{ weekday: 1, opens: "08:00", closes: "18:00" }], closures: [] }, nightStays: null })
    const rule = await run(Db.query((db) => db.selectFrom("bookingPriceRules").select(["weekdays", "amountMinorUnits"]).executeTakeFirstOrThrow()))
    expect(rule).toEqual({ weekdays: [1, 2, 3, 4, 5], amountMinorUnits: 50_000 })
  })

  it("refuses a live request whose buffered span overlaps another live one (exclusion constraint)", async () => {
    await run(request("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z"))
    const overlapping = await run(Effect.either(request("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z")))
    expect(Either.isLeft(overlapping) && overlapping.left.isExclusionViolation("booking_requests_no_overlap")).toBe(true)
  })

  it("lets a request follow once the buffer has passed", async () => {
    await run(request("2026-12-02T09:00:00Z", "2026-12-02T10:00:00Z", "approved"))
    await run(request("2026-12-02T10:15:00Z", "2026-12-02T11:00:00Z"))
  })

  it("does not count declined requests", async () => {
    await run(request("2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z", "declined"))
    await run(request("2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z"))
  })

  it("refuses the same requestId twice from one Application", async () => {
    await run(request("2026-12-04T09:00:00Z", "2026-12-04T10:00:00Z", "pending", "same"))
    const again = await run(Effect.either(request("2026-12-05T09:00:00Z", "2026-12-05T10:00:00Z", "pending", "same")))
    expect(Either.isLeft(again) && again.left.isUniqueViolation("booking_requests_request_id_key")).toBe(true)
  })

  it("lets exactly one of 20 concurrent overlapping requests commit", async () => {
    const attempts = Array.from({ length: 20 }, (_, i) =>
      run(Effect.either(Db.transaction(request("2026-12-07T09:00:00Z", `2026-12-07T${String(10 + (i % 5)).padStart(2, "0")}:00:00Z`))))
    )
    const results = await Promise.all(attempts)
    expect(results.filter(Either.isRight)).toHaveLength(1)
    for (const result of results.filter(Either.isLeft)) expect([result.left.code, result.left.constraint]).toEqual(["23P01", "booking_requests_no_overlap"])
  })
})
