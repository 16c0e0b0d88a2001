/**
 * Integration configurations through the integrations operator service (`../integrations/IntegrationOperatorService.ts`):
 * the organization's configurations (paged, newest first, filtered by kind, status and installation), one
 * configuration's page, create, Connect (the setup address and the connection reference, shown once) and
 * disconnect. The service decides every rule, keeps the operator's organization (404 for another's) and writes the
 * audit entries with the operator as actor, in one transaction per change; the console only shapes its answers.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import {
  ConfigurationDetail,
  ConfigurationSummary,
  ConnectAnswer,
  ExternalAccountView,
  InstallationChoice,
  InstallationChoices
} from "@propline/contract/IntegrationsAdmin"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import type { IntegrationConfigurationRecord } from "@propline/integrations/IntegrationConfiguration"
import { Effect } from "effect"
import { IntegrationOperatorService, OPERATOR_LIST, type Operator } from "./IntegrationOperatorService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { toProblem } from "../platform/Problems.js"
import { ConnectorAppReadRepository } from "../identity/ConnectorAppReadRepository.js"

const operatorOf = (operator: OperatorShape): Operator => ({
  organizationId: operator.organizationId,
  actor: { type: "operator", id: operator.operatorId }
})

const summaryFields = (configuration: IntegrationConfigurationRecord, appName: string | undefined) => ({
  id: configuration.id,
  kind: configuration.kind,
  status: configuration.status,
  installationId: configuration.installationId ?? null,
  appId: configuration.appId ?? null,
  appName: appName ?? null,
  operationalContextIds: configuration.operationalContextIds,
  externalAccount: configuration.externalAccount === undefined ? null : new ExternalAccountView(configuration.externalAccount),
  createdAt: configuration.createdAt,
  updatedAt: configuration.updatedAt
})

type Found = Effect.Effect.Success<ReturnType<IntegrationOperatorService["get"]>>

const toDetail = (found: Found) => {
  const { configuration } = found
  return new ConfigurationDetail({
    ...summaryFields(configuration, found.appName),
    installationStatus: found.installationStatus ?? null,
    setupUrl: found.setupUrl ?? null,
    declaredGates: configuration.declaredGates,
    settings: configuration.settings ?? null,
    failureReason: configuration.failureReason ?? null,
    connectedAt: configuration.connectedAt ?? null,
    readyAt: configuration.readyAt ?? null,
    failedAt: configuration.failedAt ?? null,
    disconnectedAt: configuration.disconnectedAt ?? null,
    filledElsewhere: found.filledElsewhere
  })
}

export const IntegrationsAdminHandlers = HttpApiBuilder.group(AdminApi, "integrationConfigurations", (handlers) =>
  Effect.gen(function* () {
    const integrations = yield* IntegrationOperatorService
    const views = yield* ConnectorAppReadRepository

    /** The configuration's page as it is now; 404 INTEGRATIONS_CONFIGURATION_NOT_FOUND outside the organization. */
    const detail = (operator: OperatorShape, configurationId: string) =>
      integrations.get(operatorOf(operator), configurationId).pipe(Effect.mapBoth({ onFailure: toProblem, onSuccess: toDetail }))

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const after = yield* CursorPage.decode(OPERATOR_LIST, urlParams.cursor)
          const filter = { kind: given(urlParams.kind), status: given(urlParams.status), installationId: given(urlParams.installationId) }
          const page = yield* integrations.list(operatorOf(operator), filter, after, limitOf(urlParams.limit))
          return {
            items: page.items.map((row) => new ConfigurationSummary(summaryFields(row.configuration, row.appName))),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("get", ({ path }) => Effect.flatMap(CurrentOperator, (operator) => detail(operator, path.configurationId)))
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const created = yield* integrations
            .create(operatorOf(operator), {
              installationId: payload.installationId,
              kind: payload.kind,
              operationalContextIds: payload.operationalContextIds
            })
            .pipe(Effect.mapError(toProblem))
          return yield* detail(operator, created.id)
        })
      )
      .handle("connect", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const connection = yield* integrations
            .connect(operatorOf(operator), path.configurationId)
            .pipe(Effect.mapError(toProblem))
          return new ConnectAnswer({
            configuration: yield* detail(operator, path.configurationId),
            connectionReference: connection.connectionReference,
            setupAddress: connection.setupAddress,
            expiresAt: connection.expiresAt
          })
        })
      )
      .handle("disconnect", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* integrations.disconnect(operatorOf(operator), path.configurationId).pipe(Effect.mapError(toProblem))
          return yield* detail(operator, path.configurationId)
        })
      )
      .handle("installations", () =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const rows = yield* views.liveInstallations(organizationId)
          return new InstallationChoices({
            items: rows.map(
              (row) =>
                new InstallationChoice({
                  id: row.id,
                  appId: row.appId,
                  appName: row.appName,
                  status: row.status === "suspended" ? "suspended" : "active",
                  roles: [...row.roles],
                  contextIds: row.contexts.map((context) => context.operationalContextId)
                })
            )
          })
        })
      )
  })
)
