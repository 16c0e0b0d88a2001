/**
 * The API host ({base_url}): the contract's HttpApi with its handlers, `/openapi.json` (OpenAPI 3.1, servers set
 * to the configured public address) and a rendered reference at `/docs`. Every response carries X-Request-Id;
 * a 401 carries `WWW-Authenticate: Bearer` (RFC 6750 section 3).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { IntegrationApi } from "@propline/contract/Api"
import { Authentication } from "@propline/contract/Authentication"
import { JsonBody } from "@propline/contract/JsonBody"
import { BillingRole, BookingRole, IntegrationsRole, SigningRole } from "@propline/contract/Roles"
import * as Db from "@propline/db/Db"
import { openApiDocument } from "@propline/contract/OpenApiDocument"
import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { AppConfig } from "./platform/AppConfig.js"
import { BillingHandlers } from "./billing/BillingHandlers.js"
import { BillingService } from "./billing/BillingService.js"
import { BookingHandlers } from "./booking/BookingHandlers.js"
import { BookingService } from "./booking/BookingService.js"
import { CustomerRegisterLive } from "./booking/CompanyRegistry.js"
import { ContextService } from "./contexts/ContextService.js"
import { OperationalContextHandlers } from "./contexts/OperationalContextHandlers.js"
import { EventHandlers } from "./events/EventHandlers.js"
import { EventService } from "./events/EventService.js"
import { IntegrationHandlers } from "./integrations/IntegrationHandlers.js"
import { IntegrationService } from "./integrations/IntegrationService.js"
import { AuthenticationLive } from "./platform/Authentication.js"
import { ProblemsMiddleware } from "./platform/Problems.js"
import { JsonBodyLive, RolesLive } from "./platform/RequestAdmission.js"
import { requestIdWith, type ResponseFinisher } from "./platform/RequestId.js"
import { buildOnly } from "./platform/ServeOnly.js"
import { SigningFileRoutes } from "./signing/SigningFileRoutes.js"
import { SigningHandlers } from "./signing/SigningHandlers.js"
import { SigningService } from "./signing/SigningService.js"

const OpenApiJson = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const document = JSON.stringify(openApiDocument(config.baseUrl, config.authUrl))
    yield* router.get(
      "/openapi.json",
      HttpServerResponse.text(document, { contentType: "application/json" }).pipe(
        Effect.map(HttpServerResponse.setHeader("cache-control", "public, max-age=300"))
      )
    )
  })
)

/** `<` and the line separators escaped, so a JSON text can sit inside a `<script>` element. */
const scriptSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

/**
 * The reference page at `/docs`: Scalar's page (as `@effect/platform/HttpApiScalar` renders it) with the OpenAPI
 * document inline, and Scalar's standalone script at `/docs/scalar.js`. The script (6 MB, shipped inside
 * `@effect/platform`) is imported on the first request for it rather than with the host: held as a module and a
 * string it would add ~13 MiB to every instance's heap for a page integrators open now and then.
 */
const require = createRequire(import.meta.url)
const ReferencePage = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    // Rendered on the first request for it, then kept: the page inlines the whole OpenAPI document (~1.1 MiB), which
    // an instance that is never asked for `/docs` need not hold (docs/performance.md, issue 27).
    const page = yield* Effect.cached(
      Effect.sync(() => {
        const document = openApiDocument(config.baseUrl, config.authUrl)
        const title = document.info.title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
        return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">${scriptSafeJson(document)}</script>
    <script>document.getElementById("api-reference").dataset.configuration = ${scriptSafeJson(JSON.stringify({ _integration: "html" }))}</script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`
      })
    )
    const script = yield* Effect.cached(
      Effect.promise(
        () =>
          import(
            pathToFileURL(join(dirname(require.resolve("@effect/platform/HttpApiScalar")), "internal/httpApiScalar.js")).href
          ) as Promise<{ readonly javascript: string }>
      ).pipe(Effect.map((module) => module.javascript))
    )
    yield* router.get("/docs", Effect.map(page, (html) => HttpServerResponse.html(html)))
    yield* router.get(
      "/docs/scalar.js",
      Effect.map(script, (javascript) =>
        HttpServerResponse.text(javascript, {
          contentType: "text/javascript; charset=utf-8",
          headers: { "cache-control": "public, max-age=3600" }
        })
      )
    )
  })
)

/**
 * Adds the RFC 6750 challenge to every 401: without an error code when the request carried no credentials
 * (section 3.1), `invalid_token` otherwise.
 */
const bearerChallenge: ResponseFinisher = (request, response) =>
  response.status === 401
    ? HttpServerResponse.setHeader(
        response,
        "www-authenticate",
        request.headers["authorization"] === undefined ? 'Bearer realm="api"' : 'Bearer realm="api", error="invalid_token"'
      )
    : response

/**
 * The API layer: the contract, one handler group and one service per capability, and the kernel's middleware
 * (authentication, roles, JSON bodies, problem details); needs Db, AppConfig and AccessTokenVerification
 * (identity's `AccessTokenVerifier`, in `IdentityLive`).
 */
export const ApiLive = HttpApiBuilder.api(IntegrationApi).pipe(
  Layer.provide([
    buildOnly(OperationalContextHandlers, [Db.Db, Authentication, ContextService]),
    buildOnly(BillingHandlers, [Db.Db, Authentication, JsonBody, BillingRole, BillingService]),
    buildOnly(BookingHandlers, [Db.Db, Authentication, JsonBody, BookingRole, BookingService]),
    buildOnly(SigningHandlers, [Db.Db, Authentication, JsonBody, SigningRole, SigningService]),
    buildOnly(IntegrationHandlers, [Db.Db, Authentication, JsonBody, IntegrationsRole, IntegrationService]),
    buildOnly(EventHandlers, [Db.Db, Authentication, EventService])
  ]),
  Layer.provide([ContextService.Default, BillingService.Default, BookingService.Default, SigningService.Default]),
  Layer.provide([IntegrationService.Default, EventService.Default]),
  Layer.provide(CustomerRegisterLive),
  Layer.provide([AuthenticationLive, JsonBodyLive, RolesLive, ProblemsMiddleware])
)

/** Routes beside the API: the OpenAPI document and the reference page. */
export const DocsLive = Layer.mergeAll(OpenApiJson, ReferencePage)

/** Routes beside the API authorized by a signed address, not a token: the signed-PDF upload and disk downloads. */
export const FileRoutesLive = SigningFileRoutes.pipe(Layer.provide(SigningService.Default))

const withRequestIdAndChallenge = requestIdWith(bearerChallenge)

/** Server middleware of the API host: X-Request-Id outermost, with the 401 challenge. */
export const apiHostMiddleware = <E, R>(app: HttpApp.Default<E, R>) => withRequestIdAndChallenge(app)
