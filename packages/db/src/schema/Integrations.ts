import type { JSONColumnType } from "kysely"

/**
 * `integration_configurations`: a configuration of a kind for an installation (decisions 8): its status and what
 * its connector last reported. `installationId` and `appId` are null only on a billing configuration carried over
 * from the former per-organization billing integration.
 */
export interface IntegrationConfigurationTable {
  readonly id: string
  readonly organizationId: string
  readonly installationId: string | null
  readonly appId: string | null
  readonly kind: "billing" | "signing" | "booking"
  status: "pending" | "connecting" | "ready" | "failed" | "disconnected"
  /** The account at the external system, set together by `ready`. */
  externalAccountId: string | null
  externalAccountName: string | null
  /** Gates the last `ready` declared, e.g. `verification` (billing). */
  declaredGates: Array<string>
  /** The kind's settings as the last `ready` reported them (a JSON object). */
  settings: JSONColumnType<Record<string, unknown>> | null
  failureReason: string | null
  readonly createdAt: Date
  connectedAt: Date | null
  readyAt: Date | null
  failedAt: Date | null
  disconnectedAt: Date | null
  updatedAt: Date
}

/**
 * `integration_configuration_contexts`: a configuration's operational contexts, with its kind. `filled` is true
 * exactly while the configuration is ready; a partial unique key keeps one filled row per (kind, context).
 */
export interface IntegrationConfigurationContextTable {
  readonly configurationId: string
  readonly kind: "billing" | "signing" | "booking"
  readonly operationalContextId: string
  filled: boolean
}

/**
 * `integration_connection_references`: the SHA-256 digest (lower-case hex) of each connection reference Connect
 * issued, bound to its configuration's installation; it works until `expiresAt`, once, unless voided.
 */
export interface IntegrationConnectionReferenceTable {
  readonly digest: string
  readonly configurationId: string
  readonly installationId: string
  readonly issuedAt: Date
  readonly expiresAt: Date
  redeemedAt: Date | null
  voidedAt: Date | null
}
