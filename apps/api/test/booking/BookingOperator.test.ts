/**
 * The operator's booking services (decisions 1 and 7; the admin console calls them), on PGlite and PostgreSQL:
 * approve and decline with BOOKING_NOT_PENDING_APPROVAL and BOOKING_APPROVAL_WINDOW_PASSED, setup refusals, and
 * a company registry that fails (TENANT_COMPANY_REGISTRY_UNAVAILABLE).
 */
import { CompanyRegistryUnavailable } from "@propline/booking/CompanyLookup"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { BookingRequestRepository } from "../../src/booking/BookingRequestRepository.js"
import { BookingService } from "../../src/booking/BookingService.js"
import { CompanyRegistry } from "../../src/booking/CompanyRegistry.js"
import { ResourceRepository } from "../../src/booking/ResourceRepository.js"
import { at, type BookingFixture, bookingSetup, localDate, OPERATOR } from "../support/BookingFixtures.js"
import * as Fixtures from "../support/Fixtures.js"

const STOCKHOLM = "Europe/Stockholm"

const failingRegistry = Layer.succeed(CompanyRegistry, {
  name: "bolagsverket",
  lookUp: () => Effect.fail(new CompanyRegistryUnavailable({ registry: "bolagsverket", detail: "The company registry did not answer; try again later." }))
})

describe.each(TestDatabase.kinds())("booking operator services on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let runtime: ManagedRuntime.ManagedRuntime<Db.Db | BookingOperatorService | BookingService, never>
  let org: Fixtures.OrganizationFixture
  let fixture: BookingFixture
  let principal: { clientId: string; subject: string; organizationId: string; roles: ReadonlyArray<"booking">; contexts: ReadonlyArray<string>; expiresAt: number }
  let counter = 0
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db | BookingOperatorService | BookingService>) => runtime.runPromise(effect)
  const runEither = <A, E>(effect: Effect.Effect<A, E, Db.Db | BookingOperatorService | BookingService>) => runtime.runPromise(Effect.either(effect))

  const pending = () =>
    run(
      Effect.flatMap(BookingService, (booking) =>
        booking.create(principal, {
          resourceId: fixture.room.id,
          requestId: `op-${++counter}`,
          fingerprint: "f",
          time: {
            _tag: "Period",
            start: new Date(at(STOCKHOLM, localDate(STOCKHOLM, 7 * counter, 3), "10:00")),
            end: new Date(at(STOCKHOLM, localDate(STOCKHOLM, 7 * counter, 3), "11:00"))
          },
          addOns: [],
          guest: { name: "Guest", email: "guest@example.com" }
        })
      )
    )

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    const services = Layer.mergeAll(
      BookingOperatorService.Default,
      BookingService.DefaultWithoutDependencies.pipe(
        Layer.provide([ResourceRepository.Default, BookingRequestRepository.Default, failingRegistry])
      )
    )
    runtime = ManagedRuntime.make(services.pipe(Layer.provideMerge(Db.layer(database.config))))
    org = await run(Fixtures.organization({ name: "Nordhavn" }))
    const seller = await run(Fixtures.application(org, { roles: ["booking"] }))
    fixture = await run(bookingSetup(org, [seller.id]))
    principal = { clientId: seller.clientId, subject: seller.id, organizationId: org.organizationId, roles: ["booking"], contexts: [org.rootId], expiresAt: 0 }
  }, 180_000)
  afterAll(async () => {
    await runtime?.dispose()
    await database?.drop()
  })

  const approve = (id: string) => runEither(Effect.flatMap(BookingOperatorService, (s) => s.approve(OPERATOR, org.organizationId, id)))
  const decline = (id: string) => runEither(Effect.flatMap(BookingOperatorService, (s) => s.decline(OPERATOR, org.organizationId, id, "Room closed")))
  const codeOf = (result: Either.Either<unknown, { readonly _tag: string }>) =>
    Either.isLeft(result) ? ((result.left as { code?: string }).code ?? result.left._tag) : "OK"

  describe("approve", () => {
    it("approves a pending request and writes its event", async () => {
      const record = await pending()
      const result = await approve(record.id)
      expect(Either.isRight(result) && result.right.status).toBe("approved")
      const events = await run(Db.query((db) => db.selectFrom("events").select("type").where(sql<boolean>`payload ->> ${"bookingId"} = ${record.id}`).orderBy("occurredAt").execute()))
      expect(events.map((e) => e.type)).toEqual(["booking.booking_request.created", "booking.booking_request.approved"])
    })
    it("refuses an approved request with BOOKING_NOT_PENDING_APPROVAL", async () => {
      const record = await pending()
      await approve(record.id)
      expect(codeOf(await approve(record.id))).toBe("BOOKING_NOT_PENDING_APPROVAL")
    })
    it("refuses a request whose hold expired with BOOKING_APPROVAL_WINDOW_PASSED", async () => {
      const record = await pending()
      await run(Db.query((db) => db.updateTable("bookingRequests").set({ holdExpiresAt: new Date(Date.now() - 1000) }).where("id", "=", record.id).execute()))
      expect(codeOf(await approve(record.id))).toBe("BOOKING_APPROVAL_WINDOW_PASSED")
      expect(codeOf(await decline(record.id))).toBe("BOOKING_APPROVAL_WINDOW_PASSED")
    })
    it("answers RecordNotFound for an unknown request", async () => {
      expect(codeOf(await approve(randomUUID()))).toBe("RecordNotFound")
    })
    it("lets exactly one of 20 concurrent decisions through", async () => {
      const record = await pending()
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? approve(record.id) : decline(record.id))))
      expect(results.filter(Either.isRight)).toHaveLength(1)
      for (const result of results.filter(Either.isLeft)) expect(codeOf(result)).toBe("BOOKING_NOT_PENDING_APPROVAL")
    })
  })

  describe("decline", () => {
    it("declines a pending request and frees its slot", async () => {
      const record = await pending()
      const result = await decline(record.id)
      expect(Either.isRight(result) && [result.right.status, result.right.declineReason]).toEqual(["declined", "Room closed"])
      expect(codeOf(await decline(record.id))).toBe("BOOKING_NOT_PENDING_APPROVAL")
    })
  })

  describe("setup", () => {
    const setUp = (change: object) =>
      runEither(Effect.flatMap(BookingOperatorService, (s) => s.setUpResource(OPERATOR, { ...fixture.room, id: randomUUID(), ...change })))
    it("refuses a buffer off the start increment with BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT", async () => {
      expect(codeOf(await setUp({ bufferAfterMinutes: 10 }))).toBe("BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT")
    })
    it("refuses overlapping rules of one unit with BOOKING_PRICE_RULE_AMBIGUOUS", async () => {
      const rule = { ...fixture.room.priceRules[0]!, id: randomUUID(), window: { from: "16:00", to: "18:00" } }
      expect(codeOf(await setUp({ priceRules: [...fixture.room.priceRules.map((r) => ({ ...r, id: randomUUID() })), rule] }))).toBe("BOOKING_PRICE_RULE_AMBIGUOUS")
    })
    it("answers SetupInvalid with JSON Pointers for invalid values", async () => {
      const result = await setUp({ timeZone: "Mars/Olympus", capacity: 0 })
      expect(Either.isLeft(result) && (result.left as { issues?: ReadonlyArray<{ path: string }> }).issues?.map((i) => i.path)).toEqual(["/timeZone", "/capacity"])
    })
    it("refuses offering a product in another currency with BOOKING_RESOURCE_CURRENCY_MISMATCH", async () => {
      const result = await runEither(Effect.flatMap(BookingOperatorService, (s) => s.offerAddOnProducts(OPERATOR, org.organizationId, fixture.room.id, [fixture.valet.id])))
      expect(codeOf(result)).toBe("BOOKING_RESOURCE_CURRENCY_MISMATCH")
    })
  })

  describe("company lookup with a remote registry", () => {
    it("answers TENANT_COMPANY_REGISTRY_UNAVAILABLE when the registry fails", async () => {
      const result = await runEither(Effect.flatMap(BookingService, (s) => s.lookUpCompany(principal, "SE", "556036-0793")))
      expect(Either.isLeft(result) && [result.left.code, result.left.status]).toEqual(["TENANT_COMPANY_REGISTRY_UNAVAILABLE", 400])
    })
  })
})
