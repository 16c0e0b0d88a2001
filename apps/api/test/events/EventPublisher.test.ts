/**
 * The events publisher and retention (issue 22, items 5 and 6) against a real database, PGlite and PostgreSQL:
 * two publishers on one database claim disjoint outbox rows and publish every row exactly once (each handing it to
 * `EventFanout` once, in the transaction that marks it published); a fan-out that fails rolls its batch back and
 * the rows are published later, once; retention deletes only events published more than 30 days ago.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { InvoiceRepository } from "../../src/billing/InvoiceRepository.js"
import { ProposalRepository } from "../../src/billing/ProposalRepository.js"
import { WithdrawalRepository } from "../../src/billing/WithdrawalRepository.js"
import { BookingRequestRepository } from "../../src/booking/BookingRequestRepository.js"
import { EventFanout } from "../../src/events/EventFanout.js"
import { drain } from "../../src/events/EventPublisher.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { purgeExpired } from "../../src/events/EventWorker.js"
import type { PublishedEvent } from "../../src/events/PublishedEvent.js"
import { IntegrationConfigurationRepository } from "../../src/integrations/IntegrationConfigurationRepository.js"
import * as Outbox from "../../src/platform/Outbox.js"
import * as Sql from "../../src/platform/Sql.js"
import { SigningAttemptRepository } from "../../src/signing/SigningAttemptRepository.js"
import * as Fixtures from "../support/Fixtures.js"

const Reads = Layer.mergeAll(
  EventRepository.Default,
  InvoiceRepository.Default,
  ProposalRepository.Default,
  WithdrawalRepository.Default,
  SigningAttemptRepository.Default,
  BookingRequestRepository.Default,
  IntegrationConfigurationRepository.Default
)

/** A fan-out that records what it was handed, each call after a pause (so concurrent batches overlap). */
const recorder = (into: Array<string>, pauseMillis = 5) =>
  Layer.succeed(EventFanout, {
    fanOut: (events: ReadonlyArray<PublishedEvent>) =>
      Effect.zipRight(
        Effect.sleep(pauseMillis),
        Effect.sync(() => into.push(...events.map((event) => event.id)))
      )
  })

describe.each(TestDatabase.kinds())("the events publisher on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let runtime: ManagedRuntime.ManagedRuntime<Db.Db | Layer.Layer.Success<typeof Reads>, never>
  let org: Fixtures.OrganizationFixture
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db | Layer.Layer.Success<typeof Reads>>) => runtime.runPromise(effect)

  /** Appends `count` events of `org`, `perTransaction` to a transaction, as services do; resolves to their ids. */
  const append = async (count: number, perTransaction = 10) => {
    for (let start = 0; start < count; start += perTransaction) {
      await run(
        Sql.transaction(
          Outbox.append(
            Array.from({ length: Math.min(perTransaction, count - start) }, () => ({
              _tag: "billing.invoice.approved",
              organizationId: org.organizationId,
              operationalContextId: org.propertyId,
              invoiceId: randomUUID(),
              at: new Date()
            }))
          )
        )
      )
    }
  }

  const rows = () =>
    run(
      Db.query((db) =>
        db.selectFrom("events").select(["id", "publishedAt", "envelope", "operationalContextId"]).execute()
      ).pipe(Effect.orDie)
    )

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    runtime = ManagedRuntime.make(Layer.mergeAll(Reads, Db.layer(database.config)))
    org = await run(Fixtures.organization({ name: "Nordhavn" }))
  })

  afterAll(async () => {
    await runtime.dispose()
    await database.drop()
  })

  it("two publishers claim disjoint rows, and every outbox row is published exactly once", async () => {
    await append(300)
    const first: Array<string> = []
    const second: Array<string> = []
    await run(
      Effect.all(
        [drain(10).pipe(Effect.provide(recorder(first))), drain(10).pipe(Effect.provide(recorder(second)))],
        { concurrency: "unbounded" }
      )
    )
    const all = await rows()
    expect(all).toHaveLength(300)
    expect(all.every((row) => row.publishedAt !== null)).toBe(true)
    // Each row was handed on once, by one of the two: disjoint, no repeats, none left out.
    expect(new Set(first).size).toBe(first.length)
    expect(new Set(second).size).toBe(second.length)
    expect(first.filter((id) => second.includes(id))).toEqual([])
    expect([...first, ...second].sort()).toEqual(all.map((row) => row.id).sort())
    // PostgreSQL runs the two at once (PGlite has one connection: the second waits its turn, then finds none).
    if (kind === "postgres") expect(Math.min(first.length, second.length)).toBeGreaterThan(0)
    // The envelope is the event: its id, type, time, organization, context and data.
    for (const row of all) {
      expect(row.envelope).toMatchObject({
        id: row.id,
        type: "billing.invoice.approved",
        organizationId: org.organizationId,
        operationalContextId: org.propertyId,
        data: { object: null }
      })
      expect(row.operationalContextId).toBe(org.propertyId)
    }
    // Nothing is left to publish.
    const again: Array<string> = []
    await run(drain(10).pipe(Effect.provide(recorder(again))))
    expect(again).toEqual([])
  })

  it("a fan-out that fails rolls its batch back; the rows are published later, once", async () => {
    await run(Db.query((db) => db.deleteFrom("events").execute()).pipe(Effect.orDie))
    await append(5)
    const failing = Layer.succeed(EventFanout, { fanOut: () => Effect.die(new Error("the job queue is down")) })
    const exit = await runtime.runPromiseExit(drain(10).pipe(Effect.provide(failing)))
    expect(exit._tag).toBe("Failure")
    expect((await rows()).every((row) => row.publishedAt === null && row.envelope === null)).toBe(true)
    const handed: Array<string> = []
    await run(drain(10).pipe(Effect.provide(recorder(handed))))
    expect(handed.sort()).toEqual((await rows()).map((row) => row.id).sort())
  })

  it("an append wakes this process's publisher after its transaction commits, never when it rolls back", async () => {
    const wakes: Array<string> = []
    const listening = await run(
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        yield* Outbox.onAppended(() => void wakes.push("woken")).pipe(Scope.extend(scope))
        return scope
      })
    )
    const event = { _tag: "billing.invoice.approved", organizationId: org.organizationId, operationalContextId: org.propertyId, invoiceId: randomUUID(), at: new Date() }
    await run(
      Sql.transaction(
        Effect.gen(function* () {
          yield* Outbox.append([event])
          yield* Outbox.append([event])
          // Not yet: the transaction has not committed.
          expect(wakes).toEqual([])
        })
      )
    )
    expect(wakes).toEqual(["woken"])
    await runtime.runPromiseExit(Sql.transaction(Effect.zipRight(Outbox.append([event]), Effect.fail("refused"))))
    expect(wakes).toEqual(["woken"])
    await run(Scope.close(listening, Exit.void))
    await run(Sql.transaction(Outbox.append([event])))
    expect(wakes).toEqual(["woken"])
  })

  it("retention deletes the events published more than 30 days ago, never an unpublished one", async () => {
    await run(Db.query((db) => db.deleteFrom("events").execute()).pipe(Effect.orDie))
    await append(4)
    await run(drain(10).pipe(Effect.provide(recorder([]))))
    await append(1)
    const [old, recent, unpublished] = [...(await rows())].sort((a, b) => Number(a.publishedAt === null) - Number(b.publishedAt === null))
    await run(
      Db.query((db) =>
        db
          .updateTable("events")
          .set({ publishedAt: sql<Date>`now() - interval '31 days'` })
          .where("id", "=", old!.id)
          .execute()
      ).pipe(Effect.orDie)
    )
    await run(
      Db.query((db) =>
        db
          .updateTable("events")
          .set({ publishedAt: sql<Date>`now() - interval '29 days'`, occurredAt: sql<Date>`now() - interval '40 days'` })
          .where("id", "=", recent!.id)
          .execute()
      ).pipe(Effect.orDie)
    )
    await run(
      Db.query((db) =>
        db.updateTable("events").set({ occurredAt: sql<Date>`now() - interval '40 days'` }).where("id", "=", unpublished!.id).execute()
      ).pipe(Effect.orDie)
    )
    expect(await run(purgeExpired)).toBe(1)
    const left = (await rows()).map((row) => row.id)
    expect(left).toHaveLength(4)
    expect(left).not.toContain(old!.id)
    expect(left).toContain(recent!.id)
    expect(left).toContain(unpublished!.id)
  })
})
