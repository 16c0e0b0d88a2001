/**
 * Server sides of the admin API's middleware: the session cookie (401), the CSRF token of every change (403) and
 * JSON bodies (400). A read-only operator's change is 403 beside the CSRF check (`OperatorRoles.ts`). The CSRF check compares the `X-CSRF-Token` header with the session's token in constant time,
 * and refuses a change whose `Origin` is not the console's own address.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { CSRF_HEADER, CsrfProtection, CurrentOperator, JsonPayload, OperatorAuthentication } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import * as Db from "@propline/db/Db"
import { Effect, Layer, Option, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import { hasBody } from "../platform/RequestBody.js"
import { identify } from "../platform/RequestLog.js"
import { changeAllowed, pathnameOf } from "./OperatorRoles.js"
import { OperatorSessions } from "./OperatorSessions.js"

export const OperatorAuthenticationLive = Layer.effect(
  OperatorAuthentication,
  Effect.gen(function* () {
    const sessions = yield* OperatorSessions
    const db = yield* Db.Db
    return OperatorAuthentication.of({
      session: (cookie) =>
        Effect.flatMap(
          Redacted.value(cookie) === "" ? Effect.succeed(Option.none()) : sessions.authenticate(Redacted.value(cookie)),
          Option.match({
            onNone: () => Effect.fail(problem.unauthorized("Sign in first: there is no live session.")),
            onSome: (session) => Effect.as(identify(session.organizationId, session.operatorId), session)
          })
        ).pipe(Effect.provideService(Db.Db, db))
    })
  })
)

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

const sameToken = (sent: string, expected: string): boolean => {
  const a = Buffer.from(sent, "utf8")
  const b = Buffer.from(expected, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The origin (scheme, host, port) of the console's public address. */
export const originOf = (url: string): string => new URL(url).origin

/** A request from another origin: its `Origin` header names one other than the console's. */
export const isForeignOrigin = (request: HttpServerRequest.HttpServerRequest, adminOrigin: string): boolean => {
  const origin = request.headers["origin"]
  return origin !== undefined && origin !== adminOrigin
}

export const CsrfProtectionLive = Layer.effect(
  CsrfProtection,
  Effect.map(AppConfig, (config) => {
    const adminOrigin = originOf(config.adminUrl)
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (safeMethods.has(request.method)) return
      const operator = yield* Effect.serviceOption(CurrentOperator)
      const sent = request.headers[CSRF_HEADER]
      if (
        Option.isNone(operator) ||
        sent === undefined ||
        !sameToken(sent, operator.value.csrfToken) ||
        isForeignOrigin(request, adminOrigin)
      ) {
        return yield* Effect.fail(
          problem.forbidden("The request has no valid CSRF token: send the session's token in X-CSRF-Token.")
        )
      }
      if (!changeAllowed(operator.value.role, request.method, pathnameOf(request.url))) {
        return yield* Effect.fail(problem.forbidden("A read-only operator can't make changes: ask an owner or an admin."))
      }
    })
  })
)

const json = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

export const JsonPayloadLive = Layer.succeed(
  JsonPayload,
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!hasBody(request)) return
    const contentType = request.headers["content-type"]
    if (contentType === undefined || !json.test(contentType.trim())) {
      return yield* Effect.fail(
        problem.validationFailed([{ path: "", message: "The body must be JSON, sent as Content-Type: application/json." }])
      )
    }
  })
)
