/** The operator's organization and its operational-context tree (decisions 2). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Schema } from "effect"
import { CsrfProtection, JsonPayload, OperatorAuthentication, OrganizationSummary } from "./AdminSession.js"

/** One node of the tree; `parentId` is null only on the organization's root. */
export class ContextNode extends Schema.Class<ContextNode>("ContextNode")({
  id: Schema.UUID,
  parentId: Schema.NullOr(Schema.UUID),
  kind: Schema.Literal("organization", "region", "property", "building"),
  name: Schema.String,
  createdAt: Schema.Date
}) {}

/** The organization with every context, ordered by creation then id; the console nests them by `parentId`. */
export class OrganizationView extends Schema.Class<OrganizationView>("OrganizationView")({
  organization: OrganizationSummary,
  contexts: Schema.Array(ContextNode),
  counts: Schema.Struct({
    customers: Schema.Int,
    contracts: Schema.Int,
    applications: Schema.Int,
    operators: Schema.Int
  })
}) {}

export class OrganizationGroup extends HttpApiGroup.make("organization")
  .add(HttpApiEndpoint.get("get", "/api/organization").addSuccess(OrganizationView))
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
