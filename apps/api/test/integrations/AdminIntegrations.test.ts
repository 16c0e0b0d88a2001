/**
 * The console's integration configurations over the admin API, black box, on PGlite and PostgreSQL (issue 11;
 * decisions 8, spec 4.2 "Integrations"): 401 without a session, 403 for a change without the CSRF token (nothing
 * changes), 404 INTEGRATIONS_CONFIGURATION_NOT_FOUND for another organization's configuration; create answers the
 * service's codes (INTEGRATIONS_CONFIGURATION_INVALID beside `/operationalContextIds/<index>`,
 * INTEGRATIONS_CONNECTION_NOT_SUPPORTED); Connect answers a setup address carrying the reference, which the
 * connector redeems through the public API and reports ready — and the console shows `ready`; a second ready
 * configuration of a kind in the same context is refused with INTEGRATIONS_POINT_ALREADY_FILLED and the console
 * names the filled context until the first is disconnected; the list pages and filters; every change is audited
 * with the operator and the request id.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { installationToken, installConnector, type InstalledConnector } from "../support/IntegrationFixtures.js"
import { call, start, type TestApp } from "../support/TestApp.js"

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
const ACCOUNT = { id: "scrive-4711", name: "Nordhavn Signing" }
const SIGNING_SETTINGS = { signatureMethods: ["bankid-se"] }

describe.each(TestDatabase.kinds())("the console's integration configurations on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let session: Session
  let otherSession: Session
  /** A connector app installed in `org` with every role over the root. */
  let connector: InstalledConnector
  let connectorToken: string
  /** A connector app installed in `org` with the billing role only. */
  let billingOnly: InstalledConnector
  /** A connector app installed in `other`. */
  let foreign: InstalledConnector

  const url = (path: string) => `${app.adminUrl}${path}`
  const create = (body: Record<string, unknown>, as: Session = session) => adminCall(url("/api/integration-configurations"), as, { body })
  const press = (configurationId: string, verb: "connect" | "disconnect", as: Session = session) =>
    adminCall(url(`/api/integration-configurations/${configurationId}/${verb}`), as, { method: "POST" })
  const detail = (configurationId: string, as: Session = session) => adminCall(url(`/api/integration-configurations/${configurationId}`), as)
  /** The connector's side, through the public API with its installation token. */
  const redeem = (reference: string) =>
    call(`${app.apiUrl}/v1/integrations/connection-references/redeem`, { token: connectorToken, body: { connectionReference: reference } })
  const ready = (configurationId: string) =>
    call(`${app.apiUrl}/v1/integrations/configurations/${configurationId}/ready`, {
      token: connectorToken,
      body: { externalAccount: ACCOUNT, settings: SIGNING_SETTINGS }
    })
  /** A signing configuration of the connector over `contextIds`, made in the console. */
  const signing = async (contextIds: ReadonlyArray<string>) => {
    const created = await create({ installationId: connector.installationId, kind: "signing", operationalContextIds: contextIds })
    expect(created.status).toBe(201)
    return created.body.id as string
  }
  const auditOf = (configurationId: string) =>
    app.run(
      Db.query((db) =>
        db
          .selectFrom("auditLog")
          .select(["action", "actorType", "actorId", "requestId"])
          .where("targetType", "=", "integration_configuration")
          .where("targetId", "=", configurationId)
          .orderBy("occurredAt")
          .execute()
      ).pipe(Effect.orDie)
    )

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn", integration: "none" }))
    other = await app.run(Fixtures.organization({ name: "Fjord", integration: "none" }))
    session = await signIn(app.adminUrl, await app.run(operator(org.organizationId)))
    otherSession = await signIn(app.adminUrl, await app.run(operator(other.organizationId)))
    connector = await app.run(installConnector(org))
    billingOnly = await app.run(installConnector(org, { roles: ["billing"] }))
    foreign = await app.run(installConnector(other))
    connectorToken = await installationToken(app.authUrl, connector)
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("answers 401 without a session and 403 for a change without the CSRF token, changing nothing", async () => {
    const id = await signing([org.propertyId])
    for (const [path, method] of [
      ["/api/integration-configurations", "GET"],
      [`/api/integration-configurations/${id}`, "GET"],
      ["/api/installations", "GET"],
      [`/api/integration-configurations/${id}/connect`, "POST"],
      [`/api/integration-configurations/${id}/disconnect`, "POST"]
    ] as const) {
      expect((await adminCall(url(path), undefined, { method })).status, `${method} ${path}`).toBe(401)
    }
    const before = await app.run(auditCount(org.organizationId))
    const forged = await adminCall(url("/api/integration-configurations"), session, {
      body: { installationId: connector.installationId, kind: "booking", operationalContextIds: [org.rootId] },
      csrf: false
    })
    expect(forged.status).toBe(403)
    for (const verb of ["connect", "disconnect"]) {
      const answer = await adminCall(url(`/api/integration-configurations/${id}/${verb}`), session, { method: "POST", csrf: false })
      expect(answer.status).toBe(403)
    }
    expect(await app.run(auditCount(org.organizationId))).toBe(before)
    expect((await detail(id)).body.status).toBe("pending")
    expect((await adminCall(url("/api/integration-configurations?kind=booking"), session)).body.items).toEqual([])
  })

  it("creates a pending configuration, audited with the operator; the service's codes come back beside the field", async () => {
    const before = await app.run(auditCount(org.organizationId, "integrations.configuration.created"))
    const otherBefore = await app.run(auditCount(other.organizationId))
    const created = await create({ installationId: connector.installationId, kind: "booking", operationalContextIds: [org.regionId, org.propertyId] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      kind: "booking",
      status: "pending",
      installationId: connector.installationId,
      appId: connector.appId,
      appName: "Test connector",
      installationStatus: "active",
      operationalContextIds: [org.regionId, org.propertyId].sort(),
      externalAccount: null,
      declaredGates: [],
      settings: null,
      failureReason: null,
      filledElsewhere: []
    })
    expect(await app.run(auditCount(org.organizationId, "integrations.configuration.created"))).toBe(before + 1)
    const [entry] = await auditOf(created.body.id)
    expect(entry).toMatchObject({ action: "integrations.configuration.created", actorType: "operator" })
    expect(entry?.requestId).not.toBeNull()

    const invalid = await create({ installationId: "nope", kind: "telex", operationalContextIds: ["x"] })
    expect(invalid.status).toBe(400)
    expect(invalid.body.code).toBe("VALIDATION_FAILED")
    expect(invalid.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/installationId", "/kind", "/operationalContextIds/0"])

    const regional = await app.run(installConnector(org, { contextIds: [org.regionId] }))
    const outside = await create({ installationId: regional.installationId, kind: "signing", operationalContextIds: [org.propertyId, other.rootId] })
    expect(outside.status).toBe(400)
    expect(outside.body).toMatchObject({
      code: "INTEGRATIONS_CONFIGURATION_INVALID",
      issues: [{ path: "/operationalContextIds/1", message: "is not within the installation's contexts" }]
    })
    const none = await create({ installationId: regional.installationId, kind: "signing", operationalContextIds: [] })
    expect(none.status).toBe(400)
    expect(none.body.code).toBe("INTEGRATIONS_CONFIGURATION_INVALID")
    const roleless = await create({ installationId: billingOnly.installationId, kind: "booking", operationalContextIds: [org.rootId] })
    expect(roleless.status).toBe(400)
    expect(roleless.body.code).toBe("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
    const elsewhere = await create({ installationId: foreign.installationId, kind: "signing", operationalContextIds: [other.rootId] })
    expect(elsewhere.status).toBe(404)
    expect(await app.run(auditCount(org.organizationId, "integrations.configuration.created"))).toBe(before + 1)
    expect(await app.run(auditCount(other.organizationId))).toBe(otherBefore)
  })

  it("Connect answers the setup address with the reference; the connector redeems it and reports ready, and the console shows ready", async () => {
    const id = await signing([org.propertyId])
    const connected = await press(id, "connect")
    expect(connected.status).toBe(201)
    const reference = connected.body.connectionReference as string
    expect(reference.length).toBeGreaterThan(20)
    const address = new URL(connected.body.setupAddress)
    expect(`${address.origin}${address.pathname}`).toBe("https://connector.example/setup")
    expect(address.searchParams.get("via")).toBe("test")
    expect(address.searchParams.get("connection_reference")).toBe(reference)
    expect(address.searchParams.get("installation_id")).toBe(connector.installationId)
    expect(Date.parse(connected.body.expiresAt)).toBeGreaterThan(Date.now())
    expect(connected.body.configuration).toMatchObject({ id, status: "pending", setupUrl: "https://connector.example/setup?via=test" })
    // The reference is shown once: the configuration's page never carries it.
    expect(JSON.stringify((await detail(id)).body)).not.toContain(reference)

    expect((await redeem(reference)).status).toBe(201)
    expect((await detail(id)).body.status).toBe("connecting")
    expect((await ready(id)).status).toBe(201)
    const shown = await detail(id)
    expect(shown.body).toMatchObject({
      status: "ready",
      externalAccount: ACCOUNT,
      declaredGates: [],
      settings: SIGNING_SETTINGS,
      filledElsewhere: []
    })
    expect(shown.body.readyAt).not.toBeNull()

    const listed = await adminCall(url(`/api/integration-configurations?status=ready&kind=signing&installationId=${connector.installationId}`), session)
    expect(listed.body.items).toEqual([expect.objectContaining({ id, status: "ready", appName: "Test connector", externalAccount: ACCOUNT })])
    expect((await adminCall(url("/api/integration-configurations?status=ready&kind=booking"), session)).body.items).toEqual([])
    // The operator's changes name the operator; the connector's name its installation.
    const operatorId = (await auditOf(id))[0]?.actorId
    expect((await auditOf(id)).map((entry) => [entry.action, entry.actorType === "operator" ? "operator" : entry.actorId])).toEqual([
      ["integrations.configuration.created", "operator"],
      ["integrations.configuration.connection_requested", "operator"],
      ["integrations.configuration.connecting", connector.installationId],
      ["integrations.configuration.ready", connector.installationId]
    ])
    expect(new Set((await auditOf(id)).slice(0, 2).map((entry) => entry.actorId))).toEqual(new Set([operatorId]))
    // Disconnected, it stays so: Connect is refused, and nothing is written.
    expect((await press(id, "disconnect")).body).toMatchObject({ status: "disconnected" })
    const before = await app.run(auditCount(org.organizationId))
    const refused = await press(id, "connect")
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
    expect(await app.run(auditCount(org.organizationId))).toBe(before)
  })

  it("names the context another ready configuration fills, whose connector's ready is refused with INTEGRATIONS_POINT_ALREADY_FILLED until it is disconnected", async () => {
    const first = await signing([org.otherPropertyId])
    expect((await redeem((await press(first, "connect")).body.connectionReference)).status).toBe(201)
    expect((await ready(first)).status).toBe(201)

    const second = await signing([org.otherPropertyId, org.regionId])
    expect((await detail(second)).body.filledElsewhere).toEqual([org.otherPropertyId])
    expect((await redeem((await press(second, "connect")).body.connectionReference)).status).toBe(201)
    const refused = await ready(second)
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe("INTEGRATIONS_POINT_ALREADY_FILLED")
    expect((await detail(second)).body).toMatchObject({ status: "connecting", filledElsewhere: [org.otherPropertyId] })

    const disconnected = await press(first, "disconnect")
    expect(disconnected.status).toBe(200)
    expect(disconnected.body).toMatchObject({ status: "disconnected", filledElsewhere: [] })
    expect((await detail(second)).body.filledElsewhere).toEqual([])
    expect((await ready(second)).status).toBe(201)
    expect((await detail(second)).body.status).toBe("ready")
    expect((await auditOf(first)).at(-1)).toMatchObject({ action: "integrations.configuration.disconnected", actorType: "operator" })
  })

  it("shows a failed report's reason", async () => {
    const id = await signing([org.rootId])
    expect((await redeem((await press(id, "connect")).body.connectionReference)).status).toBe(201)
    const failed = await call(`${app.apiUrl}/v1/integrations/configurations/${id}/failed`, {
      token: connectorToken,
      body: { reason: "The Scrive account has no API access." }
    })
    expect(failed.status).toBe(201)
    expect((await detail(id)).body).toMatchObject({ status: "failed", failureReason: "The Scrive account has no API access." })
    expect((await adminCall(url("/api/integration-configurations?status=failed"), session)).body.items.map((item: { id: string }) => item.id)).toEqual([id])
  })

  it("keeps another organization's configurations to it: 404 INTEGRATIONS_CONFIGURATION_NOT_FOUND, and nothing listed or changed", async () => {
    const mine = await signing([org.propertyId])
    const before = await app.run(auditCount(org.organizationId))
    for (const answer of [await detail(mine, otherSession), await press(mine, "connect", otherSession), await press(mine, "disconnect", otherSession)]) {
      expect(answer.status).toBe(404)
      expect(answer.body.code).toBe("INTEGRATIONS_CONFIGURATION_NOT_FOUND")
    }
    expect((await detail(UNKNOWN_ID)).status).toBe(404)
    expect((await detail(mine)).body.status).toBe("pending")
    expect(await app.run(auditCount(org.organizationId))).toBe(before)
    expect((await adminCall(url("/api/integration-configurations"), otherSession)).body.items).toEqual([])
    expect((await adminCall(url(`/api/integration-configurations?installationId=${connector.installationId}`), otherSession)).body.items).toEqual([])
    const choices = await adminCall(url("/api/installations"), otherSession)
    expect(choices.body.items.map((item: { id: string }) => item.id)).toEqual([foreign.installationId])
    const mineChoices = await adminCall(url("/api/installations"), session)
    expect(mineChoices.body.items.map((item: { id: string }) => item.id)).toContain(connector.installationId)
    expect(mineChoices.body.items.map((item: { id: string }) => item.id)).not.toContain(foreign.installationId)
  })

  it("pages newest first with a cursor of its own list, and refuses a filter that is no installation's id", async () => {
    const all = await adminCall(url("/api/integration-configurations?limit=100"), session)
    expect(all.body.items.length).toBeGreaterThan(3)
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: { body: { items: Array<{ id: string }>; nextCursor: string | null } } = await adminCall(
        url(`/api/integration-configurations?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`),
        session
      )
      expect(page.body.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.items.map((item) => item.id))
      cursor = page.body.nextCursor
    } while (cursor !== null)
    expect(seen).toEqual(all.body.items.map((item: { id: string }) => item.id))
    const created = all.body.items.map((item: { createdAt: string }) => Date.parse(item.createdAt))
    expect(created).toEqual([...created].sort((a, b) => b - a))

    const badFilter = await adminCall(url("/api/integration-configurations?installationId=nope"), session)
    expect(badFilter.status).toBe(400)
    expect(badFilter.body.issues[0].path).toBe("/installationId")
    const foreignCursor = await adminCall(url("/api/connector-apps?limit=1"), session)
    if (foreignCursor.body.nextCursor !== null) {
      const refused = await adminCall(url(`/api/integration-configurations?cursor=${foreignCursor.body.nextCursor}`), session)
      expect(refused.status).toBe(400)
    }
  })
})
