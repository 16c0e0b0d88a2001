/**
 * HTTP handlers of the integrations group: decoding is the contract's schemas (role and body checks its
 * middleware); each handler calls {@link IntegrationService} and answers the configuration as the contract's class.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { OperationalContextId, OrganizationId } from "@propline/contract/Ids"
import {
  ExternalAccount,
  IntegrationConfiguration,
  type IntegrationConfigurationId
} from "@propline/contract/Integrations"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import type { IntegrationConfigurationRecord } from "@propline/integrations/IntegrationConfiguration"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { IntegrationService } from "./IntegrationService.js"

/** Domain record → contract class (our own data, already valid: constructed without re-validation). */
export const toIntegrationConfiguration = (record: IntegrationConfigurationRecord): IntegrationConfiguration =>
  new IntegrationConfiguration(
    {
      id: record.id as IntegrationConfigurationId,
      organizationId: record.organizationId as OrganizationId,
      installationId: record.installationId ?? "",
      appId: record.appId ?? "",
      kind: record.kind,
      status: record.status,
      operationalContextIds: record.operationalContextIds as ReadonlyArray<OperationalContextId>,
      ...(record.externalAccount === undefined
        ? {}
        : { externalAccount: new ExternalAccount({ ...record.externalAccount }, true) }),
      declaredGates: record.declaredGates,
      ...(record.settings === undefined ? {} : { settings: record.settings }),
      ...(record.failureReason === undefined ? {} : { failureReason: record.failureReason }),
      createdAt: record.createdAt,
      ...(record.connectedAt === undefined ? {} : { connectedAt: record.connectedAt }),
      ...(record.readyAt === undefined ? {} : { readyAt: record.readyAt }),
      ...(record.failedAt === undefined ? {} : { failedAt: record.failedAt }),
      ...(record.disconnectedAt === undefined ? {} : { disconnectedAt: record.disconnectedAt }),
      updatedAt: record.updatedAt
    },
    true
  )

export const IntegrationHandlers = HttpApiBuilder.group(IntegrationApi, "integrations", (handlers) =>
  Effect.gen(function* () {
    const integrations = yield* IntegrationService
    return handlers
      .handle("listConfigurations", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("integration-configurations", urlParams.cursor)
          const page = yield* integrations.list(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
          return { items: page.items.map(toIntegrationConfiguration), nextCursor: page.nextCursor }
        })
      )
      .handle("redeemConnectionReference", ({ payload }) =>
        Effect.flatMap(Principal, (principal) => integrations.redeem(principal, payload.connectionReference)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toIntegrationConfiguration })
        )
      )
      .handle("reportReady", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) =>
          integrations.ready(principal, path.configurationId, {
            externalAccount: { id: payload.externalAccount.id, name: payload.externalAccount.name },
            declaredGates: payload.declaredGates ?? [],
            settings: payload.settings ?? {}
          })
        ).pipe(Effect.mapBoth({ onFailure: toProblem, onSuccess: toIntegrationConfiguration }))
      )
      .handle("reportFailed", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) => integrations.failed(principal, path.configurationId, payload.reason)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toIntegrationConfiguration })
        )
      )
  })
)
