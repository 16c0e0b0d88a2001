/** The operational-contexts group (spec 4.2): the starting point of every integration. */
import { Authentication } from "./Authentication.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { OperationalContext } from "./OperationalContext.js"
import { Page, PageParams } from "./Page.js"

export const OperationalContextPage = Page(OperationalContext, "OperationalContextPage")

export class OperationalContextsGroup extends HttpApiGroup.make("operationalContexts").add(
  HttpApiEndpoint.get("list", "/v1/operational-contexts")
    .setUrlParams(PageParams)
    .addSuccess(OperationalContextPage)
    .annotate(OpenApi.Summary, "List the operational contexts the token can act in")
    .annotate(
      OpenApi.Description,
      "The contexts granted to the client and every context below them, oldest first (by creation, then id); each " +
        "names its parent. Any role may call it."
    )
)
  .middleware(Authentication) {}
