/**
 * `X-Request-Id` on every response (decisions 4): a well-formed incoming id is kept (so a caller's own
 * correlation id flows into our audit log), anything else is replaced with a fresh UUID. The id is held in the
 * request's Context (`RequestLog.CurrentRequest`, inherited by the request's fibers), so services can write it to
 * the audit log and every log line of the request carries it (`platform/Logging`); the request's access-log line is
 * written here too (`platform/RequestLog`).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { accessLogged, requestStateOf } from "./RequestLog.js"

/** The current request's id; `null` outside a request. */
export const currentRequestId: Effect.Effect<string | null> = Effect.contextWith(
  (context: Context.Context<never>) => requestStateOf(context)?.id ?? null
)

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/

/** The id of `request`: its well-formed `X-Request-Id`, or a fresh UUID. */
const idOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const incoming = request.headers["x-request-id"]
  return incoming !== undefined && wellFormed.test(incoming) ? incoming : randomUUID()
}

/** A last change to every response of a host (its headers), made with the request id's header. */
export type ResponseFinisher = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
) => HttpServerResponse.HttpServerResponse

/**
 * Server middleware: assigns the id and echoes it on the response; `finish`, when given, changes every response
 * too (the API host's 401 challenge), in the same pre-response handler (one fiber-ref write per request, not two).
 */
export const requestIdWith = (finish?: ResponseFinisher) =>
  HttpMiddleware.make(<E, R>(app: HttpApp.Default<E, R>) =>
    Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const id = idOf(request)
      // The server sends the response inside `app`; headers are added by a pre-response handler, which also
      // covers responses made from failures.
      return Effect.zipRight(
        HttpApp.appendPreResponseHandler((request, response) => {
          const identified = HttpServerResponse.setHeader(response, "x-request-id", id)
          return Effect.succeed(finish === undefined ? identified : finish(request, identified))
        }),
        accessLogged(id, request, app)
      )
    })
  )

/** Server middleware: assigns the id and echoes it on the response. */
export const requestId = requestIdWith()

/**
 * {@link requestId} applied to an app itself rather than as the server's middleware (the identity host's
 * `IdentityHttpApp`): the same id, header and access-log line. The answer `app` gives gets the header at once, so a
 * request answered by `app` costs no pre-response handler (a FiberRef update, a copy of the fiber's FiberRefs map,
 * per request); only when `app` fails is the handler registered, for the answer the HTTP platform makes of the
 * failure, as {@link requestId} registers it for every request. Not for a server middleware, whose `app` has already
 * sent its answer when it returns it.
 */
export const requestIdInApp = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const id = idOf(request)
    // The header given once the access-log line is written, in the same step as it (`accessLogged`'s answer).
    return accessLogged(id, request, app, {
      onSuccess: (response) => Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", id)),
      onFailure: (cause) =>
        Effect.zipRight(
          HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", id))
          ),
          Effect.failCause(cause)
        )
    })
  })
