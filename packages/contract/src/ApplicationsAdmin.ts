/**
 * Applications (spec 5.2, 5.5, decisions 2 and 3): clients holding client credentials, with roles and granted
 * operational contexts (each includes its subtree), at most 2 active secrets. A secret is shown once, in the
 * answer that issues it; afterwards only its last four characters. Disabling an Application or revoking a secret
 * stops new tokens at once. Refusals: APPLICATION_SECRET_LIMIT_REACHED, APPLICATION_SECRET_NOT_FOUND,
 * INTEGRATIONS_ROLE_NOT_GRANTABLE, INTEGRATIONS_CONTEXT_LEVEL_MISMATCH (400).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { NotFound } from "./Problem.js"
import { BoundedText } from "./Values.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

/** Roles an Application's tokens can carry (`integrations` is for installation tokens only). */
export const ApplicationRole = Schema.Literal("billing", "signing", "booking")
export type ApplicationRole = typeof ApplicationRole.Type

export class ApplicationSummary extends Schema.Class<ApplicationSummary>("ApplicationSummary")({
  id: Schema.UUID,
  clientId: Schema.String,
  name: Schema.String,
  roles: Schema.Array(Schema.String),
  status: Schema.Literal("active", "disabled"),
  activeSecretCount: Schema.Int,
  createdAt: Schema.Date,
  disabledAt: Schema.NullOr(Schema.Date)
}) {}

/** A secret as operators see it after creation: never the secret, only its last four characters. */
export class SecretView extends Schema.Class<SecretView>("SecretView")({
  id: Schema.UUID,
  lastFour: Schema.String,
  createdAt: Schema.Date,
  revokedAt: Schema.NullOr(Schema.Date),
  lastUsedAt: Schema.NullOr(Schema.Date)
}) {}

export class ApplicationDetail extends Schema.Class<ApplicationDetail>("ApplicationDetail")({
  application: ApplicationSummary,
  contextIds: Schema.Array(Schema.UUID),
  secrets: Schema.Array(SecretView)
}) {}

/** A new secret: `secret` (`service_sk_…`) appears in this answer only. */
export class IssuedSecret extends Schema.Class<IssuedSecret>("IssuedSecret")({
  id: Schema.UUID,
  secret: Schema.String,
  lastFour: Schema.String
}) {}

/** 201 of create: the Application with its first secret, shown once. */
export class CreatedApplication extends Schema.Class<CreatedApplication>("CreatedApplication")({
  application: ApplicationDetail,
  secret: IssuedSecret
}) {}

/** Create: a name (1 to 200 characters), at least one role, at least one granted context. */
export class CreateApplicationRequest extends Schema.Class<CreateApplicationRequest>("CreateApplicationRequest")(
  Schema.Struct({
    name: BoundedText(1, 200),
    roles: Schema.Array(ApplicationRole).pipe(
      Schema.minItems(1, { message: () => "choose at least one role" }),
      Schema.filter((roles) => new Set(roles).size === roles.length || "names a role twice")
    ),
    contextIds: Schema.Array(Schema.UUID).pipe(
      Schema.minItems(1, { message: () => "choose at least one operational context" }),
      Schema.maxItems(100),
      Schema.filter((ids) => new Set(ids).size === ids.length || "names a context twice")
    )
  }).annotations({ parseOptions: { errors: "all" } }) // every failing field at once, so a form can mark them all
) {}

/** Replace the roles and contexts (`INTEGRATIONS_ROLE_NOT_GRANTABLE`, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`). */
export class ChangeGrantRequest extends Schema.Class<ChangeGrantRequest>("ChangeGrantRequest")(
  Schema.Struct({
    roles: CreateApplicationRequest.fields.roles,
    contextIds: CreateApplicationRequest.fields.contextIds
  }).annotations({ parseOptions: { errors: "all" } })
) {}

export const ApplicationPage = Page(ApplicationSummary, "ApplicationPage")

const ApplicationPath = Schema.Struct({ applicationId: Schema.UUID })

export class ApplicationsGroup extends HttpApiGroup.make("applications")
  .add(
    HttpApiEndpoint.get("list", "/api/applications")
      .setUrlParams(Schema.Struct({ ...PageQuery, q: Filter(200), status: Choice("active", "disabled") }))
      .addSuccess(ApplicationPage)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/applications/:applicationId")
      .setPath(ApplicationPath)
      .addSuccess(ApplicationDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/api/applications")
      .setPayload(body(CreateApplicationRequest))
      .addSuccess(CreatedApplication, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("issueSecret", "/api/applications/:applicationId/secrets")
      .setPath(ApplicationPath)
      .addSuccess(IssuedSecret, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("revokeSecret", "/api/applications/:applicationId/secrets/:secretId/revoke")
      .setPath(Schema.Struct({ applicationId: Schema.UUID, secretId: Schema.UUID }))
      .addSuccess(ApplicationDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("disable", "/api/applications/:applicationId/disable")
      .setPath(ApplicationPath)
      .addSuccess(ApplicationDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("enable", "/api/applications/:applicationId/enable")
      .setPath(ApplicationPath)
      .addSuccess(ApplicationDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("changeGrant", "/api/applications/:applicationId/grant")
      .setPath(ApplicationPath)
      .setPayload(body(ChangeGrantRequest))
      .addSuccess(ApplicationDetail)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
