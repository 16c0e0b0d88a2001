/** Handlers of the operational-contexts group (spec 4.2), through {@link ContextService}. */
import { HttpApiBuilder } from "@effect/platform"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { OperationalContextId, OrganizationId } from "@propline/contract/Ids"
import { OperationalContext } from "@propline/contract/OperationalContext"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { ContextService } from "./ContextService.js"

export const OperationalContextHandlers = HttpApiBuilder.group(IntegrationApi, "operationalContexts", (handlers) =>
  Effect.gen(function* () {
    const contexts = yield* ContextService
    return handlers.handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const principal = yield* Principal
        const limit = urlParams.limit ?? DEFAULT_LIMIT
        const after = yield* CursorPage.decode("operational-contexts", urlParams.cursor)
        const page = yield* contexts.list(principal, after, limit)
        return {
          items: page.items.map(
            (row) =>
              new OperationalContext(
                {
                  id: row.id as OperationalContextId,
                  organizationId: row.organizationId as OrganizationId,
                  parentId: row.parentId as OperationalContextId | null,
                  kind: row.kind,
                  name: row.name,
                  createdAt: row.createdAt,
                  updatedAt: row.updatedAt
                },
                true
              )
          ),
          nextCursor: page.nextCursor
        }
      })
    )
  })
)
