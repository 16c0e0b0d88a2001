/**
 * The integrations group (spec 1 and 4.2 "Integrations"; decisions 2, 4 and 8): an installed connector reads its
 * installation's configurations, redeems the connection reference its setup address received, and reports a
 * configuration `ready` or `failed`. Every operation needs the `integrations` role, which only installation tokens
 * carry: an Application's token gets 403.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { OperationalContextId, OrganizationId, Uuid } from "./Ids.js"
import { JsonBody } from "./JsonBody.js"
import { Page, PageParams } from "./Page.js"
import { Conflict, NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { IntegrationsRole } from "./Roles.js"
import { BoundedText, Timestamp } from "./Values.js"

/** An integration configuration's id: the `configurationId` of `ready` and `failed`. */
export const IntegrationConfigurationId = Uuid.pipe(Schema.brand("IntegrationConfigurationId"))
export type IntegrationConfigurationId = typeof IntegrationConfigurationId.Type

/** Decisions 8: what a configuration connects. */
export const IntegrationKind = Schema.Literal("billing", "signing", "booking").annotations({
  description:
    "`billing`: an ERP or invoicing system. The billing operations need the organization to have a `ready` billing " +
    "configuration (else 400 `BILLING_INTEGRATION_NOT_CONFIGURED`), and the verification queue, pass and reject " +
    "need one that declared the `verification` gate (else 400 `BILLING_INTEGRATION_GATE_NOT_DECLARED`). " +
    "`signing`: an e-signing system; `booking`: a booking website. The signing and booking operations are not " +
    "gated by a configuration (the specification has no code for a missing one): their configurations record " +
    "the connector's account and settings for the operator."
})

/** Decisions 8: the configuration's status. */
export const IntegrationConfigurationStatus = Schema.Literal(
  "pending",
  "connecting",
  "ready",
  "failed",
  "disconnected"
).annotations({
  description:
    "`pending` (created by the operator, no connection reference redeemed yet) → `connecting` (a reference was " +
    "redeemed) → `ready` or `failed` (the connector's reports). Redeeming a new reference (the operator pressed " +
    "Connect again) makes a `ready` or `failed` configuration `connecting` again. `disconnected`: the operator " +
    "disconnected it, or removed the installation; final."
})

/** The account at the external system a ready configuration works in. */
export class ExternalAccount extends Schema.Class<ExternalAccount>("ExternalAccount")(
  {
    id: BoundedText(1, 200).annotations({
      description: "The account's id at the external system (a Fortnox database number, a Scrive company id …); 1 to 200 characters."
    }),
    name: BoundedText(1, 200).annotations({ description: "A name to show an operator; 1 to 200 characters." })
  },
  { description: "The account at the external system the connector works in." }
) {}

const SETTINGS_DESCRIPTION =
  "The kind's settings, a JSON object checked against the kind's schema; members not listed are refused. " +
  "`billing`: `invoiceSeries` (optional, the ERP's number series, 1 to 20 characters), `bookkeepingCurrency` " +
  "(optional, SEK, NOK, DKK, EUR, USD or GBP). `signing`: `signatureMethods` (required, 1 to 4 of `bankid-se`, " +
  "`bankid-no`, `mitid`, `email-link`, no repeats), `documentExpiryDays` (optional, 1 to 90). `booking`: " +
  "`websiteUrl` (required, an https URL of at most 2000 characters), `brandName` (optional, 1 to 100 characters)."

/** A kind's settings: a JSON object (`@propline/integrations/KindSettings` checks it against the kind). */
export const IntegrationSettings = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "IntegrationSettings",
  description: SETTINGS_DESCRIPTION
})

/** An integration configuration, as every operation of the group answers it. */
export class IntegrationConfiguration extends Schema.Class<IntegrationConfiguration>("IntegrationConfiguration")(
  {
    id: IntegrationConfigurationId,
    organizationId: OrganizationId,
    installationId: Schema.UUID.annotations({ description: "The installation it belongs to: the token's." }),
    appId: Schema.String.annotations({ description: "The connector app: the token's `client_id`." }),
    kind: IntegrationKind,
    status: IntegrationConfigurationStatus,
    operationalContextIds: Schema.Array(OperationalContextId).annotations({
      description:
        "Where it applies: operational contexts within the installation's (each includes its subtree), sorted. A " +
        "kind in a context is a point that one `ready` configuration fills at a time."
    }),
    externalAccount: Schema.optional(ExternalAccount).annotations({
      description: "What the last `ready` reported; absent until then."
    }),
    declaredGates: Schema.Array(Schema.String).annotations({
      description: "Gates the last `ready` declared (billing: `verification`); empty until then."
    }),
    settings: Schema.optional(IntegrationSettings),
    failureReason: Schema.optional(Schema.String).annotations({
      description: "What the last `failed` reported; cleared when a connection reference is redeemed again."
    }),
    createdAt: Timestamp,
    connectedAt: Schema.optional(Timestamp).annotations({ description: "When a connection reference was last redeemed." }),
    readyAt: Schema.optional(Timestamp),
    failedAt: Schema.optional(Timestamp),
    disconnectedAt: Schema.optional(Timestamp),
    updatedAt: Timestamp
  },
  { description: "A configuration of an installed connector for some of the organization's contexts (decisions 8)." }
) {}

export const IntegrationConfigurationPage = Page(IntegrationConfiguration, "IntegrationConfigurationPage")

/** Body of `redeem`. */
export class RedeemConnectionReferenceRequest extends Schema.Class<RedeemConnectionReferenceRequest>(
  "RedeemConnectionReferenceRequest"
)({
  connectionReference: BoundedText(1, 200).annotations({
    description:
      "The `connection_reference` query parameter of the setup address (`icr_` and 43 characters); it works once, " +
      "for 10 minutes after the operator pressed Connect."
  })
}) {}

/** Body of `ready`. */
export class ReadyRequest extends Schema.Class<ReadyRequest>("ReadyRequest")({
  externalAccount: ExternalAccount,
  declaredGates: Schema.optional(
    Schema.Array(BoundedText(1, 100)).pipe(Schema.maxItems(20, { message: () => "must have at most 20 items" })).annotations({
      description:
        "The gates the connector declares; default none. `billing`: `verification` (proposals are verified, passed " +
        "or rejected, before they become invoices). `signing` and `booking` have no gates."
    })
  ),
  settings: Schema.optional(IntegrationSettings.annotations({ description: `${SETTINGS_DESCRIPTION} Default \`{}\`.` }))
}) {}

/** Body of `failed`. */
export class IntegrationFailedRequest extends Schema.Class<IntegrationFailedRequest>("IntegrationFailedRequest")({
  reason: BoundedText(1, 1000).annotations({
    description: "Why setting up failed; shown to an operator. 1 to 1000 characters."
  })
}) {}

const ConfigurationPath = Schema.Struct({ configurationId: IntegrationConfigurationId })

const NOT_FOUND =
  "404 `INTEGRATIONS_CONFIGURATION_NOT_FOUND` when the configuration does not exist or belongs to another installation"
const NOT_CONNECTING =
  "400 `INTEGRATIONS_CONNECTION_NOT_SUPPORTED` when the configuration is not `connecting` (a repeated report " +
  "included: redeem a fresh connection reference to report again) or is disconnected"

export class IntegrationsGroup extends HttpApiGroup.make("integrations")
  .add(
    HttpApiEndpoint.get("listConfigurations", "/v1/integrations/configurations")
      .setUrlParams(PageParams)
      .addSuccess(IntegrationConfigurationPage)
      .annotate(OpenApi.Summary, "List the installation's configurations")
      .annotate(
        OpenApi.Description,
        "The configurations of the token's installation, in every status, oldest first (by creation, then id). " +
          "Another installation's configurations are never listed."
      )
  )
  .add(
    HttpApiEndpoint.post("redeemConnectionReference", "/v1/integrations/connection-references/redeem")
      .setPayload(body(RedeemConnectionReferenceRequest))
      .addSuccess(IntegrationConfiguration, { status: 201 })
      .annotate(OpenApi.Summary, "Redeem a connection reference from the setup address")
      .annotate(
        OpenApi.Description,
        "When the operator presses Connect, the operator's browser goes to the connector app's setup URL with " +
          "`connection_reference` and `installation_id` added to its query. Redeem the reference with a token of " +
          "that installation: the configuration it was issued for becomes `connecting` and is answered, and the " +
          "configuration's other references stop working. A reference works once, for 10 minutes, and only with a " +
          "token of its installation. 400 `INTEGRATIONS_CONNECTION_REFERENCE_INVALID` — with one body whatever the " +
          "cause — when it is unknown, expired, already used, no longer valid (another reference of the " +
          "configuration was redeemed, or it was disconnected), or issued for another installation or app."
      )
  )
  .add(
    HttpApiEndpoint.post("reportReady", "/v1/integrations/configurations/:configurationId/ready")
      .setPath(ConfigurationPath)
      .setPayload(body(ReadyRequest))
      .addSuccess(IntegrationConfiguration, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a configuration as ready")
      .annotate(
        OpenApi.Description,
        "`connecting` → `ready`, recording the external account, the declared gates and the kind's settings. " +
          "400 `INTEGRATIONS_CONFIGURATION_INVALID`, with `issues` (JSON Pointers into the body), when a gate is not " +
          "one of the kind's or is declared twice, or the settings fail the kind's schema; " +
          `${NOT_CONNECTING}; 409 \`INTEGRATIONS_POINT_ALREADY_FILLED\` when another configuration of the kind is ` +
          `ready in one of its operational contexts (the operator disconnects that one first); ${NOT_FOUND}. A ready ` +
          "billing configuration is what the billing operations need."
      )
  )
  .add(
    HttpApiEndpoint.post("reportFailed", "/v1/integrations/configurations/:configurationId/failed")
      .setPath(ConfigurationPath)
      .setPayload(body(IntegrationFailedRequest))
      .addSuccess(IntegrationConfiguration, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Report a configuration as failed")
      .annotate(
        OpenApi.Description,
        `\`connecting\` → \`failed\`, with a reason shown to an operator, who presses Connect again once the cause is ` +
          `fixed. ${NOT_CONNECTING}; ${NOT_FOUND}.`
      )
  )
  .middleware(JsonBody)
  .middleware(IntegrationsRole)
  .middleware(Authentication) {}
