/**
 * Webhook endpoints' secrets when the key-encryption keys rotate (issue 22, item 2; docs/operations.md "Keys at
 * rest"), on PGlite and PostgreSQL: a start with a new primary key re-seals every current and previous secret,
 * organizations' endpoints and connector apps' webhooks alike, under it — the same secrets, so a delivery signed
 * with only the new key listed still verifies with the `standardwebhooks` library; a start whose primary already
 * seals them writes nothing; a key list that can't open one fails with a sentence and writes nothing.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateKeyEntry, KeyEncryption, type Keyring } from "../../src/platform/KeyEncryption.js"
import { WebhookEndpointRepository } from "../../src/webhooks/WebhookEndpointRepository.js"
import { WebhookOperatorService } from "../../src/webhooks/WebhookOperatorService.js"
import { resealEndpointSecrets, signingSecrets } from "../../src/webhooks/WebhookSecrets.js"
import * as Fixtures from "../support/Fixtures.js"
import { keyringOf, keyringOfEntries, testKeyEntry, testKeyring } from "../support/KeyEncryptionFixtures.js"
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

const reseal = (keyring: Keyring) => resealEndpointSecrets(keyring).pipe(Effect.provide(WebhookEndpointRepository.Default))

const rows = Db.query((db) =>
  db
    .selectFrom("webhookEndpoints")
    .select(["id", "secretEnvelope", "previousSecretEnvelope", "previousSecretExpiresAt", "updatedAt"])
    .orderBy("id")
    .execute()
).pipe(Effect.orDie)

/** The secrets that sign for the endpoint now, opened with `keyring` alone. */
const openedWith = (keyring: Keyring, endpointId: string) =>
  Effect.gen(function* () {
    const row = (yield* rows).find((endpoint) => endpoint.id === endpointId)!
    return yield* signingSecrets({ endpointId, ...row }, new Date()).pipe(Effect.provideService(KeyEncryption, keyring))
  })

describe.each(TestDatabase.kinds())("webhook secrets across a key-encryption key rotation (%s)", (kind) => {
  let database: TestDatabase.TestDatabase
  let webhooks: Webhooks
  let hook: Receiver
  const nextEntry = generateKeyEntry("next")
  const onlyNext = keyringOfEntries(nextEntry)
  /** Sealing as a host did before the rotation (the old key alone). */
  const beforeRotation = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, KeyEncryption, testKeyring)

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    hook = await receiver()
    // The worker (the delivery loop) has only the new key listed: it signs after the old key is dropped.
    webhooks = await startWebhooks(database.config, testSettings(), { keyring: onlyNext })
  }, 240_000)

  afterAll(async () => {
    await hook?.close()
    await webhooks?.dispose()
    await database?.drop()
  })

  it("a new primary key re-seals every current and previous secret; deliveries verify once the old key is dropped; a second start writes nothing", async () => {
    const org = await webhooks.run(Fixtures.organization({ name: "Nordhavn" }))
    const appId = `app-${randomUUID().slice(0, 8)}`
    await webhooks.run(
      Db.query((db) =>
        db.insertInto("connectorApps").values({ id: appId, name: appId, setupUrl: "https://example.test/setup", createdAt: new Date(), updatedAt: new Date() }).execute()
      )
    )
    // An organization's endpoint mid-rotation (a current and a previous secret), and a connector app's webhook.
    const { endpoint, secret: first } = await webhooks.run(beforeRotation(createEndpoint(org.organizationId, { url: hook.url("/resealed") })))
    const { secret: second } = await webhooks.run(
      beforeRotation(Effect.flatMap(WebhookOperatorService, (service) => service.rotateSecret(org.organizationId, endpoint.id, operatorActor)))
    )
    const app = await webhooks.run(beforeRotation(createEndpoint(org.organizationId, { url: hook.url("/app"), connectorAppId: appId })))
    const before = await webhooks.run(rows)
    expect(before.flatMap((row) => [row.secretEnvelope, row.previousSecretEnvelope]).filter((envelope) => envelope !== null)).toHaveLength(3)
    for (const row of before) expect(row.secretEnvelope).toMatch(/^v1\.test\./)

    expect(await webhooks.run(reseal(keyringOfEntries(nextEntry, testKeyEntry)))).toBe(2)
    const after = await webhooks.run(rows)
    for (const [index, row] of after.entries()) {
      expect(row.secretEnvelope).toMatch(/^v1\.next\./)
      expect(row.previousSecretEnvelope === null ? null : row.previousSecretEnvelope.slice(0, 8)).toBe(
        before[index]!.previousSecretEnvelope === null ? null : "v1.next."
      )
      expect(row.previousSecretExpiresAt).toEqual(before[index]!.previousSecretExpiresAt)
      expect(row.updatedAt).toEqual(before[index]!.updatedAt)
    }

    // With only the new key listed: the same secrets open.
    expect(await webhooks.run(openedWith(onlyNext, endpoint.id))).toEqual([second, first])
    expect(await webhooks.run(openedWith(onlyNext, app.endpoint.id))).toEqual([app.secret])

    // A start whose primary already seals every secret writes nothing.
    expect(await webhooks.run(reseal(onlyNext))).toBe(0)
    expect(await webhooks.run(rows)).toEqual(after)

    // The worker, with only the new key, signs a delivery that both secrets of the rotation verify.
    hook.answer = () => ({ status: 204 })
    const event = publishedEvent({ organizationId: org.organizationId, contextId: org.propertyId })
    await webhooks.run(publish([event]))
    const signed = () => hook.received.filter((request) => request.path === "/resealed")
    await waitFor(() => signed().length === 1, 20_000, "the delivery signed with the re-sealed secrets")
    const delivered = signed()[0]!
    const headers = delivered.headers as Record<string, string>
    expect(new Webhook(second).verify(delivered.body, headers)).toEqual(event.envelope)
    expect(new Webhook(first).verify(delivered.body, headers)).toEqual(event.envelope)
  }, 60_000)

  it("a key list that can't open a secret fails with a sentence and writes nothing", async () => {
    const org = await webhooks.run(Fixtures.organization({ name: "Fjord" }))
    await webhooks.run(beforeRotation(createEndpoint(org.organizationId, { url: hook.url("/refused") })))
    const before = await webhooks.run(rows)
    // A key under an id the rows were sealed with, but not the key they were sealed with.
    const error = await webhooks.run(Effect.flip(reseal(keyringOf("test", "next"))))
    expect(error._tag).toBe("KeyEncryptionError")
    expect(error.message).toMatch(/does not open the stored webhook_endpoints:[0-9a-f-]{36}: it is not the key the row was sealed under/)
    expect(await webhooks.run(rows)).toEqual(before)
  }, 60_000)
})
