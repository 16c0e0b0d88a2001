import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, ManagedRuntime } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"

const now = new Date("2026-11-22T10:00:00.000Z")

const seedOrganization = (id: string) =>
  Db.query((db) =>
    db
      .insertInto("organizations")
      .values({ id, name: "Org", country: "SE", createdAt: now, updatedAt: now })
      .execute()
  )

describe("Db on PGlite in a directory", () => {
  it("creates a missing data directory and its parents, and keeps the data across opens", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "propline-db-"))
    const dataDir = path.join(root, "not", "yet", "there")
    try {
      const first = ManagedRuntime.make(Db.layer({ _tag: "pglite", dataDir }))
      await first.runPromise(seedOrganization("00000000-0000-4000-8000-00000000000a"))
      await first.dispose()
      const second = ManagedRuntime.make(Db.layer({ _tag: "pglite", dataDir }))
      const rows = await second.runPromise(Db.query((db) => db.selectFrom("organizations").select("id").execute()))
      await second.dispose()
      expect(rows.map((row) => row.id)).toEqual(["00000000-0000-4000-8000-00000000000a"])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
    // Creating a PGlite cluster on disk takes seconds, and many more on a busy 2-core machine.
  }, 180_000)
})

describe.each(TestDatabase.kinds())("Db on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const runtime = {
    dispose: () => managed.dispose(),
    run: <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)
  }

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
  })
  afterAll(async () => {
    await runtime.dispose()
    await database.drop()
  })

  it("migrates and maps bigint to number and date to an ISO date string", async () => {
    const row = await runtime.run(
      Db.query((db) =>
        db
          .selectNoFrom((eb) => [
            eb.cast<number>(eb.val("9007199254740991"), "bigint").as("big"),
            eb.cast<string>(eb.val("2026-02-28"), "date").as("day")
          ])
          .executeTakeFirstOrThrow()
      )
    )
    expect(row).toEqual({ big: 9007199254740991, day: "2026-02-28" })
    // The first statement opens the database and runs every migration: seconds on PGlite, and well past the
    // default 30 s on a busy 2-core machine.
  }, 120_000)

  it("commits a successful transaction", async () => {
    const id = "00000000-0000-4000-8000-000000000001"
    await runtime.run(Db.transaction(seedOrganization(id)))
    const found = await runtime.run(
      Db.query((db) => db.selectFrom("organizations").select("id").where("id", "=", id).execute())
    )
    expect(found).toHaveLength(1)
  })

  it("rolls back a failed transaction, including work done before the failure", async () => {
    const id = "00000000-0000-4000-8000-000000000002"
    const result = await runtime.run(
      Db.transaction(Effect.zipRight(seedOrganization(id), Effect.fail("refused" as const))).pipe(Effect.either)
    )
    expect(result._tag).toBe("Left")
    const found = await runtime.run(
      Db.query((db) => db.selectFrom("organizations").select("id").where("id", "=", id).execute())
    )
    expect(found).toHaveLength(0)
  })

  it("reports a unique violation with its constraint", async () => {
    const id = "00000000-0000-4000-8000-000000000003"
    await runtime.run(seedOrganization(id))
    const error = await runtime.run(Effect.flip(seedOrganization(id)))
    expect(error.isUniqueViolation()).toBe(true)
    expect(error.isUniqueViolation("organizations_pkey")).toBe(true)
    expect(error.isUniqueViolation("other")).toBe(false)
  })

  it("serializes concurrent transactions without losing an update", async () => {
    const id = "00000000-0000-4000-8000-000000000004"
    await runtime.run(seedOrganization(id))
    const bump = Db.transaction(
      Effect.gen(function* () {
        const row = yield* Db.query((db) =>
          db
            .selectFrom("organizations")
            .select("nextInvoiceNumber")
            .where("id", "=", id)
            .forUpdate()
            .executeTakeFirstOrThrow()
        )
        yield* Db.query((db) =>
          db
            .updateTable("organizations")
            .set({ nextInvoiceNumber: row.nextInvoiceNumber + 1 })
            .where("id", "=", id)
            .execute()
        )
      })
    )
    await runtime.run(Effect.all(Array.from({ length: 20 }, () => bump), { concurrency: "unbounded" }))
    const row = await runtime.run(
      Db.query((db) =>
        db.selectFrom("organizations").select("nextInvoiceNumber").where("id", "=", id).executeTakeFirstOrThrow()
      )
    )
    expect(row.nextInvoiceNumber).toBe(21)
  })

  it("calls afterCommit callbacks once after the commit (nested transactions join it), never after a rollback, at once outside one", async () => {
    const calls: Array<string> = []
    const committed = () => calls.push("committed")
    const rolledBack = () => calls.push("rolled back")
    await runtime.run(
      Db.transaction(
        Effect.gen(function* () {
          yield* Db.afterCommit(committed)
          yield* Db.transaction(Db.afterCommit(committed))
          yield* Effect.sync(() => calls.push("before the commit"))
        })
      )
    )
    await runtime.run(Db.transaction(Effect.zipRight(Db.afterCommit(rolledBack), Effect.fail("refused"))).pipe(Effect.either))
    await runtime.run(Db.afterCommit(() => calls.push("outside")))
    expect(calls).toEqual(["before the commit", "committed", "outside"])
  })

  it("leaves the fiber outside any transaction after one commits, fails or is interrupted (an interrupted one rolls back)", async () => {
    const interrupted = "00000000-0000-4000-8000-000000000006"
    const calls: Array<string> = []
    const outside = (label: string) => Db.afterCommit(() => calls.push(label))
    await runtime.run(
      Effect.gen(function* () {
        yield* Db.transaction(Effect.void)
        // A callback registered outside a transaction runs at once; inside one, only after its commit.
        yield* outside("after a commit")
        yield* Effect.either(Db.transaction(Effect.fail("refused" as const)))
        yield* outside("after a failure")
        const written = yield* Effect.makeLatch(false)
        const running = yield* Effect.fork(
          Db.transaction(Effect.zipRight(Effect.zipRight(seedOrganization(interrupted), written.open), Effect.never))
        )
        yield* written.await
        yield* Fiber.interrupt(running)
        yield* outside("after an interruption")
        yield* Effect.sync(() => calls.push("end"))
      })
    )
    expect(calls).toEqual(["after a commit", "after a failure", "after an interruption", "end"])
    const found = await runtime.run(
      Db.query((db) => db.selectFrom("organizations").select("id").where("id", "=", interrupted).execute())
    )
    expect(found).toHaveLength(0)
  })

  it("runs a fiber forked in a transaction in it, and a joined fiber's own transaction does not stay with its parent", async () => {
    const inside = "00000000-0000-4000-8000-000000000005"
    const result = await runtime.run(
      Db.transaction(
        Effect.gen(function* () {
          const child = yield* Effect.fork(seedOrganization(inside))
          yield* Fiber.join(child)
          return yield* Effect.fail("refused" as const)
        })
      ).pipe(Effect.either)
    )
    expect(result._tag).toBe("Left")
    const found = await runtime.run(
      Db.query((db) => db.selectFrom("organizations").select("id").where("id", "=", inside).execute())
    )
    // The forked fiber's insert was in the transaction, so it rolled back with it.
    expect(found).toHaveLength(0)

    const calls: Array<string> = []
    await runtime.run(
      Effect.gen(function* () {
        const child = yield* Effect.fork(Db.transaction(Db.afterCommit(() => calls.push("child committed"))))
        yield* Fiber.join(child)
        // Outside any transaction again: the callback runs at once.
        yield* Db.afterCommit(() => calls.push("parent, outside"))
        yield* Effect.sync(() => calls.push("after"))
      })
    )
    expect(calls).toEqual(["child committed", "parent, outside", "after"])
  })
})
