/**
 * The events integration-configuration changes produce, written by the service in the transaction of the change
 * (outbox) and delivered to webhooks (decisions 9). Each names the configuration, its kind, installation, app and
 * organization, and when; receivers re-read the configuration, so an event carries no record state.
 *
 * @since 0.1.0
 */
import type { IntegrationConfigurationRecord, IntegrationKind } from "./IntegrationConfiguration.js"

/**
 * Every integration-configuration event type:
 * - `created`: an operator created the configuration (`pending`);
 * - `connection_requested`: an operator pressed Connect, a connection reference was issued;
 * - `connecting`: the connector redeemed a reference;
 * - `ready`, `failed`: the connector's reports;
 * - `disconnected`: an operator disconnected it, or its installation was removed.
 *
 * @since 0.1.0
 */
export const CONFIGURATION_EVENT_TYPES = [
  "integrations.configuration.created",
  "integrations.configuration.connection_requested",
  "integrations.configuration.connecting",
  "integrations.configuration.ready",
  "integrations.configuration.failed",
  "integrations.configuration.disconnected"
] as const

/**
 * An event type name, such as `integrations.configuration.ready`.
 *
 * @since 0.1.0
 */
export type ConfigurationEventType = (typeof CONFIGURATION_EVENT_TYPES)[number]

/**
 * An integration-configuration event; `installationId` and `appId` are absent for a configuration carried over
 * from the former billing integration.
 *
 * @since 0.1.0
 */
export interface ConfigurationEvent {
  readonly _tag: ConfigurationEventType
  readonly configurationId: string
  readonly kind: IntegrationKind
  readonly organizationId: string
  readonly installationId?: string
  readonly appId?: string
  readonly at: Date
}

/**
 * The event `type` of `configuration` at `at`.
 *
 * @since 0.1.0
 */
export const configurationEvent = (
  type: ConfigurationEventType,
  configuration: IntegrationConfigurationRecord,
  at: Date
): ConfigurationEvent => ({
  _tag: type,
  configurationId: configuration.id,
  kind: configuration.kind,
  organizationId: configuration.organizationId,
  ...(configuration.installationId === undefined ? {} : { installationId: configuration.installationId }),
  ...(configuration.appId === undefined ? {} : { appId: configuration.appId }),
  at
})
