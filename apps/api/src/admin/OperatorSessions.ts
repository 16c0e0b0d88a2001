/**
 * Operator sign-in and server-side sessions (issue 11).
 *
 * - Sign-in takes an e-mail address (any case) and a password, verified against the argon2id hash. A wrong address,
 *   a wrong password and a disabled operator fail alike ({@link InvalidCredentials}) and take as long (a decoy hash
 *   is verified when the address is unknown).
 * - Throttling lives in PostgreSQL, so it holds across instances: {@link EMAIL_FAILURE_LIMIT} failures for one
 *   address, or {@link CLIENT_FAILURE_LIMIT} from one client address, within {@link THROTTLE_WINDOW_SECONDS} refuse
 *   further attempts ({@link SignInThrottled}, 429) until the window ends — checked before the password, so a
 *   throttled guess learns nothing. A successful sign-in clears its address's count.
 * - A session is a 256-bit random token in the cookie; the database keeps only its SHA-256 digest, beside the
 *   session's CSRF token. It ends at sign-out, after {@link SESSION_IDLE_SECONDS} without a request, or
 *   {@link SESSION_MAX_SECONDS} after sign-in, whichever comes first.
 *
 * Sign-in and sign-out are changes: each writes its audit entry in its transaction.
 */
import { Data, Effect, Option } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as Sql from "../platform/Sql.js"
import { OperatorRepository } from "./OperatorRepository.js"
import { decoyHash, verifyPassword } from "./Passwords.js"

/** A session ends this long after its last request: 2 hours. */
export const SESSION_IDLE_SECONDS = 2 * 60 * 60
/** A session ends this long after sign-in whatever its use: 12 hours. */
export const SESSION_MAX_SECONDS = 12 * 60 * 60
/** The sign-in throttle's window: 15 minutes. */
export const THROTTLE_WINDOW_SECONDS = 15 * 60
/** Failed sign-ins for one e-mail address within the window before it is throttled. */
export const EMAIL_FAILURE_LIMIT = 5
/** Failed sign-ins from one client address within the window before it is throttled. */
export const CLIENT_FAILURE_LIMIT = 50
/** A session's expiry is written again at most this often (seconds), not on every request. */
const TOUCH_INTERVAL_SECONDS = 60

/** Wrong e-mail address or password, or a disabled operator: 401, without saying which. */
export class InvalidCredentials extends Data.TaggedError("InvalidCredentials") {}

/** Too many failures: 429, try again after `retryAfterSeconds`. */
export class SignInThrottled extends Data.TaggedError("SignInThrottled")<{ readonly retryAfterSeconds: number }> {}

/** A signed-in operator and the session's CSRF token. */
export interface OperatorSession {
  readonly sessionId: string
  readonly operatorId: string
  readonly organizationId: string
  readonly email: string
  readonly name: string
  readonly csrfToken: string
}

/** Lower-case hex SHA-256 of a session token: what `operator_sessions.token_digest` holds. */
export const tokenDigest = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

/** How an e-mail address is compared: trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

const plus = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000)
const earliest = (a: Date, b: Date) => (a.getTime() <= b.getTime() ? a : b)

const audit = (session: OperatorSession, action: string, at: Date) =>
  Audit.byActor(
    session.organizationId,
    { type: "operator", id: session.operatorId },
    { action, targetType: "operator_session", targetId: session.sessionId, at }
  )

const throttleKeys = (email: string, clientAddress: string | undefined) =>
  clientAddress === undefined ? [`email:${email}`] : [`email:${email}`, `client:${clientAddress}`]

export class OperatorSessions extends Effect.Service<OperatorSessions>()("@propline/api/admin/OperatorSessions", {
  dependencies: [OperatorRepository.Default],
  effect: Effect.gen(function* () {
    const Repo = yield* OperatorRepository
    return {
      /**
       * Signs in: returns the session and its token (for the cookie; shown nowhere else). Fails with
       * {@link SignInThrottled} or {@link InvalidCredentials}; a failure is counted against the address and the client.
       */
      signIn: (input: { readonly email: string; readonly password: string; readonly clientAddress: string | undefined }) =>
        Effect.gen(function* () {
          const at = yield* Sql.now
          const email = normalizeEmail(input.email)
          const keys = throttleKeys(email, input.clientAddress)
          const windowFloor = plus(at, -THROTTLE_WINDOW_SECONDS)
          const counts = yield* Repo.throttleCounts(keys, windowFloor)
          for (const row of counts) {
            const limit = row.key.startsWith("email:") ? EMAIL_FAILURE_LIMIT : CLIENT_FAILURE_LIMIT
            if (row.failureCount >= limit) {
              const reopens = plus(new Date(row.windowStart), THROTTLE_WINDOW_SECONDS).getTime()
              return yield* new SignInThrottled({ retryAfterSeconds: Math.max(1, Math.ceil((reopens - at.getTime()) / 1000)) })
            }
          }
          const operator = yield* Repo.findByEmail(email)
          const matches = yield* verifyPassword(operator?.passwordHash ?? (yield* decoyHash), input.password)
          if (operator === undefined || !matches || operator.status !== "active") {
            // Its own statement, committed although the sign-in fails.
            yield* Repo.countFailure(keys, at, windowFloor)
            return yield* new InvalidCredentials()
          }
          const token = randomBytes(32).toString("base64url")
          const session: OperatorSession = {
            sessionId: randomUUID(),
            operatorId: operator.id,
            organizationId: operator.organizationId,
            email: operator.email,
            name: operator.name,
            csrfToken: randomBytes(32).toString("base64url")
          }
          yield* Sql.transaction(
            Effect.gen(function* () {
              yield* Repo.clearFailures(`email:${email}`)
              yield* Repo.insertSession({
                id: session.sessionId,
                operatorId: session.operatorId,
                tokenDigest: tokenDigest(token),
                csrfToken: session.csrfToken,
                now: at,
                expiresAt: plus(at, SESSION_IDLE_SECONDS)
              })
              yield* audit(session, "operator.signed_in", at)
            })
          )
          return { token, session }
        }).pipe(Effect.withSpan("OperatorSessions.signIn", { captureStackTrace: false })),

      /** The live session of a cookie token, sliding its idle expiry forward; none when ended, expired or unknown. */
      authenticate: (token: string) =>
        Effect.gen(function* () {
          const at = yield* Sql.now
          const row = yield* Repo.findLiveSession(tokenDigest(token), at)
          if (row === undefined) return Option.none<OperatorSession>()
          if (at.getTime() - new Date(row.lastSeenAt).getTime() >= TOUCH_INTERVAL_SECONDS * 1000) {
            const expiresAt = earliest(plus(at, SESSION_IDLE_SECONDS), plus(new Date(row.createdAt), SESSION_MAX_SECONDS))
            yield* Repo.touchSession(row.sessionId, at, expiresAt)
          }
          return Option.some<OperatorSession>({
            sessionId: row.sessionId,
            operatorId: row.operatorId,
            organizationId: row.organizationId,
            email: row.email,
            name: row.name,
            csrfToken: row.csrfToken
          })
        }).pipe(Effect.withSpan("OperatorSessions.authenticate", { captureStackTrace: false })),

      /** Ends the session (audited); a session already ended stays ended. */
      signOut: (session: OperatorSession) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            if (yield* Repo.endSession(session.sessionId, at)) yield* audit(session, "operator.signed_out", at)
          })
        ).pipe(Effect.withSpan("OperatorSessions.signOut", { captureStackTrace: false }))
    }
  })
}) {}
