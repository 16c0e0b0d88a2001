/**
 * The business-rule refusals of integration configurations (spec 7.3 `INTEGRATIONS_*`; decisions 4 and 8), one
 * class per rule, on the house's one refusal shape (`@propline/refusal/Refusal`): `code`, `status` (400, or 409
 * for a conflict with state another request made), `detail` safe to show a client, and the facts that led to it.
 *
 * @since 0.1.0
 */
import { Refusal } from "@propline/refusal/Refusal"
import type { ConfigurationStatus, IntegrationKind } from "./IntegrationConfiguration.js"

/**
 * One failing field: `path` a JSON Pointer (RFC 6901) into the request (`/settings/websiteUrl`,
 * `/declaredGates/1`, `/operationalContextIds/0`), `message` what is wrong with it.
 *
 * @since 0.1.0
 */
export interface ConfigurationIssue {
  readonly path: string
  readonly message: string
}

/**
 * `INTEGRATIONS_CONFIGURATION_INVALID`, HTTP 400: what was sent does not fit the configuration's kind — a gate
 * the kind does not have or one declared twice, settings that fail the kind's schema (`KindSettings.ts`), or, when
 * an operator creates a configuration, contexts outside the installation's. `issues` lists each failing field, as
 * `VALIDATION_FAILED` does (spec 7.1).
 *
 * @since 0.1.0
 */
export class ConfigurationInvalid extends Refusal("ConfigurationInvalid", "INTEGRATIONS_CONFIGURATION_INVALID", 400)<{
  readonly issues: ReadonlyArray<ConfigurationIssue>
}> {}

/**
 * `INTEGRATIONS_POINT_ALREADY_FILLED`, HTTP 409: another configuration of the same kind is `ready` in one of the
 * configuration's operational contexts (`operationalContextId` names the first): a point — a kind in a context —
 * has one ready configuration at a time. The operator disconnects the other one first. The database's unique key
 * settles a race between two `ready` reports the same way.
 *
 * @since 0.1.0
 */
export class PointAlreadyFilled extends Refusal("PointAlreadyFilled", "INTEGRATIONS_POINT_ALREADY_FILLED", 409)<{
  readonly kind: IntegrationKind
  readonly operationalContextId: string | undefined
}> {}

/**
 * Why a connection cannot be made or reported now (`INTEGRATIONS_CONNECTION_NOT_SUPPORTED`):
 * - `installation-not-active`: the installation is suspended or removed, so its connector cannot get a token;
 * - `no-installation`: the configuration was carried over from the former billing integration and has no
 *   installation or connector app behind it;
 * - `no-setup-url`: the connector app has no setup address to send a connection reference to;
 * - `role-not-granted`: the installation does not hold the role of the configuration's kind;
 * - `disconnected`: the configuration was disconnected, for good;
 * - `not-connecting`: `ready` or `failed` was reported on a configuration that is not `connecting` (a repeated
 *   report included; decisions 4): redeem a fresh connection reference to set it up again.
 *
 * @since 0.1.0
 */
export type ConnectionNotSupportedReason =
  | "installation-not-active"
  | "no-installation"
  | "no-setup-url"
  | "role-not-granted"
  | "disconnected"
  | "not-connecting"

/**
 * `INTEGRATIONS_CONNECTION_NOT_SUPPORTED`, HTTP 400: see {@link ConnectionNotSupportedReason}. `configurationStatus`
 * is the configuration's status when there is one.
 *
 * @since 0.1.0
 */
export class ConnectionNotSupported extends Refusal(
  "ConnectionNotSupported",
  "INTEGRATIONS_CONNECTION_NOT_SUPPORTED",
  400
)<{
  readonly reason: ConnectionNotSupportedReason
  readonly configurationStatus: ConfigurationStatus | undefined
}> {}

/**
 * Why a connection reference was refused, for logs and tests only: the caller is never told (one refusal, one
 * body, whatever the reason, so a reference can't be probed).
 *
 * @since 0.1.0
 */
export type ReferenceInvalidReason = "unknown" | "foreign" | "used" | "expired" | "void"

/**
 * The one sentence every refused connection reference answers with.
 *
 * @since 0.1.0
 */
export const REFERENCE_INVALID_DETAIL =
  "The connection reference is not valid: it is unknown, expired or already used, or it was issued for another " +
  "installation. Ask the operator to press Connect again."

/**
 * `INTEGRATIONS_CONNECTION_REFERENCE_INVALID`, HTTP 400 (decisions 8): the reference is unknown, expired (10
 * minutes), already redeemed, voided (another reference of the configuration was redeemed, or it was
 * disconnected) or bound to another installation (of another app, or of the same app in another organization).
 * Always with {@link REFERENCE_INVALID_DETAIL}.
 *
 * @since 0.1.0
 */
export class ConnectionReferenceInvalid extends Refusal(
  "ConnectionReferenceInvalid",
  "INTEGRATIONS_CONNECTION_REFERENCE_INVALID",
  400
)<{
  readonly reason: ReferenceInvalidReason
}> {
  /**
   * The refusal for `reason`, with the one detail.
   *
   * @since 0.1.0
   */
  static of(reason: ReferenceInvalidReason): ConnectionReferenceInvalid {
    return new ConnectionReferenceInvalid({ reason, detail: REFERENCE_INVALID_DETAIL })
  }
}

/**
 * Any refusal of this package.
 *
 * @since 0.1.0
 */
export type IntegrationsRefusal =
  | ConfigurationInvalid
  | PointAlreadyFilled
  | ConnectionNotSupported
  | ConnectionReferenceInvalid
