/**
 * Graceful shutdown (issue 23, item 3; `platform/Shutdown`), on the built product as a child process on PostgreSQL:
 * SIGTERM while 20 writes are in flight (held on row locks the test takes): the listener stops accepting at once,
 * every write is answered and stored, the drain is logged, and the process exits 0. In process: the drain flips
 * `/readyz` to draining first and waits for the steps registered with `onDrain` (a worker's deliveries), interrupting
 * them when the grace period is over.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Deferred, Effect, Exit, Fiber, Ref } from "effect"
import { sql } from "kysely"
import { randomBytes } from "node:crypto"
import { connect } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { type ChildProduct, sharedDatabase, startChild, waitUntil } from "../support/ChildProduct.js"
import * as Fixtures from "../support/Fixtures.js"
import { Readiness } from "../../src/platform/Health.js"
import { Shutdown } from "../../src/platform/Shutdown.js"
import { token } from "../support/TestApp.js"

const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

describe.runIf(TestDatabase.kinds().includes("postgres"))("SIGTERM during 20 in-flight writes (PostgreSQL)", () => {
  let database: TestDatabase.TestDatabase | undefined
  let child: ChildProduct | undefined

  afterAll(async () => {
    child?.kill()
    await database?.drop()
  }, 60_000)

  it(
    "the listeners stop accepting (a probe is refused), every write is answered and stored, the pool closes, exit 0",
    async () => {
      const shared = await sharedDatabase()
      database = shared.database
      const { connectionString, fixtures } = shared
      const org = await fixtures.runPromise(Fixtures.organization({ name: "Draining" }))
      const client = await fixtures.runPromise(Fixtures.application(org, { roles: ["billing"] }))
      const invoices = await fixtures.runPromise(
        Effect.forEach(Array.from({ length: 20 }, (_, order) => order), (order) => Fixtures.approvedInvoice(org, { order }))
      )

      child = await startChild({
        DATABASE_URL: connectionString,
        KEY_ENCRYPTION_KEYS: `shutdown:${randomBytes(32).toString("base64url")}`,
        SHUTDOWN_GRACE_SECONDS: "60",
        // The 10 writes past the pool wait for a connection until the test lets the locks go (not 503 after 10 s).
        DATABASE_CONNECTION_TIMEOUT_SECONDS: "120"
      })
      const bearer = await token(child.authUrl, client.clientId, client.secret)

      // The writes wait on the invoices' row locks, held by this transaction until the test lets them go.
      const kysely = await Db.makeKysely({ _tag: "postgres", connectionString })
      const locker = await kysely.startTransaction().execute()
      await sql`select id from invoices where id in (${sql.join(invoices)}) for update`.execute(locker)
      const product = child
      const writes = invoices.map((invoiceId) =>
        fetch(`${product.apiUrl}/v1/billing/invoices/${invoiceId}/report-failed`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          body: JSON.stringify({ reason: "draining test" })
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }))
      )
      // The pool's 10 connections all wait on the locks (the other 10 writes wait for a connection).
      await waitUntil("10 writes waiting on the locks", 60_000, async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(kysely)
        return rows[0]!.n >= 10
      })

      product.process.kill("SIGTERM")
      await waitUntil("the listener to stop accepting", 10_000, () => refused(product.apiUrl), product.output)
      expect(await refused(product.authUrl)).toBe(true)
      expect(product.lines().some((line) => line["msg"] === "draining" && line["inFlight"] >= 10)).toBe(true)
      // Still draining: nothing answered yet, the process still runs.
      expect(product.process.exitCode).toBeNull()

      await locker.commit().execute()
      const answers = await Promise.all(writes)
      expect(answers.map((answer) => answer.status)).toEqual(invoices.map(() => 201))

      expect(await product.exited).toBe(0)
      expect(product.lines().some((line) => line["msg"] === "drained")).toBe(true)
      const { rows } = await sql<{ status: string; n: number }>`
        select status, count(*)::int as n from invoices where id in (${sql.join(invoices)}) group by status`.execute(kysely)
      expect(rows).toEqual([{ status: answers[0]!.body["status"], n: 20 }])
      expect(rows[0]!.status).not.toBe("approved")
      await kysely.destroy()
      await fixtures.dispose()
    },
    360_000
  )
})

describe("Shutdown.drain (in process)", () => {
  const drained = (graceSeconds: number, step: (finished: Deferred.Deferred<void>) => Effect.Effect<void>) =>
    Effect.gen(function* () {
      const readiness = yield* Readiness.make([])
      const shutdown = yield* Shutdown.make(graceSeconds).pipe(Effect.provideService(Readiness, readiness))
      const finished = yield* Deferred.make<void>()
      const ended = yield* Deferred.make<Exit.Exit<void>>()
      yield* shutdown.onDrain("deliveries", Effect.onExit(step(finished), (exit) => Deferred.succeed(ended, exit)))
      const drain = yield* Effect.fork(shutdown.drain)
      yield* Effect.yieldNow()
      const draining = yield* Ref.get(readiness.draining)
      const report = yield* readiness.report
      return { draining, report, drain, finished, ended }
    })

  it("sets draining first (readyz: draining), then waits for a registered step to finish", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const { draining, drain, ended, finished, report } = yield* drained(5, (finished) => Deferred.await(finished))
        expect([draining, report]).toEqual([true, { status: "draining" }])
        expect(yield* Deferred.isDone(ended)).toBe(false)
        yield* Deferred.succeed(finished, undefined)
        yield* Fiber.join(drain)
        return yield* Deferred.await(ended)
      })
    )
    expect(Exit.isSuccess(outcome)).toBe(true)
  })

  it("interrupts a step still running when the grace period is over", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const { drain, ended } = yield* drained(0, () => Effect.never)
        yield* Fiber.join(drain)
        return yield* Deferred.await(ended)
      })
    )
    expect(Exit.isInterrupted(outcome)).toBe(true)
  })
})
