/**
 * SQL of operators, their sessions and the sign-in throttle (`operators`, `operator_sessions`,
 * `operator_sign_in_throttle`). Infrastructure failures are defects: no caller can act on them.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"

const orDie = <A>(effect: Effect.Effect<A, Db.SqlError, Db.Db>) => Effect.orDie(effect)

/** The operator with this (lower-cased) e-mail, with the organization's name, or undefined. */
export const findByEmail = (email: string) =>
  orDie(
    Db.query((db) =>
      db
        .selectFrom("operators")
        .innerJoin("organizations", "organizations.id", "operators.organizationId")
        .select([
          "operators.id",
          "operators.organizationId",
          "operators.email",
          "operators.name",
          "operators.passwordHash",
          "operators.status"
        ])
        .where("operators.email", "=", email)
        .executeTakeFirst()
    )
  )

/** A new session row. */
export const insertSession = (row: {
  readonly id: string
  readonly operatorId: string
  readonly tokenDigest: string
  readonly csrfToken: string
  readonly now: Date
  readonly expiresAt: Date
}) =>
  orDie(
    Db.query((db) =>
      db
        .insertInto("operatorSessions")
        .values({
          id: row.id,
          operatorId: row.operatorId,
          tokenDigest: row.tokenDigest,
          csrfToken: row.csrfToken,
          createdAt: row.now,
          lastSeenAt: row.now,
          expiresAt: row.expiresAt,
          endedAt: null
        })
        .execute()
    )
  )

/** The live session with this token digest and its active operator, or undefined. */
export const findLiveSession = (tokenDigest: string, now: Date) =>
  orDie(
    Db.query((db) =>
      db
        .selectFrom("operatorSessions")
        .innerJoin("operators", "operators.id", "operatorSessions.operatorId")
        .select([
          "operatorSessions.id as sessionId",
          "operatorSessions.csrfToken",
          "operatorSessions.createdAt",
          "operatorSessions.lastSeenAt",
          "operators.id as operatorId",
          "operators.organizationId",
          "operators.email",
          "operators.name"
        ])
        .where("operatorSessions.tokenDigest", "=", tokenDigest)
        .where("operatorSessions.endedAt", "is", null)
        .where("operatorSessions.expiresAt", ">", now)
        .where("operators.status", "=", "active")
        .executeTakeFirst()
    )
  )

/** Slides a session's expiry forward. */
export const touchSession = (sessionId: string, now: Date, expiresAt: Date) =>
  orDie(
    Db.query((db) =>
      db.updateTable("operatorSessions").set({ lastSeenAt: now, expiresAt }).where("id", "=", sessionId).execute()
    )
  )

/** Ends a session; true when it was live. */
export const endSession = (sessionId: string, now: Date) =>
  orDie(
    Db.query((db) =>
      db
        .updateTable("operatorSessions")
        .set({ endedAt: now })
        .where("id", "=", sessionId)
        .where("endedAt", "is", null)
        .executeTakeFirst()
    )
  ).pipe(Effect.map((result) => result.numUpdatedRows > 0n))

/** The failure counts of `keys` whose window began after `windowFloor`. */
export const throttleCounts = (keys: ReadonlyArray<string>, windowFloor: Date) =>
  orDie(
    Db.query((db) =>
      db
        .selectFrom("operatorSignInThrottle")
        .select(["key", "windowStart", "failureCount"])
        .where("key", "in", keys)
        .where("windowStart", ">", windowFloor)
        .execute()
    )
  )

/**
 * Counts one failure against each key in one statement: a window that began at or before `windowFloor` restarts
 * at `now` with 1; otherwise the count grows. Concurrent failures each count (the row lock orders them).
 */
export const countFailure = (keys: ReadonlyArray<string>, now: Date, windowFloor: Date) =>
  orDie(
    Db.query((db) =>
      db
        .insertInto("operatorSignInThrottle")
        .values(keys.map((key) => ({ key, windowStart: now, failureCount: 1 })))
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            failureCount: sql<number>`case when operator_sign_in_throttle.window_start <= ${windowFloor} then 1 else operator_sign_in_throttle.failure_count + 1 end`,
            windowStart: sql<Date>`case when operator_sign_in_throttle.window_start <= ${windowFloor} then ${now} else operator_sign_in_throttle.window_start end`
          })
        )
        .execute()
    )
  )

/** Forgets the failures of a key (a successful sign-in clears its address's count). */
export const clearFailures = (key: string) =>
  orDie(Db.query((db) => db.deleteFrom("operatorSignInThrottle").where("key", "=", key).execute()))

/** A new operator (demo seed, tests). */
export const insertOperator = (row: {
  readonly id: string
  readonly organizationId: string
  readonly email: string
  readonly name: string
  readonly passwordHash: string
  readonly now: Date
}) =>
  orDie(
    Db.query((db) =>
      db
        .insertInto("operators")
        .values({
          id: row.id,
          organizationId: row.organizationId,
          email: row.email,
          name: row.name,
          passwordHash: row.passwordHash,
          status: "active",
          createdAt: row.now,
          updatedAt: row.now
        })
        .execute()
    )
  )
