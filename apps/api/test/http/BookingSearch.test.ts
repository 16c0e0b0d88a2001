/**
 * The search across resources (`GET /v1/booking/availability`, issue 26 item 4), black box over HTTP on PGlite and
 * PostgreSQL: every resource it returns answers exactly what that resource's own availability answers (a
 * fast-check property over windows, durations, prices and page sizes), the filters (a context's subtree, kind,
 * capacity), paging by resource under the per-page cost bounds, the 31-day limit and the query's other 400s, and
 * scoping (another organization's resources, an ungranted context's, an ungranted resource are never listed).
 */
import type { BookableResource } from "@propline/booking/Resource"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { type BookingFixture, at, bookingSetup, localDate, OPERATOR } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const STOCKHOLM = "Europe/Stockholm"
const DAY = 24 * 3_600_000

interface Item {
  readonly resource: { readonly id: string; readonly kind: string; readonly capacity: number; readonly operationalContextId: string }
  readonly availability: { readonly resourceId: string; readonly startTimes?: ReadonlyArray<string>; readonly startPrices?: ReadonlyArray<unknown> }
}

describe.each(TestDatabase.kinds())("GET /v1/booking/availability on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let fixture: BookingFixture
  let otherFixture: BookingFixture
  let sellerToken: string
  let regionToken: string
  let otherOrgToken: string
  let desks: ReadonlyArray<BookableResource>
  let hall: BookableResource
  let ungranted: BookableResource

  const get = (path: string, tokenValue = sellerToken) => call(`${app.apiUrl}${path}`, { token: tokenValue })

  /** Every page of a search, following `nextCursor`; the pages' items in order and each page's size. */
  const searchAll = async (query: string, tokenValue = sellerToken) => {
    const items: Array<Item> = []
    const sizes: Array<number> = []
    let cursor: string | null = null
    do {
      const answer = await get(`/v1/booking/availability?${query}${cursor === null ? "" : `&cursor=${cursor}`}`, tokenValue)
      expect(answer.status).toBe(200)
      items.push(...answer.body.items)
      sizes.push(answer.body.items.length)
      cursor = answer.body.nextCursor
    } while (cursor !== null)
    return { items, sizes }
  }
  const ids = (items: ReadonlyArray<Item>) => items.map((item) => item.resource.id).sort()

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const regionSeller = await app.run(Fixtures.application(org, { roles: ["booking"], contextIds: [org.regionId] }))
    const otherSeller = await app.run(Fixtures.application(other, { roles: ["booking"] }))
    fixture = await app.run(bookingSetup(org, [seller.id, regionSeller.id]))
    otherFixture = await app.run(bookingSetup(other, [otherSeller.id]))
    const rules = () => fixture.room.priceRules.map((rule) => ({ ...rule, id: randomUUID() }))
    // Ten desks beside the room (Kungsholmen), a hall seating 40, and a room nobody granted this Application.
    desks = Array.from({ length: 10 }, (_, index) => ({
      ...fixture.room,
      id: randomUUID(),
      kind: "desk" as const,
      name: `Desk ${index + 1}`,
      capacity: 1,
      priceRules: rules()
    }))
    hall = { ...fixture.room, id: randomUUID(), name: "Hall", capacity: 40, priceRules: rules() }
    ungranted = { ...fixture.room, id: randomUUID(), name: "Not for sale", priceRules: rules() }
    await app.run(
      Effect.gen(function* () {
        const operator = yield* BookingOperatorService
        for (const resource of [...desks, hall, ungranted]) yield* operator.setUpResource(OPERATOR, resource)
        for (const id of [seller.id, regionSeller.id]) {
          yield* operator.allowApplication(OPERATOR, org.organizationId, id, [...desks, hall].map((resource) => resource.id))
        }
      }).pipe(Effect.provide(BookingOperatorService.Default), Effect.orDie)
    )
    sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    regionToken = await token(app.authUrl, regionSeller.clientId, regionSeller.secret)
    otherOrgToken = await token(app.authUrl, otherSeller.clientId, otherSeller.secret)
    // Some time taken, so the search must agree on busy days too.
    const guest = { name: "Astrid Lindqvist", email: "astrid@example.se" }
    const date = localDate(STOCKHOLM, 3, 2)
    for (const [index, resourceId] of [fixture.room.id, desks[0]!.id, hall.id].entries()) {
      const made = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
        token: sellerToken,
        body: { requestId: `busy-${index}`, guest, resourceId, period: { start: at(STOCKHOLM, date, "10:00"), end: at(STOCKHOLM, date, "12:00") } }
      })
      expect(made.status).toBe(201)
    }
    const parked = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
      token: sellerToken,
      body: {
        requestId: "busy-parking",
        guest,
        resourceId: fixture.parking.id,
        period: { start: at("Europe/Oslo", date, "07:00"), end: at("Europe/Oslo", date, "15:00") }
      }
    })
    expect(parked.status).toBe(201)
  }, 240_000)
  afterAll(async () => {
    await app?.dispose()
  })

  const sellable = () => [fixture.room, fixture.parking, fixture.flat, fixture.unpriced, ...desks, hall]

  it("answers, for every resource it returns, exactly what that resource's own availability answers", async () => {
    // Windows start a day ahead at the earliest, so `now` + notice (which moves between two calls) stays before them.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 31 * 24 }),
        fc.option(fc.constantFrom(30, 60, 90, 120, 240), { nil: undefined }),
        fc.boolean(),
        fc.integer({ min: 1, max: 100 }),
        async (startDay, hours, durationMinutes, priced, limit) => {
          const from = new Date(Math.ceil(Date.now() / DAY) * DAY + startDay * DAY)
          const to = new Date(from.getTime() + hours * 3_600_000)
          let query = `from=${from.toISOString()}&to=${to.toISOString()}`
          if (durationMinutes !== undefined) query += `&durationMinutes=${durationMinutes}`
          if (priced && durationMinutes !== undefined) query += "&prices=true"
          const { items, sizes } = await searchAll(`${query}&limit=${limit}`)
          expect(ids(items)).toEqual(sellable().map((resource) => resource.id).sort())
          for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThan(0)
          for (const size of sizes) expect(size).toBeLessThanOrEqual(Math.min(limit, Math.max(1, Math.floor(400 / Math.ceil(hours / 24)))))
          for (const item of items) {
            const own = await get(`/v1/booking/resources/${item.resource.id}/availability?${query}`)
            expect(own.status).toBe(200)
            expect(item.availability).toEqual(own.body)
            expect((await get(`/v1/booking/resources/${item.resource.id}`)).body).toEqual(item.resource)
          }
        }
      ),
      { numRuns: 6 }
    )
  }, 240_000)

  it("prices every start as the resource's own availability does, add-ons included", async () => {
    const date = localDate(STOCKHOLM, 8, 3)
    const from = at(STOCKHOLM, date, "00:00")
    const query = `from=${from}&to=${new Date(Date.parse(from) + DAY).toISOString()}&durationMinutes=90&prices=true&addOns=${fixture.lunch.id}:3`
    const { items } = await searchAll(`${query}&kind=room&operationalContextId=${org.propertyId}`)
    expect(ids(items)).toEqual([fixture.room.id, hall.id].sort())
    const room = items.find((item) => item.resource.id === fixture.room.id)!
    // The room offers lunch: priced starts; the hall does not: every start refused (BOOKING_ADD_ON_NOT_OFFERED).
    expect(room.availability.startPrices!.length).toBeGreaterThan(0)
    expect(items.find((item) => item.resource.id === hall.id)!.availability.startPrices).toEqual([])
    expect(room.availability).toEqual((await get(`/v1/booking/resources/${fixture.room.id}/availability?${query}`)).body)
  })

  describe("filters", () => {
    const window = () => {
      const from = new Date(Math.ceil(Date.now() / DAY) * DAY + 2 * DAY)
      return `from=${from.toISOString()}&to=${new Date(from.getTime() + DAY).toISOString()}`
    }

    it.each([
      ["a context with the contexts below it (a region)", () => `operationalContextId=${org.regionId}`, () => [fixture.room, ...desks, hall]],
      ["a property", () => `operationalContextId=${org.otherPropertyId}`, () => [fixture.parking, fixture.flat, fixture.unpriced]],
      ["the organization's root: everything", () => `operationalContextId=${org.rootId}`, () => sellable()],
      ["a kind", () => "kind=desk", () => desks],
      ["parking", () => "kind=parking", () => [fixture.parking, fixture.unpriced]],
      ["a minimum capacity", () => "minCapacity=10", () => [fixture.room, hall]],
      ["a capacity nobody seats", () => "minCapacity=41", () => []],
      ["all three", () => `operationalContextId=${org.propertyId}&kind=room&minCapacity=11`, () => [hall]]
    ])("narrows to %s", async (_, filter, expected) => {
      const { items } = await searchAll(`${window()}&${filter()}`)
      expect(ids(items)).toEqual(expected().map((resource) => resource.id).sort())
    })

    it("lists nothing for a context of another organization or an unknown one", async () => {
      for (const contextId of [otherFixture.room.operationalContextId, randomUUID()]) {
        const answer = await get(`/v1/booking/availability?${window()}&operationalContextId=${contextId}`)
        expect(answer.status).toBe(200)
        expect(answer.body).toEqual({ items: [], nextCursor: null })
      }
    })
  })

  describe("paging and cost", () => {
    it("pages by resource, oldest first, each resource once", async () => {
      const from = new Date(Math.ceil(Date.now() / DAY) * DAY + 5 * DAY)
      const query = `from=${from.toISOString()}&to=${new Date(from.getTime() + DAY).toISOString()}&durationMinutes=60`
      const whole = await get(`/v1/booking/availability?${query}`)
      expect(whole.body.nextCursor).toBeNull()
      const paged = await searchAll(`${query}&limit=4`)
      expect(paged.sizes).toEqual([4, 4, 4, 3])
      expect(paged.items).toEqual(whole.body.items)
    })

    it("holds at most 400 resource-days a page: a 31-day window pages 12 resources", async () => {
      const from = new Date(Math.ceil(Date.now() / DAY) * DAY + DAY)
      const query = `from=${from.toISOString()}&to=${new Date(from.getTime() + 31 * DAY).toISOString()}&durationMinutes=60`
      const { items, sizes } = await searchAll(`${query}&limit=100`)
      expect(sizes).toEqual([12, 3])
      expect(ids(items)).toEqual(sellable().map((resource) => resource.id).sort())
    })

    it("ends a priced page before it would price over 5000 starts", async () => {
      const from = new Date(Math.ceil(Date.now() / DAY) * DAY + DAY)
      const query = `from=${from.toISOString()}&to=${new Date(from.getTime() + 31 * DAY).toISOString()}&durationMinutes=60&prices=true`
      const pages: Array<ReadonlyArray<Item>> = []
      let cursor: string | null = null
      do {
        const answer = await get(`/v1/booking/availability?${query}${cursor === null ? "" : `&cursor=${cursor}`}`)
        expect(answer.status).toBe(200)
        pages.push(answer.body.items)
        cursor = answer.body.nextCursor
      } while (cursor !== null)
      for (const page of pages) {
        expect(page.length).toBeGreaterThan(0)
        const starts = page.reduce((sum, item) => sum + (item.availability.startTimes?.length ?? 0), 0)
        if (page.length > 1) expect(starts).toBeLessThanOrEqual(5000)
      }
      // Four parking spaces open around the clock on a 30-minute grid: about 1488 starts each, so a page ends early.
      expect(pages.slice(0, -1).some((page) => page.length < 12)).toBe(true)
      expect(ids(pages.flat())).toEqual(sellable().map((resource) => resource.id).sort())
    })
  })

  describe("refusals", () => {
    it.each([
      ["a window over 31 days", "from=2030-01-01T00:00:00Z&to=2030-02-01T00:00:01Z", "/to"],
      ["a window that ends before it starts", "from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", "/to"],
      ["prices without durationMinutes", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&prices=true", "/durationMinutes"],
      ["add-ons without prices", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&durationMinutes=60&addOns=00000000-0000-4000-8000-000000000001:1", "/addOns"],
      ["an unknown kind", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&kind=boat", "/kind"],
      ["a capacity of 0", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&minCapacity=0", "/minCapacity"],
      ["a context that is no id", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&operationalContextId=kungsholmen", "/operationalContextId"],
      ["a limit over 100", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&limit=101", "/limit"],
      ["a cursor of another list", "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z&cursor=eyJrIjoiYm9va2luZy1yZXNvdXJjZXMifQ", "/cursor"]
    ])("refuses %s with VALIDATION_FAILED", async (_, query, path) => {
      const answer = await get(`/v1/booking/availability?${query}`)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", status: 400, issues: [expect.objectContaining({ path })] })
    })

    it("needs a token with the booking role", async () => {
      expect((await call(`${app.apiUrl}/v1/booking/availability?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`)).status).toBe(401)
    })
  })

  describe("scoping", () => {
    const window = () => {
      const from = new Date(Math.ceil(Date.now() / DAY) * DAY + 2 * DAY)
      return `from=${from.toISOString()}&to=${new Date(from.getTime() + DAY).toISOString()}`
    }

    it("lists only the resources granted to this Application, in its organization", async () => {
      const mine = ids((await searchAll(window())).items)
      expect(mine).not.toContain(ungranted.id)
      for (const resource of [otherFixture.room, otherFixture.parking]) expect(mine).not.toContain(resource.id)
      const theirs = ids((await searchAll(window(), otherOrgToken)).items)
      expect(theirs).toEqual([otherFixture.room, otherFixture.parking, otherFixture.flat, otherFixture.unpriced].map((r) => r.id).sort())
    })

    it("lists only resources in the token's contexts, even when a filter names a context outside them", async () => {
      const inRegion = [fixture.room, ...desks, hall].map((resource) => resource.id).sort()
      expect(ids((await searchAll(window(), regionToken)).items)).toEqual(inRegion)
      expect(ids((await searchAll(`${window()}&operationalContextId=${org.rootId}`, regionToken)).items)).toEqual(inRegion)
      expect((await searchAll(`${window()}&operationalContextId=${org.otherPropertyId}`, regionToken)).items).toEqual([])
    })
  })
})
