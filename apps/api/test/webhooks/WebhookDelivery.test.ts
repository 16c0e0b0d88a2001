/**
 * Delivery (issue 22, items 3 and 4), on PGlite and PostgreSQL: Standard Webhooks signatures that the reference
 * library verifies (both secrets during a rotation), the body exactly the event's envelope, retries on the
 * schedule until a success (6 attempts logged with their times, one success), auto-disable with its audit entry.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { baseDelay, SCHEDULE } from "@propline/webhooks/RetrySchedule"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebhookOperatorService } from "../../src/webhooks/WebhookOperatorService.js"
import { WebhookReadRepository } from "../../src/webhooks/WebhookReadRepository.js"
import * as Fixtures from "../support/Fixtures.js"
import {
  createEndpoint,
  operatorActor,
  publish,
  publishedEvent,
  type Receiver,
  receiver,
  startWebhooks,
  testSettings,
  waitFor,
  type Webhooks
} from "./WebhookFixtures.js"

const attemptsOf = (deliveryId: string) =>
  Db.query((db) => db.selectFrom("webhookAttempts").selectAll().where("deliveryId", "=", deliveryId).orderBy("number").execute())

const deliveriesOf = (endpointId: string) =>
  Db.query((db) => db.selectFrom("webhookDeliveries").selectAll().where("endpointId", "=", endpointId).execute())

describe.each(TestDatabase.kinds())("webhook delivery (%s)", (kind) => {
  let database: TestDatabase.TestDatabase
  let webhooks: Webhooks
  let hook: Receiver
  let org: Fixtures.OrganizationFixture
  const settings = testSettings()

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    webhooks = await startWebhooks(database.config, settings)
    org = await webhooks.run(Fixtures.organization({ name: "Nordhavn" }))
    hook = await receiver()
  }, 240_000)

  afterAll(async () => {
    await hook?.close()
    await webhooks?.dispose()
    await database?.drop()
  })

  describe("signatures", () => {
    it("verify with the standardwebhooks library; the body is the envelope exactly; during a rotation both secrets verify, after it the new one only", async () => {
      hook.received.length = 0
      hook.answer = () => ({ status: 204 })
      const { endpoint, secret: first } = await webhooks.run(createEndpoint(org.organizationId, { url: hook.url("/signed") }))
      expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      const event = publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })
      await webhooks.run(publish([event]))
      const signed = () => hook.received.filter((request) => request.path === "/signed")
      await waitFor(() => signed().length === 1, 20_000, "the first delivery")
      const [delivered] = signed()
      expect(delivered!.body).toBe(JSON.stringify(event.envelope))
      expect(delivered!.headers["webhook-id"]).toBe(event.id)
      expect(new Webhook(first).verify(delivered!.body, delivered!.headers as Record<string, string>)).toEqual(event.envelope)

      const { secret: second } = await webhooks.run(
        Effect.flatMap(WebhookOperatorService, (service) => service.rotateSecret(org.organizationId, endpoint.id, operatorActor))
      )
      expect(second).not.toBe(first)
      const next = publishedEvent({ organizationId: org.organizationId, contextId: org.regionId })
      await webhooks.run(publish([next]))
      await waitFor(() => signed().length === 2, 20_000, "the delivery after the rotation")
      const rotated = signed()[1]!
      const headers = rotated.headers as Record<string, string>
      expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2)
      expect(new Webhook(second).verify(rotated.body, headers)).toEqual(next.envelope)
      expect(new Webhook(first).verify(rotated.body, headers)).toEqual(next.envelope)
      const tampered = rotated.body.replace("Nordhavn", "x").replace('"note"', '"nota"')
      expect(() => new Webhook(second).verify(tampered, headers)).toThrow()
      // Once the overlap is over (24 h; moved into the past here), only the new secret signs.
      await webhooks.run(
        Db.query((db) => db.updateTable("webhookEndpoints").set({ previousSecretExpiresAt: new Date(Date.now() - 1000) }).where("id", "=", endpoint.id).execute())
      )
      const after = publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })
      await webhooks.run(publish([after]))
      await waitFor(() => signed().length === 3, 20_000, "the delivery after the overlap")
      const late = signed()[2]!
      const lateHeaders = late.headers as Record<string, string>
      expect(lateHeaders["webhook-signature"]!.split(" ")).toHaveLength(1)
      expect(new Webhook(second).verify(late.body, lateHeaders)).toEqual(after.envelope)
      expect(() => new Webhook(first).verify(late.body, lateHeaders)).toThrow()
      await webhooks.run(Effect.flatMap(WebhookOperatorService, (service) => service.delete(org.organizationId, endpoint.id, operatorActor)))
    }, 30_000)
  })

  describe("retries", () => {
    it("a receiver that fails 5 times then succeeds is delivered to once; the log shows 6 attempts with their times", async () => {
      let calls = 0
      hook.received.length = 0
      // Only this test's path counts: a request for another endpoint (a test that failed before) is answered 200.
      hook.answer = (request) =>
        request.path !== "/flaky" ? { status: 200 } : ++calls <= 5 ? { status: 503, body: `down ${calls}` } : { status: 200, body: "thanks" }
      const { endpoint } = await webhooks.run(createEndpoint(org.organizationId, { url: hook.url("/flaky") }))
      await webhooks.run(publish([publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })]))
      const delivered = async () => (await webhooks.run(deliveriesOf(endpoint.id)))[0]?.status === "delivered"
      await waitFor(delivered, 30_000, "the delivery after 5 failures")
      const [delivery] = await webhooks.run(deliveriesOf(endpoint.id))
      const attempts = await webhooks.run(attemptsOf(delivery!.id))
      expect(attempts.map((attempt) => attempt.statusCode)).toEqual([503, 503, 503, 503, 503, 200])
      expect(attempts.map((attempt) => attempt.responseBody)).toEqual(["down 1", "down 2", "down 3", "down 4", "down 5", "thanks"])
      expect(attempts.slice(0, 5).every((attempt) => attempt.error === "status 503")).toBe(true)
      expect(attempts[5]!.error).toBeNull()
      // Each attempt waited at least the schedule's (scaled) back-off, less its jitter, after the one before.
      for (let i = 1; i < attempts.length; i++) {
        const gap = attempts[i]!.startedAt.getTime() - attempts[i - 1]!.startedAt.getTime()
        expect(gap, `the wait before attempt ${i + 1}`).toBeGreaterThanOrEqual(Math.floor(baseDelay(i, { scale: settings.retryScale }) * (1 - SCHEDULE.jitter)))
      }
      expect(delivery!.attemptCount).toBe(6)
      // The success ended the endpoint's failing streak.
      const recovered = await webhooks.run(
        Db.query((db) => db.selectFrom("webhookEndpoints").select("failingSince").where("id", "=", endpoint.id).executeTakeFirstOrThrow())
      )
      expect(recovered.failingSince).toBeNull()
      // The log as the console reads it: the 6 attempts in order, each with its time, status, latency and response.
      const log = await webhooks.run(
        Effect.flatMap(WebhookReadRepository, (read) => read.delivery(org.organizationId, delivery!.id)).pipe(Effect.provide(WebhookReadRepository.Default))
      )
      expect(log.delivery.status).toBe("delivered")
      expect(log.attempts.map((attempt) => [attempt.number, attempt.statusCode, attempt.startedAt.getTime()])).toEqual(
        attempts.map((attempt) => [attempt.number, attempt.statusCode, attempt.startedAt.getTime()])
      )
      expect(log.attempts.every((attempt) => attempt.latencyMs !== null && attempt.latencyMs >= 0)).toBe(true)
      expect(hook.received.filter((request) => request.path === "/flaky")).toHaveLength(6)
      // One success: the receiver answered 2xx exactly once, and nothing more arrives.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(hook.received.filter((request) => request.path === "/flaky")).toHaveLength(6)
      await webhooks.run(Effect.flatMap(WebhookOperatorService, (service) => service.delete(org.organizationId, endpoint.id, operatorActor)))
    }, 60_000)
  })

  describe("auto-disable", () => {
    it("an endpoint failing for the whole period is disabled, with an audit entry", async () => {
      hook.answer = (request) => (request.path === "/down" ? { status: 500 } : { status: 200 })
      const { endpoint } = await webhooks.run(createEndpoint(org.organizationId, { url: hook.url("/down") }))
      const endpointStatus = async () =>
        (await webhooks.run(Db.query((db) => db.selectFrom("webhookEndpoints").selectAll().where("id", "=", endpoint.id).executeTakeFirstOrThrow())))
      // At scale 0.0002 the 5 days are 86.4 s; a test can't wait that: a failing streak that began 5 days (scaled)
      // ago is what the next failure reads.
      await webhooks.run(
        Db.query((db) => db.updateTable("webhookEndpoints").set({ failingSince: new Date(Date.now() - 100_000) }).where("id", "=", endpoint.id).execute())
      )
      await webhooks.run(publish([publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })]))
      await waitFor(async () => (await endpointStatus()).status === "disabled", 20_000, "the endpoint disabled")
      const disabled = await endpointStatus()
      expect(disabled.disabledReason).toBe("failing")
      const audit = await webhooks.run(
        Db.query((db) => db.selectFrom("auditLog").selectAll().where("targetId", "=", endpoint.id).where("action", "=", "webhooks.endpoint.auto_disabled").execute())
      )
      expect(audit).toHaveLength(1)
      expect(audit[0]!.actorType).toBe("system")
      expect(audit[0]!.organizationId).toBe(org.organizationId)
      // A disabled endpoint gets no new deliveries.
      await webhooks.run(publish([publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })]))
      expect(await webhooks.run(deliveriesOf(endpoint.id))).toHaveLength(1)
    }, 40_000)
  })
})
