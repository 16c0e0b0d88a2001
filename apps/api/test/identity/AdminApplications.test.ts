/**
 * The console's Applications over the admin API, black box, on PGlite and PostgreSQL (issue 11): one created here
 * with its first secret obtains a token at the identity host and shows the secret once; a second secret, never a
 * third, revoked once; disabled (its secret stops getting tokens) and enabled again; its grant changed; another
 * organization's Application, secret or context answered 404 or refused, changing nothing.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, type Session } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import type * as Fixtures from "../support/Fixtures.js"
import { basicToken, type TestApp } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("the console's Applications on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let session: Session
  let otherApplicationId: string
  let otherSecretId: string
  let url: AdminConsole["url"]
  let createApplication: AdminConsole["createApplication"]

  beforeAll(async () => {
    ;({ app, org, other, session, otherApplicationId, otherSecretId, url, createApplication } = await startAdminConsole(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("another organization's ids → 404", () => {
    it("issuing or revoking another organization's secret is 404 and changes nothing", async () => {
      const before = await app.run(auditCount(other.organizationId))
      expect((await adminCall(url(`/api/applications/${otherApplicationId}/secrets`), session, { method: "POST" })).status).toBe(404)
      const revoke = await adminCall(url(`/api/applications/${otherApplicationId}/secrets/${otherSecretId}/revoke`), session, {
        method: "POST"
      })
      expect(revoke.status).toBe(404)
      expect(await app.run(auditCount(other.organizationId))).toBe(before)
    })

    it("refuses to grant another organization's context: 400 with the field's issue", async () => {
      const answer = await createApplication({ name: "Cross", roles: ["billing"], contextIds: [org.rootId, other.rootId] })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues).toEqual([{ path: "/contextIds/1", message: "is not an operational context of your organization" }])
    })
  })

  describe("Applications", () => {
    it("creates one with its first secret, which obtains a token at the identity host", async () => {
      const answer = await createApplication({ name: "ERP", roles: ["billing"], contextIds: [org.regionId] })
      expect(answer.status).toBe(201)
      expect(answer.body.application.application).toMatchObject({ name: "ERP", roles: ["billing"], status: "active", activeSecretCount: 1 })
      expect(answer.body.application.contextIds).toEqual([org.regionId])
      expect(answer.body.secret.secret).toMatch(/^service_sk_[0-9A-Za-z]{43}$/)
      const token = await basicToken(app.authUrl, answer.body.application.application.clientId, answer.body.secret.secret)
      expect(token.status).toBe(200)
      expect(token.body["token_type"]).toBe("Bearer")
      // Shown once: the detail has only the last four characters.
      const detail = await adminCall(url(`/api/applications/${answer.body.application.application.id}`), session)
      expect(JSON.stringify(detail.body)).not.toContain(answer.body.secret.secret)
      expect(detail.body.secrets[0].lastFour).toBe(answer.body.secret.secret.slice(-4))
    })

    it("validates every field at once", async () => {
      const answer = await createApplication({ name: "  ", roles: [], contextIds: [] })
      expect(answer.status).toBe(400)
      expect(answer.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/contextIds", "/name", "/roles"])
    })

    it("issues a second secret, refuses a third (APPLICATION_SECRET_LIMIT_REACHED), revokes one once", async () => {
      const created = await createApplication({ name: "Rotation", roles: ["billing"], contextIds: [org.rootId] })
      const id = created.body.application.application.id
      const second = await adminCall(url(`/api/applications/${id}/secrets`), session, { method: "POST" })
      expect(second.status).toBe(201)
      const third = await adminCall(url(`/api/applications/${id}/secrets`), session, { method: "POST" })
      expect(third.status).toBe(400)
      expect(third.body.code).toBe("APPLICATION_SECRET_LIMIT_REACHED")
      const revoke = () => adminCall(url(`/api/applications/${id}/secrets/${second.body.id}/revoke`), session, { method: "POST" })
      const revoked = await revoke()
      expect(revoked.status).toBe(200)
      expect(revoked.body.application.activeSecretCount).toBe(1)
      const again = await revoke()
      expect(again.status).toBe(400)
      expect(again.body.code).toBe("APPLICATION_SECRET_NOT_FOUND")
      const token = await basicToken(app.authUrl, created.body.application.application.clientId, second.body.secret)
      expect(token.status).toBe(401)
    })

    it("disables an Application (its secret stops getting tokens), enables it again, and changes its grant", async () => {
      const created = await createApplication({ name: "Toggle", roles: ["billing"], contextIds: [org.rootId] })
      const { id, clientId } = created.body.application.application
      const secret = created.body.secret.secret
      const disabled = await adminCall(url(`/api/applications/${id}/disable`), session, { method: "POST" })
      expect(disabled.status).toBe(200)
      expect(disabled.body.application).toMatchObject({ status: "disabled" })
      expect((await basicToken(app.authUrl, clientId, secret)).status).toBe(401)
      const enabled = await adminCall(url(`/api/applications/${id}/enable`), session, { method: "POST" })
      expect(enabled.body.application.status).toBe("active")
      expect((await basicToken(app.authUrl, clientId, secret)).status).toBe(200)

      const changed = await adminCall(url(`/api/applications/${id}/grant`), session, {
        method: "PUT",
        body: { roles: ["signing", "booking"], contextIds: [org.propertyId] }
      })
      expect(changed.status).toBe(200)
      expect(changed.body.application.roles).toEqual(["signing", "booking"])
      expect(changed.body.contextIds).toEqual([org.propertyId])
      const foreign = await adminCall(url(`/api/applications/${id}/grant`), session, {
        method: "PUT",
        body: { roles: ["billing"], contextIds: [other.rootId] }
      })
      expect(foreign.status).toBe(400)
      expect(foreign.body.issues).toEqual([{ path: "/contextIds/0", message: "is not an operational context of your organization" }])
      const otherOrgs = await adminCall(url(`/api/applications/${otherApplicationId}/disable`), session, { method: "POST" })
      expect(otherOrgs.status).toBe(404)
    })
  })
})
