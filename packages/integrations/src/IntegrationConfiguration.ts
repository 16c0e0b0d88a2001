/**
 * The integration configuration (spec 1 and 4.2 "Integrations"; decisions 2 and 8): what binds an installed
 * connector to the work it does for an organization. An operator creates one of a kind (`billing`, `signing`,
 * `booking`) for an installation and some of its operational contexts, presses Connect, and the connector sets
 * itself up: it redeems the connection reference its setup address received, then reports the configuration
 * `ready` (its external account, the gates it declares, its kind's settings) or `failed` (a reason).
 *
 * Conventions shared by every record of this package:
 * - ids are UUID strings, chosen by the caller (the service draws them) so the functions stay pure;
 * - timestamps are `Date`s (the contract encodes them as ISO 8601 in UTC);
 * - an optional field is absent, never `undefined` (`exactOptionalPropertyTypes`).
 *
 * @since 0.1.0
 */

/**
 * Every kind of configuration, in the order the API lists them.
 *
 * @since 0.1.0
 */
export const INTEGRATION_KINDS = ["billing", "signing", "booking"] as const

/**
 * What a configuration connects (spec 1): `billing` an ERP or invoicing system (the billing queues and reports),
 * `signing` an e-signing system (the `/v1/crm` queues and outcomes), `booking` a booking website. A kind needs the
 * role of the same name on the installation (decisions 2).
 *
 * @since 0.1.0
 */
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number]

/**
 * Every configuration status, in lifecycle order.
 *
 * @since 0.1.0
 */
export const CONFIGURATION_STATUSES = ["pending", "connecting", "ready", "failed", "disconnected"] as const

/**
 * A configuration's status (decisions 8):
 * - `pending`: created by an operator; no connection reference was redeemed yet (Connect may have been pressed);
 * - `connecting`: the connector redeemed a connection reference and is setting itself up;
 * - `ready`: the connector reported it ready, with its external account, declared gates and settings;
 * - `failed`: the connector reported that setting up failed, with a reason for the operator;
 * - `disconnected`: the operator disconnected it; final (create another configuration to connect again).
 *
 * @since 0.1.0
 */
export type ConfigurationStatus = (typeof CONFIGURATION_STATUSES)[number]

/**
 * The gates each kind's connector may declare when it reports ready. A billing connector declares `verification`
 * when proposals must be verified (passed or rejected) before they become invoices (decisions 5); the other kinds
 * have no gates yet.
 *
 * @since 0.1.0
 */
export const KIND_GATES: { readonly [Kind in IntegrationKind]: ReadonlyArray<string> } = {
  billing: ["verification"],
  signing: [],
  booking: []
}

/**
 * The account at the external system a ready configuration works in: its id there (a Fortnox database number, a
 * Scrive company id …) and a name to show an operator. Each 1 to 200 characters.
 *
 * @since 0.1.0
 */
export interface ExternalAccount {
  readonly id: string
  readonly name: string
}

/**
 * A JSON object: a kind's settings as the connector reported them (checked against the kind's schema,
 * `KindSettings.ts`).
 *
 * @since 0.1.0
 */
export type Settings = { readonly [key: string]: unknown }

/**
 * An integration configuration.
 * - `installationId`, `appId`: the installation it belongs to and its connector app; absent only on a billing
 *   configuration carried over from the former per-organization billing integration, which no connector can reach.
 * - `operationalContextIds`: where it applies; each is within the installation's granted contexts (a granted
 *   context includes its subtree). Sorted, without repeats.
 * - `externalAccount`, `declaredGates`, `settings`: what the last `ready` report said (`declaredGates` is `[]`
 *   until then).
 * - `failureReason`: what the last `failed` report said; cleared when a connection reference is redeemed again.
 * - one time per step (`connectedAt` the last redeem, `readyAt`, `failedAt`, `disconnectedAt`), `createdAt`, and
 *   `updatedAt`, the time of the last change.
 *
 * @since 0.1.0
 */
export interface IntegrationConfigurationRecord {
  readonly id: string
  readonly organizationId: string
  readonly installationId?: string
  readonly appId?: string
  readonly kind: IntegrationKind
  readonly status: ConfigurationStatus
  readonly operationalContextIds: ReadonlyArray<string>
  readonly externalAccount?: ExternalAccount
  readonly declaredGates: ReadonlyArray<string>
  readonly settings?: Settings
  readonly failureReason?: string
  readonly createdAt: Date
  readonly connectedAt?: Date
  readonly readyAt?: Date
  readonly failedAt?: Date
  readonly disconnectedAt?: Date
  readonly updatedAt: Date
}

/**
 * Whether `value` names a kind.
 *
 * @since 0.1.0
 */
export const isIntegrationKind = (value: string): value is IntegrationKind =>
  (INTEGRATION_KINDS as ReadonlyArray<string>).includes(value)
