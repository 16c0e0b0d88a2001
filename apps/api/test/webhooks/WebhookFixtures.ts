/**
 * What the webhook suites share: a local receiver that records every request and answers as a test tells it, the
 * webhooks capability started over a test database with given settings (queue, fan-out, delivery loop, operator
 * service), published events made up for the fan-out, and waiting on a condition (bounded, polling).
 */
import * as Db from "@propline/db/Db"
import { EVENT_TYPES as CATALOG_TYPES } from "@propline/contract/Events"
import { Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { EventFanout } from "../../src/events/EventFanout.js"
import type { PublishedEvent } from "../../src/events/PublishedEvent.js"
import { KeyEncryption, type Keyring } from "../../src/platform/KeyEncryption.js"
import * as Sql from "../../src/platform/Sql.js"
import { type EndpointInput, WebhookOperatorService } from "../../src/webhooks/WebhookOperatorService.js"
import { makeSettings, WebhookSettings, type WebhookSettingsShape } from "../../src/webhooks/WebhookSettings.js"
import { WebhookFanoutOnlyLive, webhookQueue, WebhookOperatorLive, WebhookWorkerRoleLive } from "../../src/webhooks/WebhooksLive.js"
import { TestKeyEncryption } from "../support/KeyEncryptionFixtures.js"

export interface Received {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  readonly at: number
  /** The sender's port on its side of the connection. */
  readonly remotePort: number
}

/** How the receiver answers one request (status 200 by default), optionally after a delay. */
export type Answer = { readonly status?: number; readonly body?: string; readonly delayMs?: number; readonly headers?: Record<string, string> }

export interface Receiver {
  readonly url: (path?: string) => string
  readonly received: Array<Received>
  /** Decides each answer; replace it to change behaviour. */
  answer: (request: Received, server: ServerResponse) => Answer | "handled"
  readonly close: () => Promise<void>
}

/** A receiver on 127.0.0.1 and a free port. */
export const receiver = async (): Promise<Receiver> => {
  const state: Receiver = {
    url: () => "",
    received: [],
    answer: () => ({ status: 200, body: "ok" }),
    close: async () => {}
  }
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const record = { path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now(), remotePort: request.socket.remotePort ?? 0 }
      state.received.push(record)
      const answer = state.answer(record, response)
      if (answer === "handled") return
      const send = () => {
        if (response.destroyed) return
        response.writeHead(answer.status ?? 200, { "content-type": "text/plain", ...answer.headers })
        response.end(answer.body ?? "")
      }
      if (answer.delayMs === undefined) send()
      else setTimeout(send, answer.delayMs).unref()
    })
  })
  server.keepAliveTimeout = 1000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return Object.assign(state, {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
}

/** Settings for tests: local receivers allowed, a short timeout, the schedule in milliseconds. */
export const testSettings = (overrides: Partial<Parameters<typeof makeSettings>[0]> = {}): WebhookSettingsShape =>
  makeSettings({ allowPrivateDestinations: true, timeoutMs: 2000, retryScale: 0.0002, concurrency: 4, ...overrides })

export type Services = Db.Db | KeyEncryption | EventFanout | WebhookOperatorService | WebhookSettings

export interface Webhooks {
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  readonly dispose: () => Promise<void>
}

/**
 * The webhooks capability over the database `config` with `settings`: the queue, the fan-out, the operator service
 * and, unless `worker: false`, the delivery loop (one worker instance); sealing and opening with `keyring` (the
 * tests' {@link TestKeyEncryption} by default).
 */
export const startWebhooks = async (
  config: Db.DbConfig,
  settings: WebhookSettingsShape,
  options: { readonly worker?: boolean; readonly keyring?: Keyring } = {}
): Promise<Webhooks> => {
  const role = options.worker === false ? WebhookFanoutOnlyLive : WebhookWorkerRoleLive
  const layer = Layer.mergeAll(role, WebhookOperatorLive).pipe(
    Layer.provideMerge(webhookQueue(WebhookSettings.layer(settings))),
    Layer.provideMerge(Db.layer(config)),
    Layer.provideMerge(options.keyring === undefined ? TestKeyEncryption : KeyEncryption.layer(options.keyring))
  )
  const runtime = ManagedRuntime.make(layer)
  await runtime.runtime()
  return { run: (effect) => runtime.runPromise(effect), dispose: () => runtime.dispose() }
}

/** An operator of `organizationId` as an audit actor. */
export const operatorActor = { type: "operator", id: "test-operator" } as const

/** Creates an endpoint of the organization (or of an app); resolves to the endpoint and its secret. */
export const createEndpoint = (
  organizationId: string,
  input: Partial<EndpointInput> & { readonly url: string; readonly connectorAppId?: string },
  knownTypes: ReadonlySet<string> = new Set(EVENT_TYPES)
) =>
  Effect.flatMap(WebhookOperatorService, (service) =>
    service.create(organizationId, { description: "", eventTypes: [], contextIds: [], ...input }, knownTypes, operatorActor)
  )

export const EVENT_TYPES: ReadonlyArray<string> = CATALOG_TYPES

/** A published event as the publisher hands it to the fan-out. */
export const publishedEvent = (input: {
  readonly organizationId: string
  readonly type?: string
  readonly contextId?: string | null
  readonly installationId?: string
}): PublishedEvent => {
  const id = randomUUID()
  const createdAt = new Date()
  const type = input.type ?? "billing.invoice.approved"
  const operationalContextId = input.contextId === undefined ? null : input.contextId
  return {
    id,
    type,
    createdAt,
    organizationId: input.organizationId,
    operationalContextId,
    ...(input.installationId === undefined ? {} : { installationId: input.installationId }),
    envelope: {
      id,
      type,
      createdAt: createdAt.toISOString(),
      organizationId: input.organizationId,
      operationalContextId,
      data: { object: { id: randomUUID(), note: "é ✓" } }
    }
  }
}

/** Fans `events` out in one transaction, as the publisher does. */
export const publish = (events: ReadonlyArray<PublishedEvent>) =>
  Effect.flatMap(EventFanout, (fanout) => Sql.transaction(fanout.fanOut(events)))

/** Waits until `condition()` holds, polling every 50 ms; fails after `timeoutMs`. */
export const waitFor = async (condition: () => boolean | Promise<boolean>, timeoutMs: number, what = "condition"): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
