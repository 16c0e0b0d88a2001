/**
 * Sign-in, the current session and sign-out. The session cookie is `HttpOnly; SameSite=Lax; Path=/`, `Secure` when
 * the console's address is https, and lives at most as long as a session can ({@link SESSION_MAX_SECONDS}).
 *
 * Sign-in answers 401 (wrong address or password, the same body either way), 403 (foreign `Origin`) or 429
 * `Too Many Requests` (RFC 6585 §4) while the pair (e-mail address, client address) waits, with `Retry-After` in
 * whole seconds (RFC 9110 §10.2.3) and the same seconds in the problem's `retryAfterSeconds`. The client address is
 * the socket's peer, or `X-Forwarded-For` read behind `TRUSTED_PROXIES` (`platform/ClientAddress`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AdminApi } from "@propline/contract/AdminApi"
import { tooManyRequests } from "@propline/contract/AdminProblem"
import {
  CurrentOperator,
  OperatorAuthentication,
  OperatorView,
  OrganizationSummary,
  SessionView
} from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import { Duration, Effect, Either } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { clientAddress, trustedProxies } from "../platform/ClientAddress.js"
import { isForeignOrigin, originOf } from "./OperatorMiddleware.js"
import { type OperatorSession, OperatorSessions, SESSION_MAX_SECONDS } from "./OperatorSessions.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"

const sessionView = (session: OperatorSession) =>
  Effect.gen(function* () {
    const organization = yield* Effect.flatMap(OrganizationReadRepository, (views) => views.organization(session.organizationId)).pipe(
      Effect.orDie
    )
    return new SessionView({
      operator: new OperatorView({ id: session.operatorId, email: session.email, name: session.name }),
      organization: new OrganizationSummary(organization),
      csrfToken: session.csrfToken
    })
  })

const sessionCookie = OperatorAuthentication.security.session

export const SignInHandlers = HttpApiBuilder.group(AdminApi, "signIn", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const sessions = yield* OperatorSessions
    const adminOrigin = originOf(config.adminUrl)
    const secure = config.adminUrl.startsWith("https:")
    const trusted = yield* Either.match(trustedProxies(config.trustedProxies), {
      onLeft: (reason) => Effect.dieMessage(`TRUSTED_PROXIES: ${reason}`),
      onRight: Effect.succeed
    })
    return handlers.handle("signIn", ({ payload }) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (isForeignOrigin(request, adminOrigin)) {
          return yield* Effect.fail(problem.forbidden("Sign in from the console's own address."))
        }
        const { token, session } = yield* sessions
          .signIn({
            email: payload.email,
            password: payload.password,
            clientAddress: clientAddress(
              request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
              request.headers["x-forwarded-for"],
              trusted
            )
          })
          .pipe(
            Effect.catchTags({
              InvalidCredentials: () => Effect.fail(problem.unauthorized("The e-mail address or the password is wrong.")),
              SignInThrottled: (throttled) =>
                Effect.zipRight(
                  HttpApp.appendPreResponseHandler((_request, response) =>
                    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(throttled.retryAfterSeconds)))
                  ),
                  Effect.fail(tooManyRequests(throttled.retryAfterSeconds))
                )
            })
          )
        yield* HttpApiBuilder.securitySetCookie(sessionCookie, token, {
          secure,
          httpOnly: true,
          sameSite: "lax",
          path: "/",
          maxAge: Duration.seconds(SESSION_MAX_SECONDS)
        })
        return yield* sessionView(session)
      })
    )
  })
)

export const SessionHandlers = HttpApiBuilder.group(AdminApi, "session", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const sessions = yield* OperatorSessions
    const secure = config.adminUrl.startsWith("https:")
    return handlers
      .handle("current", () => Effect.flatMap(CurrentOperator, sessionView))
      .handle("signOut", () =>
        Effect.gen(function* () {
          yield* sessions.signOut(yield* CurrentOperator)
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, "", {
            secure,
            httpOnly: true,
            sameSite: "lax",
            path: "/",
            maxAge: Duration.zero
          })
        })
      )
  })
)
