/**
 * Operator sign-in and server-side sessions (issue 11).
 *
 * - Sign-in takes an e-mail address (any case) and a password, verified against the argon2id hash. A wrong address,
 *   a wrong password and a disabled operator fail alike ({@link InvalidCredentials}) and take as long (a decoy hash
 *   is verified when the address is unknown).
 * - Failures are throttled per (e-mail address, client address) pair with growing waits (`SignInThrottle`), so a
 *   guesser elsewhere never stops the operator. The state lives in PostgreSQL, so it holds across instances, and an
 *   attempt is judged and counted in one statement before its password is checked
 *   (`OperatorSessionRepository.admitSignIn`): concurrent guesses can't get past a wait, and a refused attempt
 *   ({@link SignInThrottled}, 429) does no argon2 work and learns nothing. A successful sign-in forgets its pair's
 *   failures. The throttle is keyed by the address as typed (normalized), whether or not an operator has it, so it
 *   answers an unknown address exactly as a known one.
 * - Failed and throttled attempts are audited (`operator.sign_in_failed`, `operator.sign_in_throttled`) by the actor
 *   `client` (its client address), with the target operator (`operator_email` and the address as typed when none
 *   has it, in no organization), the address typed and the client address in `details`; never the password. Each is
 *   its own statement, committed although the sign-in fails: `signIn` must not run inside a transaction.
 * - A session is a 256-bit random token in the cookie; the database keeps only its SHA-256 digest, beside the
 *   session's CSRF token. It ends at sign-out, after {@link SESSION_IDLE_SECONDS} without a request, or
 *   {@link SESSION_MAX_SECONDS} after sign-in, whichever comes first.
 *
 * Sign-in and sign-out are changes: each writes its audit entry in its transaction.
 */
import { Data, Effect, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import { sha256Hex } from "../platform/Digest.js"
import * as Sql from "../platform/Sql.js"
import { OperatorRepository } from "../identity/OperatorRepository.js"
import { OperatorSessionRepository } from "./OperatorSessionRepository.js"
import { decoyHash, verifyPassword } from "./Passwords.js"
import { isTotpCode, openSecret, recoveryCodeDigest, totpStep } from "./SecondFactor.js"

/** A session ends this long after its last request: 2 hours. */
export const SESSION_IDLE_SECONDS = 2 * 60 * 60
/** A session ends this long after sign-in whatever its use: 12 hours. */
export const SESSION_MAX_SECONDS = 12 * 60 * 60
/** A sign-in that waits for the second factor lasts this long: 5 minutes. */
export const SECOND_FACTOR_SECONDS = 5 * 60
/** A session's expiry is written again at most this often (seconds), not on every request. */
const TOUCH_INTERVAL_SECONDS = 60

/** Wrong e-mail address or password, or a disabled operator: 401, without saying which. */
export class InvalidCredentials extends Data.TaggedError("InvalidCredentials") {}

/** Too many failures of this e-mail address from this client address: 429, try again after `retryAfterSeconds` (≥ 1). */
export class SignInThrottled extends Data.TaggedError("SignInThrottled")<{ readonly retryAfterSeconds: number }> {}

/** A signed-in operator and the session's CSRF token. */
export interface OperatorSession {
  readonly sessionId: string
  readonly operatorId: string
  readonly organizationId: string
  readonly email: string
  readonly name: string
  readonly role: "owner" | "admin" | "read_only"
  readonly csrfToken: string
}

/** What a sign-in opens: a session, or one that waits for the second factor (its token goes in the cookie too). */
export type SignInResult =
  | { readonly _tag: "SignedIn"; readonly token: string; readonly session: OperatorSession }
  | { readonly _tag: "SecondFactorRequired"; readonly token: string }

/** The throttle key of second-factor attempts: apart from the password's, for the same pair of addresses. */
const secondFactorKey = (email: string) => `second-factor:${email}`

/** Lower-case hex SHA-256 of a session token: what `operator_sessions.token_digest` holds. */
export const tokenDigest = (token: string): string => sha256Hex(token)

/** How an e-mail address is compared: trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

const plus = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000)
const earliest = (a: Date, b: Date) => (a.getTime() <= b.getTime() ? a : b)

const audit = (session: OperatorSession, action: string, at: Date, details?: Record<string, unknown>) =>
  Audit.byActor(
    session.organizationId,
    { type: "operator", id: session.operatorId },
    { action, targetType: "operator_session", targetId: session.sessionId, at, ...(details === undefined ? {} : { details }) }
  )

/** An attempt's audit entry: by the client, about the operator with the address typed (or the address itself). */
const auditAttempt = (
  action: "operator.sign_in_failed" | "operator.sign_in_throttled",
  attempt: { readonly email: string; readonly clientAddress: string; readonly at: Date },
  operator: { readonly id: string; readonly organizationId: string } | undefined,
  details: Record<string, unknown>
) =>
  Audit.byActor(
    operator?.organizationId ?? null,
    { type: "client", id: attempt.clientAddress },
    {
      action,
      targetType: operator === undefined ? "operator_email" : "operator",
      targetId: operator?.id ?? attempt.email,
      details: { email: attempt.email, clientAddress: attempt.clientAddress, ...details },
      at: attempt.at
    }
  )

/** The client address a request without one (a socket closed meanwhile) is counted and audited as. */
export const UNKNOWN_CLIENT = "unknown"

export class OperatorSessions extends Effect.Service<OperatorSessions>()("@propline/api/admin/OperatorSessions", {
  dependencies: [OperatorRepository.Default, OperatorSessionRepository.Default],
  effect: Effect.gen(function* () {
    const operators = yield* OperatorRepository
    const Repo = yield* OperatorSessionRepository
    /** A new session of `operator` and its token (nothing written yet). */
    const openSession = (
      operator: { readonly id: string; readonly organizationId: string; readonly email: string; readonly name: string; readonly role: OperatorSession["role"] }
    ) =>
      Effect.sync(() => ({
        token: randomBytes(32).toString("base64url"),
        session: {
          sessionId: randomUUID(),
          operatorId: operator.id,
          organizationId: operator.organizationId,
          email: operator.email,
          name: operator.name,
          role: operator.role,
          csrfToken: randomBytes(32).toString("base64url")
        } satisfies OperatorSession
      }))
    const insert = (session: OperatorSession, token: string, clientAddress: string, at: Date) =>
      Repo.insertSession({
        id: session.sessionId,
        operatorId: session.operatorId,
        tokenDigest: tokenDigest(token),
        csrfToken: session.csrfToken,
        now: at,
        expiresAt: plus(at, SESSION_IDLE_SECONDS),
        secondFactorPending: false,
        clientAddress
      })
    return {
      /**
       * Signs in: returns the session and its token (for the cookie; shown nowhere else). Fails with
       * {@link SignInThrottled} while the pair (`email`, `clientAddress`) waits, else with {@link InvalidCredentials};
       * both are audited (see the module comment). `clientAddress` is `platform/ClientAddress`'s answer.
       */
      signIn: (input: { readonly email: string; readonly password: string; readonly clientAddress: string | undefined }) =>
        Effect.gen(function* () {
          const at = yield* Sql.now
          const attempt = { email: normalizeEmail(input.email), clientAddress: input.clientAddress ?? UNKNOWN_CLIENT, at }
          const admission = yield* Repo.admitSignIn(attempt.email, attempt.clientAddress, at)
          const operator = yield* operators.findByEmail(attempt.email)
          if (!admission.admitted) {
            const retryAfterSeconds = Math.max(1, Math.ceil((admission.blockedUntil.getTime() - at.getTime()) / 1000))
            yield* auditAttempt("operator.sign_in_throttled", attempt, operator, { retryAfterSeconds })
            return yield* new SignInThrottled({ retryAfterSeconds })
          }
          const matches = yield* verifyPassword(operator?.passwordHash ?? (yield* decoyHash), input.password)
          if (operator === undefined || !matches || operator.status !== "active") {
            const reason = operator === undefined ? "unknown_email" : !matches ? "wrong_password" : "operator_disabled"
            yield* auditAttempt("operator.sign_in_failed", attempt, operator, { reason, failureCount: admission.failureCount })
            return yield* new InvalidCredentials()
          }
          if (operator.totpSecretEnvelope !== null) {
            const token = randomBytes(32).toString("base64url")
            const sessionId = randomUUID()
            yield* Sql.transaction(
              Effect.gen(function* () {
                yield* Repo.forgiveSignIns(attempt.email, attempt.clientAddress)
                yield* Repo.insertSession({
                  id: sessionId,
                  operatorId: operator.id,
                  tokenDigest: tokenDigest(token),
                  csrfToken: randomBytes(32).toString("base64url"),
                  now: at,
                  expiresAt: plus(at, SECOND_FACTOR_SECONDS),
                  secondFactorPending: true,
                  clientAddress: attempt.clientAddress
                })
                yield* Audit.byActor(
                  operator.organizationId,
                  { type: "operator", id: operator.id },
                  { action: "operator.password_accepted", targetType: "operator_session", targetId: sessionId, at, details: { clientAddress: attempt.clientAddress } }
                )
              })
            )
            return { _tag: "SecondFactorRequired", token } satisfies SignInResult
          }
          const { token, session } = yield* openSession(operator)
          yield* Sql.transaction(
            Effect.gen(function* () {
              yield* Repo.forgiveSignIns(attempt.email, attempt.clientAddress)
              yield* insert(session, token, attempt.clientAddress, at)
              yield* audit(session, "operator.signed_in", at, { clientAddress: attempt.clientAddress })
            })
          )
          return { _tag: "SignedIn", token, session } satisfies SignInResult
        }).pipe(Effect.withSpan("OperatorSessions.signIn", { captureStackTrace: false })),

      /**
       * Completes a sign-in that waits for the second factor (the cookie's `token`): a TOTP `code` of a step not used
       * before, or an unused recovery code. The waiting session ends and a new one (new token, new CSRF token) is
       * opened. Throttled like sign-in, per (e-mail address, client address) with its own count
       * ({@link SignInThrottled}); a wrong code, an expired or unknown waiting session fail with
       * {@link InvalidCredentials}, the wrong code audited (`operator.second_factor_failed`).
       */
      completeSecondFactor: (input: { readonly token: string; readonly code: string; readonly clientAddress: string | undefined }) =>
        Effect.gen(function* () {
          const at = yield* Sql.now
          const clientAddress = input.clientAddress ?? UNKNOWN_CLIENT
          const pending = yield* Repo.findPendingSession(tokenDigest(input.token), at)
          if (pending === undefined) return yield* new InvalidCredentials()
          const admission = yield* Repo.admitSignIn(secondFactorKey(pending.email), clientAddress, at)
          if (!admission.admitted) {
            return yield* new SignInThrottled({
              retryAfterSeconds: Math.max(1, Math.ceil((admission.blockedUntil.getTime() - at.getTime()) / 1000))
            })
          }
          const outcome = yield* Sql.transaction(
            Effect.gen(function* () {
              const operator = yield* operators.lock(yield* operators.organizationOf(pending.operatorId), pending.operatorId)
              if (operator === undefined || operator.status !== "active" || operator.totpSecretEnvelope === null) return undefined
              let method: "totp" | "recovery_code" | undefined
              if (isTotpCode(input.code)) {
                const step = totpStep(yield* openSecret(operator.id, operator.totpSecretEnvelope), input.code, at)
                if (step !== undefined && (yield* operators.useTotpStep(operator.id, step))) method = "totp"
              } else if (yield* operators.useRecoveryCode(operator.id, recoveryCodeDigest(input.code), at)) {
                method = "recovery_code"
              }
              if (method === undefined) return { operator, session: undefined }
              yield* Repo.forgiveSignIns(secondFactorKey(operator.email), clientAddress)
              yield* Repo.endSession(pending.sessionId, at)
              const opened = yield* openSession(operator)
              yield* insert(opened.session, opened.token, clientAddress, at)
              yield* audit(opened.session, "operator.signed_in", at, { clientAddress, secondFactor: method })
              return { operator, session: opened }
            })
          )
          if (outcome === undefined) return yield* new InvalidCredentials()
          if (outcome.session === undefined) {
            yield* Audit.byActor(
              outcome.operator.organizationId,
              { type: "client", id: clientAddress },
              {
                action: "operator.second_factor_failed",
                targetType: "operator",
                targetId: outcome.operator.id,
                details: { clientAddress, failureCount: admission.failureCount },
                at
              }
            )
            return yield* new InvalidCredentials()
          }
          return outcome.session
        }).pipe(Effect.withSpan("OperatorSessions.completeSecondFactor", { captureStackTrace: false })),

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
            role: row.role,
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
