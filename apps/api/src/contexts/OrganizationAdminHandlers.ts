/** The organization page: the operator's organization, its context tree and record counts. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { ContextNode, OrganizationView } from "@propline/contract/OrganizationAdmin"
import { CurrentOperator, OrganizationSummary } from "@propline/contract/AdminSession"
import { Effect } from "effect"
import { toProblem } from "../platform/Problems.js"
import { OrganizationReadRepository } from "./OrganizationReadRepository.js"

export const OrganizationAdminHandlers = HttpApiBuilder.group(AdminApi, "organization", (handlers) =>
  Effect.gen(function* () {
    const views = yield* OrganizationReadRepository
    return handlers.handle("get", () =>
      Effect.gen(function* () {
        const { organizationId } = yield* CurrentOperator
        const [organization, contexts, counts] = yield* Effect.all([
          views.organization(organizationId).pipe(Effect.mapError(toProblem)),
          views.contexts(organizationId),
          views.counts(organizationId)
        ])
        return new OrganizationView({
          organization: new OrganizationSummary(organization),
          contexts: contexts.map((context) => new ContextNode(context)),
          counts
        })
      })
    )
  })
)
