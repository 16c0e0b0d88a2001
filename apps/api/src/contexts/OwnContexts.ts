/**
 * What the console checks of granted or chosen operational contexts, beyond the services' rules: that each is the
 * operator's organization's. A foreign (or unknown) context is a field's issue, VALIDATION_FAILED, never a 404: the
 * form names the field.
 */
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import type { OrganizationReadRepository } from "./OrganizationReadRepository.js"

/**
 * VALIDATION_FAILED with an issue at `pointerOf(index)` for each of `contextIds` that is not `organizationId`'s
 * (by default `/contextIds/<index>`).
 */
export const ownContexts = (
  organizations: OrganizationReadRepository,
  organizationId: string,
  contextIds: ReadonlyArray<string>,
  pointerOf: (index: number) => string = (index) => `/contextIds/${index}`
) =>
  Effect.flatMap(organizations.ownContextIds(organizationId, contextIds), (own) => {
    const foreign = contextIds.flatMap((id, index) =>
      own.has(id) ? [] : [{ path: pointerOf(index), message: "is not an operational context of your organization" }]
    )
    return foreign.length > 0 ? Effect.fail(problem.validationFailed(foreign)) : Effect.void
  })
