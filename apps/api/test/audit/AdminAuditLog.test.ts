/**
 * The console's audit log over the admin API, black box, on PGlite and PostgreSQL (issue 11): sign-in, an
 * Application's creation, a secret issued and revoked, and sign-out each write an entry with the operator as actor
 * and the request id, read back through /api/audit-log.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, type OperatorFixture, type Session, signIn } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import type * as Fixtures from "../support/Fixtures.js"
import type { TestApp } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("the console's audit log on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let me: OperatorFixture
  let session: Session
  let url: AdminConsole["url"]
  let createApplication: AdminConsole["createApplication"]

  beforeAll(async () => {
    ;({ app, org, me, session, url, createApplication } = await startAdminConsole(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("every change writes the audit log", () => {
    it("sign-in, create, issue, revoke and sign-out each write an entry with the operator as actor", async () => {
      const own = await signIn(app.adminUrl, me)
      const count = (action: string) => app.run(auditCount(org.organizationId, action))
      const before = {
        signedIn: await count("operator.signed_in"),
        created: await count("identity.application.created"),
        issued: await count("identity.application.secret_issued"),
        revoked: await count("identity.application.secret_revoked"),
        signedOut: await count("operator.signed_out")
      }
      const created = await createApplication({ name: "Audited", roles: ["signing"], contextIds: [org.rootId] }, own)
      const id = created.body.application.application.id
      const issued = await adminCall(url(`/api/applications/${id}/secrets`), own, { method: "POST" })
      await adminCall(url(`/api/applications/${id}/secrets/${issued.body.id}/revoke`), own, { method: "POST" })
      const signOut = await adminCall(url("/api/session"), own, { method: "DELETE" })
      expect(signOut.status).toBe(204)
      expect(await count("identity.application.created")).toBe(before.created + 1)
      expect(await count("identity.application.secret_issued")).toBe(before.issued + 2)
      expect(await count("identity.application.secret_revoked")).toBe(before.revoked + 1)
      expect(await count("operator.signed_out")).toBe(before.signedOut + 1)
      expect(before.signedIn).toBeGreaterThan(0)

      const log = await adminCall(url(`/api/audit-log?targetId=${id}`), session)
      expect(log.body.items).toEqual([
        expect.objectContaining({ action: "identity.application.created", actorType: "operator", actorId: me.id, actorLabel: me.email })
      ])
      const signedOut = await adminCall(url("/api/audit-log?action=operator.signed_out&limit=1"), session)
      expect(signedOut.body.items[0]).toMatchObject({ actorId: me.id, requestId: signOut.headers.get("x-request-id") })
    })
  })
})
