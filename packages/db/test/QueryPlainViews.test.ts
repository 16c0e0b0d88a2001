/**
 * `Db.queryPlainViews` (issue 27, the send queue's page without a row object per row): on PostgreSQL outside a
 * transaction its rows are views of the column texts pg received, parsed as they are read; every column read from a
 * view is what `queryPlain`'s row holds (every type the pool parses its own way, pg's defaults, nulls, a repeated
 * column name), assigning a field works as on a plain row, a failing statement fails as `queryPlain`'s does and gives
 * its connection back; inside a transaction and on PGlite the rows are `queryPlain`'s.
 */
import { Effect, ManagedRuntime } from "effect"
import { type RawBuilder, sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"

/** A view's columns (its prototype's enumerable getters, as `for … in` sees them) as a plain object. */
const columnsOf = (row: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key in row) out[key] = (row as Record<string, unknown>)[key]
  return out
}

/** Timestamps with 0 to 6 fractional digits, negative offsets, the epoch, leap days, far years, ±infinity. */
const timestamps = [
  "2026-11-26 10:00:00+00",
  "2026-11-26 10:00:00.1+00",
  "2026-11-26 10:00:00.123456+00",
  "2026-11-26 23:59:59.999999+00",
  "1970-01-01 00:00:00+00",
  "2024-02-29 12:34:56.000789-05:30",
  "1000-01-01 00:00:00.5+00",
  "0999-12-31 23:59:59.25+00",
  "9999-12-31 23:59:59.999999+00",
  "0044-03-15 12:00:00+00 BC",
  "infinity",
  "-infinity"
]

/** Text a JSON encoder must escape, non-ASCII text (two-, three- and four-byte UTF-8), the empty string. */
const texts = ['say "hi"\\', "tab\there\nline\u0001", "åäö € 🙂", "", "plain"]

/** One row per case, of every kind of column the pool parses (and some pg parses with its defaults). */
const statement = (index: number): RawBuilder<Record<string, unknown>> => sql`
  select
    gen_random_uuid() is not null as "ok",
    ${timestamps[index % timestamps.length]}::timestamptz as "at",
    null::timestamptz as "never",
    ${texts[index % texts.length]}::text as "label",
    ('00000000-0000-4000-8000-00000000000' || ${String(index % 10)})::uuid as "id",
    (${index}::int8 - 4) * 1099511627776 as "big",
    ${index}::int4 - 3 as "small",
    ${index}::int2 as "tiny",
    (${index}::numeric / 7)::numeric(20, 10) as "exact",
    ${index}::float8 / 3 as "float",
    date '2026-02-28' + ${index}::int as "day",
    timestamp '2026-11-26 10:00:00.123456' + ${index} * interval '1 second' as "local",
    jsonb_build_object('n', ${index}::int, 's', ${texts[index % texts.length]}::text) as "document",
    array['a', ${texts[index % texts.length]}::text, null] as "list",
    ${index % 2 === 0}::boolean as "even",
    null::int8 as "missing",
    1 as "twice",
    ${index}::int as "twice"
  from generate_series(1, 2)`

const cases = Array.from({ length: 24 }, (_, index) => index)

describe.each(TestDatabase.kinds())("queryPlainViews on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    // Two connections: a connection not given back after a failure would stop the suite.
    const config = database.config
    managed = ManagedRuntime.make(Db.layer(config._tag === "postgres" ? { ...config, maxConnections: 2 } : config))
  }, 120_000)
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  it("reads every column as queryPlain's row holds it, in a transaction and outside one", async () => {
    for (const index of cases) {
      const plain = await run(Db.queryPlain(statement(index)))
      const viewed = await run(Db.queryPlainViews(statement(index)))
      const inTransaction = await run(Db.transaction(Db.queryPlainViews(statement(index))))
      expect(plain).toHaveLength(2)
      expect(viewed.map(columnsOf)).toEqual(plain)
      expect(inTransaction).toEqual(plain)
      // Each read parses again: a fresh Date each time, equal to the first.
      const first = viewed[0]!
      expect(first["at"]).toEqual(plain[0]!["at"])
      if (kind === "postgres" && first["at"] instanceof Date) expect(first["at"]).not.toBe(first["at"])
      // The later of two columns named alike wins, as in pg's row.
      expect(first["twice"]).toBe(index)
    }
  })

  it("is a view on PostgreSQL outside a transaction (no own columns), a plain row elsewhere", async () => {
    const [viewed] = await run(Db.queryPlainViews(statement(1)))
    const [inTransaction] = await run(Db.transaction(Db.queryPlainViews(statement(1))))
    expect(Object.keys(viewed!)).toEqual(kind === "postgres" ? [] : Object.keys(inTransaction!))
    expect(Object.keys(inTransaction!)).toContain("at")
  })

  it("takes assignments as a plain row does: a column overwritten, a field added", async () => {
    const [viewed] = await run(Db.queryPlainViews(statement(2)))
    const row = viewed as Record<string, unknown>
    row["label"] = "changed"
    row["overdue"] = true
    expect(row["label"]).toBe("changed")
    expect(row["overdue"]).toBe(true)
    expect(columnsOf(row)).toMatchObject({ label: "changed", overdue: true, small: -1 })
  })

  it("answers no rows as queryPlain does, and fails a bad statement as it does, giving the connection back", async () => {
    const none = sql<{ readonly n: number }>`select 1 as n where false`
    expect(await run(Db.queryPlainViews(none))).toEqual(await run(Db.queryPlain(none)))
    const bad = sql<{ readonly n: number }>`select 1 / ${0}::int as n`
    for (let attempt = 0; attempt < 5; attempt++) {
      const failed = await run(Effect.flip(Db.queryPlainViews(bad)))
      expect(failed).toBeInstanceOf(Db.SqlError)
      expect(failed.code).toBe("22012")
    }
    // Both connections came back: two statements at once still run.
    const both = await run(Effect.all([Db.queryPlainViews(statement(3)), Db.queryPlainViews(statement(4))], { concurrency: 2 }))
    expect(both.map((rows) => rows.length)).toEqual([2, 2])
  })
})
