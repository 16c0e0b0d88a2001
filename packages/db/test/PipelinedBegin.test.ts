/**
 * A transaction's `begin` sent with its first statement on PostgreSQL (`internal/PipelinedBegin.ts`, issue 27):
 * the same transactions, one round trip fewer. Round trips are counted as the queries pg's clients are given
 * (each is answered by one `ReadyForQuery`), while nothing else uses this test's pool.
 */
import { Effect, ManagedRuntime } from "effect"
import { sql } from "kysely"
import pg from "pg"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"

const now = new Date("2026-11-22T10:00:00.000Z")

const seedOrganization = (id: string) =>
  Db.query((db) =>
    db.insertInto("organizations").values({ id, name: "Org", country: "SE", createdAt: now, updatedAt: now }).execute()
  )

const organizationIds = (ids: ReadonlyArray<string>) =>
  Db.query((db) => db.selectFrom("organizations").select("id").where("id", "in", ids).orderBy("id").execute()).pipe(
    Effect.map((rows) => rows.map((row) => row.id))
  )

describe.skipIf(TestDatabase.postgresUrl() === undefined)("a transaction's begin on PostgreSQL", () => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)

  /** `effect`'s outcome and the queries pg's clients were given while it ran (their text). */
  const counted = async <A, E>(effect: Effect.Effect<A, E, Db.Db>) => {
    const texts: Array<string> = []
    const original = pg.Client.prototype.query
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: Array<unknown>) {
      const config = args[0] as string | { readonly text: string }
      texts.push(typeof config === "string" ? config : config.text)
      return (original as (...all: Array<unknown>) => unknown).apply(this, args)
    } as never)
    try {
      return { result: await run(Effect.either(effect)), texts }
    } finally {
      spy.mockRestore()
    }
  }

  beforeAll(async () => {
    database = await TestDatabase.create("postgres")
    // One connection: every statement of the suite runs on the one the transactions used.
    const config = database.config
    managed = ManagedRuntime.make(Db.layer(config._tag === "postgres" ? { ...config, maxConnections: 1 } : config))
    await run(organizationIds(["00000000-0000-4000-8000-000000000000"]))
  }, 120_000)
  afterEach(() => {
    vi.restoreAllMocks()
  })
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  it("sends begin with the first statement: two statements and the commit in three round trips", async () => {
    const [a, b] = ["00000000-0000-4000-8000-0000000000b1", "00000000-0000-4000-8000-0000000000b2"]
    const { result, texts } = await counted(Db.transaction(Effect.zipRight(seedOrganization(a), seedOrganization(b))))
    expect(result._tag).toBe("Right")
    expect(texts).toHaveLength(3)
    expect(texts[0]).toMatch(/^insert into "organizations"/)
    expect(texts[2]).toBe("commit")
    expect(await run(organizationIds([a, b]))).toEqual([a, b])
  })

  it("runs the first statement inside the transaction: a later failure rolls it back", async () => {
    const id = "00000000-0000-4000-8000-0000000000b3"
    const { result, texts } = await counted(
      Db.transaction(Effect.zipRight(seedOrganization(id), Effect.fail("refused" as const)))
    )
    expect(result._tag).toBe("Left")
    expect(texts).toEqual([expect.stringMatching(/^insert into "organizations"/), "rollback"])
    expect(await run(organizationIds([id]))).toEqual([])
  })

  it("leaves the transaction aborted when the first statement fails, and the rollback ends it", async () => {
    const id = "00000000-0000-4000-8000-0000000000b4"
    await run(seedOrganization(id))
    const { result } = await counted(Db.transaction(seedOrganization(id)))
    expect(result._tag === "Left" && result.left instanceof Db.SqlError && result.left.isUniqueViolation("organizations_pkey")).toBe(true)
    // The connection is back in the pool outside any transaction (the suite's one connection): a transaction on it
    // works, and a statement outside one runs in its own (its transaction started with it).
    const other = "00000000-0000-4000-8000-0000000000b5"
    const again = await counted(Db.transaction(seedOrganization(other)))
    expect(again.result._tag).toBe("Right")
    expect(await run(organizationIds([other]))).toEqual([other])
    const status = await run(Db.query((db) => sql<{ readonly open: boolean }>`select now() <> statement_timestamp() as open`.execute(db)))
    expect(status.rows).toEqual([{ open: false }])
  })

  it("sends begin as its own round trip before a first statement without parameters (simple protocol), in the transaction", async () => {
    const id = "00000000-0000-4000-8000-0000000000b6"
    const { result, texts } = await counted(
      Db.transaction(
        Effect.zipRight(
          Db.query((db) =>
            sql
              .raw(`insert into organizations (id, name, country, created_at, updated_at) values ('${id}', 'Org', 'SE', now(), now())`)
              .execute(db)
          ),
          Effect.fail("refused" as const)
        )
      )
    )
    expect(result._tag).toBe("Left")
    expect(texts).toEqual(["begin", expect.stringMatching(/^insert into organizations/), "rollback"])
    expect(await run(organizationIds([id]))).toEqual([])
  })

  it("sends nothing for a transaction that ran no statement", async () => {
    const committed = await counted(Db.transaction(Effect.succeed("nothing")))
    expect(committed.result).toMatchObject({ _tag: "Right", right: "nothing" })
    expect(committed.texts).toEqual([])
    const rolledBack = await counted(Db.transaction(Effect.fail("refused" as const)))
    expect(rolledBack.result._tag).toBe("Left")
    expect(rolledBack.texts).toEqual([])
  })

  it("returns the first statement's rows, not begin's", async () => {
    const { result } = await counted(
      Db.transaction(Db.queryPlain(sql<{ readonly n: number; readonly t: string }>`select ${41}::int + 1 as n, 'x' as t`))
    )
    expect(result).toMatchObject({ _tag: "Right", right: [{ n: 42, t: "x" }] })
  })
})
