/**
 * The worker role (`HOSTS=worker`; in the default set, so `pnpm start` runs it beside the listeners): background
 * loops that any number of processes run against one database, each claiming its work with `for update skip
 * locked`, so a deployment runs it on the HTTP hosts or apart from them, on as many instances as it likes. It
 * listens on no port.
 *
 * Its loops:
 * - the events publisher and the 30-day retention purge (`events/EventWorker.ts`);
 * - the webhook deliveries (`webhooks/WebhooksLive.ts`): the webhooks' `EventFanout`, which the publisher calls in
 *   its transaction (one delivery and its job per event and receiving endpoint), and the delivery loop on the
 *   pg-boss queue.
 *
 * Before its loops start, it re-seals the webhook endpoints' secrets sealed under an older key-encryption key
 * (`webhooks/WebhookSecrets.ts`; it is the host that signs with them); a key list that can't open one refuses the start.
 */
import { Layer } from "effect"
import { EventWorkerLive } from "./events/EventWorker.js"
import { EndpointSecretsResealed } from "./webhooks/WebhookSecrets.js"
import { WebhookQueueLive, WebhookWorkerRoleLive } from "./webhooks/WebhooksLive.js"

/** The worker's loops (each a scoped layer that forks its fiber and stops with the scope). */
const workerLoops = Layer.mergeAll(EventWorkerLive)

/** The worker role: its loops, with what they fan published events out to. */
export const WorkerHostLive = workerLoops.pipe(
  Layer.provideMerge(WebhookWorkerRoleLive),
  Layer.provide(WebhookQueueLive),
  // Built before the loops, so no delivery signs while the re-sealing runs; a key list that can't open a secret fails here.
  Layer.provide(EndpointSecretsResealed)
)
