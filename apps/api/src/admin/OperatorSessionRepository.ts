/**
 * SQL of operators' sessions and the sign-in throttle (`operator_sessions`, `operator_sign_in_failures`); the
 * operators themselves are identity's (`identity/OperatorRepository.ts`), joined through its `activeOperators`.
 */
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { randomUUID } from "node:crypto"
import { activeOperators } from "../identity/OperatorRepository.js"
import * as Sql from "../platform/Sql.js"
import { delaySchedule, FAILURE_MEMORY_SECONDS } from "./SignInThrottle.js"

/** What {@link OperatorSessionRepository} `admitSignIn` answers for one attempt of a pair. */
export interface SignInAdmission {
  /** Whether the attempt may check its password; it is already counted as a failure when it may. */
  readonly admitted: boolean
  /** The pair's consecutive failures, this attempt included when admitted. */
  readonly failureCount: number
  /** The pair's next attempt is refused before this instant. */
  readonly blockedUntil: Date
}

interface AdmissionRow {
  readonly admitted: boolean
  readonly failureCount: number
  readonly blockedUntil: Date | string
}

/** The wait after the n-th failure at index n − 1, as a SQL array literal (whole seconds; our own constants). */
const schedule = sql.raw(`array[${delaySchedule.join(", ")}]::integer[]`)

export class OperatorSessionRepository extends Effect.Service<OperatorSessionRepository>()("@propline/api/admin/OperatorSessionRepository", {
  succeed: {
    /** A new session row, live until `expiresAt`. */
    insertSession: (row: {
      readonly id: string
      readonly operatorId: string
      readonly tokenDigest: string
      readonly csrfToken: string
      readonly now: Date
      readonly expiresAt: Date
      /** A session that waits for the second factor and authenticates nothing until then. */
      readonly secondFactorPending: boolean
      readonly clientAddress: string
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
            endedAt: null,
            secondFactorPending: row.secondFactorPending,
            clientAddress: row.clientAddress
          })
          .execute()
      ),

    /** The live session waiting for the second factor with this token digest, with its operator; or undefined. */
    findPendingSession: (tokenDigest: string, now: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorSessions")
          .innerJoin(activeOperators(db).as("operators"), "operators.id", "operatorSessions.operatorId")
          .select(["operatorSessions.id as sessionId", "operators.id as operatorId", "operators.email"])
          .where("operatorSessions.tokenDigest", "=", tokenDigest)
          .where("operatorSessions.endedAt", "is", null)
          .where("operatorSessions.secondFactorPending", "=", true)
          .where("operatorSessions.expiresAt", ">", now)
          .executeTakeFirst()
      ),

    /** The operator's live (signed-in) sessions at `now`, the latest used first. */
    liveSessionsOf: (operatorId: string, now: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorSessions")
          .select(["id", "createdAt", "lastSeenAt", "expiresAt", "clientAddress"])
          .where("operatorId", "=", operatorId)
          .where("endedAt", "is", null)
          .where("secondFactorPending", "=", false)
          .where("expiresAt", ">", now)
          .orderBy("lastSeenAt", "desc")
          .orderBy("id")
          .execute()
      ),

    /** Ends the operator's live session `sessionId`: true when it was theirs and live. */
    endSessionOf: (operatorId: string, sessionId: string, now: Date) =>
      Sql.query((db) =>
        db
          .updateTable("operatorSessions")
          .set({ endedAt: now })
          .where("operatorId", "=", operatorId)
          .where("id", "=", sessionId)
          .where("endedAt", "is", null)
          .where("expiresAt", ">", now)
          .executeTakeFirst()
      ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),

    /** Ends every session of the operator but `keep` (none: all of them); answers how many were live. */
    endSessionsOf: (operatorId: string, now: Date, keep?: string) =>
      Sql.query((db) => {
        const query = db
          .updateTable("operatorSessions")
          .set({ endedAt: now })
          .where("operatorId", "=", operatorId)
          .where("endedAt", "is", null)
          .where("expiresAt", ">", now)
        return (keep === undefined ? query : query.where("id", "<>", keep)).executeTakeFirst()
      }).pipe(Effect.map((result) => Number(result.numUpdatedRows))),

    /** The live session with this token digest, with its active operator, or undefined. */
    findLiveSession: (tokenDigest: string, now: Date) =>
      Sql.query((db) =>
        db
          .selectFrom("operatorSessions")
          .innerJoin(activeOperators(db).as("operators"), "operators.id", "operatorSessions.operatorId")
          .select([
            "operatorSessions.id as sessionId",
            "operatorSessions.csrfToken",
            "operatorSessions.createdAt",
            "operatorSessions.lastSeenAt",
            "operators.id as operatorId",
            "operators.organizationId",
            "operators.email",
            "operators.name",
            "operators.role"
          ])
          .where("operatorSessions.tokenDigest", "=", tokenDigest)
          .where("operatorSessions.endedAt", "is", null)
          .where("operatorSessions.secondFactorPending", "=", false)
          .where("operatorSessions.expiresAt", ">", now)
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

    /**
     * Judges a sign-in attempt of the pair (`email`, `clientAddress`) at `now` and, when admitted, counts it as a
     * failure before its password is checked ({@link forgiveSignIns} takes it back on success), in ONE statement:
     * `on conflict do update` locks the pair's row and computes from its latest version, so concurrent attempts of
     * one pair, on any instance, are judged one after another and none slips past a wait the previous one set.
     * - A pair whose `blocked_until` is after `now` is refused: the row is written back unchanged (a refused attempt
     *   neither counts nor lengthens the wait, so waiting what it was told always works).
     * - Otherwise the attempt is admitted: `failure_count` grows by one (starting again at 1 when the last failure is
     *   older than `FAILURE_MEMORY_SECONDS`), `blocked_until` becomes `now` plus `SignInThrottle.delaySeconds` of the
     *   new count, and the row is stamped with this attempt's random id, which `returning` compares.
     */
    admitSignIn: (email: string, clientAddress: string, now: Date) =>
      Effect.suspend(() => {
        const attempt = randomUUID()
        const forgetBefore = new Date(now.getTime() - FAILURE_MEMORY_SECONDS * 1000)
        const throttled = sql`f.blocked_until > ${now}::timestamptz`
        const count = sql`case when f.last_failure_at <= ${forgetBefore}::timestamptz then 1 else f.failure_count + 1 end`
        const until = (failures: RawBuilder<unknown>) =>
          sql`${now}::timestamptz + make_interval(secs => (${schedule})[least(${failures}, ${delaySchedule.length})])`
        return Sql.rows(
          sql<AdmissionRow>`
            insert into operator_sign_in_failures as f
              (email, client_address, failure_count, last_failure_at, blocked_until, last_attempt_id)
            values (${email}, ${clientAddress}, 1, ${now}::timestamptz, ${until(sql`1`)}, ${attempt}::uuid)
            on conflict (email, client_address) do update set
              failure_count = case when ${throttled} then f.failure_count else ${count} end,
              last_failure_at = case when ${throttled} then f.last_failure_at else ${now}::timestamptz end,
              blocked_until = case when ${throttled} then f.blocked_until else ${until(count)} end,
              last_attempt_id = case when ${throttled} then f.last_attempt_id else ${attempt}::uuid end
            returning last_attempt_id = ${attempt}::uuid as admitted, failure_count as "failureCount",
              blocked_until as "blockedUntil"`
        )
      }).pipe(
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? Effect.die(new Error("the sign-in admission statement returned no row"))
            : Effect.succeed<SignInAdmission>({
                admitted: rows[0].admitted,
                failureCount: rows[0].failureCount,
                blockedUntil: new Date(rows[0].blockedUntil)
              })
        ),
        Effect.withSpan("OperatorSessionRepository.admitSignIn", { captureStackTrace: false })
      ),

    /** Forgets the failures of the pair (`email`, `clientAddress`): a successful sign-in. */
    forgiveSignIns: (email: string, clientAddress: string) =>
      Sql.query((db) =>
        db.deleteFrom("operatorSignInFailures").where("email", "=", email).where("clientAddress", "=", clientAddress).execute()
      )
  }
}) {}
