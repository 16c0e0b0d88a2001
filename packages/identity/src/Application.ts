/**
 * Applications and their client secrets (spec 5.2, 5.5 and 8; decisions 2 and 3): an Application belongs to one
 * organization, holds roles and granted operational contexts, is `active` or `disabled`, and holds at most
 * {@link MAX_ACTIVE_SECRETS} active secrets. Disabling it, or revoking a secret, stops new tokens at once; tokens
 * already issued keep working until they expire (spec 5.5). Secrets themselves are made by `ClientSecret`.
 *
 * @since 0.2.0
 */
import { Either } from "effect"
import type { Role } from "./AccessTokenClaims.js"
import { checkGrant, type ContextNode, type GrantRequest } from "./Grant.js"
import { type ContextLevelMismatch, type RoleNotGrantable, SecretLimitReached, SecretNotFound } from "./IdentityRefusal.js"

/**
 * Active secrets an Application may hold at once (spec 5.2 and 8), so a secret can be rotated without downtime.
 *
 * @since 0.2.0
 */
export const MAX_ACTIVE_SECRETS = 2

/**
 * An Application. `clientId` is its OAuth `client_id`; `contextIds` the granted contexts, each with its subtree.
 *
 * @since 0.2.0
 */
export interface ApplicationRecord {
  readonly id: string
  readonly organizationId: string
  readonly clientId: string
  readonly name: string
  readonly roles: ReadonlyArray<Role>
  readonly contextIds: ReadonlyArray<string>
  readonly status: "active" | "disabled"
  readonly disabledAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/**
 * A client secret as kept: never the secret, only what identifies it to an operator (`lastFour`) and its times.
 *
 * @since 0.2.0
 */
export interface SecretRecord {
  readonly id: string
  readonly applicationId: string
  readonly lastFour: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/**
 * Creates an active Application with the grant `checkGrant("application", …)` allows
 * (`INTEGRATIONS_ROLE_NOT_GRANTABLE` for `integrations` or an unknown role, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`;
 * 400). It holds no secret yet.
 *
 * @since 0.2.0
 */
export const createApplication = (
  contexts: ReadonlyArray<ContextNode>,
  command: GrantRequest & {
    readonly id: string
    readonly organizationId: string
    readonly clientId: string
    readonly name: string
  },
  now: Date
): Either.Either<{ readonly record: ApplicationRecord }, RoleNotGrantable | ContextLevelMismatch> =>
  Either.map(checkGrant("application", command, contexts), (grant) => ({
    record: {
      id: command.id,
      organizationId: command.organizationId,
      clientId: command.clientId,
      name: command.name,
      roles: grant.roles,
      contextIds: grant.contextIds,
      status: "active",
      disabledAt: null,
      createdAt: now,
      updatedAt: now
    }
  }))

/**
 * Disables an Application: its secrets stop working for new tokens at once (spec 5.5). A disabled one is left as it
 * is (`changed: false`).
 *
 * @since 0.2.0
 */
export const disable = (
  application: ApplicationRecord,
  now: Date
): { readonly record: ApplicationRecord; readonly changed: boolean } =>
  application.status === "disabled"
    ? { record: application, changed: false }
    : { record: { ...application, status: "disabled", disabledAt: now, updatedAt: now }, changed: true }

/**
 * Enables a disabled Application again: its active secrets work again. An active one is left as it is.
 *
 * @since 0.2.0
 */
export const enable = (
  application: ApplicationRecord,
  now: Date
): { readonly record: ApplicationRecord; readonly changed: boolean } =>
  application.status === "active"
    ? { record: application, changed: false }
    : { record: { ...application, status: "active", disabledAt: null, updatedAt: now }, changed: true }

/**
 * Replaces an Application's roles and contexts with a grant `checkGrant("application", …)` allows. New tokens carry
 * the new grant; tokens already issued keep theirs until they expire.
 *
 * @since 0.2.0
 */
export const changeGrant = (
  application: ApplicationRecord,
  command: GrantRequest,
  contexts: ReadonlyArray<ContextNode>,
  now: Date
): Either.Either<{ readonly record: ApplicationRecord }, RoleNotGrantable | ContextLevelMismatch> =>
  Either.map(checkGrant("application", command, contexts), (grant) => ({
    record: { ...application, roles: grant.roles, contextIds: grant.contextIds, updatedAt: now }
  }))

/**
 * Records a new secret (`secretId`, and the last four characters of the secret the caller made) for an Application
 * whose active secrets are `active`. Refused with `SecretLimitReached` (`APPLICATION_SECRET_LIMIT_REACHED`, 400)
 * when it already holds {@link MAX_ACTIVE_SECRETS}.
 *
 * @since 0.2.0
 */
export const issueSecret = (
  active: ReadonlyArray<SecretRecord>,
  command: { readonly applicationId: string; readonly secretId: string; readonly lastFour: string },
  now: Date
): Either.Either<{ readonly record: SecretRecord }, SecretLimitReached> =>
  active.length >= MAX_ACTIVE_SECRETS
    ? Either.left(
        new SecretLimitReached({
          applicationId: command.applicationId,
          activeSecrets: active.length,
          detail: `The Application already holds ${MAX_ACTIVE_SECRETS} active secrets; revoke one first.`
        })
      )
    : Either.right({
        record: { id: command.secretId, applicationId: command.applicationId, lastFour: command.lastFour, createdAt: now, revokedAt: null }
      })

/**
 * Revokes the active secret `secretId` among the Application's active secrets `active`: it stops new tokens at once
 * (spec 5.5). Refused with `SecretNotFound` (`APPLICATION_SECRET_NOT_FOUND`, 400) when it is not one of them
 * (unknown, another Application's, or already revoked).
 *
 * @since 0.2.0
 */
export const revokeSecret = (
  active: ReadonlyArray<SecretRecord>,
  command: { readonly applicationId: string; readonly secretId: string },
  now: Date
): Either.Either<{ readonly record: SecretRecord }, SecretNotFound> => {
  const secret = active.find((candidate) => candidate.id === command.secretId && candidate.applicationId === command.applicationId)
  return secret === undefined
    ? Either.left(
        new SecretNotFound({
          applicationId: command.applicationId,
          secretId: command.secretId,
          detail: "The Application has no active secret with this id."
        })
      )
    : Either.right({ record: { ...secret, revokedAt: now } })
}
