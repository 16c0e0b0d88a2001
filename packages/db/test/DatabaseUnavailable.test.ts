/**
 * Which failures mean the database could not be had (the API's 503, issue 23): pg-pool's connection timeout, socket
 * errors, PostgreSQL's and PgBouncer's refusals of a session; never a statement's own error. On PostgreSQL: a pool
 * of one connection held by a transaction times the next statement out as `exhausted`, and a server that isn't there
 * is `unreachable`.
 */
import { Effect, Either } from "effect"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { databaseUnavailable } from "../src/DatabaseUnavailable.js"
import * as Db from "../src/Db.js"
import { freePort } from "../src/FreePort.js"
import * as TestDatabase from "../src/TestDatabase.js"

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "FATAL" })

describe("databaseUnavailable", () => {
  it.each([
    ["pg-pool's timeout", new Error("timeout exceeded when trying to connect"), "exhausted"],
    ["too_many_connections", pgError("53300", "sorry, too many clients already"), "exhausted"],
    ["PgBouncer's query_wait_timeout", pgError("08P01", "query_wait_timeout"), "exhausted"],
    ["PgBouncer's max_client_conn", pgError("08P01", "no more connections allowed (max_client_conn)"), "exhausted"],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }), "unreachable"],
    ["a connection attempt timing out", new Error("Connection terminated due to connection timeout"), "unreachable"],
    ["a connection lost mid-statement", new Error("Connection terminated unexpectedly"), "unreachable"],
    ["a server starting up", pgError("57P03", "the database system is starting up"), "unreachable"],
    ["a server shutting down", pgError("57P01", "terminating connection due to administrator command"), "unreachable"],
    ["connection_failure", pgError("08006", "connection failure"), "unreachable"]
  ])("%s → %s", (_, error, kind) => {
    expect(databaseUnavailable(error)?.kind).toBe(kind)
    // Wrapped, as Db's SqlError and node's AggregateError (every address tried) hold it.
    expect(databaseUnavailable({ _tag: "SqlError", cause: error })?.kind).toBe(kind)
    expect(databaseUnavailable(new AggregateError([new Error("other"), error]))?.kind).toBe(kind)
  })

  it.each([
    ["a unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["a serialization failure", pgError("40001", "could not serialize access")],
    ["a syntax error", pgError("42601", "syntax error at or near")],
    ["a statement timeout", pgError("57014", "canceling statement due to statement timeout")],
    ["a plain error", new Error("boom")],
    ["not an error", "timeout exceeded when trying to connect"],
    ["nothing", undefined]
  ])("%s → not unavailable", (_, error) => {
    expect(databaseUnavailable(error)).toBeUndefined()
  })

  it("never looks deeper than 4 causes (a cycle ends)", () => {
    const cyclic: { cause?: unknown } = {}
    cyclic.cause = cyclic
    expect(databaseUnavailable(cyclic)).toBeUndefined()
  })
})

describe.runIf(TestDatabase.kinds().includes("postgres"))("on PostgreSQL", () => {
  it("a pool of 1 whose connection a transaction holds: the next statement fails `exhausted` after the timeout", async () => {
    const database = await TestDatabase.create("postgres")
    const config = { ...(database.config as Extract<Db.DbConfig, { _tag: "postgres" }>), maxConnections: 1, connectionTimeoutMillis: 300 }
    const kysely = await Db.makeKysely(config)
    try {
      const held = await kysely.startTransaction().execute()
      await sql`select 1`.execute(held)
      const started = Date.now()
      const outcome = await Effect.runPromise(
        Effect.either(Db.query((db) => sql`select 1`.execute(db)).pipe(Effect.provideService(Db.Db, { kysely, dialect: "postgres" })))
      )
      expect(Date.now() - started).toBeGreaterThanOrEqual(250)
      expect(Either.isLeft(outcome) && databaseUnavailable(outcome.left)?.kind).toBe("exhausted")
      await held.rollback().execute()
      // The connection is free again: the pool serves the next statement.
      expect((await sql<{ one: number }>`select 1 as one`.execute(kysely)).rows).toEqual([{ one: 1 }])
    } finally {
      await kysely.destroy()
      await database.drop()
    }
  })

  it("no server on the port: `unreachable`", async () => {
    const url = new URL(TestDatabase.postgresUrl()!)
    url.port = String(await freePort())
    const kysely = await Db.makeKysely({ _tag: "postgres", connectionString: url.toString(), connectionTimeoutMillis: 2_000 })
    try {
      const error = await sql`select 1`.execute(kysely).then(() => undefined, (error: unknown) => error)
      expect(databaseUnavailable(error)).toMatchObject({ kind: "unreachable", reason: "ECONNREFUSED" })
    } finally {
      await kysely.destroy()
    }
  })
})
