/**
 * The team and each operator's own account (issue 25, item 5), over identity's operators and invitations and the
 * host's sessions. Every change runs in one transaction that locks what it reads and writes its audit entry by the
 * operator (`operator.invited`, `operator.invite_revoked`, `operator.invite_accepted`, `operator.role_changed`,
 * `operator.removed`, `operator.password_changed`, `operator.session_ended`, `operator.other_sessions_ended`,
 * `operator.totp_enrolment_started`, `operator.totp_enabled`, `operator.totp_disabled`,
 * `operator.recovery_codes_replaced`); never a password, token, secret or code.
 *
 * Who may change whom ({@link teamRuleBreak}): an owner anyone; an admin admins and read-only operators, and grants no
 * owner role; nobody removes themself; the organization's last owner is neither demoted nor removed (the owners'
 * rows are locked first, so two concurrent demotions of the last two owners can't both pass). A read-only
 * operator never gets here: the host refuses their changes (`OperatorRoles.ts`).
 */
import { INVITE_VALID_DAYS, RECOVERY_CODE_COUNT } from "@propline/contract/TeamAdmin"
import type { OperatorRole } from "@propline/db/Database"
import { Refusal } from "@propline/refusal/Refusal"
import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { OperatorInviteRepository } from "../identity/OperatorInviteRepository.js"
import { OperatorRepository } from "../identity/OperatorRepository.js"
import * as Audit from "../platform/Audit.js"
import { sha256Hex } from "../platform/Digest.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { normalizeEmail, type OperatorSession } from "./OperatorSessions.js"
import { OperatorSessionRepository } from "./OperatorSessionRepository.js"
import { hashPassword, verifyPassword } from "./Passwords.js"
import { newRecoveryCodes, newTotpSecret, openSecret, recoveryCodeDigest, sealSecret, totpStep } from "./SecondFactor.js"


/** `VALIDATION_FAILED`, 400: a team or account change the rules refuse; `issues` names the field. */
export class TeamChangeRefused extends Refusal("TeamChangeRefused", "VALIDATION_FAILED", 400)<Record<never, never>> {}

const refuse = (path: string, message: string) => new TeamChangeRefused({ detail: message, issues: [{ path, message }] })

/**
 * Why `actor` may not give `target` the role `next` (`undefined`: removal), or undefined when it may. `owners` is
 * how many active owners the organization has.
 */
export const teamRuleBreak = (
  actor: { readonly id: string; readonly role: OperatorRole },
  target: { readonly id: string; readonly role: OperatorRole },
  next: OperatorRole | undefined,
  owners: number
): { readonly path: string; readonly message: string } | undefined => {
  const path = next === undefined ? "" : "/role"
  if (actor.role === "read_only") return { path, message: "A read-only operator can't change the team." }
  if (next === undefined && actor.id === target.id) return { path, message: "You can't remove yourself; another owner or admin can." }
  if (actor.role === "admin" && (target.role === "owner" || next === "owner")) {
    return { path, message: "Only an owner can change an owner or make one." }
  }
  if (target.role === "owner" && next !== "owner" && owners <= 1) {
    return { path, message: "The organization's last owner can't be demoted or removed: make another operator an owner first." }
  }
  return undefined
}

const byOperator = (session: OperatorSession) => ({ type: "operator", id: session.operatorId }) as const

const plusDays = (at: Date, days: number) => new Date(at.getTime() + days * 24 * 60 * 60 * 1000)

export class OperatorTeam extends Effect.Service<OperatorTeam>()("@propline/api/admin/OperatorTeam", {
  dependencies: [OperatorRepository.Default, OperatorInviteRepository.Default, OperatorSessionRepository.Default],
  effect: Effect.gen(function* () {
    const operators = yield* OperatorRepository
    const invites = yield* OperatorInviteRepository
    const sessions = yield* OperatorSessionRepository

    const audit = (session: OperatorSession, action: string, targetType: string, targetId: string, at: Date, details?: Record<string, unknown>) =>
      Audit.byActor(session.organizationId, byOperator(session), { action, targetType, targetId, at, ...(details === undefined ? {} : { details }) })

    /** The signed-in operator's row, locked. */
    const me = (session: OperatorSession) =>
      Effect.flatMap(operators.lock(session.organizationId, session.operatorId), (row) =>
        row === undefined ? Effect.die(new Error("the signed-in operator has no row")) : Effect.succeed(row)
      )

    /** Fails unless `password` is the operator's current one (at `path`). */
    const checkPassword = (passwordHash: string, password: string, path: string) =>
      Effect.flatMap(verifyPassword(passwordHash, password), (matches) =>
        matches ? Effect.void : Effect.fail(refuse(path, "The password is wrong."))
      )

    const freshCodes = (operatorId: string, at: Date) =>
      Effect.gen(function* () {
        const codes = newRecoveryCodes(RECOVERY_CODE_COUNT)
        yield* operators.replaceRecoveryCodes(operatorId, codes.map(recoveryCodeDigest), at)
        return codes
      })

    return {
      /** The organization's active operators and open invitations. */
      team: (session: OperatorSession) =>
        Effect.gen(function* () {
          const at = yield* Sql.now
          return { operators: yield* operators.team(session.organizationId), invites: yield* invites.open(session.organizationId, at) }
        }),

      /**
       * Invites `email` with `role`: a new single-use link's token (answered once; its SHA-256 kept), valid for
       * {@link INVITE_VALID_DAYS} days. An open invitation of the address is replaced. Refused (400) when the address
       * is already an active operator of the organization, or an admin invites an owner.
       */
      invite: (session: OperatorSession, input: { readonly email: string; readonly role: OperatorRole }) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const email = normalizeEmail(input.email)
            if (session.role !== "owner" && input.role === "owner") return yield* refuse("/role", "Only an owner can invite an owner.")
            const team = yield* operators.team(session.organizationId)
            if (team.some((member) => member.email === email)) return yield* refuse("/email", "This address is already on the team.")
            yield* invites.revokeFor(session.organizationId, email, at)
            const token = randomBytes(32).toString("base64url")
            const invite = {
              id: randomUUID(),
              organizationId: session.organizationId,
              email,
              role: input.role,
              tokenDigest: sha256Hex(token),
              invitedBy: session.operatorId,
              now: at,
              expiresAt: plusDays(at, INVITE_VALID_DAYS)
            }
            yield* invites.insert(invite)
            yield* audit(session, "operator.invited", "operator_invite", invite.id, at, { email, role: input.role })
            return {
              token,
              invite: { id: invite.id, email, role: input.role, invitedBy: session.email, createdAt: at, expiresAt: invite.expiresAt }
            }
          })
        ).pipe(Effect.withSpan("OperatorTeam.invite", { captureStackTrace: false })),

      /** Revokes an open invitation; RecordNotFound when none is open with this id in the organization. */
      revokeInvite: (session: OperatorSession, inviteId: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            if (!(yield* invites.revoke(session.organizationId, inviteId, at))) return yield* new RecordNotFound({ kind: "operator invitation" })
            yield* audit(session, "operator.invite_revoked", "operator_invite", inviteId, at)
          })
        ),

      /** Gives an operator of the organization a new role ({@link teamRuleBreak}); RecordNotFound when none. */
      changeRole: (session: OperatorSession, operatorId: string, role: OperatorRole) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const owners = yield* operators.lockOwners(session.organizationId)
            const target = yield* operators.lock(session.organizationId, operatorId)
            if (target === undefined || target.status !== "active") return yield* new RecordNotFound({ kind: "operator" })
            const broken = teamRuleBreak({ id: session.operatorId, role: session.role }, target, role, owners.length)
            if (broken !== undefined) return yield* refuse(broken.path, broken.message)
            if (target.role !== role) {
              yield* operators.update(target.id, { role }, at)
              yield* audit(session, "operator.role_changed", "operator", target.id, at, { from: target.role, to: role })
            }
            return { id: target.id, email: target.email, name: target.name, role, secondFactor: target.totpSecretEnvelope !== null, createdAt: target.createdAt }
          })
        ).pipe(Effect.withSpan("OperatorTeam.changeRole", { captureStackTrace: false })),

      /** Removes (disables) an operator of the organization and ends their sessions ({@link teamRuleBreak}). */
      remove: (session: OperatorSession, operatorId: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const owners = yield* operators.lockOwners(session.organizationId)
            const target = yield* operators.lock(session.organizationId, operatorId)
            if (target === undefined || target.status !== "active") return yield* new RecordNotFound({ kind: "operator" })
            const broken = teamRuleBreak({ id: session.operatorId, role: session.role }, target, undefined, owners.length)
            if (broken !== undefined) return yield* refuse(broken.path, broken.message)
            yield* operators.update(target.id, { status: "disabled" }, at)
            const ended = yield* sessions.endSessionsOf(target.id, at)
            yield* audit(session, "operator.removed", "operator", target.id, at, { email: target.email, role: target.role, sessionsEnded: ended })
          })
        ).pipe(Effect.withSpan("OperatorTeam.remove", { captureStackTrace: false })),

      /** The open invitation of a link's token, with its organization; RecordNotFound otherwise. */
      readInvitation: (token: string) =>
        Effect.gen(function* () {
          const found = yield* invites.findOpen(sha256Hex(token), yield* Sql.now, false)
          if (found === undefined) return yield* new RecordNotFound({ kind: "invitation" })
          return found
        }),

      /**
       * Accepts an invitation once: the operator is made (or, removed earlier from this organization, made active
       * again) with the invited role, `name` and `password`; the invitation is used. RecordNotFound for a link that
       * is unknown, used, revoked or expired; 400 when the address has an operator elsewhere or an active one here.
       */
      acceptInvitation: (input: { readonly token: string; readonly name: string; readonly password: string }) =>
        Effect.gen(function* () {
          const passwordHash = yield* hashPassword(input.password)
          return yield* Sql.transaction(
            Effect.gen(function* () {
              const at = yield* Sql.now
              const invite = yield* invites.findOpen(sha256Hex(input.token), at, true)
              if (invite === undefined) return yield* new RecordNotFound({ kind: "invitation" })
              const existing = yield* operators.findByEmail(invite.email)
              const id = existing?.id ?? randomUUID()
              if (existing !== undefined) {
                if (existing.organizationId !== invite.organizationId || existing.status === "active") {
                  return yield* refuse("/token", "This address already has an operator: sign in instead.")
                }
                yield* operators.update(id, { status: "active", role: invite.role, passwordHash, totpSecretEnvelope: null, totpPendingEnvelope: null, totpEnabledAt: null }, at)
                yield* operators.replaceRecoveryCodes(id, [], at)
              } else {
                yield* operators.insert({ id, organizationId: invite.organizationId, email: invite.email, name: input.name, passwordHash, role: invite.role, now: at })
              }
              yield* invites.accept(invite.id, at)
              yield* Audit.byActor(invite.organizationId, { type: "operator", id }, {
                action: "operator.invite_accepted",
                targetType: "operator_invite",
                targetId: invite.id,
                at,
                details: { email: invite.email, role: invite.role, invitedBy: invite.invitedBy }
              })
              return { id, email: invite.email, name: existing?.name ?? input.name, role: invite.role }
            })
          )
        }).pipe(Effect.withSpan("OperatorTeam.acceptInvitation", { captureStackTrace: false })),

      /** The signed-in operator's account: second factor on or off, recovery codes left. */
      account: (session: OperatorSession) =>
        Effect.gen(function* () {
          const row = yield* operators.lock(session.organizationId, session.operatorId)
          return { secondFactor: row?.totpSecretEnvelope !== null && row !== undefined, recoveryCodesLeft: yield* operators.recoveryCodesLeft(session.operatorId) }
        }),

      /** Changes the password (the current one required) and ends every other session of the operator. */
      changePassword: (session: OperatorSession, input: { readonly currentPassword: string; readonly newPassword: string }) =>
        Effect.gen(function* () {
          const passwordHash = yield* hashPassword(input.newPassword)
          yield* Sql.transaction(
            Effect.gen(function* () {
              const at = yield* Sql.now
              const row = yield* me(session)
              yield* checkPassword(row.passwordHash, input.currentPassword, "/currentPassword")
              yield* operators.update(row.id, { passwordHash }, at)
              const ended = yield* sessions.endSessionsOf(row.id, at, session.sessionId)
              yield* audit(session, "operator.password_changed", "operator", row.id, at, { sessionsEnded: ended })
            })
          )
        }).pipe(Effect.withSpan("OperatorTeam.changePassword", { captureStackTrace: false })),

      /** The operator's live sessions, the current one marked. */
      sessions: (session: OperatorSession) =>
        Effect.gen(function* () {
          const rows = yield* sessions.liveSessionsOf(session.operatorId, yield* Sql.now)
          return rows.map((row) => ({ ...row, current: row.id === session.sessionId }))
        }),

      /** Ends one of the operator's live sessions (the current one too: that signs out); RecordNotFound otherwise. */
      endSession: (session: OperatorSession, sessionId: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            if (!(yield* sessions.endSessionOf(session.operatorId, sessionId, at))) return yield* new RecordNotFound({ kind: "session" })
            yield* audit(session, "operator.session_ended", "operator_session", sessionId, at)
          })
        ),

      /** Ends every session of the operator but the current one. */
      endOtherSessions: (session: OperatorSession) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const ended = yield* sessions.endSessionsOf(session.operatorId, at, session.sessionId)
            yield* audit(session, "operator.other_sessions_ended", "operator", session.operatorId, at, { sessionsEnded: ended })
          })
        ),

      /** Starts a TOTP enrolment: a new secret, sealed as pending; refused while a second factor is on. */
      enrolTotp: (session: OperatorSession) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const row = yield* me(session)
            if (row.totpSecretEnvelope !== null) return yield* refuse("", "The second factor is already on: turn it off first to enrol another authenticator.")
            const enrolment = newTotpSecret(row.email)
            yield* operators.update(row.id, { totpPendingEnvelope: yield* sealSecret(row.id, enrolment.secret) }, at)
            yield* audit(session, "operator.totp_enrolment_started", "operator", row.id, at)
            return enrolment
          })
        ),

      /** Confirms the pending enrolment with a current code: the second factor is on; ten recovery codes answered. */
      confirmTotp: (session: OperatorSession, code: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const row = yield* me(session)
            if (row.totpPendingEnvelope === null) return yield* refuse("/code", "Start the enrolment first: there is no authenticator to confirm.")
            const step = totpStep(yield* openSecret(row.id, row.totpPendingEnvelope), code, at)
            if (step === undefined || !(yield* operators.useTotpStep(row.id, step))) {
              return yield* refuse("/code", "The code is wrong or was already used: enter the current code from the authenticator.")
            }
            yield* operators.update(row.id, { totpSecretEnvelope: row.totpPendingEnvelope, totpPendingEnvelope: null, totpEnabledAt: at }, at)
            const codes = yield* freshCodes(row.id, at)
            yield* audit(session, "operator.totp_enabled", "operator", row.id, at)
            return codes
          })
        ),

      /** Turns the second factor off (password required); the recovery codes are dropped. */
      disableTotp: (session: OperatorSession, password: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const row = yield* me(session)
            yield* checkPassword(row.passwordHash, password, "/password")
            yield* operators.update(row.id, { totpSecretEnvelope: null, totpPendingEnvelope: null, totpEnabledAt: null }, at)
            yield* operators.replaceRecoveryCodes(row.id, [], at)
            yield* audit(session, "operator.totp_disabled", "operator", row.id, at)
          })
        ),

      /** Ten new recovery codes replacing the old (password required; the second factor must be on). */
      newRecoveryCodes: (session: OperatorSession, password: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const at = yield* Sql.now
            const row = yield* me(session)
            yield* checkPassword(row.passwordHash, password, "/password")
            if (row.totpSecretEnvelope === null) return yield* refuse("", "Turn the second factor on first.")
            const codes = yield* freshCodes(row.id, at)
            yield* audit(session, "operator.recovery_codes_replaced", "operator", row.id, at)
            return codes
          })
        )
    }
  })
}) {}
