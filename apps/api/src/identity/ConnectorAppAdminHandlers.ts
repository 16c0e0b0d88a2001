/**
 * Connector apps and installations through the identity services (`../identity/ConnectorAppService.ts`,
 * `../identity/InstallationService.ts`): register an app (and record the operator's organization as its publisher,
 * in the same transaction), add and retire its keys (the publisher's operators only, 404 otherwise), install it
 * into the operator's organization, suspend, resume and remove that installation, change its roles and contexts.
 * The services decide every rule and write the audit entries with the operator as actor; the console checks only
 * what is the operator's to see and touch.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { AppKeyView, ConnectorAppDetail, ConnectorAppSummary, InstallationView } from "@propline/contract/ConnectorAppsAdmin"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { ConnectorAppService } from "./ConnectorAppService.js"
import { InstallationService } from "./InstallationService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { ConnectorAppReadRepository } from "./ConnectorAppReadRepository.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { ownContexts } from "../contexts/OwnContexts.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type Detail = Effect.Effect.Success<ReturnType<ConnectorAppReadRepository["detail"]>>

const toSummary = (row: Detail["app"]) =>
  new ConnectorAppSummary({ ...row, activeKeyCount: Number(row.activeKeyCount), publishedByYou: Boolean(row.publishedByYou) })

const toInstallation = (row: Detail["installations"][number]) =>
  new InstallationView({ ...row, roles: [...row.roles], contextIds: row.contexts.map((context) => context.operationalContextId) })

const toDetail = (found: Detail) =>
  new ConnectorAppDetail({
    app: toSummary(found.app),
    keys: found.keys.map((key) => new AppKeyView(key)),
    installation: found.installations.filter((row) => row.status !== "removed").map(toInstallation)[0] ?? null,
    removedInstallations: found.installations.filter((row) => row.status === "removed").map(toInstallation)
  })

export const ConnectorAppAdminHandlers = HttpApiBuilder.group(AdminApi, "connectorApps", (handlers) =>
  Effect.gen(function* () {
    const views = yield* ConnectorAppReadRepository
    const organizations = yield* OrganizationReadRepository
    const apps = yield* ConnectorAppService
    const installations = yield* InstallationService

    /** The app's page for the operator's organization; 404 when no app has this id. */
    const detail = (operator: OperatorShape, appId: string) =>
      views.detail(operator.organizationId, appId).pipe(Effect.mapError(toProblem), Effect.map(toDetail))

    /** 404 unless the operator's organization published the app: only it changes the app's keys. */
    const published = (operator: OperatorShape, appId: string) =>
      Effect.flatMap(views.publishes(operator.organizationId, appId), (yes) =>
        yes ? Effect.void : Effect.fail(problem.notFound("No connector app with this id that your organization published."))
      )


    /** Runs a service command on the organization's installation (404 for another's) and answers its app's page. */
    const onInstallation = <E extends Parameters<typeof toProblem>[0], R>(
      installationId: string,
      run: (operator: OperatorShape) => Effect.Effect<unknown, E, R>
    ) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const appId = yield* views.appOfInstallation(operator.organizationId, installationId)
        if (appId === undefined) return yield* Effect.fail(problem.notFound("No such installation in your organization."))
        yield* run(operator).pipe(Effect.mapError(toProblem))
        return yield* detail(operator, appId)
      })

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-connector-apps", urlParams.cursor)
          const filter = { q: given(urlParams.q), installed: given(urlParams.installed), published: given(urlParams.published) }
          const page = yield* views.list(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toSummary), nextCursor: page.nextCursor }
        })
      )
      .handle("get", ({ path }) => Effect.flatMap(CurrentOperator, (operator) => detail(operator, path.appId)))
      .handle("register", ({ payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* apps.registerPublished(payload, operator.organizationId, actorOf(operator)).pipe(Effect.mapError(toProblem))
          return yield* detail(operator, payload.appId)
        })
      )
      .handle("addKey", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* published(operator, path.appId)
          yield* apps.addKey(path.appId, payload.jwk, actorOf(operator)).pipe(Effect.mapError(toProblem))
          return yield* detail(operator, path.appId)
        })
      )
      .handle("retireKey", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* published(operator, path.appId)
          yield* apps.retireKey(path.appId, path.kid, actorOf(operator)).pipe(Effect.mapError(toProblem))
          return yield* detail(operator, path.appId)
        })
      )
      .handle("install", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* detail(operator, path.appId)
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          yield* installations
            .install(
              { appId: path.appId, organizationId: operator.organizationId, roles: payload.roles, contextIds: payload.contextIds },
              actorOf(operator)
            )
            .pipe(Effect.mapError(toProblem))
          return yield* detail(operator, path.appId)
        })
      )
      .handle("suspend", ({ path }) => onInstallation(path.installationId, (operator) => installations.suspend(path.installationId, actorOf(operator))))
      .handle("resume", ({ path }) => onInstallation(path.installationId, (operator) => installations.resume(path.installationId, actorOf(operator))))
      .handle("remove", ({ path }) => onInstallation(path.installationId, (operator) => installations.remove(path.installationId, actorOf(operator))))
      .handle("changeGrant", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          return yield* onInstallation(path.installationId, () =>
            installations.changeGrant(path.installationId, { roles: payload.roles, contextIds: payload.contextIds }, actorOf(operator))
          )
        })
      )
  })
)
