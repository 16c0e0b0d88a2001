/**
 * Installations of connector apps (decisions 2; spec 5.3, 5.5): a connector app installed into one organization
 * with roles and operational contexts. Its status:
 *
 * | from | operation | to | token requests |
 * | --- | --- | --- | --- |
 * | (none) | {@link install} | `active` | new tokens |
 * | `active` | {@link suspend} | `suspended` | refused (`invalid_grant`) |
 * | `suspended` | {@link resume} | `active` | new tokens |
 * | `active`, `suspended` | {@link remove} | `removed` (for good) | refused (`invalid_grant`) |
 *
 * Tokens issued before a suspension or removal keep working until they expire (spec 5.5: at most 600 s).
 * Suspending a suspended installation, or resuming an active one, changes nothing. A removed installation is
 * gone: the operations here take a live one (the HTTP layer answers 404 for a removed one), and the app may be
 * installed into the organization again, as a new installation.
 *
 * Each change yields its event (decisions 9), written in the change's transaction.
 *
 * @since 0.2.0
 */
import { Either } from "effect"
import type { Role } from "./AccessTokenClaims.js"
import { checkGrant, type ContextNode, type GrantRequest } from "./Grant.js"
import { AppAlreadyInstalled, type ContextLevelMismatch, type RoleNotGrantable } from "./IdentityRefusal.js"

/**
 * An installation's status (decisions 2).
 *
 * @since 0.2.0
 */
export type InstallationStatus = "active" | "suspended" | "removed"

/**
 * An installation. `roles` always include `integrations`; `contextIds` are the granted operational contexts,
 * each with its subtree.
 *
 * @since 0.2.0
 */
export interface InstallationRecord {
  readonly id: string
  readonly appId: string
  readonly organizationId: string
  readonly status: InstallationStatus
  readonly roles: ReadonlyArray<Role>
  readonly contextIds: ReadonlyArray<string>
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly suspendedAt: Date | null
  readonly removedAt: Date | null
}

/**
 * An installation that is not removed: what suspend, resume, remove and a grant change act on.
 *
 * @since 0.2.0
 */
export type LiveInstallation = InstallationRecord & { readonly status: "active" | "suspended" }

/**
 * The event of an installation change (decisions 9): `integrations.installation.created`, `.suspended`,
 * `.resumed`, `.removed` or `.grant_changed`, with the installation, its app and organization, and `at`.
 *
 * @since 0.2.0
 */
export interface InstallationEvent {
  readonly _tag:
    | "integrations.installation.created"
    | "integrations.installation.suspended"
    | "integrations.installation.resumed"
    | "integrations.installation.removed"
    | "integrations.installation.grant_changed"
  readonly installationId: string
  readonly appId: string
  readonly organizationId: string
  readonly at: Date
}

/**
 * An installation change: the new record and its events (none when nothing changed).
 *
 * @since 0.2.0
 */
export interface InstallationTransition {
  readonly record: InstallationRecord
  readonly events: ReadonlyArray<InstallationEvent>
}

const event = (tag: InstallationEvent["_tag"], record: InstallationRecord, at: Date): InstallationEvent => ({
  _tag: tag,
  installationId: record.id,
  appId: record.appId,
  organizationId: record.organizationId,
  at
})

/**
 * What an installation is judged against: `live`, the organization's installation of the app that is not
 * removed, if any; `contexts`, every operational context of the organization.
 *
 * @since 0.2.0
 */
export interface InstallState {
  readonly live: InstallationRecord | undefined
  readonly contexts: ReadonlyArray<ContextNode>
}

/**
 * Installs an app into an organization, `active` at `now`, with the grant `checkGrant("installation", …)` allows
 * (`INTEGRATIONS_ROLE_NOT_GRANTABLE`, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`, 400; `integrations` added). Then, when
 * the organization already has a live installation of the app: `AppAlreadyInstalled`
 * (`INTEGRATIONS_APP_ALREADY_INSTALLED`, 409). Emits `integrations.installation.created`.
 *
 * @since 0.2.0
 */
export const install = (
  state: InstallState,
  command: GrantRequest & { readonly installationId: string; readonly appId: string; readonly organizationId: string },
  now: Date
): Either.Either<InstallationTransition, RoleNotGrantable | ContextLevelMismatch | AppAlreadyInstalled> =>
  Either.gen(function* () {
    const grant = yield* checkGrant("installation", command, state.contexts)
    if (state.live !== undefined) {
      return yield* Either.left(
        new AppAlreadyInstalled({
          appId: command.appId,
          organizationId: command.organizationId,
          detail: "The app is already installed in this organization; resume or remove that installation instead."
        })
      )
    }
    const record: InstallationRecord = {
      id: command.installationId,
      appId: command.appId,
      organizationId: command.organizationId,
      status: "active",
      roles: grant.roles,
      contextIds: grant.contextIds,
      createdAt: now,
      updatedAt: now,
      suspendedAt: null,
      removedAt: null
    }
    return { record, events: [event("integrations.installation.created", record, now)] }
  })

/**
 * Suspends an active installation (new tokens refused until resumed); a suspended one is left as it is.
 * Emits `integrations.installation.suspended`.
 *
 * @since 0.2.0
 */
export const suspend = (installation: LiveInstallation, now: Date): InstallationTransition => {
  if (installation.status === "suspended") return { record: installation, events: [] }
  const record: InstallationRecord = { ...installation, status: "suspended", suspendedAt: now, updatedAt: now }
  return { record, events: [event("integrations.installation.suspended", record, now)] }
}

/**
 * Resumes a suspended installation; an active one is left as it is. Emits `integrations.installation.resumed`.
 *
 * @since 0.2.0
 */
export const resume = (installation: LiveInstallation, now: Date): InstallationTransition => {
  if (installation.status === "active") return { record: installation, events: [] }
  const record: InstallationRecord = { ...installation, status: "active", suspendedAt: null, updatedAt: now }
  return { record, events: [event("integrations.installation.resumed", record, now)] }
}

/**
 * Removes an installation for good (spec 5.5: it stops new tokens). Emits `integrations.installation.removed`.
 *
 * @since 0.2.0
 */
export const remove = (installation: LiveInstallation, now: Date): InstallationTransition => {
  const record: InstallationRecord = { ...installation, status: "removed", removedAt: now, updatedAt: now }
  return { record, events: [event("integrations.installation.removed", record, now)] }
}

/**
 * Replaces an installation's roles and contexts with a grant `checkGrant("installation", …)` allows
 * (`INTEGRATIONS_ROLE_NOT_GRANTABLE`, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`, 400; `integrations` kept). New tokens
 * carry the new grant; tokens already issued keep theirs until they expire. Emits
 * `integrations.installation.grant_changed`.
 *
 * @since 0.2.0
 */
export const changeGrant = (
  installation: LiveInstallation,
  command: GrantRequest,
  contexts: ReadonlyArray<ContextNode>,
  now: Date
): Either.Either<InstallationTransition, RoleNotGrantable | ContextLevelMismatch> =>
  Either.map(checkGrant("installation", command, contexts), (grant) => {
    const record: InstallationRecord = { ...installation, roles: grant.roles, contextIds: grant.contextIds, updatedAt: now }
    return { record, events: [event("integrations.installation.grant_changed", record, now)] }
  })
