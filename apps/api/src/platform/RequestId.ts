/**
 * `X-Request-Id` on every response (decisions 4): a well-formed incoming id is kept (so a caller's own
 * correlation id flows into our audit log), anything else is replaced with a fresh UUID. The id is held in a
 * FiberRef for the request's fibers, so services can write it to the audit log and every log line of the request
 * carries it (`platform/Logging`); the request's access-log line is written here too (`platform/RequestLog`).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, FiberRef } from "effect"
import { randomUUID } from "node:crypto"
import { accessLogged } from "./RequestLog.js"

/** The current request's id; `null` outside a request. */
export const currentRequestId = FiberRef.unsafeMake<string | null>(null)

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/

/** Server middleware: assigns the id and echoes it on the response. */
export const requestId = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const incoming = request.headers["x-request-id"]
    const id = incoming !== undefined && wellFormed.test(incoming) ? incoming : randomUUID()
    // The server sends the response inside `app`; headers are added by a pre-response handler, which also
    // covers responses made from failures.
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", id))
    )
    return yield* Effect.locally(accessLogged(id, request, app), currentRequestId, id)
  })
)
