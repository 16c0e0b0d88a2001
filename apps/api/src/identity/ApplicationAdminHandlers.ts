/**
 * Applications through the identity service (`../identity/ApplicationService.ts`): create (with its first secret, in
 * one transaction), issue and revoke secrets, disable and enable, change roles and contexts. The console checks only
 * what is the operator's to see — the Application is their organization's (404 otherwise) and the granted contexts
 * are theirs (a field's issue otherwise) — and the service decides the rest and writes the audit entry with the
 * operator as actor.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { ApplicationDetail, ApplicationSummary, CreatedApplication, IssuedSecret, SecretView } from "@propline/contract/ApplicationsAdmin"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { ApplicationService } from "./ApplicationService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { ApplicationReadRepository } from "./ApplicationReadRepository.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { ownContexts } from "../contexts/OwnContexts.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type Detail = Effect.Effect.Success<ReturnType<ApplicationReadRepository["detail"]>>

const toSummary = (row: Detail["application"]) =>
  new ApplicationSummary({ ...row, roles: [...row.roles], activeSecretCount: Number(row.activeSecretCount) })

const toDetail = (found: Detail) =>
  new ApplicationDetail({
    application: toSummary(found.application),
    contextIds: found.contextIds,
    secrets: found.secrets.map((secret) => new SecretView(secret))
  })

export const ApplicationAdminHandlers = HttpApiBuilder.group(AdminApi, "applications", (handlers) =>
  Effect.gen(function* () {
    const views = yield* ApplicationReadRepository
    const organizations = yield* OrganizationReadRepository
    const applications = yield* ApplicationService
    /** The Application with its secrets when it is the operator's organization's; a 404 problem otherwise. */
    const visible = (operator: OperatorShape, applicationId: string) =>
      views.detail(operator.organizationId, applicationId).pipe(Effect.mapError(toProblem))
    /** Runs a service command on a visible Application and answers its page as it is afterwards. */
    const command = <E extends Parameters<typeof toProblem>[0], R>(
      applicationId: string,
      run: (operator: OperatorShape) => Effect.Effect<unknown, E, R>
    ) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        yield* visible(operator, applicationId)
        yield* run(operator).pipe(Effect.mapError(toProblem))
        return toDetail(yield* visible(operator, applicationId))
      })
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
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          const created = yield* applications
            .createWithSecret(
              { organizationId: operator.organizationId, name: payload.name, roles: payload.roles, contextIds: payload.contextIds },
              actorOf(operator)
            )
            .pipe(Effect.mapError(toProblem))
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
          const issued = yield* applications.issueSecret(path.applicationId, actorOf(operator)).pipe(Effect.mapError(toProblem))
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
          yield* applications.revokeSecret(path.applicationId, path.secretId, actorOf(operator)).pipe(Effect.mapError(toProblem))
          return toDetail(yield* visible(operator, path.applicationId))
        })
      )
      .handle("disable", ({ path }) => command(path.applicationId, (operator) => applications.disable(path.applicationId, actorOf(operator))))
      .handle("enable", ({ path }) => command(path.applicationId, (operator) => applications.enable(path.applicationId, actorOf(operator))))
      .handle("changeGrant", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          return yield* command(path.applicationId, () =>
            applications.changeGrant(path.applicationId, { roles: payload.roles, contextIds: payload.contextIds }, actorOf(operator))
          )
        })
      )
  })
)
