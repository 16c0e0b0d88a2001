/**
 * The console's webhooks group (`@propline/contract/WebhooksAdmin`) through `WebhookOperatorService` and the read
 * model. The console checks what is the operator's to see — the endpoint, delivery or app is their organization's
 * (404 otherwise), the chosen contexts are theirs (a field's issue) — and the service decides the rest and writes
 * the audit entry with the operator as actor.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import { problem } from "@propline/contract/Problem"
import {
  RedeliveryCount,
  RevealedWebhookSecret,
  WebhookAttemptView,
  WebhookDeliveryDetail,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookEventTypes
} from "@propline/contract/WebhooksAdmin"
import { Effect } from "effect"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { ownContexts } from "../contexts/OwnContexts.js"
import { ConnectorAppReadRepository } from "../identity/ConnectorAppReadRepository.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import type { DeliveryRow } from "./WebhookDeliveryRepository.js"
import type { EndpointRow } from "./WebhookEndpointRepository.js"
import { SUBSCRIBABLE_EVENT_TYPES } from "./WebhookCatalog.js"
import { WebhookOperatorService } from "./WebhookOperatorService.js"
import { WebhookReadRepository } from "./WebhookReadRepository.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type EndpointFields = Omit<EndpointRow, "organizationId" | "secretEnvelope" | "previousSecretEnvelope">

export const toEndpointView = (row: EndpointFields) =>
  new WebhookEndpointView({
    id: row.id,
    url: row.url,
    description: row.description,
    connectorAppId: row.appId,
    eventTypes: [...row.eventTypes],
    contextIds: [...row.contextIds],
    status: row.status,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince,
    secretLastFour: row.secretLastFour,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

export const toDeliveryView = (row: Omit<DeliveryRow, "payload">) =>
  new WebhookDeliveryView({
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    organizationId: row.organizationId,
    status: row.status,
    attemptCount: row.attemptCount,
    lastAttemptAt: row.lastAttemptAt,
    lastStatusCode: row.lastStatusCode,
    nextAttemptAt: row.nextAttemptAt,
    deliveredAt: row.deliveredAt,
    manual: row.manual,
    createdAt: row.createdAt
  })

const withSecret = (created: { readonly endpoint: EndpointRow; readonly secret: string }) =>
  new WebhookEndpointWithSecret({
    endpoint: toEndpointView(created.endpoint),
    secret: new RevealedWebhookSecret({
      secret: created.secret,
      lastFour: created.endpoint.secretLastFour,
      previousSecretExpiresAt: created.endpoint.previousSecretExpiresAt
    })
  })

const knownTypes: ReadonlySet<string> = new Set(SUBSCRIBABLE_EVENT_TYPES)

export const WebhookAdminHandlers = HttpApiBuilder.group(AdminApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const views = yield* WebhookReadRepository
    const organizations = yield* OrganizationReadRepository
    const apps = yield* ConnectorAppReadRepository
    const operatorService = yield* WebhookOperatorService
    /** Runs a command on the operator's endpoint (404 otherwise) and answers the endpoint as it is afterwards. */
    const command = <E extends Parameters<typeof toProblem>[0], R>(
      endpointId: string,
      run: (operator: OperatorShape) => Effect.Effect<unknown, E, R>
    ) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        yield* run(operator).pipe(Effect.mapError(toProblem))
        return toEndpointView(yield* views.endpoint(operator.organizationId, endpointId).pipe(Effect.mapError(toProblem)))
      })
    return handlers
      .handle("eventTypes", () => Effect.succeed(new WebhookEventTypes({ items: [...SUBSCRIBABLE_EVENT_TYPES].sort() })))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-webhook-endpoints", urlParams.cursor)
          const filter = { q: given(urlParams.q), status: given(urlParams.status), owner: given(urlParams.owner) }
          const page = yield* views.endpoints(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toEndpointView), nextCursor: page.nextCursor }
        })
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentOperator, (operator) =>
          views.endpoint(operator.organizationId, path.endpointId).pipe(Effect.map(toEndpointView), Effect.mapError(toProblem))
        )
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          if (payload.connectorAppId !== undefined && !(yield* apps.publishes(operator.organizationId, payload.connectorAppId))) {
            return yield* Effect.fail(problem.notFound("No connector app your organization published has this id."))
          }
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          const created = yield* operatorService
            .create(operator.organizationId, payload, knownTypes, actorOf(operator))
            .pipe(Effect.mapError(toProblem))
          return withSecret(created)
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* views.endpoint(operator.organizationId, path.endpointId).pipe(Effect.mapError(toProblem))
          yield* ownContexts(organizations, operator.organizationId, payload.contextIds)
          return yield* command(path.endpointId, () =>
            operatorService.update(operator.organizationId, path.endpointId, payload, knownTypes, actorOf(operator))
          )
        })
      )
      .handle("rotateSecret", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const rotated = yield* operatorService
            .rotateSecret(operator.organizationId, path.endpointId, actorOf(operator))
            .pipe(Effect.mapError(toProblem))
          return withSecret(rotated)
        })
      )
      .handle("disable", ({ path }) =>
        command(path.endpointId, (operator) => operatorService.disable(operator.organizationId, path.endpointId, actorOf(operator)))
      )
      .handle("enable", ({ path }) =>
        command(path.endpointId, (operator) => operatorService.enable(operator.organizationId, path.endpointId, actorOf(operator)))
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operatorService.delete(operator.organizationId, path.endpointId, actorOf(operator)).pipe(Effect.mapError(toProblem))
        })
      )
      .handle("sendTestEvent", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const row = yield* operatorService
            .sendTestEvent(operator.organizationId, path.endpointId, actorOf(operator))
            .pipe(Effect.mapError(toProblem))
          return toDeliveryView(row)
        })
      )
      .handle("redeliverSince", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const queued = yield* operatorService
            .redeliverSince(operator.organizationId, path.endpointId, payload.since, payload.includeDelivered, actorOf(operator))
            .pipe(Effect.mapError(toProblem))
          return new RedeliveryCount({ queued })
        })
      )
      .handle("deliveries", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-webhook-deliveries", urlParams.cursor)
          const filter = {
            endpointId: given(urlParams.endpointId),
            eventId: given(urlParams.eventId),
            eventType: given(urlParams.eventType),
            status: given(urlParams.status)
          }
          const page = yield* views.deliveries(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toDeliveryView), nextCursor: page.nextCursor }
        })
      )
      .handle("delivery", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* views.delivery(organizationId, path.deliveryId).pipe(Effect.mapError(toProblem))
          const { payload, ...delivery } = found.delivery
          return new WebhookDeliveryDetail({
            delivery: toDeliveryView(delivery),
            attempts: found.attempts.map((attempt) => new WebhookAttemptView(attempt)),
            payload: JSON.parse(payload) as unknown
          })
        })
      )
      .handle("redeliver", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* views.delivery(operator.organizationId, path.deliveryId).pipe(Effect.mapError(toProblem))
          const row = yield* operatorService
            .redeliver(operator.organizationId, path.deliveryId, actorOf(operator))
            .pipe(Effect.mapError(toProblem))
          return toDeliveryView(row)
        })
      )
  })
)
