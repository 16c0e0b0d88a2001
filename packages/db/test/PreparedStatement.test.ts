/**
 * `Db.prepare` and `Db.queryPrepared` (issue 27: the token statement compiled once, not per request): the text and
 * the parameters a call sends are those kysely compiles from the same `sql` template with the call's values (an
 * argument placed twice, constants, raw text between them), and the rows are `queryPlain`'s, on each database kind,
 * in and out of a transaction.
 */
import { type Effect, ManagedRuntime } from "effect"
import { createQueryId, PostgresQueryCompiler, type RawBuilder, sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"

interface Row {
  readonly label: string
  readonly at: Date
  readonly n: number
  readonly later: boolean
}

const LIMIT = 60

const template = (label: string, at: Date, edge: Date, n: number): RawBuilder<Row> =>
  sql<Row>`
    with settings as (select ${LIMIT}::int as limit_)
    select ${label}::text as label, ${at}::timestamptz as at, ${n}::int + limit_ as n,
           ${at}::timestamptz > ${edge}::timestamptz as later
    from ${sql.raw("settings")}`

const statement = Db.prepare(4, template)

const compile = (builder: RawBuilder<Row>) => new PostgresQueryCompiler().compileQuery(builder.toOperationNode(), createQueryId())

/** Calls' arguments: empty and quoting text, an argument the template places twice later and earlier than the edge. */
const calls: ReadonlyArray<readonly [string, Date, Date, number]> = [
  ["", new Date("2026-11-26T10:00:00.000Z"), new Date("2026-11-26T09:59:00.000Z"), 0],
  ["client's $1 'x'", new Date("2000-01-01T00:00:00.001Z"), new Date("2100-01-01T00:00:00.000Z"), -61],
  ["åäö 🙂", new Date("2026-11-26T10:00:00.000Z"), new Date("2026-11-26T10:00:00.000Z"), 1_000_000]
]

describe("a prepared statement", () => {
  it("sends the text and parameters kysely compiles from its template with the call's values", () => {
    for (const [label, at, edge, n] of calls) {
      const ours = Db.compiledWith(statement, [label, at, edge, n])
      const kysely = compile(template(label, at, edge, n))
      expect(ours.sql).toBe(kysely.sql)
      expect(ours.parameters).toEqual(kysely.parameters)
      expect(ours.parameters).toEqual([LIMIT, label, at, n, at, edge])
    }
  })

  it("refuses a template that never places one of its arguments", () => {
    expect(() => Db.prepare(2, (a: string, _b: string) => sql`select ${a}`)).toThrow(/argument 1 is never used/)
  })

  describe.each(TestDatabase.kinds())("on %s", (kind) => {
    let database: TestDatabase.TestDatabase
    let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
    const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)

    beforeAll(async () => {
      database = await TestDatabase.create(kind)
      managed = ManagedRuntime.make(Db.layer(database.config))
    }, 120_000)
    afterAll(async () => {
      await managed.dispose()
      await database.drop()
    })

    it("answers queryPlain's rows, in a transaction and outside one", async () => {
      for (const [label, at, edge, n] of calls) {
        const plain = await run(Db.queryPlain(template(label, at, edge, n)))
        const prepared = await run(Db.queryPrepared(statement, label, at, edge, n))
        const inTransaction = await run(Db.transaction(Db.queryPrepared(statement, label, at, edge, n)))
        expect(prepared).toEqual(plain)
        expect(inTransaction).toEqual(plain)
        expect(prepared).toEqual([{ label, at, n: n + LIMIT, later: at > edge }])
      }
    })
  })
})
