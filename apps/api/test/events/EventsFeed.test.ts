/**
 * The events feed over HTTP, black box with the real worker publishing, on PGlite and PostgreSQL (issue 22, item
 * 6): `GET /v1/events` and `GET /v1/events/{eventId}` scoped exactly as the API scopes the caller — never another
 * organization's event, never one outside the token's contexts or roles, an `integrations.*` event only to its own
 * installation — checked against the pure rule (`@propline/identity/EventVisibility`) for every event and token;
 * oldest first, paged by cursor, filtered by type, listed once settled; 404 for what the caller can't read; and
 * `data.object` rendered as the API returns the resource.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { EVENT_TYPES } from "@propline/contract/Events"
import type { Role } from "@propline/identity/AccessTokenClaims"
import { canRead, type EventReader, visibleContexts } from "@propline/identity/EventVisibility"
import { Effect } from "effect"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DOMAIN_EVENT_TYPES } from "../../src/events/EventObjects.js"
import * as Outbox from "../../src/platform/Outbox.js"
import * as Sql from "../../src/platform/Sql.js"
import * as Fixtures from "../support/Fixtures.js"
import { installationToken, installConnector, type InstalledConnector } from "../support/IntegrationFixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

interface Reader {
  readonly token: string
  readonly rule: EventReader
}

describe.each(TestDatabase.kinds())("the events feed on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let connector: InstalledConnector
  let rival: InstalledConnector
  /** Every role over the root of `org`. */
  let all: Reader
  /** Billing in `org`'s region only (not its other region). */
  let region: Reader
  /** `connector`'s installation: billing and integrations over the region. */
  let installation: Reader
  /** Every role over the root of `other`. */
  let stranger: Reader
  /** The pass answers: `org`'s proposal in the region. */
  let passed: { readonly proposalId: string; readonly body: Record<string, unknown> }

  const url = (path: string) => `${app.apiUrl}${path}`

  const treeOf = (organizationId: string) =>
    app.run(
      Db.query((db) =>
        db.selectFrom("operationalContexts").select(["id", "parentId"]).where("organizationId", "=", organizationId).execute()
      ).pipe(Effect.orDie)
    )

  const reader = async (
    tokenValue: string,
    organizationId: string,
    roles: ReadonlyArray<Role>,
    granted: ReadonlyArray<string>,
    installationId?: string
  ): Promise<Reader> => ({
    token: tokenValue,
    rule: { organizationId, roles, visibleContextIds: visibleContexts(granted, await treeOf(organizationId)), installationId }
  })

  /** Every event in the table, in the feed's order. */
  const published = () =>
    app.run(
      Db.query((db) =>
        db
          .selectFrom("events")
          .select(["id", "type", "organizationId", "operationalContextId", "installationId", "publishedAt", "envelope"])
          .orderBy("publishedAt")
          .orderBy("id")
          .execute()
      ).pipe(Effect.orDie)
    )

  const waitForPublication = async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const rows = await published()
      if (rows.every((row) => row.publishedAt !== null)) return rows
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error("the worker did not publish the events")
  }

  /** Moves every publication back past the feed's settle time (as if 10 s had passed). */
  const settle = () =>
    app.run(
      Db.query((db) =>
        db.updateTable("events").set({ publishedAt: sql<Date>`published_at - interval '10 seconds'` }).execute()
      ).pipe(Effect.orDie)
    )

  /** Reads the whole feed with `limit`, page after page; the ids in order and the last cursor. */
  const readAll = async (tokenValue: string, query = "", limit = 3) => {
    const ids: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 100; pages++) {
      const answer = await call(
        url(`/v1/events?limit=${limit}${query}${cursor === undefined ? "" : `&cursor=${cursor}`}`),
        { token: tokenValue }
      )
      expect(answer.status).toBe(200)
      ids.push(...answer.body.items.map((item: { id: string }) => item.id))
      expect(answer.body.items.length).toBeLessThanOrEqual(limit)
      if (answer.body.nextCursor !== null) cursor = answer.body.nextCursor
      if (!answer.body.hasMore) return { ids, cursor }
    }
    throw new Error("the feed did not end")
  }

  const appendSynthetic = (events: ReadonlyArray<Outbox.OutboxEvent & Record<string, unknown>>) =>
    app.run(Sql.transaction(Outbox.append(events)))

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const allApp = await app.run(Fixtures.application(org, { roles: ["billing", "signing", "booking"], contextIds: [org.rootId] }))
    const regionApp = await app.run(Fixtures.application(org, { roles: ["billing"], contextIds: [org.regionId] }))
    const otherApp = await app.run(Fixtures.application(other, { roles: ["billing", "signing", "booking"], contextIds: [other.rootId] }))
    connector = await app.run(installConnector(org, { roles: ["billing"], contextIds: [org.regionId] }))
    rival = await app.run(installConnector(org, { roles: ["billing"], contextIds: [org.rootId] }))
    all = await reader(await token(app.authUrl, allApp.clientId, allApp.secret), org.organizationId, ["billing", "signing", "booking"], [org.rootId])
    region = await reader(await token(app.authUrl, regionApp.clientId, regionApp.secret), org.organizationId, ["billing"], [org.regionId])
    installation = await reader(
      await installationToken(app.authUrl, connector),
      org.organizationId,
      ["billing", "integrations"],
      [org.regionId],
      connector.installationId
    )
    stranger = await reader(
      await token(app.authUrl, otherApp.clientId, otherApp.secret),
      other.organizationId,
      ["billing", "signing", "booking"],
      [other.rootId]
    )

    // Real changes: passes in both of `org`'s regions and in `other` (installations made their own events above).
    const pass = async (fixture: Fixtures.OrganizationFixture, contextId: string, tokenValue: string) => {
      const proposalId = await app.run(Fixtures.proposal(fixture, { contextId }))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: tokenValue,
        body: { externalReference: `ERP-${randomUUID().slice(0, 8)}` }
      })
      expect(answer.status).toBe(201)
      return { proposalId, body: answer.body as Record<string, unknown> }
    }
    passed = await pass(org, org.propertyId, all.token)
    await pass(org, org.otherPropertyId, all.token)
    await pass(other, other.propertyId, stranger.token)
    // Events of every area, context and installation (their resources don't exist: `data.object` is null).
    const at = new Date()
    await appendSynthetic([
      { _tag: "crm.signing_attempt.queued", organizationId: org.organizationId, operationalContextId: org.propertyId, attemptId: randomUUID(), contractId: org.contractId, at },
      { _tag: "booking.booking_request.created", organizationId: org.organizationId, operationalContextId: org.otherPropertyId, bookingId: randomUUID(), resourceId: randomUUID(), at },
      { _tag: "integrations.configuration.ready", organizationId: org.organizationId, configurationId: randomUUID(), kind: "billing", installationId: connector.installationId, appId: connector.appId, at },
      { _tag: "integrations.configuration.ready", organizationId: org.organizationId, configurationId: randomUUID(), kind: "billing", installationId: rival.installationId, appId: rival.appId, at },
      { _tag: "integrations.configuration.created", organizationId: org.organizationId, configurationId: randomUUID(), kind: "billing", at },
      { _tag: "tenancy.contract.created", organizationId: org.organizationId, operationalContextId: org.propertyId, at },
      { _tag: "crm.signing_attempt.queued", organizationId: other.organizationId, operationalContextId: other.propertyId, attemptId: randomUUID(), contractId: other.contractId, at }
    ])
    await waitForPublication()
  })

  afterAll(async () => {
    await app.dispose()
  })

  it("lists an event once it settled, and serves it by id at once", async () => {
    const own = (await published()).find((row) => row.type === "billing.invoice_proposal.passed" && row.organizationId === org.organizationId)!
    const fresh = await call(url("/v1/events?limit=100"), { token: all.token })
    expect(fresh.status).toBe(200)
    expect(fresh.body).toEqual({ items: [], nextCursor: null, hasMore: false })
    const one = await call(url(`/v1/events/${own.id}`), { token: all.token })
    expect(one.status).toBe(200)
    await settle()
    const settled = await call(url("/v1/events?limit=100"), { token: all.token })
    expect(settled.body.items.map((item: { id: string }) => item.id)).toContain(own.id)
  })

  it("shows each token exactly the events the visibility rule lets it read, oldest first", async () => {
    const rows = await published()
    for (const { rule, token: tokenValue } of [all, region, installation, stranger]) {
      const expected = rows
        .filter((row) =>
          canRead(rule, {
            type: row.type,
            organizationId: row.organizationId,
            operationalContextId: row.operationalContextId,
            installationId: row.installationId
          })
        )
        .map((row) => row.id)
      const { ids } = await readAll(tokenValue)
      expect(ids).toEqual(expected)
    }
    const typesOf = async (reader: Reader) => {
      const { ids } = await readAll(reader.token)
      return ids.map((id) => rows.find((row) => row.id === id)!)
    }
    // Never another organization's, never outside the contexts, roles or installation.
    expect((await typesOf(stranger)).every((row) => row.organizationId === other.organizationId)).toBe(true)
    expect((await typesOf(all)).every((row) => row.organizationId === org.organizationId)).toBe(true)
    expect((await typesOf(all)).some((row) => row.type.startsWith("integrations."))).toBe(false)
    const regional = await typesOf(region)
    expect(regional.length).toBeGreaterThan(0)
    expect(regional.every((row) => row.type.startsWith("billing.") && row.operationalContextId !== org.otherPropertyId)).toBe(true)
    const installed = await typesOf(installation)
    expect(installed.filter((row) => row.type.startsWith("integrations.")).map((row) => row.installationId)).toEqual([
      connector.installationId,
      connector.installationId
    ])
    expect(installed.some((row) => row.operationalContextId === org.otherPropertyId)).toBe(false)
    expect(installed.some((row) => row.type.startsWith("crm."))).toBe(false)
    expect(rows.some((row) => row.type === "tenancy.contract.created")).toBe(true)
    expect([...regional, ...installed].some((row) => row.type === "tenancy.contract.created")).toBe(false)
  })

  it("pages by cursor, keeps the position after the last page, and filters by type", async () => {
    const whole = await readAll(all.token, "", 100)
    const paged = await readAll(all.token, "", 2)
    expect(paged.ids).toEqual(whole.ids)
    // At the end the cursor stays: reading on from it lists nothing new and answers the same cursor.
    const after = await call(url(`/v1/events?cursor=${paged.cursor}`), { token: all.token })
    expect(after.body).toEqual({ items: [], nextCursor: paged.cursor, hasMore: false })
    // An event published later comes after that cursor.
    await appendSynthetic([
      { _tag: "crm.signing_attempt.started", organizationId: org.organizationId, operationalContextId: org.propertyId, attemptId: randomUUID(), contractId: org.contractId, at: new Date() }
    ])
    await waitForPublication()
    await settle()
    const later = await call(url(`/v1/events?cursor=${paged.cursor}`), { token: all.token })
    expect(later.body.items.map((item: { type: string }) => item.type)).toEqual(["crm.signing_attempt.started"])

    const filtered = await call(url("/v1/events?types=billing.invoice_proposal.passed,crm.signing_attempt.queued&limit=100"), {
      token: all.token
    })
    expect(filtered.status).toBe(200)
    expect(filtered.body.items.map((item: { type: string }) => item.type).sort()).toEqual([
      "billing.invoice_proposal.passed",
      "billing.invoice_proposal.passed",
      "crm.signing_attempt.queued"
    ])
    const unknown = await call(url("/v1/events?types=billing.invoice.teleported"), { token: all.token })
    expect(unknown.status).toBe(400)
    expect(unknown.body.code).toBe("VALIDATION_FAILED")
    const badCursor = await call(url("/v1/events?cursor=bm90LWEtY3Vyc29y"), { token: all.token })
    expect(badCursor.status).toBe(400)
    const unauthenticated = await call(url("/v1/events"))
    expect(unauthenticated.status).toBe(401)
  })

  it("serves one event to a token that can read it, 404 to any other", async () => {
    const rows = await published()
    const own = rows.find((row) => row.type === "billing.invoice_proposal.passed" && row.organizationId === org.organizationId)!
    const answer = await call(url(`/v1/events/${own.id}`), { token: all.token })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual(own.envelope)
    for (const outsider of [stranger, installation].filter((candidate) => !canRead(candidate.rule, { ...own }))) {
      const refused = await call(url(`/v1/events/${own.id}`), { token: outsider.token })
      expect(refused.status).toBe(404)
    }
    const rivalEvent = rows.find((row) => row.installationId === rival.installationId)!
    expect((await call(url(`/v1/events/${rivalEvent.id}`), { token: installation.token })).status).toBe(404)
    expect((await call(url(`/v1/events/${randomUUID()}`), { token: all.token })).status).toBe(404)
    expect((await call(url("/v1/events/not-a-uuid"), { token: all.token })).status).toBe(400)
  })

  it("carries the resource as the API returned it, and the event's own fields", async () => {
    const rows = await published()
    const ofProposal = rows.filter(
      (row) => (row.envelope as { data: { object: { id?: string } } }).data.object?.id === passed.proposalId
    )
    expect(ofProposal.map((row) => row.type)).toEqual(["billing.invoice_proposal.passed"])
    const invoice = passed.body["invoice"] as { id: string }
    const envelope = ofProposal[0]!.envelope as Record<string, unknown>
    expect(envelope).toEqual({
      id: ofProposal[0]!.id,
      type: "billing.invoice_proposal.passed",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      organizationId: org.organizationId,
      operationalContextId: org.propertyId,
      data: { object: passed.body["proposal"], invoiceId: invoice.id }
    })
    const created = rows.find((row) => row.type === "billing.invoice.created" && (row.envelope as { data: { object: { id: string } } }).data.object.id === invoice.id)!
    expect((created.envelope as { data: unknown }).data).toEqual({ object: invoice })
    const install = rows.find((row) => row.type === "integrations.installation.created" && row.installationId === connector.installationId)!
    expect((install.envelope as { data: unknown; operationalContextId: unknown }).data).toEqual({
      object: { id: connector.installationId, appId: connector.appId }
    })
  })

  it("the catalog lists every domain event type, and the OpenAPI document's webhooks each of them", async () => {
    expect([...EVENT_TYPES].sort()).toEqual([...DOMAIN_EVENT_TYPES].sort())
    const document = await call(url("/openapi.json"))
    const webhooks = document.body.webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>
    expect(Object.keys(webhooks).sort()).toEqual([...DOMAIN_EVENT_TYPES].sort())
    for (const type of DOMAIN_EVENT_TYPES) {
      const ref = webhooks[type]!.post.requestBody.content["application/json"]!.schema.$ref
      const schema = document.body.components.schemas[ref.replace("#/components/schemas/", "")]
      expect(schema.properties.type.enum).toEqual([type])
      expect(schema.required).toEqual(expect.arrayContaining(["id", "type", "createdAt", "organizationId", "operationalContextId", "data"]))
    }
    expect(document.body.paths["/v1/events"].get).toBeDefined()
    expect(document.body.paths["/v1/events/{eventId}"].get).toBeDefined()
  })
})
