/**
 * Server sides of the contract's request-admission middleware: JSON bodies (sent as `application/json` or
 * `+json`) and role requirements.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Principal, type Role } from "@propline/contract/Authentication"
import { JsonBody } from "@propline/contract/JsonBody"
import { problem } from "@propline/contract/Problem"
import { BillingRole, BookingRole, IntegrationsRole, SigningRole } from "@propline/contract/Roles"
import { Effect, Layer, Option } from "effect"
import { hasBody } from "./RequestBody.js"

const json = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

/**
 * A request with a body must send it as JSON (`application/json` or `+json`), else 400 VALIDATION_FAILED at "";
 * a request without one (no Content-Length or 0, no Transfer-Encoding) needs no content type.
 */
export const JsonBodyLive = Layer.succeed(
  JsonBody,
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return
    // No body at all needs no content type: an operation without fields accepts it, the others refuse it.
    if (!hasBody(request)) return
    const contentType = request.headers["content-type"]
    if (contentType === undefined || !json.test(contentType.trim())) {
      return yield* Effect.fail(
        problem.validationFailed([{ path: "", message: "The body must be JSON, sent as Content-Type: application/json." }])
      )
    }
  })
)

/**
 * 403 unless the authenticated principal holds `role` (decisions 2). Runs inside Authentication, which provides
 * the Principal; read as an option so the middleware's type needs nothing the platform doesn't give it.
 */
const requireRole = (role: Role) =>
  Effect.flatMap(Effect.serviceOption(Principal), (principal) =>
    Option.isSome(principal) && principal.value.roles.includes(role)
      ? Effect.void
      : Effect.fail(problem.forbidden(`This operation needs the ${role} role, which the token does not carry.`))
  )

/** Server sides of the contract's role middlewares, one per role. */
export const RolesLive = Layer.mergeAll(
  Layer.succeed(BillingRole, requireRole("billing")),
  Layer.succeed(SigningRole, requireRole("signing")),
  Layer.succeed(BookingRole, requireRole("booking")),
  Layer.succeed(IntegrationsRole, requireRole("integrations"))
)
