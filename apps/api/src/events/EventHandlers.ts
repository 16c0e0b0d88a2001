/**
 * Handlers of the events group (issue 22, item 6), through {@link EventService}. The envelopes are our own stored
 * JSON, written as they are (`JSON.stringify`), without decoding them into the contract's classes first.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { encodedJson } from "../platform/JsonResponse.js"
import { toProblem } from "../platform/Problems.js"
import { EventService, FEED_CURSOR } from "./EventService.js"

export const EventHandlers = HttpApiBuilder.group(IntegrationApi, "events", (handlers) =>
  Effect.gen(function* () {
    const events = yield* EventService
    return handlers
      .handle("listEvents", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode(FEED_CURSOR, urlParams.cursor)
          const types = urlParams.types === undefined ? undefined : [...new Set(urlParams.types.split(","))]
          const page = yield* events.list(principal, types, urlParams.cursor, after, urlParams.limit ?? DEFAULT_LIMIT)
          return encodedJson(JSON.stringify(page))
        })
      )
      .handle("getEvent", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const envelope = yield* events.get(principal, path.eventId).pipe(Effect.mapError(toProblem))
          return encodedJson(JSON.stringify(envelope))
        })
      )
  })
)
