/**
 * The console's signing over the admin API, black box, on PGlite and PostgreSQL (issue 11): preparing a contract
 * for signing puts it on the API's signing queue; a second preparation while one is live is 409
 * CRM_SIGNING_ATTEMPT_LIVE; the service's input issues come back as VALIDATION_FAILED; asking for a withdrawal moves
 * it to the withdrawal queue; another organization's contract is 404; each change audited with the operator.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import * as SigningFixtures from "../support/SigningFixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const parties = [{ kind: "customer", signers: [{ name: "Karin Berg", email: "karin@example.se", role: "signatory", signingOrder: 1 }] }]

describe.each(TestDatabase.kinds())("the console's signing on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let session: Session
  let otherSession: Session
  let signingToken: string

  const url = (path: string) => `${app.adminUrl}${path}`

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    session = await signIn(app.adminUrl, await app.run(operator(org.organizationId)))
    otherSession = await signIn(app.adminUrl, await app.run(operator(other.organizationId)))
    const esign = await app.run(Fixtures.application(org, { roles: ["signing"] }))
    signingToken = await token(app.authUrl, esign.clientId, esign.secret)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  it("prepares a contract for signing: it is on the API's signing queue, audited with the operator", async () => {
    const contractId = await app.run(SigningFixtures.contract(org))
    const before = await app.run(auditCount(org.organizationId))
    const prepared = await adminCall(url(`/api/contracts/${contractId}/signing-attempts`), session, { method: "POST", body: { parties } })
    expect(prepared.status).toBe(201)
    expect(prepared.body).toMatchObject({ contractId, status: "queued", withdrawalRequestedAt: null })
    expect(await app.run(auditCount(org.organizationId))).toBeGreaterThan(before)
    const queue = await call(`${app.apiUrl}/v1/crm/signing-queue?limit=100`, { token: signingToken })
    expect(JSON.stringify(queue.body.items)).toContain(prepared.body.id)
    const again = await adminCall(url(`/api/contracts/${contractId}/signing-attempts`), session, { method: "POST", body: { parties } })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("CRM_SIGNING_ATTEMPT_LIVE")
    const list = await adminCall(url(`/api/contracts/${contractId}/signing-attempts`), session)
    expect(list.body.items.map((attempt: { id: string }) => attempt.id)).toEqual([prepared.body.id])

    const withdrawn = await adminCall(url(`/api/signing-attempts/${prepared.body.id}/request-withdrawal`), session, { method: "POST" })
    expect(withdrawn.status).toBe(200)
    expect(withdrawn.body.withdrawalRequestedAt).not.toBeNull()
    const outcome = await adminCall(url(`/api/signing-attempts/${prepared.body.id}`), session)
    expect(outcome.body).toMatchObject({ attempt: { id: prepared.body.id }, signedDocument: null })
    expect((await adminCall(url(`/api/signing-attempts/${prepared.body.id}`), otherSession)).status).toBe(404)
  })

  it("downloads an attempt's contract PDF, and its signed PDF once signed, only for the attempt's organization", async () => {
    const contractId = await app.run(SigningFixtures.contract(org))
    const attempt = await app.run(SigningFixtures.prepared(org, contractId))
    const download = async (kind: "contract" | "signed", as: Session | null = session) => {
      const response = await fetch(url(`/api/signing-attempts/${attempt.id}/${kind}-pdf`), {
        headers: as === null ? {} : { cookie: as.cookie }
      })
      return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
    }
    const contractPdf = await download("contract")
    expect(contractPdf.status).toBe(200)
    expect(contractPdf.headers.get("content-type")).toBe("application/pdf")
    expect(contractPdf.headers.get("content-disposition")).toMatch(/^attachment; filename="Contract /)
    expect(new TextDecoder().decode(contractPdf.bytes.slice(0, 5))).toBe("%PDF-")
    const notYet = await download("signed")
    expect(notYet.status).toBe(404)

    const signedBytes = SigningFixtures.pdfBytes(`signed ${attempt.id}`)
    await SigningFixtures.signedOverHttp(app.apiUrl, signingToken, attempt.id, signedBytes)
    const auditBefore = await app.run(auditCount(org.organizationId))
    const signedPdf = await download("signed")
    expect(signedPdf.status).toBe(200)
    expect(signedPdf.headers.get("content-type")).toBe("application/pdf")
    expect(signedPdf.headers.get("cache-control")).toBe("no-store")
    expect(Buffer.from(signedPdf.bytes).equals(Buffer.from(signedBytes))).toBe(true)
    expect(await app.run(auditCount(org.organizationId))).toBe(auditBefore) // a read changes nothing

    for (const kind of ["contract", "signed"] as const) {
      const foreign = await download(kind, otherSession)
      expect(foreign.status).toBe(404)
      expect(foreign.headers.get("content-type")).toContain("application/problem+json")
      expect((await download(kind, null)).status).toBe(401)
    }
    const unknown = await adminCall(url("/api/signing-attempts/00000000-0000-4000-8000-000000000000/signed-pdf"), session)
    expect(unknown.status).toBe(404)
  })

  it("answers the service's input issues as VALIDATION_FAILED, and another organization's contract as 404", async () => {
    const contractId = await app.run(SigningFixtures.contract(org))
    const invalid = await adminCall(url(`/api/contracts/${contractId}/signing-attempts`), session, {
      method: "POST",
      body: { parties: [{ kind: "customer", signers: [{ name: "Karin", email: "not-an-address", role: "signatory", signingOrder: 1 }] }] }
    })
    expect(invalid.status).toBe(400)
    expect(invalid.body.code).toBe("VALIDATION_FAILED")
    expect(invalid.body.issues[0].path).toBe("/parties/0/signers/0/email")
    const foreign = await adminCall(url(`/api/contracts/${contractId}/signing-attempts`), otherSession, { method: "POST", body: { parties } })
    expect(foreign.status).toBe(404)
  })
})
