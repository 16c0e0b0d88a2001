/**
 * Integration configurations (decisions 1 and 8; spec 4.2 "Integrations"): what binds an installed connector app to
 * the work it does for the organization. An operator creates one of a kind (`billing`, `signing`, `booking`) for an
 * installation of the organization and some of its operational contexts, presses Connect — the console answers the
 * setup address to send the operator's browser to (the connector app's setup URL with `connection_reference` and
 * `installation_id`) and shows the connection reference once — and may disconnect it for good. The connector then
 * redeems the reference (`connecting`) and reports `ready` (external account, declared gates, settings) or `failed`
 * (a reason) through the public API.
 *
 * Refusals (the integrations operator service decides each): INTEGRATIONS_CONFIGURATION_INVALID (400, `issues` at
 * `/operationalContextIds/<index>`: none, repeated, or outside the installation's contexts),
 * INTEGRATIONS_CONNECTION_NOT_SUPPORTED (400: the installation lacks the kind's role, is suspended or removed, the
 * app has no setup URL, or the configuration is disconnected), 404 INTEGRATIONS_CONFIGURATION_NOT_FOUND for another
 * organization's configuration (or none), 404 for an installation not of the organization. A configuration's page
 * names the contexts where another configuration of its kind is `ready` (`filledElsewhere`): there the connector's
 * ready report is refused with INTEGRATIONS_POINT_ALREADY_FILLED (409) until the operator disconnects that one.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { IntegrationConfigurationStatus, IntegrationKind } from "./Integrations.js"
import { NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

/** The account at the external system a ready configuration works in (what its last `ready` reported). */
export class ExternalAccountView extends Schema.Class<ExternalAccountView>("ExternalAccountView")({
  id: Schema.String,
  name: Schema.String
}) {}

/**
 * A configuration in the list. `installationId`, `appId` and `appName` are null only on a billing configuration
 * carried over from the former per-organization billing integration (no connector can reach it).
 */
export class ConfigurationSummary extends Schema.Class<ConfigurationSummary>("ConfigurationSummary")({
  id: Schema.UUID,
  kind: IntegrationKind,
  status: IntegrationConfigurationStatus,
  installationId: Schema.NullOr(Schema.UUID),
  appId: Schema.NullOr(Schema.String),
  appName: Schema.NullOr(Schema.String),
  operationalContextIds: Schema.Array(Schema.UUID),
  externalAccount: Schema.NullOr(ExternalAccountView),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

/**
 * A configuration's page: the summary's facts, its installation's status and its app's setup URL, what the last
 * `ready` reported (`declaredGates`, `settings`), what the last `failed` reported (`failureReason`), the time of
 * each step, and `filledElsewhere` — its contexts where another configuration of its kind is `ready`, so its
 * connector's ready report would be refused with INTEGRATIONS_POINT_ALREADY_FILLED.
 */
export class ConfigurationDetail extends Schema.Class<ConfigurationDetail>("ConfigurationDetail")({
  ...ConfigurationSummary.fields,
  installationStatus: Schema.NullOr(Schema.Literal("active", "suspended", "removed")),
  setupUrl: Schema.NullOr(Schema.String),
  declaredGates: Schema.Array(Schema.String),
  settings: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  failureReason: Schema.NullOr(Schema.String),
  connectedAt: Schema.NullOr(Schema.Date),
  readyAt: Schema.NullOr(Schema.Date),
  failedAt: Schema.NullOr(Schema.Date),
  disconnectedAt: Schema.NullOr(Schema.Date),
  filledElsewhere: Schema.Array(Schema.UUID)
}) {}

/**
 * 201 of Connect: the configuration, the connection reference (in this answer only: the service keeps its digest),
 * the setup address to open (the app's setup URL with `connection_reference` and `installation_id`) and when the
 * reference stops working (10 minutes; it works once).
 */
export class ConnectAnswer extends Schema.Class<ConnectAnswer>("ConnectAnswer")({
  configuration: ConfigurationDetail,
  connectionReference: Schema.String,
  setupAddress: Schema.String,
  expiresAt: Schema.Date
}) {}

/** Create: an installation of the organization, a kind, and operational contexts within the installation's. */
export class CreateConfigurationRequest extends Schema.Class<CreateConfigurationRequest>("CreateConfigurationRequest")(
  Schema.Struct({
    installationId: Schema.UUID.annotations({ message: () => "choose an installation" }),
    kind: IntegrationKind.annotations({ message: () => "choose billing, signing or booking" }),
    operationalContextIds: Schema.Array(Schema.UUID).pipe(Schema.maxItems(100))
  }).annotations({ parseOptions: { errors: "all" } }) // every failing field at once, so a form can mark them all
) {}

/** An installation of the organization that is not removed, for the create form's picker. */
export class InstallationChoice extends Schema.Class<InstallationChoice>("InstallationChoice")({
  id: Schema.UUID,
  appId: Schema.String,
  appName: Schema.String,
  status: Schema.Literal("active", "suspended"),
  roles: Schema.Array(Schema.String),
  contextIds: Schema.Array(Schema.UUID)
}) {}

export class InstallationChoices extends Schema.Class<InstallationChoices>("InstallationChoices")({
  items: Schema.Array(InstallationChoice)
}) {}

export const ConfigurationPage = Page(ConfigurationSummary, "ConfigurationPage")

/** An installation filter: absent or "" for any, else an installation's id. */
const InstallationFilter = Schema.optional(
  Schema.String.pipe(Schema.filter((value) => value === "" || Schema.is(Schema.UUID)(value) || "must be an installation's id"))
)

const ConfigurationPath = Schema.Struct({ configurationId: Schema.UUID })

export class IntegrationConfigurationsGroup extends HttpApiGroup.make("integrationConfigurations")
  .add(
    HttpApiEndpoint.get("list", "/api/integration-configurations")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          kind: Choice(...IntegrationKind.literals),
          status: Choice(...IntegrationConfigurationStatus.literals),
          installationId: InstallationFilter
        })
      )
      .addSuccess(ConfigurationPage)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/integration-configurations/:configurationId")
      .setPath(ConfigurationPath)
      .addSuccess(ConfigurationDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/api/integration-configurations")
      .setPayload(body(CreateConfigurationRequest))
      .addSuccess(ConfigurationDetail, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("connect", "/api/integration-configurations/:configurationId/connect")
      .setPath(ConfigurationPath)
      .addSuccess(ConnectAnswer, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("disconnect", "/api/integration-configurations/:configurationId/disconnect")
      .setPath(ConfigurationPath)
      .addSuccess(ConfigurationDetail)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("installations", "/api/installations").addSuccess(InstallationChoices))
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
