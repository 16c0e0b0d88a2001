/**
 * What a client may do and where (decisions 2): the roles its tokens carry and the operational contexts granted to
 * it (each includes its subtree). One rule for Applications and installations, {@link checkGrant}.
 *
 * @since 0.2.0
 */
import { Either } from "effect"
import type { Role } from "./AccessTokenClaims.js"
import { ContextLevelMismatch, RoleNotGrantable } from "./IdentityRefusal.js"

/**
 * Who receives a grant: an `application` (client credentials) or an `installation` of a connector app.
 *
 * @since 0.2.0
 */
export type Grantee = "application" | "installation"

/**
 * The roles each grantee can hold, in their canonical order (decisions 2: `integrations` is for installation
 * tokens only).
 *
 * @since 0.2.0
 */
export const GRANTABLE_ROLES: { readonly [G in Grantee]: ReadonlyArray<Role> } = {
  application: ["billing", "signing", "booking"],
  installation: ["billing", "signing", "booking", "integrations"]
}

/**
 * One operational context of the organization: its id and its parent's (`null` for the organization's root).
 *
 * @since 0.2.0
 */
export interface ContextNode {
  readonly id: string
  readonly parentId: string | null
}

/**
 * A requested grant: role names as given (unchecked strings) and context ids.
 *
 * @since 0.2.0
 */
export interface GrantRequest {
  readonly roles: ReadonlyArray<string>
  readonly contextIds: ReadonlyArray<string>
}

/**
 * A grant that passed {@link checkGrant}: roles without repeats in canonical order, contexts as given.
 *
 * @since 0.2.0
 */
export interface Grant {
  readonly roles: ReadonlyArray<Role>
  readonly contextIds: ReadonlyArray<string>
}

/**
 * Checks a grant against the grantee's roles and the organization's context tree (`contexts`: every operational
 * context of the organization). In order:
 *
 * 1. Every role is one the grantee can hold ({@link GRANTABLE_ROLES}), else `RoleNotGrantable`
 *    (`INTEGRATIONS_ROLE_NOT_GRANTABLE`, 400) naming the first other one. A role given twice counts once. An
 *    installation always holds `integrations` (its token reads the installation's own configuration, spec 4.2), so
 *    it is added when missing. An Application may hold no role (it can then only list its contexts).
 * 2. At least one context (`ContextLevelMismatch` `none`); each is a context of the organization
 *    (`outside_organization`); none lies in the subtree of another granted one, nor is given twice (`nested`).
 *    All `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`, 400.
 *
 * @since 0.2.0
 */
export const checkGrant = (
  grantee: Grantee,
  request: GrantRequest,
  contexts: ReadonlyArray<ContextNode>
): Either.Either<Grant, RoleNotGrantable | ContextLevelMismatch> => {
  const grantable = GRANTABLE_ROLES[grantee]
  const other = request.roles.find((role) => !(grantable as ReadonlyArray<string>).includes(role))
  if (other !== undefined) {
    return Either.left(
      new RoleNotGrantable({
        role: other,
        grantee,
        detail: `The role is not one ${grantee === "application" ? "an Application" : "an installation"} can hold; grantable roles: ${grantable.join(", ")}.`
      })
    )
  }
  const wanted = new Set(grantee === "installation" ? [...request.roles, "integrations"] : request.roles)
  const roles = grantable.filter((role) => wanted.has(role))

  if (request.contextIds.length === 0) {
    return Either.left(
      new ContextLevelMismatch({ rule: "none", detail: "Grant at least one operational context (the organization's root grants all of it)." })
    )
  }
  const parents = new Map(contexts.map((node) => [node.id, node.parentId]))
  const granted = new Set<string>()
  for (const contextId of request.contextIds) {
    if (!parents.has(contextId)) {
      return Either.left(
        new ContextLevelMismatch({
          rule: "outside_organization",
          contextId,
          detail: "A granted context is not an operational context of the organization."
        })
      )
    }
    if (granted.has(contextId)) return Either.left(nested(contextId))
    granted.add(contextId)
  }
  for (const contextId of request.contextIds) {
    // Walk up to the root; the tree has no cycles, and the visited set guards against a malformed one.
    const seen = new Set<string>([contextId])
    for (let parent = parents.get(contextId) ?? null; parent !== null; parent = parents.get(parent) ?? null) {
      if (granted.has(parent)) return Either.left(nested(contextId))
      if (seen.has(parent)) break
      seen.add(parent)
    }
  }
  return Either.right({ roles, contextIds: [...request.contextIds] })
}

const nested = (contextId: string) =>
  new ContextLevelMismatch({
    rule: "nested",
    contextId,
    detail: "A granted context lies inside another granted context, or is given twice; grant each part of the tree once."
  })
