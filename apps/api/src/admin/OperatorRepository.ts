/** SQL of operators, their sessions and the sign-in throttle (`operators`, `operator_sessions`, `operator_sign_in_throttle`). */
import { Effect } from "effect"
import { sql } from "kysely"
import * as Sql from "../platform/Sql.js"

export class OperatorRepository extends Effect.Service<OperatorRepository>()("@propline/api/admin/OperatorRepository", {
  succeed: {
    /** The operator with this (lower-cased) e-mail address, or undefined. */
    findByEmail: (email: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .select(["id", "organizationId", "email", "name", "passwordHash", "status"])
          .where("email", "=", email)
          .executeTakeFirst()
      ),

    /** A new session row, live until `expiresAt`. */
    insertSession: (row: {
      readonly id: string
      readonly operatorId: string
      readonly tokenDigest: string
      readonly csrfToken: string
      readonly now: Date
      readonly expiresAt: Date
    }) =>
      Sql.query((db) =>
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
      ),

    /** The live session with this token digest, with its active operator, or undefined. */
    findLiveSession: (tokenDigest: string, now: Date) =>
      Sql.query((db) =>
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
      ),

    /** Slides a session's expiry forward. */
    touchSession: (sessionId: string, now: Date, expiresAt: Date) =>
      Sql.query((db) => db.updateTable("operatorSessions").set({ lastSeenAt: now, expiresAt }).where("id", "=", sessionId).execute()),

    /** Ends a session; true when it was live. */
    endSession: (sessionId: string, now: Date) =>
      Sql.query((db) =>
        db.updateTable("operatorSessions").set({ endedAt: now }).where("id", "=", sessionId).where("endedAt", "is", null).executeTakeFirst()
      ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),

    /** The failure counts of `keys` whose window began after `windowFloor`. */
    throttleCounts: (keys: ReadonlyArray<string>, windowFloor: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorSignInThrottle")
          .select(["key", "windowStart", "failureCount"])
          .where("key", "in", keys)
          .where("windowStart", ">", windowFloor)
          .execute()
      ),

    /**
     * Counts one failure against each key in one statement: a window that began at or before `windowFloor` starts
     * again at `now` with 1; otherwise the count grows. Concurrent failures each count (the row lock orders them).
     */
    countFailure: (keys: ReadonlyArray<string>, now: Date, windowFloor: Date) =>
      Sql.query((db) =>
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
      ),

    /** Forgets the failures counted against a key. */
    clearFailures: (key: string) =>
      Sql.query((db) => db.deleteFrom("operatorSignInThrottle").where("key", "=", key).execute())
  }
}) {}
