/**
 * The operator's side of integrations (decisions 1 and 8; the admin console calls these, and today the demo and
 * the tests do): create an integration configuration of a kind for an installation and some of its contexts,
 * press Connect (a connection reference and the setup address to send the operator's browser to), disconnect.
 * Removing an installation disconnects its configurations ({@link IntegrationOperatorService.disconnectInstallation},
 * in the removal's transaction). Every change is one transaction, with its events and an audit entry naming the
 * actor.
 */
import * as Lifecycle from "@propline/integrations/ConfigurationLifecycle"
import { formatReference, REFERENCE_RANDOM_BYTES } from "@propline/integrations/ConnectionReference"
import type { IntegrationConfigurationRecord, IntegrationKind } from "@propline/integrations/IntegrationConfiguration"
import { Effect, Schema } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { ContextService } from "../contexts/ContextService.js"
import { InstallationRepository } from "../identity/InstallationRepository.js"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { IntegrationConfigurationRepository, type OrganizationFilter } from "./IntegrationConfigurationRepository.js"
import { configurationNotFound, referenceDigest } from "./IntegrationService.js"

const span = (name: string) => Effect.withSpan(`IntegrationOperatorService.${name}`, { captureStackTrace: false })

const isUuid = Schema.is(Schema.UUID)

/** The cursor kind of the operators' list of configurations ({@link IntegrationOperatorService} `list`). */
export const OPERATOR_LIST = "admin-integration-configurations"

/** Who acts: an operator (or the system) in one organization. */
export interface Operator {
  readonly organizationId: string
  readonly actor: Audit.Actor
}

/** A new configuration: the installation, the kind, and operational contexts within the installation's. */
export interface CreateConfigurationInput {
  readonly installationId: string
  readonly kind: IntegrationKind
  readonly operationalContextIds: ReadonlyArray<string>
}

/**
 * What Connect answers: the configuration, the connection reference (shown once: only its digest is stored), the
 * setup address to send the operator's browser to (the app's setup URL with `connection_reference` and
 * `installation_id`), and when the reference stops working (10 minutes).
 */
export interface ConnectResult {
  readonly configuration: IntegrationConfigurationRecord
  readonly connectionReference: string
  readonly setupAddress: string
  readonly expiresAt: Date
}

export class IntegrationOperatorService extends Effect.Service<IntegrationOperatorService>()(
  "@propline/api/integrations/IntegrationOperatorService",
  {
    effect: Effect.gen(function* () {
      const configurations = yield* IntegrationConfigurationRepository
      const installations = yield* InstallationRepository
      const contexts = yield* ContextService

      /** Persists a disconnection: the configuration, its points freed, its references voided, event, audit. */
      const applyDisconnect = (configuration: IntegrationConfigurationRecord, actor: Audit.Actor, at: Date) =>
        Effect.gen(function* () {
          const { configuration: disconnected, events } = Lifecycle.disconnect(configuration, at)
          if (events.length === 0) return disconnected
          yield* configurations.update(disconnected)
          yield* configurations.voidOutstanding(disconnected.id, at)
          yield* Outbox.append(events)
          yield* Audit.byActor(disconnected.organizationId, actor, {
            action: "integrations.configuration.disconnected",
            targetType: "integration_configuration",
            targetId: disconnected.id,
            details: { previousStatus: configuration.status },
            at
          })
          return disconnected
        })

      const lockInOrganization = (operator: Operator, configurationId: string) =>
        Effect.flatMap(
          isUuid(configurationId)
            ? configurations.lockInOrganization(operator.organizationId, configurationId)
            : Effect.succeed(undefined),
          (found) => (found === undefined ? Effect.fail(configurationNotFound()) : Effect.succeed(found))
        )

      return {
        /**
         * Creates a `pending` configuration of `kind` for a (not removed) installation of the organization.
         * Refusals: INTEGRATIONS_CONNECTION_NOT_SUPPORTED (the installation lacks the kind's role),
         * INTEGRATIONS_CONFIGURATION_INVALID (contexts: none, repeated, or outside the installation's; issues at
         * `/operationalContextIds/<index>`); 404 RecordNotFound for an installation not in the organization.
         */
        create: (operator: Operator, input: CreateConfigurationInput) =>
          Sql.transaction(
            Effect.gen(function* () {
              const installation = isUuid(input.installationId)
                ? yield* installations.lockLive(input.installationId)
                : undefined
              if (installation === undefined || installation.organizationId !== operator.organizationId) {
                return yield* new RecordNotFound({ kind: "installation" })
              }
              const tree = yield* contexts.tree(operator.organizationId)
              const at = yield* Sql.now
              const { configuration, events } = yield* Lifecycle.create(
                { installation, contexts: tree },
                { configurationId: randomUUID(), kind: input.kind, operationalContextIds: input.operationalContextIds },
                at
              )
              yield* configurations.insert(configuration)
              yield* Outbox.append(events)
              yield* Audit.byActor(operator.organizationId, operator.actor, {
                action: "integrations.configuration.created",
                targetType: "integration_configuration",
                targetId: configuration.id,
                details: {
                  installationId: installation.id,
                  appId: installation.appId,
                  kind: configuration.kind,
                  operationalContextIds: [...configuration.operationalContextIds]
                },
                at
              })
              return configuration
            })
          ).pipe(span("create")),

        /**
         * Connect: a connection reference for the configuration's installation, working 10 minutes, once, and the
         * setup address with it. Earlier references keep working until one of them is redeemed. Refusals:
         * INTEGRATIONS_CONNECTION_NOT_SUPPORTED (disconnected; no installation; installation suspended or removed;
         * no setup URL); 404 RecordNotFound for a configuration not in the organization.
         */
        connect: (operator: Operator, configurationId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const found = yield* lockInOrganization(operator, configurationId)
              const at = yield* Sql.now
              const reference = formatReference(randomBytes(REFERENCE_RANDOM_BYTES))
              const connection = yield* Lifecycle.connect(
                found.configuration,
                {
                  installationStatus: found.installationStatus,
                  setupUrl: found.setupUrl,
                  reference,
                  digest: referenceDigest(reference)
                },
                at
              )
              yield* configurations.insertReference(connection.reference)
              yield* Outbox.append(connection.events)
              yield* Audit.byActor(operator.organizationId, operator.actor, {
                action: "integrations.configuration.connection_requested",
                targetType: "integration_configuration",
                targetId: found.configuration.id,
                details: { expiresAt: connection.reference.expiresAt.toISOString() },
                at
              })
              return {
                configuration: found.configuration,
                connectionReference: reference,
                setupAddress: connection.setupAddress,
                expiresAt: connection.reference.expiresAt
              } satisfies ConnectResult
            })
          ).pipe(span("connect")),

        /**
         * Disconnects a configuration for good: what it filled is free, its references stop working. A disconnected
         * one is answered as it is. 404 RecordNotFound for a configuration not in the organization.
         */
        disconnect: (operator: Operator, configurationId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const found = yield* lockInOrganization(operator, configurationId)
              return yield* applyDisconnect(found.configuration, operator.actor, yield* Sql.now)
            })
          ).pipe(span("disconnect")),

        /**
         * Disconnects every configuration of an installation that is being removed, in the removal's transaction
         * (so a removed installation fills no point and its references stop working).
         */
        disconnectInstallation: (installationId: string, actor: Audit.Actor, at: Date) =>
          Effect.gen(function* () {
            const live = yield* configurations.lockLiveOfInstallation(installationId)
            return yield* Effect.forEach(live, (configuration) => applyDisconnect(configuration, actor, at))
          }).pipe(span("disconnectInstallation")),

        /**
         * One page of the organization's configurations, newest first, filtered by kind, status and installation
         * (a filter that is no UUID matches none), with each one's app name and installation status; the cursor
         * is of the list {@link OPERATOR_LIST}.
         */
        list: (
          operator: Operator,
          filter: OrganizationFilter,
          after: CursorPage.Position | undefined,
          limit: number
        ) =>
          (filter.installationId !== undefined && !isUuid(filter.installationId)
            ? Effect.succeed([])
            : configurations.pageOfOrganization(operator.organizationId, filter, after, limit)
          ).pipe(Effect.map((rows) => CursorPage.page(OPERATOR_LIST, rows, limit)), span("list")),

        /**
         * One configuration of the organization with its app and installation, and `filledElsewhere`: those of its
         * contexts where another configuration of its kind is `ready` — there its connector's ready report is
         * refused with INTEGRATIONS_POINT_ALREADY_FILLED until the operator disconnects the other one (none while
         * it is ready itself or disconnected). 404 RecordNotFound for a configuration not in the organization.
         */
        get: (operator: Operator, configurationId: string) =>
          Effect.gen(function* () {
            const found = isUuid(configurationId)
              ? yield* configurations.inOrganization(operator.organizationId, configurationId)
              : undefined
            if (found === undefined) return yield* configurationNotFound()
            const { id, kind, status, operationalContextIds } = found.configuration
            const filledElsewhere =
              status === "ready" || status === "disconnected"
                ? []
                : yield* configurations.filledElsewhere(id, kind, operationalContextIds)
            return { ...found, filledElsewhere }
          }).pipe(span("get")),

        /** The installation's configurations, oldest first; none for an installation of another organization. */
        ofInstallation: (operator: Operator, installationId: string) =>
          (isUuid(installationId)
            ? configurations.ofInstallation(operator.organizationId, installationId)
            : Effect.succeed([])
          ).pipe(span("ofInstallation"))
      }
    }),
    dependencies: [IntegrationConfigurationRepository.Default, InstallationRepository.Default, ContextService.Default]
  }
) {}
