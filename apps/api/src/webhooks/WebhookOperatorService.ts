/**
 * The operators' commands on webhook endpoints and deliveries (issue 22, items 2, 3 and 7), for the console, the
 * demo and tests. Each is one transaction that writes its audit entry (`webhooks.endpoint.*`,
 * `webhooks.delivery.*`) with the operator as actor; an endpoint of another organization is 404 (`RecordNotFound`).
 *
 * - create: checks the URL (`@propline/webhooks/Destination`: https, or http and private addresses where the
 *   deployment allows private destinations), the event types (each of the catalog) and, for a connector app's
 *   webhook, that the app has none yet and no contexts are given (`EndpointInvalid`, VALIDATION_FAILED with issues);
 *   makes a `whsec_` secret, returned once and sealed at rest.
 * - rotateSecret: a new secret, returned once; the old one keeps signing beside it for 24 h.
 * - disable / enable / delete; sendTestEvent: a `webhook.test` event to this endpoint alone; redeliver: a delivery
 *   again, as a new delivery with the same event id; redeliverSince: every failed (or every) delivery of the
 *   endpoint since a time, at most 10,000 at once.
 */
import { urlProblem } from "@propline/webhooks/Destination"
import { lastFour, newSecret } from "@propline/webhooks/WebhookSignature"
import { endpointInvalid, EndpointInvalid } from "@propline/webhooks/WebhooksRefusal"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { type DeliveryOf, pendingDelivery, WebhookDeliveryRepository } from "./WebhookDeliveryRepository.js"
import { type EndpointRow, WebhookEndpointRepository } from "./WebhookEndpointRepository.js"
import { WebhookJobRepository } from "./WebhookJobRepository.js"
import { seal } from "./WebhookSecrets.js"
import { WebhookSettings } from "./WebhookSettings.js"

/** How long a rotated-out secret keeps signing, in milliseconds (24 h). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000

/** The most deliveries one redeliver-since queues. */
export const REDELIVER_LIMIT = 10_000

/** The type of the test event. */
export const TEST_EVENT_TYPE = "webhook.test"

export interface EndpointInput {
  readonly url: string
  readonly description: string
  readonly eventTypes: ReadonlyArray<string>
  readonly contextIds: ReadonlyArray<string>
}

const span = (name: string) => Effect.withSpan(`WebhookOperatorService.${name}`, { captureStackTrace: false })

export class WebhookOperatorService extends Effect.Service<WebhookOperatorService>()("@propline/api/webhooks/WebhookOperatorService", {
  effect: Effect.gen(function* () {
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const jobs = yield* WebhookJobRepository
    const settings = yield* WebhookSettings

    /** The issues of an endpoint's fields, given the catalog's event types. */
    const check = (input: EndpointInput, knownTypes: ReadonlySet<string>, isApp: boolean) => {
      const url = urlProblem(input.url, settings.allowPrivateDestinations)
      return [
        ...(url === undefined ? [] : [{ path: "/url", message: url }]),
        ...input.eventTypes.flatMap((type, index) =>
          knownTypes.has(type) ? [] : [{ path: `/eventTypes/${index}`, message: "is not an event type of the catalog" }]
        ),
        ...(isApp && input.contextIds.length > 0
          ? [{ path: "/contextIds", message: "must be empty for a connector app's webhook: its installations' grants decide" }]
          : [])
      ]
    }

    const lock = (organizationId: string, endpointId: string) =>
      Effect.flatMap(endpoints.lock(organizationId, endpointId), (row) =>
        row === undefined ? Effect.fail(new RecordNotFound({ kind: "webhook endpoint" })) : Effect.succeed(row)
      )

    const audit = (operator: Audit.Actor, organizationId: string, action: string, targetId: string, at: Date, details?: Record<string, unknown>) =>
      Audit.byActor(organizationId, operator, {
        action: `webhooks.${action}`,
        targetType: action.startsWith("delivery") ? "webhook_delivery" : "webhook_endpoint",
        targetId,
        ...(details === undefined ? {} : { details }),
        at
      })

    /** Queues a manual delivery of `of` (an event already delivered or made up) to the endpoint. */
    const queueManual = (of: DeliveryOf, at: Date) =>
      Effect.gen(function* () {
        const row = pendingDelivery(of, at, true)
        yield* deliveries.insert([row])
        yield* jobs.enqueue([{ deliveryId: row.id, attempt: 1, startAfter: at }])
        return row
      })

    const setStatus = (organizationId: string, endpointId: string, enabled: boolean, operator: Audit.Actor) =>
      Sql.transaction(
        Effect.gen(function* () {
          const endpoint = yield* lock(organizationId, endpointId)
          if ((endpoint.status === "enabled") === enabled) return endpoint
          const at = yield* Sql.now
          const next: EndpointRow = enabled
            ? { ...endpoint, status: "enabled", disabledReason: null, disabledAt: null, failingSince: null, updatedAt: at }
            : { ...endpoint, status: "disabled", disabledReason: "operator", disabledAt: at, updatedAt: at }
          yield* endpoints.update(next)
          yield* audit(operator, organizationId, enabled ? "endpoint.enabled" : "endpoint.disabled", endpointId, at)
          return next
        })
      )

    return {
      create: (
        organizationId: string,
        input: EndpointInput & { readonly connectorAppId?: string | undefined },
        knownTypes: ReadonlySet<string>,
        operator: Audit.Actor
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const appId = input.connectorAppId ?? null
            const issues = check(input, knownTypes, appId !== null)
            if (appId !== null && (yield* endpoints.appHasWebhook(appId))) {
              issues.push({ path: "/connectorAppId", message: "has a webhook already: change that one" })
            }
            const refused = endpointInvalid(issues)
            if (refused !== undefined) return yield* Effect.fail(refused)
            const at = yield* Sql.now
            const id = randomUUID()
            const secret = newSecret()
            const row: EndpointRow = {
              id,
              organizationId,
              appId,
              url: input.url,
              description: input.description,
              eventTypes: [...input.eventTypes],
              contextIds: [...input.contextIds],
              status: "enabled",
              disabledReason: null,
              disabledAt: null,
              failingSince: null,
              secretEnvelope: yield* seal(id, secret),
              secretLastFour: lastFour(secret),
              previousSecretEnvelope: null,
              previousSecretExpiresAt: null,
              createdAt: at,
              updatedAt: at
            }
            yield* endpoints.insert(row, () =>
              new EndpointInvalid({
                detail: "The endpoint is not valid; see issues.",
                issues: [{ path: "/connectorAppId", message: "has a webhook already: change that one" }]
              })
            )
            yield* audit(operator, organizationId, "endpoint.created", id, at, {
              url: row.url,
              appId,
              eventTypes: row.eventTypes,
              contextIds: row.contextIds
            })
            return { endpoint: row, secret }
          })
        ).pipe(span("create")),

      update: (organizationId: string, endpointId: string, input: EndpointInput, knownTypes: ReadonlySet<string>, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const endpoint = yield* lock(organizationId, endpointId)
            const refused = endpointInvalid(check(input, knownTypes, endpoint.appId !== null))
            if (refused !== undefined) return yield* Effect.fail(refused)
            const at = yield* Sql.now
            const next: EndpointRow = {
              ...endpoint,
              url: input.url,
              description: input.description,
              eventTypes: [...input.eventTypes],
              contextIds: [...input.contextIds],
              updatedAt: at
            }
            yield* endpoints.update(next)
            yield* audit(operator, organizationId, "endpoint.updated", endpointId, at, {
              url: next.url,
              eventTypes: next.eventTypes,
              contextIds: next.contextIds
            })
            return next
          })
        ).pipe(span("update")),

      rotateSecret: (organizationId: string, endpointId: string, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const endpoint = yield* lock(organizationId, endpointId)
            const at = yield* Sql.now
            const secret = newSecret()
            const next: EndpointRow = {
              ...endpoint,
              secretEnvelope: yield* seal(endpointId, secret),
              secretLastFour: lastFour(secret),
              previousSecretEnvelope: endpoint.secretEnvelope,
              previousSecretExpiresAt: new Date(at.getTime() + ROTATION_OVERLAP_MS),
              updatedAt: at
            }
            yield* endpoints.update(next)
            yield* audit(operator, organizationId, "endpoint.secret_rotated", endpointId, at, { lastFour: next.secretLastFour })
            return { endpoint: next, secret }
          })
        ).pipe(span("rotateSecret")),

      disable: (organizationId: string, endpointId: string, operator: Audit.Actor) =>
        setStatus(organizationId, endpointId, false, operator).pipe(span("disable")),

      enable: (organizationId: string, endpointId: string, operator: Audit.Actor) =>
        setStatus(organizationId, endpointId, true, operator).pipe(span("enable")),

      /** Deletes the endpoint with its delivery log; its queued attempts find nothing to do. */
      delete: (organizationId: string, endpointId: string, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const endpoint = yield* lock(organizationId, endpointId)
            const at = yield* Sql.now
            yield* endpoints.delete(endpointId)
            yield* audit(operator, organizationId, "endpoint.deleted", endpointId, at, { url: endpoint.url })
          })
        ).pipe(span("delete")),

      sendTestEvent: (organizationId: string, endpointId: string, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const endpoint = yield* lock(organizationId, endpointId)
            const at = yield* Sql.now
            const eventId = randomUUID()
            const envelope = {
              id: eventId,
              type: TEST_EVENT_TYPE,
              createdAt: at.toISOString(),
              organizationId,
              operationalContextId: null,
              data: { object: { endpointId: endpoint.id, message: "A test event sent from the console." } }
            }
            const row = yield* queueManual(
              { endpointId, organizationId, eventId, eventType: TEST_EVENT_TYPE, payload: JSON.stringify(envelope) },
              at
            )
            yield* audit(operator, organizationId, "endpoint.test_sent", endpointId, at, { deliveryId: row.id, eventId })
            return row
          })
        ).pipe(span("sendTestEvent")),

      /** `deliveryId` must be a delivery of one of the organization's endpoints (the handler checks). */
      redeliver: (organizationId: string, deliveryId: string, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const delivery = yield* deliveries.lock(deliveryId)
            if (delivery === undefined) return yield* new RecordNotFound({ kind: "webhook delivery" })
            yield* lock(organizationId, delivery.endpointId)
            const at = yield* Sql.now
            const row = yield* queueManual(delivery, at)
            yield* audit(operator, organizationId, "delivery.redelivered", row.id, at, { of: deliveryId, eventId: delivery.eventId })
            return row
          })
        ).pipe(span("redeliver")),

      redeliverSince: (organizationId: string, endpointId: string, since: Date, includeDelivered: boolean, operator: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            yield* lock(organizationId, endpointId)
            const at = yield* Sql.now
            const found = yield* deliveries.since(endpointId, since, includeDelivered, REDELIVER_LIMIT)
            for (const delivery of found) yield* queueManual(delivery, at)
            yield* audit(operator, organizationId, "endpoint.redelivered_since", endpointId, at, {
              since: since.toISOString(),
              includeDelivered,
              queued: found.length
            })
            return found.length
          })
        ).pipe(span("redeliverSince"))
    }
  })
}) {}
