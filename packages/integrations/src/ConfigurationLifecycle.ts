/**
 * The integration-configuration state machine (decisions 8; spec 4.2 "Integrations"), as pure functions: the
 * operator creates a configuration, presses Connect (a connection reference is issued) and may disconnect it; the
 * connector redeems the reference and reports the configuration `ready` or `failed`. Each function takes the
 * current state, the command and the time, and returns the new records with the events of the change, or a
 * refusal. The caller loads (under row locks) and persists; nothing here does I/O.
 *
 * ```
 *            ┌──────────── redeem (a reference issued by Connect) ────────────┐
 *            ▼                                                                │
 * pending ─redeem─▶ connecting ──ready──▶ ready ──────────────────────────────┤
 *                       └──────failed───▶ failed ─────────────────────────────┘
 * pending | connecting | ready | failed ──disconnect──▶ disconnected (final)
 * ```
 *
 * | operation | by | allowed from | to | refusals |
 * | --- | --- | --- | --- | --- |
 * | {@link create} | operator | — | `pending` | `INTEGRATIONS_CONNECTION_NOT_SUPPORTED`, `INTEGRATIONS_CONFIGURATION_INVALID` |
 * | {@link connect} | operator | any but `disconnected` | (same; a reference is issued) | `INTEGRATIONS_CONNECTION_NOT_SUPPORTED` |
 * | {@link redeem} | connector | any but `disconnected` | `connecting` | `INTEGRATIONS_CONNECTION_REFERENCE_INVALID` |
 * | {@link reportReady} | connector | `connecting` | `ready` | `INTEGRATIONS_CONNECTION_NOT_SUPPORTED`, `INTEGRATIONS_CONFIGURATION_INVALID`, `INTEGRATIONS_POINT_ALREADY_FILLED` (409) |
 * | {@link reportFailed} | connector | `connecting` | `failed` | `INTEGRATIONS_CONNECTION_NOT_SUPPORTED` |
 * | {@link disconnect} | operator | any | `disconnected` | — (a disconnected one is left as it is) |
 *
 * A repeated `ready` or `failed` is refused with 400 `INTEGRATIONS_CONNECTION_NOT_SUPPORTED` (reason
 * `not-connecting`), as decisions 4 asks of reports that move a record: the configuration is no longer
 * `connecting`. Redeeming a reference of a `ready` configuration sets it up again (`connecting`): only the operator
 * can issue one, by pressing Connect.
 *
 * @since 0.1.0
 */
import type { ContextNode } from "@propline/identity/Grant"
import { Either } from "effect"
import type { ConnectionReferenceRecord } from "./ConnectionReference.js"
import { REFERENCE_LIFETIME_SECONDS, setupAddress } from "./ConnectionReference.js"
import type {
  ExternalAccount,
  IntegrationConfigurationRecord,
  IntegrationKind,
  Settings
} from "./IntegrationConfiguration.js"
import { KIND_GATES } from "./IntegrationConfiguration.js"
import { type ConfigurationEvent, configurationEvent } from "./IntegrationsEvent.js"
import {
  type ConfigurationIssue,
  ConfigurationInvalid,
  ConnectionNotSupported,
  ConnectionReferenceInvalid,
  PointAlreadyFilled
} from "./IntegrationsRefusal.js"
import { checkSettings } from "./KindSettings.js"

/**
 * An accepted change of a configuration: the configuration as it now is, and the events to write with it
 * (none when nothing changed).
 *
 * @since 0.1.0
 */
export interface Transition {
  readonly configuration: IntegrationConfigurationRecord
  readonly events: ReadonlyArray<ConfigurationEvent>
}

/**
 * Most operational contexts one configuration names.
 *
 * @since 0.1.0
 */
export const MAX_CONFIGURATION_CONTEXTS = 100

/**
 * What the rules need of an installation: its app, organization, status, roles and granted contexts (each
 * includes its subtree).
 *
 * @since 0.1.0
 */
export interface InstallationFacts {
  readonly id: string
  readonly appId: string
  readonly organizationId: string
  readonly status: "active" | "suspended" | "removed"
  readonly roles: ReadonlyArray<string>
  readonly contextIds: ReadonlyArray<string>
}

/**
 * What an operator asks for: the new configuration's id (drawn by the caller), its kind, and its operational
 * contexts (ids as given).
 *
 * @since 0.1.0
 */
export interface CreateCommand {
  readonly configurationId: string
  readonly kind: IntegrationKind
  readonly operationalContextIds: ReadonlyArray<string>
}

const notSupported = (
  reason: ConnectionNotSupported["reason"],
  configuration: IntegrationConfigurationRecord | undefined,
  detail: string
) => new ConnectionNotSupported({ reason, configurationStatus: configuration?.status, detail })

/** The ids of `granted` and of every context below one of them. */
const subtreeOf = (granted: ReadonlyArray<string>, contexts: ReadonlyArray<ContextNode>): ReadonlySet<string> => {
  const children = new Map<string, Array<string>>()
  for (const node of contexts) {
    if (node.parentId === null) continue
    const siblings = children.get(node.parentId) ?? []
    siblings.push(node.id)
    children.set(node.parentId, siblings)
  }
  const known = new Set(contexts.map((node) => node.id))
  const seen = new Set<string>()
  const queue = granted.filter((id) => known.has(id))
  while (queue.length > 0) {
    const id = queue.pop() as string
    if (seen.has(id)) continue
    seen.add(id)
    queue.push(...(children.get(id) ?? []))
  }
  return seen
}

/**
 * Creates a configuration of `kind` for an installation, `pending` at `now`, in the given operational contexts of
 * the installation's organization (`contexts`: every context of it). Checks, in order:
 * 1. the installation is not removed, else `ConnectionNotSupported` (`installation-not-active`); a suspended one
 *    may be configured (it is connected once resumed);
 * 2. it holds the kind's role (decisions 2), else `ConnectionNotSupported` (`role-not-granted`);
 * 3. 1 to {@link MAX_CONFIGURATION_CONTEXTS} contexts, none twice, each within the installation's granted contexts
 *    (a granted context or one below it), else `ConfigurationInvalid` with an issue per failing id
 *    (`/operationalContextIds/<index>`, or `/operationalContextIds` for the count).
 *
 * The contexts are kept sorted. Emits `integrations.configuration.created`.
 *
 * @since 0.1.0
 */
export const create = (
  state: { readonly installation: InstallationFacts; readonly contexts: ReadonlyArray<ContextNode> },
  command: CreateCommand,
  now: Date
): Either.Either<Transition, ConnectionNotSupported | ConfigurationInvalid> => {
  const { installation } = state
  if (installation.status === "removed") {
    return Either.left(notSupported("installation-not-active", undefined, "The installation was removed."))
  }
  if (!installation.roles.includes(command.kind)) {
    return Either.left(
      notSupported(
        "role-not-granted",
        undefined,
        `The installation does not hold the ${command.kind} role; grant it before configuring a ${command.kind} connection.`
      )
    )
  }
  const ids = command.operationalContextIds
  const issues: Array<ConfigurationIssue> = []
  if (ids.length === 0 || ids.length > MAX_CONFIGURATION_CONTEXTS) {
    issues.push({
      path: "/operationalContextIds",
      message: `must name 1 to ${MAX_CONFIGURATION_CONTEXTS} operational contexts`
    })
  }
  const reachable = subtreeOf(installation.contextIds, state.contexts)
  ids.forEach((id, index) => {
    if (ids.indexOf(id) !== index) {
      issues.push({ path: `/operationalContextIds/${index}`, message: "names a context twice" })
    } else if (!reachable.has(id)) {
      issues.push({ path: `/operationalContextIds/${index}`, message: "is not within the installation's contexts" })
    }
  })
  if (issues.length > 0) {
    return Either.left(
      new ConfigurationInvalid({ issues, detail: "The configuration's operational contexts are not valid; see issues." })
    )
  }
  const configuration: IntegrationConfigurationRecord = {
    id: command.configurationId,
    organizationId: installation.organizationId,
    installationId: installation.id,
    appId: installation.appId,
    kind: command.kind,
    status: "pending",
    operationalContextIds: [...ids].sort(),
    declaredGates: [],
    createdAt: now,
    updatedAt: now
  }
  return Either.right({
    configuration,
    events: [configurationEvent("integrations.configuration.created", configuration, now)]
  })
}

/**
 * What Connect needs beside the configuration: its installation's status (absent for a carried-over
 * configuration) and its app's setup URL; and the reference the caller drew (`formatReference`) with its
 * SHA-256 digest (lower-case hex).
 *
 * @since 0.1.0
 */
export interface ConnectCommand {
  readonly installationStatus: InstallationFacts["status"] | undefined
  readonly setupUrl: string | undefined
  readonly reference: string
  readonly digest: string
}

/**
 * The result of Connect: the reference record to store (its digest only), the setup address to send the
 * operator's browser to (it carries the reference itself; show it once), and the event.
 *
 * @since 0.1.0
 */
export interface Connection {
  readonly reference: ConnectionReferenceRecord
  readonly setupAddress: string
  readonly events: ReadonlyArray<ConfigurationEvent>
}

/**
 * The operator presses Connect: a connection reference for the configuration's installation, working
 * {@link REFERENCE_LIFETIME_SECONDS} seconds from `now`, and the setup address with it. The configuration itself
 * does not change (it becomes `connecting` when the reference is redeemed); earlier references keep working until
 * one of them is redeemed. Emits `integrations.configuration.connection_requested`.
 *
 * Refusals, `ConnectionNotSupported` (`INTEGRATIONS_CONNECTION_NOT_SUPPORTED`, 400), in order: `disconnected`;
 * `no-installation` (a carried-over configuration); `installation-not-active` (suspended or removed);
 * `no-setup-url`.
 *
 * @since 0.1.0
 */
export const connect = (
  configuration: IntegrationConfigurationRecord,
  command: ConnectCommand,
  now: Date
): Either.Either<Connection, ConnectionNotSupported> => {
  if (configuration.status === "disconnected") {
    return Either.left(
      notSupported("disconnected", configuration, "The configuration is disconnected; create a new one to connect again.")
    )
  }
  if (configuration.installationId === undefined) {
    return Either.left(
      notSupported(
        "no-installation",
        configuration,
        "The configuration was carried over from the former billing integration and has no connector to connect."
      )
    )
  }
  if (command.installationStatus !== "active") {
    return Either.left(
      notSupported("installation-not-active", configuration, "The installation is not active; resume it first.")
    )
  }
  if (command.setupUrl === undefined || command.setupUrl === "") {
    return Either.left(notSupported("no-setup-url", configuration, "The connector app has no setup address."))
  }
  const reference: ConnectionReferenceRecord = {
    digest: command.digest,
    configurationId: configuration.id,
    installationId: configuration.installationId,
    issuedAt: now,
    expiresAt: new Date(now.getTime() + REFERENCE_LIFETIME_SECONDS * 1000)
  }
  return Either.right({
    reference,
    setupAddress: setupAddress(command.setupUrl, command.reference, configuration.installationId),
    events: [configurationEvent("integrations.configuration.connection_requested", configuration, now)]
  })
}

/**
 * A redeemed reference: the configuration now `connecting`, the reference marked redeemed, and the event.
 *
 * @since 0.1.0
 */
export interface Redemption extends Transition {
  readonly reference: ConnectionReferenceRecord
}

/**
 * The connector redeems a reference with a token of `installationId`. `found` is the reference with the digest
 * sent and its configuration, or `undefined` when no reference has it. Refuses with
 * `ConnectionReferenceInvalid` (`INTEGRATIONS_CONNECTION_REFERENCE_INVALID`, 400, one detail whatever the reason)
 * when the reference is unknown, issued for another installation (`foreign`), already redeemed (`used`), voided
 * or its configuration disconnected (`void`), or expired (at or after `expiresAt`).
 *
 * Else the configuration becomes `connecting` (from any status but `disconnected`): `connectedAt` and `updatedAt`
 * are `now`, an earlier failure (`failureReason`, `failedAt`) is cleared; the reference is redeemed at `now`.
 * Emits `integrations.configuration.connecting`. The caller voids the configuration's other references.
 *
 * @since 0.1.0
 */
export const redeem = (
  found:
    | { readonly reference: ConnectionReferenceRecord; readonly configuration: IntegrationConfigurationRecord }
    | undefined,
  caller: { readonly installationId: string },
  now: Date
): Either.Either<Redemption, ConnectionReferenceInvalid> => {
  if (found === undefined) return Either.left(ConnectionReferenceInvalid.of("unknown"))
  const { configuration, reference } = found
  if (reference.installationId !== caller.installationId || configuration.installationId !== caller.installationId) {
    return Either.left(ConnectionReferenceInvalid.of("foreign"))
  }
  if (reference.redeemedAt !== undefined) return Either.left(ConnectionReferenceInvalid.of("used"))
  if (reference.voidedAt !== undefined || configuration.status === "disconnected") {
    return Either.left(ConnectionReferenceInvalid.of("void"))
  }
  if (now.getTime() >= reference.expiresAt.getTime()) return Either.left(ConnectionReferenceInvalid.of("expired"))
  const { failedAt: _failedAt, failureReason: _failureReason, ...rest } = configuration
  const connecting: IntegrationConfigurationRecord = { ...rest, status: "connecting", connectedAt: now, updatedAt: now }
  return Either.right({
    configuration: connecting,
    reference: { ...reference, redeemedAt: now },
    events: [configurationEvent("integrations.configuration.connecting", connecting, now)]
  })
}

/**
 * Body of `ready`: the external account, the gates declared (names as sent, unchecked) and the kind's settings
 * (a JSON object, unchecked).
 *
 * @since 0.1.0
 */
export interface ReadyCommand {
  readonly externalAccount: ExternalAccount
  readonly declaredGates: ReadonlyArray<string>
  readonly settings: Settings
}

/**
 * Of the configuration's contexts, those where another configuration of its kind is `ready` — read by the caller
 * in the transaction that persists the result (the database's unique key remains the last guard).
 *
 * @since 0.1.0
 */
export interface ReadyFacts {
  readonly filledContextIds: ReadonlyArray<string>
}

const checkGates = (kind: IntegrationKind, gates: ReadonlyArray<string>): ReadonlyArray<ConfigurationIssue> =>
  gates.flatMap((gate, index) => {
    if (gates.indexOf(gate) !== index) return [{ path: `/declaredGates/${index}`, message: "declares a gate twice" }]
    if (!KIND_GATES[kind].includes(gate)) {
      const known = KIND_GATES[kind]
      return [
        {
          path: `/declaredGates/${index}`,
          message:
            known.length === 0
              ? `is not a gate: a ${kind} configuration declares none`
              : `is not a gate of a ${kind} configuration (${known.join(", ")})`
        }
      ]
    }
    return []
  })

/**
 * The connector reports the configuration ready: `connecting` → `ready`, with `externalAccount`, `declaredGates`
 * (as sent) and `settings`; `readyAt` and `updatedAt` are `now`. Emits `integrations.configuration.ready`. Checks,
 * in order:
 * 1. the configuration is `connecting`, else `ConnectionNotSupported` (`not-connecting`, or `disconnected`);
 * 2. each gate is one of the kind's ({@link KIND_GATES}) and none is declared twice, and the settings pass the
 *    kind's schema (`KindSettings.checkSettings`), else `ConfigurationInvalid` with every issue;
 * 3. no other configuration of the kind is `ready` in one of its contexts, else `PointAlreadyFilled` (409).
 *
 * @since 0.1.0
 */
export const reportReady = (
  configuration: IntegrationConfigurationRecord,
  command: ReadyCommand,
  facts: ReadyFacts,
  now: Date
): Either.Either<Transition, ConnectionNotSupported | ConfigurationInvalid | PointAlreadyFilled> => {
  const refused = requireConnecting(configuration, "ready")
  if (refused !== undefined) return Either.left(refused)
  const settings = checkSettings(configuration.kind, command.settings)
  const issues = [
    ...checkGates(configuration.kind, command.declaredGates),
    ...(Either.isLeft(settings) ? settings.left : [])
  ]
  if (issues.length > 0) {
    return Either.left(
      new ConfigurationInvalid({
        issues,
        detail: `The report does not fit a ${configuration.kind} configuration; see issues.`
      })
    )
  }
  if (facts.filledContextIds.length > 0) {
    return Either.left(
      new PointAlreadyFilled({
        kind: configuration.kind,
        operationalContextId: facts.filledContextIds[0],
        detail:
          `Another ${configuration.kind} configuration is ready in one of this configuration's operational contexts; ` +
          "the operator disconnects it first."
      })
    )
  }
  const ready: IntegrationConfigurationRecord = {
    ...configuration,
    status: "ready",
    externalAccount: { id: command.externalAccount.id, name: command.externalAccount.name },
    declaredGates: [...command.declaredGates],
    settings: command.settings,
    readyAt: now,
    updatedAt: now
  }
  return Either.right({ configuration: ready, events: [configurationEvent("integrations.configuration.ready", ready, now)] })
}

const requireConnecting = (
  configuration: IntegrationConfigurationRecord,
  report: "ready" | "failed"
): ConnectionNotSupported | undefined => {
  if (configuration.status === "connecting") return undefined
  return configuration.status === "disconnected"
    ? notSupported("disconnected", configuration, `The configuration is disconnected; ${report} can't be reported.`)
    : notSupported(
        "not-connecting",
        configuration,
        `The configuration is ${configuration.status}, not connecting; ${report} is reported once, after a connection ` +
          "reference is redeemed."
      )
}

/**
 * Body of `failed`: `reason`, 1 to 1000 characters (checked by the contract), shown to an operator.
 *
 * @since 0.1.0
 */
export interface FailedCommand {
  readonly reason: string
}

/**
 * The connector reports that setting up failed: `connecting` → `failed`, with `failureReason`; `failedAt` and
 * `updatedAt` are `now`. Emits `integrations.configuration.failed`. Refuses with `ConnectionNotSupported`
 * (`not-connecting` or `disconnected`) unless the configuration is `connecting`.
 *
 * @since 0.1.0
 */
export const reportFailed = (
  configuration: IntegrationConfigurationRecord,
  command: FailedCommand,
  now: Date
): Either.Either<Transition, ConnectionNotSupported> => {
  const refused = requireConnecting(configuration, "failed")
  if (refused !== undefined) return Either.left(refused)
  const failed: IntegrationConfigurationRecord = {
    ...configuration,
    status: "failed",
    failureReason: command.reason,
    failedAt: now,
    updatedAt: now
  }
  return Either.right({ configuration: failed, events: [configurationEvent("integrations.configuration.failed", failed, now)] })
}

/**
 * The operator disconnects a configuration (or its installation is removed): any status → `disconnected`, for
 * good; `disconnectedAt` and `updatedAt` are `now`. What a ready one filled is free again, and its references stop
 * working (the caller voids them). Emits `integrations.configuration.disconnected`; a disconnected configuration
 * is left as it is, without an event.
 *
 * @since 0.1.0
 */
export const disconnect = (configuration: IntegrationConfigurationRecord, now: Date): Transition => {
  if (configuration.status === "disconnected") return { configuration, events: [] }
  const disconnected: IntegrationConfigurationRecord = {
    ...configuration,
    status: "disconnected",
    disconnectedAt: now,
    updatedAt: now
  }
  return {
    configuration: disconnected,
    events: [configurationEvent("integrations.configuration.disconnected", disconnected, now)]
  }
}
