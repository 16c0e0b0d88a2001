/**
 * Problem details for everything the API host answers (spec 2.3, 7.1; decisions 4): domain refusals, missing
 * records and roles, and — as an HttpApi-level middleware — every malformed input the platform rejects before a
 * handler runs (schema decode failures, bodies that aren't JSON, unknown routes). A database that can't be had (no
 * pooled connection in time, or unreachable: `@propline/db/DatabaseUnavailable`) is a 503 problem with `Retry-After`
 * (`platform/Unavailable`). Anything else unexpected is a 500 problem carrying the request id, and is logged; nothing a
 * client sends reaches that branch.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpApp from "@effect/platform/HttpApp"
import { IntegrationApi } from "@propline/contract/Api"
import { type BadRequest, type Conflict, type NotFound, problem } from "@propline/contract/Problem"
import { readableIssues } from "@propline/contract/ValidationIssues"
import { databaseUnavailable } from "@propline/db/DatabaseUnavailable"
import type { RefusalShape } from "@propline/refusal/Refusal"
import { Cause, Effect, Option } from "effect"
import { RecordNotFound } from "./RecordNotFound.js"
import { currentRequestId } from "./RequestId.js"
import { unavailable, unavailableIn } from "./Unavailable.js"
import { BodyRejected, MAX_BODY_BYTES, MAX_BODY_DEPTH, checkBody } from "./RequestBody.js"

/**
 * A refusal of any package as its problem: the refusal's own status (400 or 409, decisions 4), `code` the spec's,
 * `detail` the refusal's sentence, and its `issues` when it is about fields (`VALIDATION_FAILED`,
 * `INTEGRATIONS_CONFIGURATION_INVALID`, `INTEGRATIONS_APP_INVALID`; spec 7.1).
 */
export const fromRefusal = (refusal: RefusalShape): BadRequest | Conflict =>
  refusal.status === 409
    ? problem.conflict(refusal.code, refusal.detail)
    : problem.badRequest(refusal.code, refusal.detail, refusal.issues)

/**
 * The one problem mapping, for the API host and the console alike (they answer the same problem classes): what a
 * service can fail with, as the problem a handler answers — 404 for a record that is missing or outside the
 * caller's reach (`code` only where spec 7.3 lists one for that kind, {@link RecordNotFound}), else the refusal's
 * problem ({@link fromRefusal}). Handlers call services as `service.op(…).pipe(Effect.mapError(toProblem))`.
 */
export const toProblem = (error: RefusalShape | RecordNotFound): BadRequest | Conflict | NotFound =>
  error instanceof RecordNotFound ? problem.notFound(error.detail, error.code) : fromRefusal(error)

const bodyProblem = (rejected: BodyRejected) => {
  switch (rejected.reason) {
    case "too_large":
      return problem.payloadTooLarge(`The body is larger than ${MAX_BODY_BYTES} bytes.`)
    case "invalid_utf8":
      return problem.validationFailed([{ path: "", message: "The body is not valid UTF-8." }])
    case "invalid_json":
      return problem.validationFailed([{ path: "", message: "The body is not valid JSON." }])
    case "too_deep":
      return problem.validationFailed([
        { path: "", message: `The body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep.` }
      ])
    case "unreadable":
      return problem.validationFailed([{ path: "", message: "The body could not be read to its end." }])
  }
}

const isBodyDecodeDefect = (defect: unknown): boolean =>
  HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.reason === "Decode"


/**
 * The HttpApi-level middleware of both HttpApis (the API host's and the admin host's): the request's body is read
 * by {@link checkBody} (bounded, strict UTF-8); platform decode failures become VALIDATION_FAILED with JSON
 * Pointer paths; a body that is not JSON is VALIDATION_FAILED at ""; an unknown route is a 404 problem; a database
 * that can't be had is a 503 problem ({@link unavailable}); any other defect is a 500 problem.
 */
export const withProblemDetails = (app: HttpApp.Default) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Only a request that may carry a body needs the checked reader (a GET's readers would be made for nothing).
    if (request.method !== "GET" && request.method !== "HEAD") checkBody(request)
    return yield* app.pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error = failure.value as unknown
          if (error instanceof HttpApiError.HttpApiDecodeError) {
            return Effect.fail(problem.validationFailed(readableIssues(error.issues)))
          }
          if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
            return Effect.fail(problem.notFound(`No operation ${request.method} ${request.url.split("?")[0]}.`))
          }
          const why = databaseUnavailable(error)
          if (why !== undefined) return Effect.flatMap(unavailable(why), ({ detail }) => Effect.fail(problem.serviceUnavailable(detail)))
          return Effect.failCause(cause)
        }
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && defect.value instanceof BodyRejected) return Effect.fail(bodyProblem(defect.value))
        if (Option.isSome(defect) && isBodyDecodeDefect(defect.value)) {
          return Effect.fail(problem.validationFailed([{ path: "", message: "The body is not valid JSON." }]))
        }
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
        const why = unavailableIn(cause)
        if (why !== undefined) {
          return Effect.flatMap(unavailable(why), ({ detail }) => Effect.fail(problem.serviceUnavailable(detail)))
        }
        return Effect.flatMap(currentRequestId, (requestId) =>
          Effect.zipRight(
            Effect.logError("unexpected failure", cause),
            Effect.fail(problem.internal(`The service failed. Request id: ${requestId ?? "unknown"}.`))
          )
        )
      })
    )
  })

/**
 * {@link withProblemDetails} as the API host's HttpApi-level middleware. It needs nothing of the layer's context (the
 * request is the request's, the logger a fiber ref), so it runs without `withContext`, which would merge the layer's
 * whole context into every request's (a copy of both maps and an `Effect.locally` per request).
 */
export const ProblemsMiddleware = HttpApiBuilder.middleware(IntegrationApi, withProblemDetails)
