/**
 * Connector apps and their installations (decisions 2; spec 5.3, 5.5). A connector app is registered once (app id,
 * name, https setup URL, one or more ES256 public JWKs with `kid`) and installed into organizations; it belongs to
 * none. The console lists every registered app (public facts: id, name, setup URL, public keys) with the operator's
 * organization's installation of it, and registers new ones: the organization whose operator registers an app
 * publishes it, and only its operators add or retire the app's keys (another organization's operators get 404 —
 * a key signs assertions for every installation of the app).
 *
 * An installation into the operator's organization has roles (`billing`, `signing`, `booking`; `integrations` is
 * always added) and granted operational contexts; it is `active` or `suspended` (tokens refused), and removing it
 * ends it for good (the app can then be installed anew). Refusals: INTEGRATIONS_APP_INVALID (400, the broken rule
 * in `detail`), INTEGRATIONS_APP_ALREADY_EXISTS (409), INTEGRATIONS_APP_ALREADY_INSTALLED (409),
 * INTEGRATIONS_ROLE_NOT_GRANTABLE and INTEGRATIONS_CONTEXT_LEVEL_MISMATCH (400); another organization's
 * installation is 404.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Conflict, NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { ChangeGrantRequest } from "./ApplicationsAdmin.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class ConnectorAppSummary extends Schema.Class<ConnectorAppSummary>("ConnectorAppSummary")({
  id: Schema.String,
  name: Schema.String,
  setupUrl: Schema.String,
  activeKeyCount: Schema.Int,
  /** Whether the operator's organization registered it (and so may change its keys). */
  publishedByYou: Schema.Boolean,
  /** The status of the organization's installation of it that is not removed, if any. */
  installationStatus: Schema.NullOr(Schema.Literal("active", "suspended")),
  createdAt: Schema.Date
}) {}

/** A public key: its `kid`, status and the JWK itself (public: `kty`, `crv`, `x`, `y`, …). */
export class AppKeyView extends Schema.Class<AppKeyView>("AppKeyView")({
  kid: Schema.String,
  status: Schema.Literal("active", "retired"),
  publicJwk: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  addedAt: Schema.Date,
  retiredAt: Schema.NullOr(Schema.Date)
}) {}

export class InstallationView extends Schema.Class<InstallationView>("InstallationView")({
  id: Schema.UUID,
  appId: Schema.String,
  status: Schema.Literal("active", "suspended", "removed"),
  roles: Schema.Array(Schema.String),
  contextIds: Schema.Array(Schema.UUID),
  createdAt: Schema.Date,
  suspendedAt: Schema.NullOr(Schema.Date),
  removedAt: Schema.NullOr(Schema.Date)
}) {}

export class ConnectorAppDetail extends Schema.Class<ConnectorAppDetail>("ConnectorAppDetail")({
  app: ConnectorAppSummary,
  keys: Schema.Array(AppKeyView),
  /** The organization's installation that is not removed, if any. */
  installation: Schema.NullOr(InstallationView),
  /** The organization's earlier, removed installations of it, newest first. */
  removedInstallations: Schema.Array(InstallationView)
}) {}

/** A public JWK as sent: the identity service checks it (`INTEGRATIONS_APP_INVALID` with rule `key`). */
const Jwk = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Register: app id, name, https setup URL and 1 or more public keys; the identity service checks every rule. */
export class RegisterConnectorAppRequest extends Schema.Class<RegisterConnectorAppRequest>("RegisterConnectorAppRequest")(
  Schema.Struct({
    appId: Schema.String.pipe(Schema.maxLength(64)),
    name: Schema.String.pipe(Schema.maxLength(200)),
    setupUrl: Schema.String.pipe(Schema.maxLength(2000)),
    keys: Schema.Array(Jwk).pipe(Schema.maxItems(20))
  }).annotations({ parseOptions: { errors: "all" } })
) {}

export class AddKeyRequest extends Schema.Class<AddKeyRequest>("AddKeyRequest")({ jwk: Jwk }) {}

/** Install into the operator's organization with roles and granted contexts (as an Application's grant). */
export class InstallRequest extends Schema.Class<InstallRequest>("InstallRequest")(
  Schema.Struct(ChangeGrantRequest.fields).annotations({ parseOptions: { errors: "all" } })
) {}

export const ConnectorAppPage = Page(ConnectorAppSummary, "ConnectorAppPage")

/** An app id in a path: anything longer than an app id can be is no app (404). */
const AppPath = Schema.Struct({ appId: Schema.String.pipe(Schema.maxLength(64)) })
const InstallationPath = Schema.Struct({ installationId: Schema.UUID })

export class ConnectorAppsGroup extends HttpApiGroup.make("connectorApps")
  .add(
    HttpApiEndpoint.get("list", "/api/connector-apps")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          q: Filter(200),
          installed: Choice("yes", "no"),
          published: Choice("yes")
        })
      )
      .addSuccess(ConnectorAppPage)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/connector-apps/:appId").setPath(AppPath).addSuccess(ConnectorAppDetail).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("register", "/api/connector-apps")
      .setPayload(body(RegisterConnectorAppRequest))
      .addSuccess(ConnectorAppDetail, { status: 201 })
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("addKey", "/api/connector-apps/:appId/keys")
      .setPath(AppPath)
      .setPayload(body(AddKeyRequest))
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("retireKey", "/api/connector-apps/:appId/keys/:kid/retire")
      .setPath(Schema.Struct({ appId: AppPath.fields.appId, kid: Schema.String.pipe(Schema.maxLength(200)) }))
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("install", "/api/connector-apps/:appId/installation")
      .setPath(AppPath)
      .setPayload(body(InstallRequest))
      .addSuccess(ConnectorAppDetail, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("suspend", "/api/installations/:installationId/suspend")
      .setPath(InstallationPath)
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("resume", "/api/installations/:installationId/resume")
      .setPath(InstallationPath)
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("remove", "/api/installations/:installationId/remove")
      .setPath(InstallationPath)
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("changeGrant", "/api/installations/:installationId/grant")
      .setPath(InstallationPath)
      .setPayload(body(ChangeGrantRequest))
      .addSuccess(ConnectorAppDetail)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
