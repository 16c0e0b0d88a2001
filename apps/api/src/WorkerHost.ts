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
 */
import { Layer } from "effect"
import { InvoiceRepository } from "./billing/InvoiceRepository.js"
import { ProposalRepository } from "./billing/ProposalRepository.js"
import { WithdrawalRepository } from "./billing/WithdrawalRepository.js"
import { BookingRequestRepository } from "./booking/BookingRequestRepository.js"
import { EventRepository } from "./events/EventRepository.js"
import { EventWorkerLive } from "./events/EventWorker.js"
import { IntegrationConfigurationRepository } from "./integrations/IntegrationConfigurationRepository.js"
import { SigningAttemptRepository } from "./signing/SigningAttemptRepository.js"
import { WebhookQueueLive, WebhookWorkerRoleLive } from "./webhooks/WebhooksLive.js"

/** What the publisher reads: its own table and each event's resource through its owner's repository. */
const PublisherReadsLive = Layer.mergeAll(
  EventRepository.Default,
  InvoiceRepository.Default,
  ProposalRepository.Default,
  WithdrawalRepository.Default,
  SigningAttemptRepository.Default,
  BookingRequestRepository.Default,
  IntegrationConfigurationRepository.Default
)

/** The worker's loops (each a scoped layer that forks its fiber and stops with the scope). */
const workerLoops = Layer.mergeAll(EventWorkerLive.pipe(Layer.provide(PublisherReadsLive)))

/** The worker role: its loops, with what they fan published events out to. */
export const WorkerHostLive = workerLoops.pipe(Layer.provideMerge(WebhookWorkerRoleLive), Layer.provide(WebhookQueueLive))
