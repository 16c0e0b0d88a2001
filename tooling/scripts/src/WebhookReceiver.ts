/**
 * A webhook receiver as an integrator writes one (issue 22, item 8): an HTTP server that takes `POST` requests,
 * verifies each with the Standard Webhooks reference library (`standardwebhooks`: the `webhook-signature` header's
 * `v1,` HMAC-SHA256 over `webhook-id.webhook-timestamp.body` with the `whsec_` secret; any of the space-separated
 * signatures may match, so both secrets verify during a rotation; a timestamp more than 5 minutes away is refused),
 * and de-duplicates by `webhook-id` (deliveries are at least once: a redelivery or a retry after a lost answer carries
 * the same id).
 *
 * Answers: 204 for a verified event (a duplicate too: it was handled), 400 for a signature or timestamp that does not
 * verify or a body that is not JSON (the sender retries; a forged request never gets 2xx), 413 for a body over 1 MiB,
 * 405 for anything but POST.
 */
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { EventEnvelope } from "@propline/contract/Events"
import { Webhook, WebhookVerificationError } from "standardwebhooks"

/** A verified delivery: the envelope, the headers' id and time, and whether this id arrived before. */
export interface VerifiedDelivery {
  readonly webhookId: string
  /** `webhook-timestamp`: when this attempt was signed. */
  readonly signedAt: Date
  readonly receivedAt: Date
  readonly event: EventEnvelope
  readonly duplicate: boolean
}

/** A request that was refused, and why. */
export interface RejectedDelivery {
  readonly status: number
  readonly reason: string
  readonly webhookId: string | undefined
}

export interface WebhookReceiver {
  /** `http://<host>:<port><path>`. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** The largest body read, in bytes (1 MiB; the product's envelopes are far smaller). */
export const MAX_BODY_BYTES = 1024 * 1024

/** How many `webhook-id`s are remembered for de-duplication (the oldest are forgotten first). */
const REMEMBERED_IDS = 100_000

class BodyTooLarge extends Error {}

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge())
        request.destroy()
        return
      }
      chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * Listens on `host:port` (port 0: any free one) and calls `onDelivery` for each verified event and `onRejected` for
 * each refused request. `secret` is the endpoint's `whsec_…` secret.
 */
export const startWebhookReceiver = async (options: {
  readonly secret: string
  readonly port: number
  readonly host?: string
  readonly path?: string
  readonly onDelivery: (delivery: VerifiedDelivery) => void
  readonly onRejected?: (rejected: RejectedDelivery) => void
}): Promise<WebhookReceiver> => {
  const verifier = new Webhook(options.secret)
  const host = options.host ?? "127.0.0.1"
  const path = options.path ?? "/webhooks"
  const seen = new Set<string>()
  const server = createServer((request, response) => {
    const answer = (status: number, reason?: string) => {
      if (reason !== undefined) options.onRejected?.({ status, reason, webhookId: header(request, "webhook-id") })
      response.writeHead(status, reason === undefined ? {} : { "content-type": "text/plain; charset=utf-8" })
      response.end(reason)
    }
    if (request.method !== "POST" || (request.url ?? "").split("?")[0] !== path) return answer(405, `POST ${path} only`)
    readBody(request).then(
      (body) => {
        const headers = {
          "webhook-id": header(request, "webhook-id") ?? "",
          "webhook-timestamp": header(request, "webhook-timestamp") ?? "",
          "webhook-signature": header(request, "webhook-signature") ?? ""
        }
        let event: EventEnvelope
        try {
          event = verifier.verify(body, headers) as EventEnvelope
        } catch (error) {
          return answer(400, error instanceof WebhookVerificationError ? `not verified: ${error.message}` : "the body is not JSON")
        }
        const webhookId = headers["webhook-id"]
        const duplicate = seen.has(webhookId)
        if (!duplicate) {
          seen.add(webhookId)
          if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!)
        }
        answer(204)
        options.onDelivery({
          webhookId,
          signedAt: new Date(Number(headers["webhook-timestamp"]) * 1000),
          receivedAt: new Date(),
          event,
          duplicate
        })
      },
      (error: unknown) => (error instanceof BodyTooLarge ? answer(413, "the body is over 1 MiB") : answer(400, "the body could not be read"))
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** One line about a delivery: time, type, id, organization and context, and the resource's id and status if any. */
export const describeDelivery = (delivery: VerifiedDelivery): string => {
  const { event } = delivery
  const object = (typeof event.data.object === "object" && event.data.object !== null ? event.data.object : {}) as Record<string, unknown>
  const resource = [object["id"], object["status"]].filter((part) => typeof part === "string").join(" ")
  const context = event.operationalContextId === null ? "" : ` context ${event.operationalContextId}`
  return [
    `${delivery.receivedAt.toISOString()} ${delivery.duplicate ? "duplicate (already handled)" : "verified"} ${event.type}`,
    `  webhook-id ${delivery.webhookId}, organization ${event.organizationId}${context}`,
    ...(resource === "" ? [] : [`  ${resource}`])
  ].join("\n")
}
