/**
 * The integrations operations of the API (spec 4.2 "Integrations"; decisions 4 and 8), for an installed connector
 * holding the `integrations` role (an installation token: its `sub` is the installation, its `client_id` the app):
 * list the installation's configurations, redeem a connection reference, report a configuration ready or failed.
 *
 * Each write is one transaction: lock the configuration (and, for a redeem, the reference) — a configuration of
 * another installation is 404, a reference bound to another installation is refused like an unknown one — ask the
 * pure domain (`@propline/integrations`), persist, the events and the audit entry. The row locks make concurrent
 * requests run one after another: of 20 concurrent redeems of one reference one succeeds, and of two `ready`
 * reports filling one point the unique key lets one win.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import type * as Db from "@propline/db/Db"
import * as Lifecycle from "@propline/integrations/ConfigurationLifecycle"
import { isWellFormedReference } from "@propline/integrations/ConnectionReference"
import { type IntegrationsRefusal, PointAlreadyFilled } from "@propline/integrations/IntegrationsRefusal"
import type { IntegrationConfigurationRecord } from "@propline/integrations/IntegrationConfiguration"
import { Effect, Schema } from "effect"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import { sha256Hex } from "../platform/Digest.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { IntegrationConfigurationRepository } from "./IntegrationConfigurationRepository.js"
import { traced } from "../platform/Spans.js"

const span = (name: string) => traced(`IntegrationService.${name}`)

const isUuid = Schema.is(Schema.UUID)

/** Lower-case hex SHA-256 of a connection reference: what is stored of it. */
export const referenceDigest = (reference: string): string => sha256Hex(reference)

/** The 404 of a configuration the installation does not have (spec 7.1: missing or not visible, alike). */
export const configurationNotFound = () => new RecordNotFound({ kind: "integration configuration" })

/** The refusal when another configuration of the kind filled a point first (the unique key decided). */
const pointFilledByRace = (configuration: IntegrationConfigurationRecord) => () =>
  new PointAlreadyFilled({
    kind: configuration.kind,
    operationalContextId: undefined,
    detail:
      `Another ${configuration.kind} configuration is ready in one of this configuration's operational contexts; ` +
      "the operator disconnects it first."
  })

export class IntegrationService extends Effect.Service<IntegrationService>()(
  "@propline/api/integrations/IntegrationService",
  {
    effect: Effect.gen(function* () {
      const configurations = yield* IntegrationConfigurationRepository

      const lockOwn = (principal: PrincipalShape, configurationId: string) =>
        Effect.flatMap(
          isUuid(configurationId)
            ? configurations.lockOfInstallation(principal.subject, configurationId)
            : Effect.succeed(undefined),
          (configuration) => (configuration === undefined ? Effect.fail(configurationNotFound()) : Effect.succeed(configuration))
        )

      /** One report on the caller's configuration: lock → 404 → rule → persist → events → audit. */
      const report = (
        principal: PrincipalShape,
        configurationId: string,
        action: "ready" | "failed",
        details: Record<string, unknown>,
        run: (
          configuration: IntegrationConfigurationRecord,
          at: Date
        ) => Effect.Effect<Lifecycle.Transition, IntegrationsRefusal, Db.Db>
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const configuration = yield* lockOwn(principal, configurationId)
            const at = yield* Sql.now
            const result = yield* run(configuration, at)
            yield* configurations.update(result.configuration, pointFilledByRace(result.configuration))
            yield* Outbox.append(result.events)
            yield* Audit.byPrincipal(principal, {
              action: `integrations.configuration.${action}`,
              targetType: "integration_configuration",
              targetId: configuration.id,
              details,
              at
            })
            return result.configuration
          })
        ).pipe(span(action))

      return {
        /** The installation's configurations, oldest first (decisions 4: cursor pages). */
        list: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
          configurations
            .pageOfInstallation(principal.subject, after, limit)
            .pipe(Effect.map((rows) => CursorPage.page("integration-configurations", rows, limit)), span("list")),

        /**
         * Redeems a connection reference with the installation's token: its configuration becomes `connecting` and
         * the configuration's other references stop working. One refusal, `INTEGRATIONS_CONNECTION_REFERENCE_INVALID`,
         * for an unknown, expired, used, voided or foreign reference (nothing is written then).
         */
        redeem: (principal: PrincipalShape, reference: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const found = isWellFormedReference(reference)
                ? yield* configurations.lockReference(referenceDigest(reference))
                : undefined
              const at = yield* Sql.now
              const redeemed = yield* Lifecycle.redeem(found, { installationId: principal.subject }, at)
              yield* configurations.update(redeemed.configuration)
              yield* configurations.markRedeemed(redeemed.reference)
              yield* configurations.voidOutstanding(redeemed.configuration.id, at)
              yield* Outbox.append(redeemed.events)
              yield* Audit.byPrincipal(principal, {
                action: "integrations.configuration.connecting",
                targetType: "integration_configuration",
                targetId: redeemed.configuration.id,
                details: { referenceIssuedAt: redeemed.reference.issuedAt.toISOString() },
                at
              })
              return redeemed.configuration
            })
          ).pipe(span("redeem")),

        /**
         * `connecting` → `ready` with the external account, declared gates and settings. Refusals:
         * INTEGRATIONS_CONNECTION_NOT_SUPPORTED (not connecting), INTEGRATIONS_CONFIGURATION_INVALID (issues),
         * INTEGRATIONS_POINT_ALREADY_FILLED (409); 404 for a configuration the installation does not have.
         */
        ready: (principal: PrincipalShape, configurationId: string, command: Lifecycle.ReadyCommand) =>
          report(
            principal,
            configurationId,
            "ready",
            {
              externalAccount: { ...command.externalAccount },
              declaredGates: [...command.declaredGates],
              settings: command.settings
            },
            (configuration, at) =>
              Effect.flatMap(
                configurations.filledElsewhere(configuration.id, configuration.kind, configuration.operationalContextIds),
                (filledContextIds) => Lifecycle.reportReady(configuration, command, { filledContextIds }, at)
              )
          ),

        /** `connecting` → `failed` with the reason (INTEGRATIONS_CONNECTION_NOT_SUPPORTED otherwise; 404). */
        failed: (principal: PrincipalShape, configurationId: string, reason: string) =>
          report(principal, configurationId, "failed", { reason }, (configuration, at) =>
            Lifecycle.reportFailed(configuration, { reason }, at)
          )
      }
    }),
    dependencies: [IntegrationConfigurationRepository.Default]
  }
) {}
