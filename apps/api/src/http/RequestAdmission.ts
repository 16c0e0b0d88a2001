/** Server sides of the contract's request-admission middleware: JSON bodies and role requirements. */
/** A body must be sent as `application/json` (or `+json`). */
import { HttpServerRequest } from "@effect/platform"
import { Principal, type Role } from "@propline/contract/Authentication"
import { JsonBody } from "@propline/contract/JsonBody"
import { problem } from "@propline/contract/Problem"
import { BillingRole } from "@propline/contract/Roles"
import { Effect, Layer, Option } from "effect"

const json = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

export const JsonBodyLive = Layer.succeed(
  JsonBody,
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return
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

/** Server side of the contract's BillingRole middleware. */
export const BillingRoleLive = Layer.succeed(BillingRole, requireRole("billing"))
