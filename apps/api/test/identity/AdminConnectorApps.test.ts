/**
 * The console's connector apps over the admin API, black box, on PGlite and PostgreSQL (issue 11; decisions 2,
 * spec 5.3): registering an app makes the operator's organization its publisher (only its operators change its keys:
 * 404 for another's); a key added here signs assertions the identity host accepts, a retired one no longer does; an
 * installation made here obtains installation tokens, suspended it is refused and resumed it works again, removed
 * it ends; the identity services' codes come back (INTEGRATIONS_APP_INVALID beside the field its rule is about,
 * INTEGRATIONS_APP_ALREADY_EXISTS, INTEGRATIONS_APP_ALREADY_INSTALLED, INTEGRATIONS_ROLE_NOT_GRANTABLE); another
 * organization's installation is 404; CSRF as everywhere; every change audited with the operator and request id.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { start, type TestApp } from "../support/TestApp.js"
import { assertionClaims, installationTokenBody, type KeyPair, newKeyPair, signAssertion } from "../identity/ConnectorFixtures.js"

describe.each(TestDatabase.kinds())("the console's connector apps on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let session: Session
  let otherSession: Session

  const url = (path: string) => `${app.adminUrl}${path}`
  const newAppId = () => `console-${randomUUID().slice(0, 8)}`
  const register = (appId: string, keys: ReadonlyArray<KeyPair>, as: Session = session) =>
    adminCall(url("/api/connector-apps"), as, {
      body: { appId, name: `App ${appId}`, setupUrl: `https://${appId}.example.com/setup`, keys: keys.map((key) => key.publicJwk) }
    })
  /** The identity host's answer to an installation-token request signed with `key`. */
  const installationToken = async (appId: string, key: KeyPair, installationId: string) => {
    const endpoint = `${app.authUrl}/oauth/token`
    const assertion = await Effect.runPromise(signAssertion(key, assertionClaims(appId, endpoint, Math.floor(Date.now() / 1000))))
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: installationTokenBody(assertion, installationId)
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const connectorAudit = (appId: string) =>
    app.run(
      Db.query((db) =>
        db.selectFrom("auditLog").select(["action", "actorType", "actorId", "requestId"]).where("targetType", "=", "connector_app").where("targetId", "=", appId).orderBy("occurredAt").execute()
      ).pipe(Effect.orDie)
    )

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    other = await app.run(Fixtures.organization({ name: "Fjord" }))
    session = await signIn(app.adminUrl, await app.run(operator(org.organizationId)))
    otherSession = await signIn(app.adminUrl, await app.run(operator(other.organizationId)))
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("registers an app (published by the operator's organization), adds and retires keys, each audited with the operator", async () => {
    const appId = newAppId()
    const first = await Effect.runPromise(newKeyPair())
    const registered = await register(appId, [first])
    expect(registered.status).toBe(201)
    expect(registered.body).toMatchObject({
      app: { id: appId, activeKeyCount: 1, publishedByYou: true, installationStatus: null },
      keys: [{ kid: first.kid, status: "active", retiredAt: null }],
      installation: null
    })
    const again = await register(appId, [first])
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("INTEGRATIONS_APP_ALREADY_EXISTS")

    const second = await Effect.runPromise(newKeyPair())
    const added = await adminCall(url(`/api/connector-apps/${appId}/keys`), session, { body: { jwk: second.publicJwk } })
    expect(added.status).toBe(200)
    expect(added.body.keys.map((key: { kid: string }) => key.kid)).toEqual([first.kid, second.kid])
    const taken = await adminCall(url(`/api/connector-apps/${appId}/keys`), session, { body: { jwk: second.publicJwk } })
    expect(taken.status).toBe(400)
    expect(taken.body).toMatchObject({ code: "INTEGRATIONS_APP_INVALID", issues: [{ path: "/keys" }] })
    const retired = await adminCall(url(`/api/connector-apps/${appId}/keys/${encodeURIComponent(first.kid)}/retire`), session, { method: "POST" })
    expect(retired.status).toBe(200)
    expect(retired.body.keys[0]).toMatchObject({ kid: first.kid, status: "retired" })
    const last = await adminCall(url(`/api/connector-apps/${appId}/keys/${encodeURIComponent(second.kid)}/retire`), session, { method: "POST" })
    expect(last.status).toBe(400)
    expect(last.body.code).toBe("INTEGRATIONS_APP_INVALID")

    const entries = await connectorAudit(appId)
    expect(entries.map((entry) => entry.action)).toEqual([
      "identity.connector_app.registered",
      "identity.connector_app.key_added",
      "identity.connector_app.key_retired"
    ])
    for (const entry of entries) {
      expect(entry.actorType).toBe("operator")
      expect(entry.requestId).not.toBeNull()
    }
    // The publisher's audit log shows them; another organization's does not.
    const log = await adminCall(url(`/api/audit-log?targetId=${appId}`), session)
    expect(log.body.items).toHaveLength(3)
    expect((await adminCall(url(`/api/audit-log?targetId=${appId}`), otherSession)).body.items).toEqual([])
  })

  it("answers a broken rule beside its field, and changes nothing", async () => {
    const key = await Effect.runPromise(newKeyPair())
    const badUrl = await adminCall(url("/api/connector-apps"), session, {
      body: { appId: newAppId(), name: "Plain http", setupUrl: "http://insecure.example.com/setup", keys: [key.publicJwk] }
    })
    expect(badUrl.status).toBe(400)
    expect(badUrl.body).toMatchObject({ code: "INTEGRATIONS_APP_INVALID", issues: [{ path: "/setupUrl" }] })
    const badId = await register("Not An Id", [key])
    expect(badId.body).toMatchObject({ code: "INTEGRATIONS_APP_INVALID", issues: [{ path: "/appId" }] })
    const privateKey = await adminCall(url("/api/connector-apps"), session, {
      body: { appId: newAppId(), name: "Leaky", setupUrl: "https://leaky.example.com/setup", keys: [{ ...key.publicJwk, d: "secret" }] }
    })
    expect(privateKey.body).toMatchObject({ code: "INTEGRATIONS_APP_INVALID", issues: [{ path: "/keys" }] })
    const noCsrf = await adminCall(url("/api/connector-apps"), session, {
      body: { appId: newAppId(), name: "Forged", setupUrl: "https://forged.example.com/setup", keys: [key.publicJwk] },
      csrf: false
    })
    expect(noCsrf.status).toBe(403)
    expect((await adminCall(url("/api/connector-apps?q=forged"), session)).body.items).toEqual([])
  })

  it("keeps an app's keys to its publisher: another organization's operators get 404 and change nothing", async () => {
    const appId = newAppId()
    const key = await Effect.runPromise(newKeyPair())
    expect((await register(appId, [key])).status).toBe(201)
    const intruder = await Effect.runPromise(newKeyPair())
    const add = await adminCall(url(`/api/connector-apps/${appId}/keys`), otherSession, { body: { jwk: intruder.publicJwk } })
    expect(add.status).toBe(404)
    const retire = await adminCall(url(`/api/connector-apps/${appId}/keys/${encodeURIComponent(key.kid)}/retire`), otherSession, { method: "POST" })
    expect(retire.status).toBe(404)
    const seen = await adminCall(url(`/api/connector-apps/${appId}`), otherSession)
    expect(seen.status).toBe(200)
    expect(seen.body.app.publishedByYou).toBe(false)
    expect(seen.body.keys).toEqual([expect.objectContaining({ kid: key.kid, status: "active" })])
    expect((await adminCall(url("/api/connector-apps/no-such-app"), session)).status).toBe(404)
  })

  it("installs an app with roles and contexts; its installation tokens follow suspend, resume and remove", async () => {
    const appId = newAppId()
    const key = await Effect.runPromise(newKeyPair())
    expect((await register(appId, [key])).status).toBe(201)
    const notGrantable = await adminCall(url(`/api/connector-apps/${appId}/installation`), session, {
      body: { roles: ["billing", "integrations"], contextIds: [org.rootId] }
    })
    expect(notGrantable.status).toBe(400)
    const foreignContext = await adminCall(url(`/api/connector-apps/${appId}/installation`), session, {
      body: { roles: ["billing"], contextIds: [other.rootId] }
    })
    expect(foreignContext.body.issues).toEqual([{ path: "/contextIds/0", message: "is not an operational context of your organization" }])

    const before = await app.run(auditCount(org.organizationId, "identity.installation.created"))
    const installed = await adminCall(url(`/api/connector-apps/${appId}/installation`), session, {
      body: { roles: ["billing"], contextIds: [org.rootId] }
    })
    expect(installed.status).toBe(201)
    expect(installed.body.installation).toMatchObject({ status: "active", contextIds: [org.rootId] })
    expect([...installed.body.installation.roles].sort()).toEqual(["billing", "integrations"])
    expect(await app.run(auditCount(org.organizationId, "identity.installation.created"))).toBe(before + 1)
    const installationId = installed.body.installation.id as string
    const twice = await adminCall(url(`/api/connector-apps/${appId}/installation`), session, { body: { roles: ["billing"], contextIds: [org.rootId] } })
    expect(twice.status).toBe(409)
    expect(twice.body.code).toBe("INTEGRATIONS_APP_ALREADY_INSTALLED")

    const granted = await installationToken(appId, key, installationId)
    expect(granted.status).toBe(200)
    expect(granted.body.token_type).toBe("Bearer")

    for (const action of ["suspend", "resume", "remove"]) {
      const foreign = await adminCall(url(`/api/installations/${installationId}/${action}`), otherSession, { method: "POST" })
      expect(foreign.status).toBe(404)
    }
    const suspended = await adminCall(url(`/api/installations/${installationId}/suspend`), session, { method: "POST" })
    expect(suspended.body.installation.status).toBe("suspended")
    expect((await installationToken(appId, key, installationId)).status).toBe(400)
    const resumed = await adminCall(url(`/api/installations/${installationId}/resume`), session, { method: "POST" })
    expect(resumed.body.installation.status).toBe("active")
    expect((await installationToken(appId, key, installationId)).status).toBe(200)
    const regranted = await adminCall(url(`/api/installations/${installationId}/grant`), session, {
      method: "PUT",
      body: { roles: ["booking", "signing"], contextIds: [org.propertyId] }
    })
    expect(regranted.status).toBe(200)
    expect(regranted.body.installation.contextIds).toEqual([org.propertyId])
    const removed = await adminCall(url(`/api/installations/${installationId}/remove`), session, { method: "POST" })
    expect(removed.status).toBe(200)
    expect(removed.body.installation).toBeNull()
    expect(removed.body.removedInstallations.map((row: { id: string }) => row.id)).toEqual([installationId])
    expect((await installationToken(appId, key, installationId)).status).toBe(400)
    const actions = await app.run(
      Db.query((db) =>
        db.selectFrom("auditLog").select(["action", "actorType"]).where("targetId", "=", installationId).orderBy("occurredAt").execute()
      ).pipe(Effect.orDie)
    )
    expect(actions.map((entry) => entry.action)).toEqual([
      "identity.installation.created",
      "identity.installation.suspended",
      "identity.installation.resumed",
      "identity.installation.grant_changed",
      "identity.installation.removed"
    ])
    expect(actions.every((entry) => entry.actorType === "operator")).toBe(true)

    const listed = await adminCall(url(`/api/connector-apps?q=${appId}`), session)
    expect(listed.body.items).toEqual([expect.objectContaining({ id: appId, installationStatus: null, publishedByYou: true })])
    const reinstalled = await adminCall(url(`/api/connector-apps/${appId}/installation`), session, { body: { roles: ["booking"], contextIds: [org.rootId] } })
    expect(reinstalled.status).toBe(201)
    expect((await adminCall(url(`/api/connector-apps?installed=yes&q=${appId}`), session)).body.items).toHaveLength(1)
    expect((await adminCall(url(`/api/connector-apps?installed=yes&q=${appId}`), otherSession)).body.items).toEqual([])
  })
})
