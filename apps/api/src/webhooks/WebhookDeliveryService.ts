/**
 * Delivering (issue 22, item 3): one job is one attempt of one delivery. The attempt is made outside any
 * transaction. A success is recorded in one statement (the attempt row, the delivery delivered, the endpoint's
 * failing streak ended); a failure in one transaction: the attempt row, the delivery's status, the next attempt's
 * job on the retry schedule (`@propline/webhooks/RetrySchedule`) or `failed` when the 3 days are over, and the
 * endpoint's failing state — an endpoint failing for 5 days is disabled with the audit entry `webhooks.endpoint.auto_disabled`
 * (actor `system`).
 *
 * At least once: a worker that dies between the request and the record leaves its job claimed; pg-boss gives it to
 * another worker when the claim expires, which attempts again. A job whose attempt was recorded already (the
 * delivery moved on) does nothing, so without failures each delivery is attempted exactly once per job.
 */
import { disablesEndpoint, nextAttemptAt } from "@propline/webhooks/RetrySchedule"
import { signedHeaders } from "@propline/webhooks/WebhookSignature"
import { Effect } from "effect"
import * as Audit from "../platform/Audit.js"
import * as Sql from "../platform/Sql.js"
import { WebhookDeliveryRepository } from "./WebhookDeliveryRepository.js"
import { WebhookEndpointRepository } from "./WebhookEndpointRepository.js"
import { attempt as sendAttempt, type AttemptOutcome, makeAgent } from "./WebhookHttp.js"
import { type DeliveryJob, WebhookJobRepository } from "./WebhookJobRepository.js"
import { signingSecrets } from "./WebhookSecrets.js"
import { WebhookSettings } from "./WebhookSettings.js"

const span = (name: string) => Effect.withSpan(`WebhookDeliveryService.${name}`, { captureStackTrace: false })

export class WebhookDeliveryService extends Effect.Service<WebhookDeliveryService>()("@propline/api/webhooks/WebhookDeliveryService", {
  scoped: Effect.gen(function* () {
    const deliveries = yield* WebhookDeliveryRepository
    const endpoints = yield* WebhookEndpointRepository
    const jobs = yield* WebhookJobRepository
    const settings = yield* WebhookSettings
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => makeAgent(settings.allowPrivateDestinations, settings.timeoutMs)),
      (agent) => Effect.promise(() => agent.close())
    )
    const scale = { scale: settings.retryScale }

    /** The attempt row of `outcome` as attempt `job.attempt`. */
    const attemptRow = (job: DeliveryJob, outcome: AttemptOutcome) => ({
      deliveryId: job.deliveryId,
      number: job.attempt,
      startedAt: outcome.startedAt,
      latencyMs: outcome.latencyMs,
      statusCode: outcome.statusCode,
      error: outcome.error,
      responseBody: outcome.responseBody
    })

    /** Records a successful `outcome` as attempt `job.attempt` (one statement), unless the delivery moved on meanwhile. */
    const recordDelivered = (job: DeliveryJob, outcome: AttemptOutcome) =>
      Effect.flatMap(Sql.now, (now) => deliveries.recordDelivered(attemptRow(job, outcome), now))

    /** Records a failed `outcome` as attempt `job.attempt`, unless the delivery moved on meanwhile. */
    const recordFailed = (job: DeliveryJob, outcome: AttemptOutcome & { readonly error: string }) =>
      Sql.transaction(
        Effect.gen(function* () {
          const delivery = yield* deliveries.lock(job.deliveryId)
          if (delivery === undefined || delivery.status !== "pending" || delivery.attemptCount !== job.attempt - 1) return
          const now = yield* Sql.now
          yield* deliveries.insertAttempt(attemptRow(job, outcome))
          const endpoint = yield* endpoints.lockById(delivery.endpointId)
          const common = { ...delivery, attemptCount: job.attempt, lastAttemptAt: outcome.startedAt, lastStatusCode: outcome.statusCode }
          const next = nextAttemptAt(job.attempt, delivery.createdAt, now, Math.random(), scale)
          if (next === undefined) {
            yield* deliveries.update({ ...common, status: "failed", nextAttemptAt: null })
          } else {
            yield* deliveries.update({ ...common, status: "pending", nextAttemptAt: next })
            yield* jobs.enqueue([{ deliveryId: delivery.id, attempt: job.attempt + 1, startAfter: next }])
          }
          if (endpoint === undefined) return
          const failingSince = endpoint.failingSince ?? outcome.startedAt
          if (endpoint.status === "enabled" && disablesEndpoint(failingSince, now, scale)) {
            yield* endpoints.update({ ...endpoint, failingSince, status: "disabled", disabledReason: "failing", disabledAt: now, updatedAt: now })
            yield* Audit.byActor(endpoint.organizationId, { type: "system", id: "webhooks" }, {
              action: "webhooks.endpoint.auto_disabled",
              targetType: "webhook_endpoint",
              targetId: endpoint.id,
              details: { url: endpoint.url, failingSince: failingSince.toISOString(), lastError: outcome.error },
              at: now
            })
          } else if (endpoint.failingSince === null) {
            yield* endpoints.update({ ...endpoint, failingSince })
          }
        })
      )

    /** Gives up a delivery whose endpoint is disabled (an operator's redelivery or test event still goes). */
    const abandon = (job: DeliveryJob) =>
      Sql.transaction(
        Effect.gen(function* () {
          const delivery = yield* deliveries.lock(job.deliveryId)
          if (delivery === undefined || delivery.status !== "pending" || delivery.attemptCount !== job.attempt - 1) return
          yield* deliveries.update({ ...delivery, status: "failed", nextAttemptAt: null })
        })
      )

    return {
      /** Makes attempt `job.attempt` of the delivery and records it; nothing when it was made already. */
      perform: (job: DeliveryJob) =>
        Effect.gen(function* () {
          const found = yield* deliveries.withEndpoint(job.deliveryId)
          if (found === undefined || found.status !== "pending" || found.attemptCount !== job.attempt - 1) return "skipped" as const
          if (found.endpointStatus !== "enabled" && !found.manual) {
            yield* abandon(job)
            return "abandoned" as const
          }
          const now = yield* Sql.now
          const secrets = yield* signingSecrets(found, now)
          const headers = signedHeaders(secrets, found.eventId, now, found.payload)
          const outcome = yield* Effect.promise(() => sendAttempt(agent, found.url, headers, found.payload, settings.timeoutMs))
          if (outcome.error === null) {
            yield* recordDelivered(job, outcome)
            return "delivered" as const
          }
          yield* recordFailed(job, { ...outcome, error: outcome.error })
          return "failed" as const
        }).pipe(span("perform"))
    }
  })
}) {}
