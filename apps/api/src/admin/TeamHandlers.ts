/**
 * The team, invitations and the operator's own account (issue 25, item 5): each handler calls `OperatorTeam` with
 * the signed-in session and maps its refusals through the one problem mapping. Invitations are read and accepted
 * without a session, from the console's own origin only (as sign-in).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { AdminApi } from "@propline/contract/AdminApi"
import { CurrentOperator, OperatorView, OrganizationSummary } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import {
  AccountView,
  InvitationView,
  InviteCreated,
  InviteView,
  RecoveryCodes,
  SessionItem,
  SessionList,
  TeamMember,
  TeamView,
  TotpEnrolment
} from "@propline/contract/TeamAdmin"
import { Effect } from "effect"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { AppConfig } from "../platform/AppConfig.js"
import { toProblem } from "../platform/Problems.js"
import { withoutNulls } from "../platform/Rows.js"
import { isForeignOrigin, originOf } from "./OperatorMiddleware.js"
import { OperatorTeam } from "./OperatorTeam.js"

const member = (row: {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly role: TeamMember["role"]
  readonly createdAt: Date
  readonly totpEnabledAt?: Date | null
  readonly secondFactor?: boolean
}) =>
  new TeamMember({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    secondFactor: row.secondFactor ?? (row.totpEnabledAt !== null && row.totpEnabledAt !== undefined),
    createdAt: new Date(row.createdAt)
  })

const inviteView = (row: { readonly id: string; readonly email: string; readonly role: InviteView["role"]; readonly invitedBy: string; readonly createdAt: Date; readonly expiresAt: Date }) =>
  new InviteView({ ...row, createdAt: new Date(row.createdAt), expiresAt: new Date(row.expiresAt) })

export const TeamHandlers = HttpApiBuilder.group(AdminApi, "team", (handlers) =>
  Effect.gen(function* () {
    const team = yield* OperatorTeam
    const config = yield* AppConfig
    return handlers
      .handle("team", () =>
        Effect.gen(function* () {
          const found = yield* team.team(yield* CurrentOperator)
          return new TeamView({ operators: found.operators.map(member), invites: found.invites.map(inviteView) })
        })
      )
      .handle("invite", ({ payload }) =>
        Effect.gen(function* () {
          const made = yield* team.invite(yield* CurrentOperator, payload).pipe(Effect.mapError(toProblem))
          return new InviteCreated({ invite: inviteView(made.invite), url: `${config.adminUrl}/invitation#${made.token}` })
        })
      )
      .handle("revokeInvite", ({ path }) =>
        Effect.flatMap(CurrentOperator, (session) => team.revokeInvite(session, path.inviteId)).pipe(Effect.mapError(toProblem))
      )
      .handle("changeRole", ({ path, payload }) =>
        Effect.flatMap(CurrentOperator, (session) => team.changeRole(session, path.operatorId, payload.role)).pipe(
          Effect.mapError(toProblem),
          Effect.map(member)
        )
      )
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentOperator, (session) => team.remove(session, path.operatorId)).pipe(Effect.mapError(toProblem))
      )
  })
)

export const InvitationHandlers = HttpApiBuilder.group(AdminApi, "invitation", (handlers) =>
  Effect.gen(function* () {
    const team = yield* OperatorTeam
    const organizations = yield* OrganizationReadRepository
    const adminOrigin = originOf((yield* AppConfig).adminUrl)
    const sameOrigin = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isForeignOrigin(request, adminOrigin) ? Effect.fail(problem.forbidden("Open the invitation at the console's own address.")) : Effect.void
    )
    return handlers
      .handle("read", ({ payload }) =>
        Effect.gen(function* () {
          yield* sameOrigin
          const invite = yield* team.readInvitation(payload.token).pipe(Effect.mapError(toProblem))
          const organization = yield* organizations.organization(invite.organizationId).pipe(Effect.orDie)
          return new InvitationView({
            email: invite.email,
            role: invite.role,
            organization: new OrganizationSummary(organization),
            expiresAt: new Date(invite.expiresAt)
          })
        })
      )
      .handle("accept", ({ payload }) =>
        Effect.gen(function* () {
          yield* sameOrigin
          return new OperatorView(yield* team.acceptInvitation(payload).pipe(Effect.mapError(toProblem)))
        })
      )
  })
)

export const AccountHandlers = HttpApiBuilder.group(AdminApi, "account", (handlers) =>
  Effect.gen(function* () {
    const team = yield* OperatorTeam
    const withSession = <A, E, R>(f: (session: typeof CurrentOperator.Service) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentOperator, f)
    return handlers
      .handle("account", () =>
        withSession((session) =>
          Effect.map(
            team.account(session),
            (account) =>
              new AccountView({
                operator: new OperatorView({ id: session.operatorId, email: session.email, name: session.name, role: session.role }),
                ...account
              })
          )
        )
      )
      .handle("changePassword", ({ payload }) => withSession((session) => team.changePassword(session, payload)).pipe(Effect.mapError(toProblem)))
      .handle("sessions", () =>
        withSession((session) =>
          Effect.map(
            team.sessions(session),
            (rows) =>
              new SessionList({
                items: rows.map(
                  (row) =>
                    new SessionItem({
                      ...withoutNulls({ clientAddress: row.clientAddress }),
                      id: row.id,
                      createdAt: new Date(row.createdAt),
                      lastSeenAt: new Date(row.lastSeenAt),
                      expiresAt: new Date(row.expiresAt),
                      current: row.current
                    })
                )
              })
          )
        )
      )
      .handle("endSession", ({ path }) => withSession((session) => team.endSession(session, path.sessionId)).pipe(Effect.mapError(toProblem)))
      .handle("endOtherSessions", () => withSession((session) => team.endOtherSessions(session)))
      .handle("enrolTotp", () =>
        withSession((session) => team.enrolTotp(session)).pipe(
          Effect.mapError(toProblem),
          Effect.map((enrolment) => new TotpEnrolment(enrolment))
        )
      )
      .handle("confirmTotp", ({ payload }) =>
        withSession((session) => team.confirmTotp(session, payload.code)).pipe(
          Effect.mapError(toProblem),
          Effect.map((codes) => new RecoveryCodes({ codes }))
        )
      )
      .handle("disableTotp", ({ payload }) => withSession((session) => team.disableTotp(session, payload.password)).pipe(Effect.mapError(toProblem)))
      .handle("newRecoveryCodes", ({ payload }) =>
        withSession((session) => team.newRecoveryCodes(session, payload.password)).pipe(
          Effect.mapError(toProblem),
          Effect.map((codes) => new RecoveryCodes({ codes }))
        )
      )
  })
)
