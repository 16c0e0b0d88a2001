/**
 * The admin host (issue 11) on ADMIN_PORT: the operators' HttpApi (`@propline/contract/AdminApi`) under `/api/` and
 * the console's front end for every other path. Its HttpApi is built in a memo map of its own: the platform's
 * router and API-middleware layers are memoized per build, and sharing them with the API host would put each
 * host's routes on the other.
 *
 * Every response carries X-Request-Id and the console's security headers (a strict Content-Security-Policy, no
 * framing, no MIME sniffing); API answers are `Cache-Control: no-store`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AdminApi } from "@propline/contract/AdminApi"
import { Effect, Layer } from "effect"
import type { AppConfigShape } from "../platform/AppConfig.js"
import { BillingOperatorService } from "../billing/BillingOperatorService.js"
import { BookingOperatorService } from "../booking/BookingOperatorService.js"
import { ApplicationService } from "../identity/ApplicationService.js"
import { ConnectorAppService } from "../identity/ConnectorAppService.js"
import { InstallationServiceLive } from "../integrations/InstallationRemovalLive.js"
import { IntegrationOperatorService } from "../integrations/IntegrationOperatorService.js"
import { SigningOperatorService } from "../signing/SigningOperatorService.js"
import { withProblemDetails } from "../platform/Problems.js"
import { healthRoutes } from "../platform/Health.js"
import { requestId } from "../platform/RequestId.js"
import { Shutdown } from "../platform/Shutdown.js"
import { ApplicationAdminHandlers } from "../identity/ApplicationAdminHandlers.js"
import { ApplicationReadRepository } from "../identity/ApplicationReadRepository.js"
import { AuditLogAdminHandlers } from "../audit/AuditLogAdminHandlers.js"
import { AuditLogReadRepository } from "../audit/AuditLogReadRepository.js"
import { BillingAdminHandlers } from "../billing/BillingAdminHandlers.js"
import { BillingReadRepository } from "../billing/BillingReadRepository.js"
import { BookingAdminHandlers } from "../booking/BookingAdminHandlers.js"
import { BookingReadRepository } from "../booking/BookingReadRepository.js"
import { ConnectorAppAdminHandlers } from "../identity/ConnectorAppAdminHandlers.js"
import { ConnectorAppReadRepository } from "../identity/ConnectorAppReadRepository.js"
import { CustomerAdminHandlers } from "../tenancy/CustomerAdminHandlers.js"
import { CustomerReadRepository } from "../tenancy/CustomerReadRepository.js"
import { IntegrationsAdminHandlers } from "../integrations/IntegrationsAdminHandlers.js"
import { CsrfProtectionLive, JsonPayloadLive, OperatorAuthenticationLive } from "./OperatorMiddleware.js"
import { OperatorSessions } from "./OperatorSessions.js"
import { OrganizationAdminHandlers } from "../contexts/OrganizationAdminHandlers.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { OrganizationRecordCounts } from "../contexts/OrganizationRecordCounts.js"
import { applicationCountOf } from "../identity/ApplicationRepository.js"
import { OperatorRepository, operatorCountOf } from "../identity/OperatorRepository.js"
import { KeyEncryption } from "../platform/KeyEncryption.js"
import { resealTotpSecrets } from "./SecondFactor.js"
import { contractCountOf } from "../tenancy/ContractRepository.js"
import { customerCountOf } from "../tenancy/CustomerRepository.js"
import { SessionHandlers, SignInHandlers } from "./SessionHandlers.js"
import { SigningAdminHandlers } from "../signing/SigningAdminHandlers.js"
import { WebhookAdminHandlers } from "../webhooks/WebhookAdminHandlers.js"
import { WebhookReadRepository } from "../webhooks/WebhookReadRepository.js"
import { EndpointSecretsResealed } from "../webhooks/WebhookSecrets.js"
import { WebhookOperatorLive, WebhookQueueLive } from "../webhooks/WebhooksLive.js"
import { staticAssets } from "./StaticAssets.js"
import { BillingChartsAdminHandlers } from "../billing/BillingChartsAdminHandlers.js"
import { BillingChartsReadRepository } from "../billing/BillingChartsReadRepository.js"
import { BookingCalendarAdminHandlers } from "../booking/BookingCalendarAdminHandlers.js"
import { BookingCalendarReadRepository } from "../booking/BookingCalendarReadRepository.js"
import { OperatorTeam } from "./OperatorTeam.js"
import { AccountHandlers, InvitationHandlers, TeamHandlers } from "./TeamHandlers.js"

/** The handlers of every group; a capability's operator pages add theirs here. */
const AdminGroups = Layer.mergeAll(
  SignInHandlers,
  SessionHandlers,
  OrganizationAdminHandlers,
  CustomerAdminHandlers,
  ApplicationAdminHandlers,
  ConnectorAppAdminHandlers,
  IntegrationsAdminHandlers,
  AuditLogAdminHandlers,
  BillingAdminHandlers,
  BookingAdminHandlers,
  SigningAdminHandlers,
  WebhookAdminHandlers,
  TeamHandlers,
  InvitationHandlers,
  AccountHandlers,
  BillingChartsAdminHandlers,
  BookingCalendarAdminHandlers
)

/** The organization page's counts, each written by its table's owner (contexts' port). */
const OrganizationRecordCountsLive = Layer.succeed(OrganizationRecordCounts, {
  customers: customerCountOf,
  contracts: contractCountOf,
  applications: applicationCountOf,
  operators: operatorCountOf
})

/**
 * At start, the operators' TOTP secrets sealed under an older key-encryption key re-sealed under the primary one
 * (rotating `KEY_ENCRYPTION_KEYS`, docs/operations.md "Keys at rest"); a key list that can't open one refuses the start.
 */
const TotpSecretsResealed = Layer.effectDiscard(
  Effect.flatMap(KeyEncryption, resealTotpSecrets).pipe(
    Effect.tap((written) => (written === 0 ? Effect.void : Effect.logInfo(`re-sealed the TOTP secrets of ${written} operators`)))
  )
).pipe(Layer.provide(OperatorRepository.Default))

/** The services the console's handlers call; a capability's operator service is added here. */
const AdminServices = Layer.mergeAll(
  TotpSecretsResealed,
  // The endpoints' secrets too (webhooks/WebhookSecrets.ts), in a layout whose worker runs apart; row locks make
  // a worker starting at the same time wait, then write nothing.
  EndpointSecretsResealed,
  OperatorSessions.Default,
  OperatorTeam.Default,
  BillingChartsReadRepository.Default,
  BookingCalendarReadRepository.Default,
  OrganizationReadRepository.Default.pipe(Layer.provide(OrganizationRecordCountsLive)),
  CustomerReadRepository.Default,
  ApplicationReadRepository.Default,
  ConnectorAppReadRepository.Default,
  AuditLogReadRepository.Default,
  BillingReadRepository.Default,
  BookingReadRepository.Default,
  BookingOperatorService.Default,
  ApplicationService.Default,
  ConnectorAppService.Default,
  InstallationServiceLive,
  IntegrationOperatorService.Default,
  SigningOperatorService.Default,
  BillingOperatorService.Default,
  WebhookReadRepository.Default,
  WebhookOperatorLive.pipe(Layer.provide(WebhookQueueLive))
)

/** The admin HttpApi with its handlers, middleware and problem mapping; outputs what `httpApp` needs. */
const AdminApiLive = Layer.mergeAll(
  HttpApiBuilder.api(AdminApi).pipe(Layer.provide(AdminGroups)),
  // Without `withContext`, as the API host's (`platform/Problems`): it needs nothing of the layer's context.
  HttpApiBuilder.middleware(AdminApi, withProblemDetails),
  HttpApiBuilder.Router.Live,
  HttpApiBuilder.Middleware.layer
).pipe(Layer.provide([OperatorAuthenticationLive, CsrfProtectionLive, JsonPayloadLive]))

/** The admin API as an HttpApp, built in its own memo map (see the module comment). */
const adminApiApp = Effect.gen(function* () {
  const context = yield* Layer.buildWithMemoMap(AdminApiLive, yield* Layer.makeMemoMap, yield* Effect.scope)
  return yield* Effect.provide(HttpApiBuilder.httpApp, context)
})

const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin"
}

const isApiPath = (url: string) => url === "/api" || url.startsWith("/api/") || url.startsWith("/api?")

/** `/api/…` to the HttpApi, everything else to the front end; security headers on every answer. */
const route = <R>(api: HttpApp.Default<never, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const apiRequest = isApiPath(request.url)
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(
        HttpServerResponse.setHeaders(response, apiRequest ? { ...securityHeaders, "cache-control": "no-store" } : securityHeaders)
      )
    )
    return yield* apiRequest ? api : staticAssets
  })

/** The admin host on `config.adminPort`. */
export const AdminHostLive = (config: AppConfigShape) =>
  Layer.unwrapScoped(Effect.map(adminApiApp, (api) => HttpServer.serve(route(api), (app) => healthRoutes(requestId(app))))).pipe(
    HttpServer.withLogAddress,
    Layer.provide(Shutdown.listener(config.adminPort, config.host)),
    Layer.provide(AdminServices)
  )
