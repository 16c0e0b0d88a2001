/**
 * integrations' side of identity's {@link InstallationRemoval} port: removing an installation disconnects its
 * integration configurations in the removal's transaction (decisions 8;
 * {@link IntegrationOperatorService.disconnectInstallation}). identity declares the port, so the dependency runs
 * one way, integrations → identity.
 */
import { Effect, Layer } from "effect"
import { InstallationRemoval } from "../identity/InstallationRemoval.js"
import { InstallationService } from "../identity/InstallationService.js"
import { IntegrationOperatorService } from "./IntegrationOperatorService.js"

/** The port, provided by {@link IntegrationOperatorService}. */
export const InstallationRemovalLive: Layer.Layer<InstallationRemoval, never, IntegrationOperatorService> = Layer.effect(
  InstallationRemoval,
  Effect.map(IntegrationOperatorService, (configurations) => ({
    removed: (installationId, actor, at) => Effect.asVoid(configurations.disconnectInstallation(installationId, actor, at))
  }))
)

/**
 * identity's `InstallationService` with the port provided: what the admin host, the demo and the tests provide
 * (`InstallationService.Default` alone still needs {@link InstallationRemoval}).
 */
export const InstallationServiceLive = InstallationService.Default.pipe(
  Layer.provide(InstallationRemovalLive),
  Layer.provide(IntegrationOperatorService.Default)
)
