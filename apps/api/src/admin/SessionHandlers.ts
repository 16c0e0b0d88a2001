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
  SESSION_COOKIE,
  OperatorView,
  OrganizationSummary,
  SecondFactorRequired,
  SessionView
} from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import { Duration, Effect, Either } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { clientAddress, trustedProxies } from "../platform/ClientAddress.js"
import { isForeignOrigin, originOf } from "./OperatorMiddleware.js"
import { type OperatorSession, OperatorSessions, SECOND_FACTOR_SECONDS, SESSION_MAX_SECONDS } from "./OperatorSessions.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"

const sessionView = (session: OperatorSession) =>
  Effect.gen(function* () {
    const organization = yield* Effect.flatMap(OrganizationReadRepository, (views) => views.organization(session.organizationId)).pipe(
      Effect.orDie
    )
    return new SessionView({
      operator: new OperatorView({ id: session.operatorId, email: session.email, name: session.name, role: session.role }),
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
    const cookieOptions = (maxAge: Duration.Duration) => ({ secure, httpOnly: true, sameSite: "lax" as const, path: "/", maxAge })
    const clientOf = (request: HttpServerRequest.HttpServerRequest) =>
      clientAddress(request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined, request.headers["x-forwarded-for"], trusted)
    const fromConsole = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isForeignOrigin(request, adminOrigin) ? Effect.fail(problem.forbidden("Sign in from the console's own address.")) : Effect.succeed(request)
    )
    const refusals = {
      InvalidCredentials: () => Effect.fail(problem.unauthorized("The e-mail address or the password is wrong.")),
      SignInThrottled: (throttled: { readonly retryAfterSeconds: number }) =>
        Effect.zipRight(
          HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(throttled.retryAfterSeconds)))
          ),
          Effect.fail(tooManyRequests(throttled.retryAfterSeconds))
        )
    }
    return handlers
      .handle("signIn", ({ payload }) =>
        Effect.gen(function* () {
          const request = yield* fromConsole
          const result = yield* sessions
            .signIn({ email: payload.email, password: payload.password, clientAddress: clientOf(request) })
            .pipe(Effect.catchTags(refusals))
          if (result._tag === "SecondFactorRequired") {
            yield* HttpApiBuilder.securitySetCookie(sessionCookie, result.token, cookieOptions(Duration.seconds(SECOND_FACTOR_SECONDS)))
            return new SecondFactorRequired({ secondFactorRequired: true })
          }
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, result.token, cookieOptions(Duration.seconds(SESSION_MAX_SECONDS)))
          return yield* sessionView(result.session)
        })
      )
      .handle("secondFactor", ({ payload }) =>
        Effect.gen(function* () {
          const request = yield* fromConsole
          const token = request.cookies[SESSION_COOKIE] ?? ""
          const { token: fresh, session } = yield* sessions
            .completeSecondFactor({ token, code: payload.code, clientAddress: clientOf(request) })
            .pipe(
              Effect.catchTags({
                ...refusals,
                InvalidCredentials: () => Effect.fail(problem.unauthorized("The code is wrong, was already used, or the sign-in expired."))
              })
            )
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, fresh, cookieOptions(Duration.seconds(SESSION_MAX_SECONDS)))
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
