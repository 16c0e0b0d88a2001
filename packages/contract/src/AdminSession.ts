/**
 * Operator sign-in (issue 11): e-mail and password, a server-side session whose id travels in an HttpOnly cookie,
 * and a CSRF token every change must echo. Reading the session answers 401 without a valid cookie; signing out
 * needs the CSRF token like every change.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, Forbidden, Unauthorized } from "./Problem.js"
import { body } from "./Request.js"
import { Context, Schema } from "effect"
import { TooManyRequests } from "./AdminProblem.js"

/** The session cookie's name. */
export const SESSION_COOKIE = "propline_admin_session"
/** The header every change carries the session's CSRF token in. */
export const CSRF_HEADER = "x-csrf-token"

/** Who is signed in: the operator, their organization, and the session (for the CSRF check and sign-out). */
export interface OperatorShape {
  readonly operatorId: string
  readonly organizationId: string
  readonly email: string
  readonly name: string
  /** `owner`, `admin` or `read_only` (issue 25): what the console lets the operator change. */
  readonly role: "owner" | "admin" | "read_only"
  readonly sessionId: string
  readonly csrfToken: string
}

export class CurrentOperator extends Context.Tag("@propline/admin/CurrentOperator")<CurrentOperator, OperatorShape>() {}

/** The session cookie, checked on every operation but sign-in: 401 without a live session. */
export class OperatorAuthentication extends HttpApiMiddleware.Tag<OperatorAuthentication>()(
  "@propline/admin/OperatorAuthentication",
  {
    failure: Unauthorized,
    provides: CurrentOperator,
    security: {
      session: HttpApiSecurity.apiKey({ key: SESSION_COOKIE, in: "cookie" }).pipe(
        HttpApiSecurity.annotate(OpenApi.Description, "The session cookie set by sign-in (HttpOnly, SameSite=Lax).")
      )
    }
  }
) {}

/**
 * Every change (POST, PUT, PATCH, DELETE) carries the session's CSRF token in `X-CSRF-Token` (a synchronizer
 * token, OWASP); 403 when it is missing or wrong; reads pass. Groups add it before {@link OperatorAuthentication}
 * (the last middleware added runs first), so it runs after authentication and before the body is read.
 */
export class CsrfProtection extends HttpApiMiddleware.Tag<CsrfProtection>()("@propline/admin/CsrfProtection", {
  failure: Forbidden
}) {}

/**
 * A request that has a body sends it as JSON (`Content-Type: application/json`), else 400 VALIDATION_FAILED.
 * Added first, so it runs after authentication and the CSRF check: a caller without a session learns only 401.
 */
export class JsonPayload extends HttpApiMiddleware.Tag<JsonPayload>()("@propline/admin/JsonPayload", {
  failure: BadRequest
}) {}

/** Sign-in: the operator's e-mail address (any case) and password. */
export class SignInRequest extends Schema.Class<SignInRequest>("SignInRequest")(
  Schema.Struct({
    email: Schema.String.pipe(
      Schema.minLength(1, { message: () => "enter your e-mail address" }),
      Schema.maxLength(320, { message: () => "must be at most 320 characters" })
    ),
    password: Schema.String.pipe(
      Schema.minLength(1, { message: () => "enter your password" }),
      Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })
    )
  }).annotations({ parseOptions: { errors: "all" } }) // every failing field at once, so a form can mark them all
) {}

export class OperatorView extends Schema.Class<OperatorView>("OperatorView")({
  id: Schema.UUID,
  email: Schema.String,
  name: Schema.String,
  role: Schema.Literal("owner", "admin", "read_only")
}) {}

export class OrganizationSummary extends Schema.Class<OrganizationSummary>("OrganizationSummary")({
  id: Schema.UUID,
  name: Schema.String,
  country: Schema.String
}) {}

/** The signed-in session as the console sees it: who, where, and the CSRF token for its changes. */
export class SessionView extends Schema.Class<SessionView>("SessionView")({
  operator: OperatorView,
  organization: OrganizationSummary,
  csrfToken: Schema.String
}) {}

/**
 * The password was right and the operator has a second factor: the session waits (for 5 minutes) for a TOTP code
 * or a recovery code at `POST /api/session/second-factor`; it authenticates nothing until then.
 */
export class SecondFactorRequired extends Schema.Class<SecondFactorRequired>("SecondFactorRequired")({
  secondFactorRequired: Schema.Literal(true)
}) {}

/** The second step of sign-in: a 6-digit TOTP code or a recovery code. */
export class SecondFactorRequest extends Schema.Class<SecondFactorRequest>("SecondFactorRequest")(
  Schema.Struct({
    code: Schema.String.pipe(
      Schema.minLength(1, { message: () => "enter the code" }),
      Schema.maxLength(32, { message: () => "must be at most 32 characters" })
    )
  })
) {}

/**
 * Sign-in, the one operation without a session. A cross-site form can't send it (the body must be JSON, which a
 * form can't post without a CORS preflight this host never grants), and the host refuses a foreign `Origin`.
 */
export class SignInGroup extends HttpApiGroup.make("signIn")
  .add(
    HttpApiEndpoint.post("signIn", "/api/session")
      .setPayload(body(SignInRequest))
      .addSuccess(SessionView, { status: 201 })
      .addSuccess(SecondFactorRequired, { status: 201 })
      .addError(Unauthorized)
      .addError(Forbidden)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Signs in and sets the session cookie; an operator with a second factor gets `{ secondFactorRequired: true }` " +
          "and a session that waits for the code (`POST /api/session/second-factor`). " +
          "401 for a wrong e-mail or password (the answer does not say which); " +
          "429 with Retry-After while this e-mail address waits at this client address after repeated failures (growing " +
          "waits, counted per address and client, so failures elsewhere never lock the operator out); 403 from a foreign Origin."
      )
  )
  .add(
    HttpApiEndpoint.post("secondFactor", "/api/session/second-factor")
      .setPayload(body(SecondFactorRequest))
      .addSuccess(SessionView, { status: 201 })
      .addError(Unauthorized)
      .addError(Forbidden)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Completes a sign-in that waits for the second factor: a TOTP code (each 30-second step accepted once) or " +
          "an unused recovery code; the session then gets a new token. 401 for a wrong code or no waiting session; " +
          "429 with Retry-After after repeated wrong codes (throttled like sign-in); 403 from a foreign Origin."
      )
  )
  .middleware(JsonPayload) {}

/** The signed-in session: read it (the console's first call), or sign out. */
export class SessionGroup extends HttpApiGroup.make("session")
  .add(HttpApiEndpoint.get("current", "/api/session").addSuccess(SessionView, { status: 200 }))
  .add(
    HttpApiEndpoint.del("signOut", "/api/session")
      .addSuccess(Schema.Void, { status: 204 })
      .annotate(OpenApi.Description, "Ends the session and clears the cookie.")
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
