/** Server side of the contract's JsonBody middleware: a body must be sent as `application/json` (or `+json`). */
import { HttpServerRequest } from "@effect/platform"
import { JsonBody } from "@propline/contract/JsonBody"
import { problem } from "@propline/contract/Problem"
import { Effect, Layer } from "effect"

const json = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

export const JsonBodyLive = Layer.succeed(
  JsonBody,
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !json.test(contentType.trim())) {
      return yield* Effect.fail(
        problem.validationFailed([{ path: "", message: "The body must be JSON, sent as Content-Type: application/json." }])
      )
    }
  })
)
