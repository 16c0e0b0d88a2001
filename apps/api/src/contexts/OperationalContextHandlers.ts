/** Handlers of the operational-contexts group (spec 4.2), through {@link ContextService}. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import { OperationalContextPage } from "@propline/contract/OperationalContexts"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { encodedJson } from "../platform/JsonResponse.js"
import { ContextService } from "./ContextService.js"

/** The contract's page of contexts, compiled once (`@propline/contract/JsonEncoder`); rows are written as read. */
const encodePage = JsonEncoder.makeBytes(OperationalContextPage)

export const OperationalContextHandlers = HttpApiBuilder.group(IntegrationApi, "operationalContexts", (handlers) =>
  Effect.gen(function* () {
    const contexts = yield* ContextService
    return handlers.handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const principal = yield* Principal
        const limit = urlParams.limit ?? DEFAULT_LIMIT
        const after = yield* CursorPage.decode("operational-contexts", urlParams.cursor)
        return encodedJson(encodePage(yield* contexts.list(principal, after, limit)))
      })
    )
  })
)
