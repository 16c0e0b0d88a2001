/**
 * The webhooks capability's layers, for the hosts: the queue (pg-boss, started once per process, with the settings
 * from the environment) that the console's commands and the worker share, and the worker role's part — the
 * `EventFanout` the events publisher calls and the delivery loop.
 */
import { Layer } from "effect"
import { ContextService } from "../contexts/ContextService.js"
import { InstallationRepository } from "../identity/InstallationRepository.js"
import { WebhookDeliveryRepository } from "./WebhookDeliveryRepository.js"
import { WebhookDeliveryService } from "./WebhookDeliveryService.js"
import { WebhookEndpointRepository } from "./WebhookEndpointRepository.js"
import { WebhookFanoutLive } from "./WebhookFanout.js"
import { WebhookJobRepository } from "./WebhookJobRepository.js"
import { WebhookOperatorService } from "./WebhookOperatorService.js"
import { WebhookSettings } from "./WebhookSettings.js"
import { WebhookWorkerLive } from "./WebhookWorker.js"

/** The job queue with the settings it was started with (`settings`: the environment's by default). */
export const webhookQueue = (settings: Layer.Layer<WebhookSettings> = WebhookSettings.fromEnv) =>
  Layer.provideMerge(WebhookJobRepository.layer, settings)

/** The queue of this process, from the environment: one instance, memoized, shared by the console and the worker. */
export const WebhookQueueLive = webhookQueue()

const Repositories = Layer.mergeAll(
  WebhookEndpointRepository.Default,
  WebhookDeliveryRepository.Default,
  ContextService.Default,
  InstallationRepository.Default
)

/** The worker role's webhooks: provides `EventFanout` and runs the delivery loop. Needs the queue. */
export const WebhookWorkerRoleLive = Layer.merge(WebhookFanoutLive, WebhookWorkerLive).pipe(
  Layer.provide(WebhookDeliveryService.Default),
  Layer.provide(Repositories)
)

/** The fan-out alone, without a delivery loop (an instance that only publishes; tests). Needs the queue. */
export const WebhookFanoutOnlyLive = WebhookFanoutLive.pipe(Layer.provide(Repositories))

/** The console's webhooks services (operator service, read model). Needs the queue. */
export const WebhookOperatorLive = WebhookOperatorService.Default.pipe(
  Layer.provide(Layer.mergeAll(WebhookEndpointRepository.Default, WebhookDeliveryRepository.Default))
)
