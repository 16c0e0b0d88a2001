/**
 * Applications through the identity services (`../identity/Applications.ts`): create (with its first secret, in one
 * transaction), issue and revoke secrets. The console checks only what is the operator's to see — the record is in
 * their organization (404 otherwise), the granted contexts are theirs — and the services decide the rest
 * (APPLICATION_SECRET_LIMIT_REACHED). Each change is audited by its service with the operator as actor.
 */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import { ApplicationDetail, ApplicationSummary, CreatedApplication, IssuedSecret, SecretView } from "@propline/admin/Applications"
import { CurrentOperator, type OperatorShape } from "@propline/admin/Session"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { createApplication, issueSecret, revokeSecret } from "../identity/Applications.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import * as Sql from "../platform/Sql.js"
import { given, limitOf } from "./AdminListing.js"
import { ApplicationViews } from "./ApplicationViews.js"
import { OrganizationViews } from "./OrganizationViews.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type Detail = Effect.Effect.Success<ReturnType<ApplicationViews["detail"]>>

const toSummary = (row: Detail["application"]) =>
  new ApplicationSummary({ ...row, roles: [...row.roles], activeSecretCount: Number(row.activeSecretCount) })

const toDetail = (found: Detail) =>
  new ApplicationDetail({
    application: toSummary(found.application),
    contextIds: found.contextIds,
    secrets: found.secrets.map((secret) => new SecretView(secret))
  })

const secretLimitReached = () =>
  Effect.fail(problem.badRequest("APPLICATION_SECRET_LIMIT_REACHED", "The Application already holds 2 active secrets; revoke one first."))

export const ApplicationHandlers = HttpApiBuilder.group(AdminApi, "applications", (handlers) =>
  Effect.gen(function* () {
    const views = yield* ApplicationViews
    const organizations = yield* OrganizationViews
    /** The Application with its secrets when it is the operator's organization's; a 404 problem otherwise. */
    const visible = (operator: OperatorShape, applicationId: string) =>
      views.detail(operator.organizationId, applicationId).pipe(Effect.mapError(toProblem))
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-applications", urlParams.cursor)
          const filter = { q: given(urlParams.q), status: given(urlParams.status) }
          const page = yield* views.list(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toSummary), nextCursor: page.nextCursor }
        })
      )
      .handle("get", ({ path }) => Effect.flatMap(CurrentOperator, (operator) => Effect.map(visible(operator, path.applicationId), toDetail)))
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const own = yield* organizations.ownContextIds(operator.organizationId, payload.contextIds)
          const foreign = payload.contextIds.flatMap((id, index) =>
            own.has(id) ? [] : [{ path: `/contextIds/${index}`, message: "is not an operational context of your organization" }]
          )
          if (foreign.length > 0) return yield* Effect.fail(problem.validationFailed(foreign))
          const at = yield* Sql.now
          // Both services join this one transaction: the Application never exists without its first secret.
          const created = yield* Sql.transaction(
            Effect.gen(function* () {
              const application = yield* createApplication({
                organizationId: operator.organizationId,
                name: payload.name,
                roles: payload.roles,
                contextIds: payload.contextIds,
                actor: actorOf(operator),
                now: at
              })
              const issued = yield* issueSecret({ applicationId: application.id, actor: actorOf(operator), now: at })
              return { application, issued }
            })
          ).pipe(Effect.catchTag("SecretLimitReached", Effect.die))
          const detail = yield* visible(operator, created.application.id)
          return new CreatedApplication({
            application: toDetail(detail),
            secret: new IssuedSecret({ id: created.issued.secretId, secret: created.issued.secret, lastFour: created.issued.secret.slice(-4) })
          })
        })
      )
      .handle("issueSecret", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* visible(operator, path.applicationId)
          const issued = yield* issueSecret({ applicationId: path.applicationId, actor: actorOf(operator), now: yield* Sql.now }).pipe(
            Effect.catchTag("SecretLimitReached", secretLimitReached)
          )
          return new IssuedSecret({ id: issued.secretId, secret: issued.secret, lastFour: issued.secret.slice(-4) })
        })
      )
      .handle("revokeSecret", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const found = yield* visible(operator, path.applicationId)
          if (!found.secrets.some((secret) => secret.id === path.secretId)) {
            return yield* Effect.fail(problem.notFound("No such secret of this Application."))
          }
          const revoked = yield* revokeSecret({ secretId: path.secretId, actor: actorOf(operator), now: yield* Sql.now })
          if (!revoked) return yield* Effect.fail(problem.badRequest("APPLICATION_SECRET_NOT_FOUND", "The secret is already revoked."))
          return toDetail(yield* visible(operator, path.applicationId))
        })
      )
  })
)
