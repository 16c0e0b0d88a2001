/** Handlers of the operational-contexts group (spec 4.2): the contexts granted to the token and their subtrees. */
import { HttpApiBuilder } from "@effect/platform"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { OperationalContextId, OrganizationId } from "@propline/contract/Ids"
import { OperationalContext } from "@propline/contract/OperationalContext"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Effect } from "effect"
import * as Cursor from "../http/Cursor.js"
import * as ContextRepository from "./ContextRepository.js"

export const OperationalContextHandlers = HttpApiBuilder.group(IntegrationApi, "operationalContexts", (handlers) =>
  handlers.handle("list", ({ urlParams }) =>
    Effect.gen(function* () {
      const principal = yield* Principal
      const limit = urlParams.limit ?? DEFAULT_LIMIT
      const after = yield* Cursor.decode("operational-contexts", urlParams.cursor)
      const ids = yield* ContextRepository.visibleContextIds(principal.organizationId, principal.contexts)
      const rows = yield* ContextRepository.listContexts(ids, after, limit)
      const page = Cursor.page("operational-contexts", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
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
)
