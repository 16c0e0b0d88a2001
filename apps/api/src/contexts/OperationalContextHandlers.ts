/** Handlers of the operational-contexts group (spec 4.2): the contexts granted to the token and their subtrees. */
import { HttpApiBuilder } from "@effect/platform"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import { OperationalContextPage } from "@propline/contract/OperationalContexts"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Effect } from "effect"
import * as Cursor from "../http/Cursor.js"
import { encodedJson } from "../http/JsonResponse.js"
import * as ContextRepository from "./ContextRepository.js"

/** The contract's page of contexts, compiled once; the rows are written as they are read (`kind` is checked by the table). */
const encodePage = JsonEncoder.make(OperationalContextPage)

export const OperationalContextHandlers = HttpApiBuilder.group(IntegrationApi, "operationalContexts", (handlers) =>
  handlers.handle("list", ({ urlParams }) =>
    Effect.gen(function* () {
      const principal = yield* Principal
      const limit = urlParams.limit ?? DEFAULT_LIMIT
      const after = yield* Cursor.decode("operational-contexts", urlParams.cursor)
      const ids = yield* ContextRepository.visibleContextIds(principal.organizationId, principal.contexts)
      const rows = yield* ContextRepository.listContexts(ids, after, limit)
      return encodedJson(encodePage(Cursor.page("operational-contexts", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))))
    })
  )
)
