/**
 * How services and repositories talk to the database. The rule, spelled once: an infrastructure failure (a lost
 * connection, a statement error) is a defect — the request answers 500 and the transaction rolls back — because
 * no caller can act on it. A repository that expects a failure a caller can act on (a unique key that decides a
 * race) catches it with {@link catchUniqueViolation} before it becomes a defect.
 */
import * as Db from "@propline/db/Db"
import type { Database } from "@propline/db/Database"
import { Clock, Effect } from "effect"
import type { Kysely } from "kysely"

/**
 * Runs statements on the fiber's transaction (see {@link transaction}), or on the pool outside one. A failure is a
 * defect.
 */
export const query = <A>(run: (db: Kysely<Database>) => Promise<A>): Effect.Effect<A, never, Db.Db> =>
  Effect.catchTag(Db.query(run), "SqlError", Effect.die)

/**
 * As {@link query}, but a unique violation on `constraint` fails with `onConflict()` instead of dying: for the
 * races a unique key settles (an externalReference, a caller's payment id, a consumed `jti`).
 */
export const catchUniqueViolation = <A, E>(
  run: (db: Kysely<Database>) => Promise<A>,
  constraint: string,
  onConflict: () => E
): Effect.Effect<A, E, Db.Db> =>
  Effect.catchTag(Db.query(run), "SqlError", (error) =>
    error.isUniqueViolation(constraint) ? Effect.fail(onConflict()) : Effect.die(error)
  )

/**
 * Runs `effect` in one READ COMMITTED transaction (nested calls join it): committed when it succeeds, rolled back
 * when it fails, dies or is interrupted. Failing to begin or end the transaction is a defect.
 */
export const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Db.Db> =>
  Effect.catchIf(
    Db.transaction(effect),
    (error): error is Db.SqlError => error instanceof Db.SqlError,
    Effect.die
  ) as Effect.Effect<A, E, R | Db.Db>

/** The current time from Effect's `Clock` (tests move it with `TestClock`). */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
