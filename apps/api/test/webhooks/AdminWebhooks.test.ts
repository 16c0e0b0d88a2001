/**
 * The console's webhooks group over HTTP (issue 22, item 7), on PGlite and PostgreSQL: endpoints with their secret
 * shown once, rotation, disable/enable/delete, a test event delivered to a local receiver and its log (attempts,
 * status, latency, the response's first 1 KB), redelivery of one delivery and of everything since a time, the
 * refusals (VALIDATION_FAILED with issues; another organization's records are 404), an audit entry per change.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import * as Outbox from "../../src/platform/Outbox.js"
import * as Sql from "../../src/platform/Sql.js"
import * as Fixtures from "../support/Fixtures.js"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, operator, signIn, type Session } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import { type Receiver, receiver, waitFor } from "./WebhookFixtures.js"

// The product reads these when it starts: local receivers allowed, retries in milliseconds.
process.env["WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS"] = "true"
process.env["WEBHOOK_RETRY_SCALE"] = "0.0002"
process.env["WEBHOOK_TIMEOUT_SECONDS"] = "2"

describe.each(TestDatabase.kinds())("console webhooks (%s)", (kind) => {
  let console_: AdminConsole
  let hook: Receiver
  let otherSession: Session

  beforeAll(async () => {
    console_ = await startAdminConsole(kind)
    hook = await receiver()
    otherSession = await signIn(console_.app.adminUrl, await console_.app.run(operator(console_.other.organizationId)))
  }, 300_000)

  afterAll(async () => {
    await hook?.close()
    await console_?.app.dispose()
  })

  const api = (path: string, options: Parameters<typeof adminCall>[2] = {}, session: Session = console_.session) =>
    adminCall(console_.url(path), session, options)

  it("creates an endpoint and shows its secret once; lists, reads, changes, rotates, disables, enables and deletes it", async () => {
    const types = await api("/api/webhook-event-types")
    expect(types.status).toBe(200)
    expect(types.body.items).toContain("billing.invoice.approved")

    const created = await api("/api/webhook-endpoints", {
      body: { url: hook.url("/console"), description: "ERP", eventTypes: ["billing.invoice.approved"], contextIds: [console_.org.regionId] }
    })
    expect(created.status).toBe(201)
    const { endpoint, secret } = created.body
    expect(secret.secret).toMatch(/^whsec_/)
    expect(secret.lastFour).toBe(secret.secret.slice(-4))
    expect(endpoint).toMatchObject({ status: "enabled", connectorAppId: null, secretLastFour: secret.lastFour, contextIds: [console_.org.regionId] })
    expect(await console_.app.run(auditCount(console_.org.organizationId, "webhooks.endpoint.created"))).toBe(1)

    const read = await api(`/api/webhook-endpoints/${endpoint.id}`)
    expect(read.status).toBe(200)
    expect(JSON.stringify(read.body)).not.toContain(secret.secret)
    const listed = await api("/api/webhook-endpoints?q=ERP&status=enabled&owner=organization")
    expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([endpoint.id])
    expect((await api("/api/webhook-endpoints?status=disabled")).body.items).toEqual([])

    const changed = await api(`/api/webhook-endpoints/${endpoint.id}`, {
      method: "PUT",
      body: { url: hook.url("/console"), description: "ERP 2", eventTypes: [], contextIds: [] }
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ description: "ERP 2", eventTypes: [], contextIds: [] })

    const rotated = await api(`/api/webhook-endpoints/${endpoint.id}/rotate-secret`, { body: {} })
    expect(rotated.status).toBe(201)
    expect(rotated.body.secret.secret).not.toBe(secret.secret)
    expect(new Date(rotated.body.secret.previousSecretExpiresAt).getTime() - Date.now()).toBeGreaterThan(23 * 3600 * 1000)

    expect((await api(`/api/webhook-endpoints/${endpoint.id}/disable`, { body: {} })).body).toMatchObject({ status: "disabled", disabledReason: "operator" })
    expect((await api(`/api/webhook-endpoints/${endpoint.id}/enable`, { body: {} })).body).toMatchObject({ status: "enabled", disabledReason: null })
    expect((await api(`/api/webhook-endpoints/${endpoint.id}`, { method: "DELETE" })).status).toBe(204)
    expect((await api(`/api/webhook-endpoints/${endpoint.id}`)).status).toBe(404)
    expect(await console_.app.run(auditCount(console_.org.organizationId, "webhooks.endpoint.deleted"))).toBe(1)
  }, 60_000)

  it("sends a test event, logs its attempts and redelivers one delivery and everything since a time", async () => {
    hook.received.length = 0
    let calls = 0
    hook.answer = () => (++calls === 1 ? { status: 500, body: "x".repeat(5000) } : { status: 200, body: "received" })
    const created = await api("/api/webhook-endpoints", { body: { url: hook.url("/test-event") } })
    const { endpoint, secret } = created.body
    const sent = await api(`/api/webhook-endpoints/${endpoint.id}/test`, { body: {} })
    expect(sent.status).toBe(202)
    expect(sent.body).toMatchObject({ endpointId: endpoint.id, eventType: "webhook.test", status: "pending", manual: true })
    const deliveryId: string = sent.body.id
    await waitFor(async () => (await api(`/api/webhook-deliveries/${deliveryId}`)).body.delivery.status === "delivered", 20_000, "the test event delivered")
    const detail = (await api(`/api/webhook-deliveries/${deliveryId}`)).body
    expect(detail.attempts).toHaveLength(2)
    expect(detail.attempts[0]).toMatchObject({ number: 1, statusCode: 500, error: "status 500" })
    expect(detail.attempts[0].responseBody).toHaveLength(1024)
    expect(detail.attempts[1]).toMatchObject({ number: 2, statusCode: 200, error: null, responseBody: "received" })
    expect(typeof detail.attempts[1].latencyMs).toBe("number")
    expect(detail.payload).toMatchObject({ type: "webhook.test", organizationId: console_.org.organizationId })
    const last = hook.received.at(-1)!
    expect(new Webhook(secret.secret).verify(last.body, last.headers as Record<string, string>)).toEqual(detail.payload)

    const log = await api(`/api/webhook-deliveries?endpointId=${endpoint.id}&status=delivered`)
    expect(log.body.items.map((item: { id: string }) => item.id)).toEqual([deliveryId])
    expect((await api(`/api/webhook-deliveries?eventId=${detail.delivery.eventId}`)).body.items).toHaveLength(1)
    expect((await api(`/api/webhook-deliveries?eventId=not-a-uuid`)).body.items).toEqual([])

    const again = await api(`/api/webhook-deliveries/${deliveryId}/redeliver`, { body: {} })
    expect(again.status).toBe(202)
    expect(again.body).toMatchObject({ eventId: detail.delivery.eventId, manual: true, status: "pending" })
    await waitFor(() => hook.received.filter((request) => request.headers["webhook-id"] === detail.delivery.eventId).length === 3, 20_000, "the redelivery")

    // Redeliver since a time takes the endpoint's non-manual deliveries; there are none yet.
    const since = await api(`/api/webhook-endpoints/${endpoint.id}/redeliver`, { body: { since: new Date(Date.now() - 3600_000).toISOString() } })
    expect(since.status).toBe(202)
    expect(since.body).toEqual({ queued: 0 })
    expect(await console_.app.run(auditCount(console_.org.organizationId, "webhooks.endpoint.redelivered_since"))).toBe(1)
  }, 60_000)

  it("delivers a change end to end: outbox → publisher → fan-out → a signed request whose body is the event", async () => {
    hook.received.length = 0
    hook.answer = () => ({ status: 204 })
    const created = await api("/api/webhook-endpoints", {
      body: { url: hook.url("/e2e"), eventTypes: ["billing.invoice.approved"], contextIds: [console_.org.regionId] }
    })
    const { secret } = created.body
    const invoiceId = await console_.app.run(Fixtures.approvedInvoice(console_.org))
    const otherInvoiceId = await console_.app.run(Fixtures.approvedInvoice(console_.org, { contextId: console_.org.otherPropertyId }))
    const approved = (id: string, contextId: string): Outbox.OutboxEvent & Record<string, unknown> => ({
      _tag: "billing.invoice.approved",
      organizationId: console_.org.organizationId,
      operationalContextId: contextId,
      invoiceId: id,
      at: new Date()
    })
    // The second is outside the endpoint's region: not delivered.
    await console_.app.run(Sql.transaction(Outbox.append([approved(invoiceId, console_.org.propertyId), approved(otherInvoiceId, console_.org.otherPropertyId)])))
    await waitFor(() => hook.received.some((request) => request.path === "/e2e"), 30_000, "the published event delivered")
    const request = hook.received.find((one) => one.path === "/e2e")!
    const body = new Webhook(secret.secret).verify(request.body, request.headers as Record<string, string>) as {
      id: string
      type: string
      organizationId: string
      data: { object: { id: string } }
    }
    expect(body).toMatchObject({ type: "billing.invoice.approved", organizationId: console_.org.organizationId })
    expect(body.data.object.id).toBe(invoiceId)
    expect(request.headers["webhook-id"]).toBe(body.id)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(hook.received.filter((one) => one.path === "/e2e")).toHaveLength(1)
  }, 60_000)

  it("refuses what can't be saved and shows another organization nothing", async () => {
    const refused = await api("/api/webhook-endpoints", {
      body: { url: "ftp://example.test/x", eventTypes: ["no.such.type"], contextIds: [console_.other.rootId] }
    })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("VALIDATION_FAILED")
    expect(refused.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/contextIds/0"])
    const badFields = await api("/api/webhook-endpoints", { body: { url: "ftp://example.test/x", eventTypes: ["no.such.type"] } })
    expect(badFields.status).toBe(400)
    expect(badFields.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/eventTypes/0", "/url"])
    const unknownApp = await api("/api/webhook-endpoints", { body: { url: hook.url(), connectorAppId: "nobody" } })
    expect(unknownApp.status).toBe(404)

    const mine = (await api("/api/webhook-endpoints", { body: { url: hook.url("/mine") } })).body.endpoint
    expect((await api(`/api/webhook-endpoints/${mine.id}`, {}, otherSession)).status).toBe(404)
    expect((await api(`/api/webhook-endpoints/${mine.id}/disable`, { body: {} }, otherSession)).status).toBe(404)
    expect((await api(`/api/webhook-endpoints/${mine.id}/test`, { body: {} }, otherSession)).status).toBe(404)
    expect((await api(`/api/webhook-endpoints/${mine.id}`, { method: "DELETE" }, otherSession)).status).toBe(404)
    expect((await api("/api/webhook-endpoints", {}, otherSession)).body.items).toEqual([])
    expect((await api("/api/webhook-deliveries", {}, otherSession)).body.items).toEqual([])
    expect((await api(`/api/webhook-endpoints/${mine.id}`)).body.status).toBe("enabled")
  }, 60_000)
})
