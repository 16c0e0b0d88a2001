/**
 * Bearer authentication of the API host (spec 5, RFC 6750): the `Authorization` header must be
 * `Bearer <token>` and the token a valid access token of our identity host; otherwise 401 with a problem body.
 * The token is verified through {@link AccessTokenVerification}, which identity provides (`AccessTokenVerifier`
 * caches results until the token expires).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Authentication } from "@propline/contract/Authentication"
import { problem } from "@propline/contract/Problem"
import { Effect, Layer, Redacted } from "effect"
import { AccessTokenVerification } from "./AccessTokenVerification.js"
import { identify } from "./RequestLog.js"

const bearerHeader = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const verifier = yield* AccessTokenVerification
    return Authentication.of({
      bearer: (_decoded) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers["authorization"]
          if (header === undefined || header === "") {
            return yield* Effect.fail(problem.unauthorized("The request has no access token: send Authorization: Bearer <token>."))
          }
          const match = bearerHeader.exec(header)
          if (match === null) {
            return yield* Effect.fail(problem.unauthorized("The Authorization header is not a Bearer token."))
          }
          return yield* verifier
            .verify(Redacted.value(Redacted.make(match[1]!)))
            .pipe(
              Effect.mapError(() => problem.unauthorized("The access token is expired or not valid.")),
              Effect.tap((principal) => identify(principal.organizationId, principal.subject))
            )
        })
    })
  })
)
