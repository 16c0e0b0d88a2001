/**
 * Operational contexts (spec 4.2): where a token can act — the contexts granted to it and their subtrees
 * (decisions 2).
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { ContextRepository } from "./ContextRepository.js"
import { traced } from "../platform/Spans.js"

export class ContextService extends Effect.Service<ContextService>()("@propline/api/contexts/ContextService", {
  effect: Effect.gen(function* () {
    const contexts = yield* ContextRepository
    return {
      /**
       * The organization's context tree, every context as `{ id, parentId }`, for judging a grant of contexts
       * (`@propline/identity/Grant`); empty when the organization does not exist.
       */
      tree: (organizationId: string) =>
        contexts.tree(organizationId).pipe(traced("ContextService.tree")),

      /** A page of the principal's visible contexts, by creation then id (decisions 4). */
      list: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        contexts
          .listVisible(principal.organizationId, principal.contexts, after, limit)
          .pipe(
            Effect.map((rows) => CursorPage.page("operational-contexts", rows, limit)),
            traced("ContextService.list")
          )
    }
  }),
  dependencies: [ContextRepository.Default]
}) {}
