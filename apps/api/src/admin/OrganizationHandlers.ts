/** The organization page: the operator's organization, its context tree and record counts. */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import { ContextNode, OrganizationView } from "@propline/admin/Organization"
import { CurrentOperator, OrganizationSummary } from "@propline/admin/Session"
import { Effect } from "effect"
import * as Queries from "./OrganizationQueries.js"

export const OrganizationHandlers = HttpApiBuilder.group(AdminApi, "organization", (handlers) =>
  handlers.handle("get", () =>
    Effect.gen(function* () {
      const operator = yield* CurrentOperator
      const [organization, contexts, counts] = yield* Effect.all([
        Queries.organization(operator.organizationId),
        Queries.contexts(operator.organizationId),
        Queries.counts(operator.organizationId)
      ])
      if (organization === undefined) return yield* Effect.die(new Error("an operator's organization is missing"))
      return new OrganizationView({
        organization: new OrganizationSummary(organization),
        contexts: contexts.map((context) => new ContextNode(context)),
        counts
      })
    })
  )
)
