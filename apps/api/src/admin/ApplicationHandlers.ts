/**
 * Applications through the identity services (`../identity/Applications.ts`): create (with its first secret, in one
 * transaction), issue and revoke secrets. The console checks only what is the operator's to see — the record is
 * in their organization (404 otherwise), the granted contexts are theirs — and the services decide the rest
 * (APPLICATION_SECRET_LIMIT_REACHED). Each change is audited by its service with the operator as actor.
 */
import { HttpApiBuilder } from "@effect/platform"
import { AdminApi } from "@propline/admin/AdminApi"
import {
  ApplicationDetail,
  ApplicationSummary,
  CreatedApplication,
  IssuedSecret,
  SecretView
} from "@propline/admin/Applications"
import { CurrentOperator, type OperatorShape } from "@propline/admin/Session"
import * as Db from "@propline/db/Db"
import { problem } from "@propline/contract/Problem"
import { Clock, Effect } from "effect"
import { createApplication, issueSecret, revokeSecret } from "../identity/Applications.js"
import { decodeCursor, given, limitOf, page } from "./AdminListing.js"
import * as Queries from "./ApplicationQueries.js"
import * as OrganizationQueries from "./OrganizationQueries.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const
const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

type SummaryRow = NonNullable<Effect.Effect.Success<ReturnType<typeof Queries.application>>>

const toSummary = (row: SummaryRow) =>
  new ApplicationSummary({ ...row, roles: [...row.roles], activeSecretCount: Number(row.activeSecretCount) })

/** The Application of the operator's organization, or a 404. */
const visibleApplication = (operator: OperatorShape, applicationId: string) =>
  Effect.flatMap(Queries.application(operator.organizationId, applicationId), (row) =>
    row === undefined ? Effect.fail(problem.notFound("There is no such Application.")) : Effect.succeed(row)
  )

const detail = (row: SummaryRow) =>
  Effect.map(Effect.all([Queries.contextIdsOf(row.id), Queries.secretsOf(row.id)]), ([contextIds, secrets]) =>
    new ApplicationDetail({
      application: toSummary(row),
      contextIds,
      secrets: secrets.map((secret) => new SecretView(secret))
    })
  )

const secretLimitReached = (error: { readonly code: string }) =>
  Effect.fail(problem.badRequest(error.code, "The Application already holds 2 active secrets; revoke one first."))

export const ApplicationHandlers = HttpApiBuilder.group(AdminApi, "applications", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const after = yield* decodeCursor("admin-applications", urlParams.cursor)
        const limit = limitOf(urlParams.limit)
        const rows = yield* Queries.applications(
          operator.organizationId,
          { q: given(urlParams.q), status: given(urlParams.status) },
          after,
          limit
        )
        const result = page("admin-applications", rows, limit, (row) => ({ at: row.createdAt, id: row.id }))
        return { items: result.items.map(toSummary), nextCursor: result.nextCursor }
      })
    )
    .handle("get", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        return yield* detail(yield* visibleApplication(operator, path.applicationId))
      })
    )
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const own = yield* OrganizationQueries.ownContextIds(operator.organizationId, payload.contextIds)
        const foreign = payload.contextIds.flatMap((id, index) =>
          own.has(id) ? [] : [{ path: `/contextIds/${index}`, message: "is not an operational context of your organization" }]
        )
        if (foreign.length > 0) return yield* Effect.fail(problem.validationFailed(foreign))
        const at = yield* now
        const created = yield* Db.transaction(
          Effect.gen(function* () {
            const application = yield* createApplication({
              organizationId: operator.organizationId,
              name: payload.name,
              roles: payload.roles,
              contextIds: payload.contextIds,
              actor: actorOf(operator),
              now: at
            })
            const issued = yield* issueSecret({ applicationId: application.id, actor: actorOf(operator), now: at })
            return { application, issued }
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die), Effect.catchTag("SecretLimitReached", Effect.die))
        const row = yield* visibleApplication(operator, created.application.id).pipe(Effect.orDie)
        return new CreatedApplication({
          application: yield* detail(row),
          secret: new IssuedSecret({
            id: created.issued.secretId,
            secret: created.issued.secret,
            lastFour: created.issued.secret.slice(-4)
          })
        })
      })
    )
    .handle("issueSecret", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const application = yield* visibleApplication(operator, path.applicationId)
        const issued = yield* issueSecret({ applicationId: application.id, actor: actorOf(operator), now: yield* now }).pipe(
          Effect.catchTag("SecretLimitReached", secretLimitReached)
        )
        return new IssuedSecret({ id: issued.secretId, secret: issued.secret, lastFour: issued.secret.slice(-4) })
      })
    )
    .handle("revokeSecret", ({ path }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const application = yield* visibleApplication(operator, path.applicationId)
        const secrets = yield* Queries.secretsOf(application.id)
        if (!secrets.some((secret) => secret.id === path.secretId)) {
          return yield* Effect.fail(problem.notFound("The Application has no such secret."))
        }
        const revoked = yield* revokeSecret({ secretId: path.secretId, actor: actorOf(operator), now: yield* now })
        if (!revoked) {
          return yield* Effect.fail(problem.badRequest("APPLICATION_SECRET_NOT_FOUND", "The secret is already revoked."))
        }
        return yield* detail(yield* visibleApplication(operator, application.id))
      })
    )
)
