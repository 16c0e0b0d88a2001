/**
 * Who receives what (issue 22, item 2), on PGlite and PostgreSQL: a subscriber receives only what its principal
 * could read through the API — never another organization's event; an organization's endpoint limited to contexts
 * gets only the events of those contexts and below; a connector app's webhook gets only the events of its active
 * installations that the installation's roles and contexts allow, and only its own installation's integrations
 * events. Checked on the deliveries the fan-out makes (what the workers send), over every pair of events and
 * endpoints of two organizations.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PublishedEvent } from "../../src/events/PublishedEvent.js"
import * as Fixtures from "../support/Fixtures.js"
import { createEndpoint, publish, publishedEvent, startWebhooks, testSettings, type Webhooks } from "./WebhookFixtures.js"

/** A connector app published by `publisher`, installed into `org` with `roles` and `contextIds`; its installation id. */
const installedApp = (org: string, roles: ReadonlyArray<string>, contextIds: ReadonlyArray<string>, status: "active" | "suspended" = "active") =>
  Effect.gen(function* () {
    const appId = `app-${randomUUID().slice(0, 8)}`
    const installationId = randomUUID()
    const at = new Date()
    yield* Db.query((db) => db.insertInto("connectorApps").values({ id: appId, name: appId, setupUrl: "https://example.test/setup", createdAt: at, updatedAt: at }).execute())
    yield* Db.query((db) =>
      db
        .insertInto("installations")
        .values({
          id: installationId,
          appId,
          organizationId: org,
          status,
          roles: [...roles],
          createdAt: at,
          updatedAt: at,
          suspendedAt: status === "suspended" ? at : null,
          removedAt: null
        })
        .execute()
    )
    yield* Db.query((db) =>
      db.insertInto("installationContexts").values(contextIds.map((operationalContextId) => ({ installationId, operationalContextId }))).execute()
    )
    return { appId, installationId }
  })

describe.each(TestDatabase.kinds())("who receives an event (%s)", (kind) => {
  let database: TestDatabase.TestDatabase
  let webhooks: Webhooks

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    webhooks = await startWebhooks(database.config, testSettings(), { worker: false })
  }, 240_000)

  afterAll(async () => {
    await webhooks?.dispose()
    await database?.drop()
  })

  it("never across organizations, contexts, roles or installations", async () => {
    const north = await webhooks.run(Fixtures.organization({ name: "Nordhavn" }))
    const fjord = await webhooks.run(Fixtures.organization({ name: "Fjord" }))
    const url = "http://127.0.0.1:9/unused"
    const create = (org: string, input: Parameters<typeof createEndpoint>[1]) => webhooks.run(createEndpoint(org, input)).then((created) => created.endpoint.id)

    // Nordhavn's app: billing + integrations, granted the Sverige region only (Kungsholmen below it; not Norge's Aker Brygge).
    const app = await webhooks.run(installedApp(north.organizationId, ["billing", "integrations"], [north.regionId]))
    const suspended = await webhooks.run(installedApp(north.organizationId, ["billing", "signing", "booking", "integrations"], [north.rootId], "suspended"))
    const endpoints = {
      northAll: await create(north.organizationId, { url }),
      northNorge: await create(north.organizationId, { url, contextIds: [north.otherPropertyId] }),
      northBookingOnly: await create(north.organizationId, { url, eventTypes: ["booking.booking_request.approved"] }),
      fjordAll: await create(fjord.organizationId, { url }),
      app: await create(fjord.organizationId, { url, connectorAppId: app.appId }),
      suspendedApp: await create(fjord.organizationId, { url, connectorAppId: suspended.appId })
    }

    const events: Record<string, PublishedEvent> = {
      northBillingKungsholmen: publishedEvent({ organizationId: north.organizationId, contextId: north.propertyId }),
      northBillingAker: publishedEvent({ organizationId: north.organizationId, contextId: north.otherPropertyId }),
      northSigningKungsholmen: publishedEvent({ organizationId: north.organizationId, type: "crm.signing_attempt.signed", contextId: north.propertyId }),
      northBookingAker: publishedEvent({ organizationId: north.organizationId, type: "booking.booking_request.approved", contextId: north.otherPropertyId }),
      northIntegrationsOfApp: publishedEvent({
        organizationId: north.organizationId,
        type: "integrations.configuration.ready",
        contextId: north.regionId,
        installationId: app.installationId
      }),
      northIntegrationsOfOther: publishedEvent({
        organizationId: north.organizationId,
        type: "integrations.configuration.ready",
        contextId: north.regionId,
        installationId: suspended.installationId
      }),
      fjordBilling: publishedEvent({ organizationId: fjord.organizationId, contextId: fjord.propertyId }),
      fjordBookingRoot: publishedEvent({ organizationId: fjord.organizationId, type: "booking.booking_request.approved", contextId: fjord.rootId })
    }
    await webhooks.run(publish(Object.values(events)))
    // Once: the same batch again (a publisher retrying after a crash) makes no second delivery.
    await webhooks.run(publish(Object.values(events)))

    const rows = await webhooks.run(Db.query((db) => db.selectFrom("webhookDeliveries").select(["endpointId", "eventId", "organizationId"]).execute()))
    const nameOfEndpoint = new Map(Object.entries(endpoints).map(([name, id]) => [id, name]))
    const nameOfEvent = new Map(Object.entries(events).map(([name, event]) => [event.id, name]))
    const received = (endpoint: keyof typeof endpoints) =>
      rows
        .filter((row) => nameOfEndpoint.get(row.endpointId) === endpoint)
        .map((row) => nameOfEvent.get(row.eventId))
        .sort()

    expect(received("northAll")).toEqual(["northBillingAker", "northBillingKungsholmen", "northBookingAker", "northSigningKungsholmen"])
    expect(received("northNorge")).toEqual(["northBillingAker", "northBookingAker"])
    expect(received("northBookingOnly")).toEqual(["northBookingAker"])
    expect(received("fjordAll")).toEqual(["fjordBilling", "fjordBookingRoot"])
    expect(received("app")).toEqual(["northBillingKungsholmen", "northIntegrationsOfApp"])
    expect(received("suspendedApp")).toEqual([])
    // Every delivery is of the event's own organization, and no (event, endpoint) twice.
    for (const row of rows) expect(row.organizationId).toBe(Object.values(events).find((event) => event.id === row.eventId)!.organizationId)
    expect(new Set(rows.map((row) => `${row.eventId}:${row.endpointId}`)).size).toBe(rows.length)
  }, 60_000)
})
