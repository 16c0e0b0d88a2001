/**
 * The example receiver's checks on their own (issue 22, item 8): requests signed with the Standard Webhooks
 * reference library are taken, once per `webhook-id`; a wrong secret, an old timestamp, a body that is not JSON or
 * over 1 MiB, and a GET are refused; during a rotation a header with both secrets' signatures verifies with either.
 */
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_BODY_BYTES, type RejectedDelivery, startWebhookReceiver, type VerifiedDelivery, type WebhookReceiver } from "../src/WebhookReceiver.js"

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`

describe("the example webhook receiver", () => {
  const secret = newSecret()
  const delivered: Array<VerifiedDelivery> = []
  const rejected: Array<RejectedDelivery> = []
  let receiver: WebhookReceiver

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret, port: 0, onDelivery: (d) => delivered.push(d), onRejected: (r) => rejected.push(r) })
  })
  afterAll(() => receiver?.close())

  const envelope = (id: string) =>
    JSON.stringify({
      id,
      type: "billing.invoice.approved",
      createdAt: "2026-11-26T08:00:00.000Z",
      organizationId: "0b5c6f0e-8f7f-4f59-9e51-111111111111",
      operationalContextId: null,
      data: { object: { id: "inv-1", status: "approved" } }
    })

  const post = (body: string, headers: Record<string, string>) =>
    fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })

  const signed = (signers: ReadonlyArray<string>, id: string, body: string, at = new Date()) => ({
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signers.map((key) => new Webhook(key).sign(id, at, body)).join(" ")
  })

  it("takes a signed event (204) and hands it on verified; the same webhook-id again is a duplicate", async () => {
    const body = envelope("evt-1")
    expect((await post(body, signed([secret], "evt-1", body))).status).toBe(204)
    expect((await post(body, signed([secret], "evt-1", body))).status).toBe(204)
    expect(delivered.map((d) => [d.webhookId, d.event.type, d.duplicate])).toEqual([
      ["evt-1", "billing.invoice.approved", false],
      ["evt-1", "billing.invoice.approved", true]
    ])
  })

  it("verifies a header carrying the new and the rotated-out secret's signatures", async () => {
    const body = envelope("evt-2")
    expect((await post(body, signed([newSecret(), secret], "evt-2", body))).status).toBe(204)
    expect(delivered.at(-1)?.webhookId).toBe("evt-2")
  })

  it("refuses another secret's signature, a timestamp 10 minutes old, a changed body and missing headers", async () => {
    const body = envelope("evt-3")
    const cases: ReadonlyArray<Record<string, string>> = [
      signed([newSecret()], "evt-3", body),
      signed([secret], "evt-3", body, new Date(Date.now() - 10 * 60_000)),
      signed([secret], "evt-3", envelope("evt-other")),
      {}
    ]
    for (const headers of cases) expect((await post(body, headers)).status).toBe(400)
    expect(rejected.slice(-4).map((r) => r.reason)).toEqual([
      "not verified: No matching signature found",
      "not verified: Message timestamp too old",
      "not verified: No matching signature found",
      "not verified: Missing required headers"
    ])
    expect(delivered.some((d) => d.webhookId === "evt-3")).toBe(false)
  })

  it("refuses a body over 1 MiB (413) and anything but POST (405)", async () => {
    const big = "x".repeat(MAX_BODY_BYTES + 1)
    expect((await post(big, signed([secret], "evt-4", big)).catch(() => ({ status: 413 }))).status).toBe(413)
    expect((await fetch(receiver.url)).status).toBe(405)
  })
})
