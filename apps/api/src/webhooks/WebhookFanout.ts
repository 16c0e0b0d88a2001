/**
 * The webhooks' `EventFanout` (issue 22, items 2 and 5): for each published event, one delivery and its first job
 * per endpoint that receives it (`@propline/webhooks/Subscription`), in the publisher's transaction — so deliveries
 * are made from the outbox exactly once (the `(event, endpoint)` key makes a repeat a no-op as well).
 *
 * Who reads: an organization's endpoint as its organization with the roles billing, signing and booking and its
 * contexts (each with its subtree; none: all of them); a connector app's webhook as the app's active installation in
 * the event's organization (its roles, granted contexts with their subtrees, and id). A suspended or removed
 * installation receives nothing.
 */
import { type EventReader, visibleContexts } from "@propline/identity/EventVisibility"
import { ORGANIZATION_ROLES, receives } from "@propline/webhooks/Subscription"
import { Effect, Layer } from "effect"
import { ContextService } from "../contexts/ContextService.js"
import { EventFanout } from "../events/EventFanout.js"
import type { PublishedEvent } from "../events/PublishedEvent.js"
import { InstallationRepository } from "../identity/InstallationRepository.js"
import * as Sql from "../platform/Sql.js"
import { type DeliveryRow, pendingDelivery, WebhookDeliveryRepository } from "./WebhookDeliveryRepository.js"
import { WebhookEndpointRepository } from "./WebhookEndpointRepository.js"
import { WebhookJobRepository } from "./WebhookJobRepository.js"

interface Receiver {
  readonly endpointId: string
  readonly eventTypes: ReadonlyArray<string>
  readonly reader: EventReader
}

export const WebhookFanoutLive = Layer.effect(
  EventFanout,
  Effect.gen(function* () {
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const jobs = yield* WebhookJobRepository
    const contexts = yield* ContextService
    const installations = yield* InstallationRepository

    /** Every endpoint that may receive the organization's events, each with who it reads as. */
    const receiversOf = (organizationId: string, own: ReadonlyArray<{ readonly id: string; readonly organizationId: string; readonly eventTypes: ReadonlyArray<string>; readonly contextIds: ReadonlyArray<string> }>, ofApps: ReadonlyArray<{ readonly id: string; readonly appId: string | null; readonly eventTypes: ReadonlyArray<string> }>) =>
      Effect.gen(function* () {
        const tree = yield* contexts.tree(organizationId)
        const everyContext = tree.map((node) => node.id)
        const receivers: Array<Receiver> = own
          .filter((endpoint) => endpoint.organizationId === organizationId)
          .map((endpoint) => ({
            endpointId: endpoint.id,
            eventTypes: endpoint.eventTypes,
            reader: {
              organizationId,
              roles: ORGANIZATION_ROLES,
              visibleContextIds: visibleContexts(endpoint.contextIds.length === 0 ? everyContext : endpoint.contextIds, tree)
            }
          }))
        for (const endpoint of ofApps) {
          if (endpoint.appId === null) continue
          const installation = yield* installations.liveOf(endpoint.appId, organizationId)
          if (installation === undefined || installation.status !== "active") continue
          receivers.push({
            endpointId: endpoint.id,
            eventTypes: endpoint.eventTypes,
            reader: {
              organizationId,
              roles: installation.roles,
              visibleContextIds: visibleContexts(installation.contextIds, tree),
              installationId: installation.id
            }
          })
        }
        return receivers
      })

    const fanOut = (events: ReadonlyArray<PublishedEvent>) =>
      Effect.gen(function* () {
        if (events.length === 0) return
        const organizationIds = [...new Set(events.map((event) => event.organizationId))]
        const own = yield* endpoints.enabledOfOrganizations(organizationIds)
        const ofApps = yield* endpoints.enabledOfApps()
        if (own.length === 0 && ofApps.length === 0) return
        const at = yield* Sql.now
        const rows: Array<DeliveryRow> = []
        for (const organizationId of organizationIds) {
          const receivers = yield* receiversOf(organizationId, own, ofApps)
          if (receivers.length === 0) continue
          for (const event of events) {
            if (event.organizationId !== organizationId) continue
            const payload = JSON.stringify(event.envelope)
            for (const receiver of receivers) {
              if (!receives(receiver, event)) continue
              rows.push(
                pendingDelivery({ endpointId: receiver.endpointId, organizationId, eventId: event.id, eventType: event.type, payload }, at, false)
              )
            }
          }
        }
        const inserted = yield* deliveries.insert(rows)
        yield* jobs.enqueue(inserted.map((deliveryId) => ({ deliveryId, attempt: 1, startAfter: at })))
      }).pipe(Effect.withSpan("WebhookFanout.fanOut", { captureStackTrace: false }))

    return { fanOut }
  })
)
