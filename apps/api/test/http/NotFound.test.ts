/**
 * The one rule for 404s (issue 19 item 5; the OpenAPI document's description and docs/reference.md): `detail`
 * names the kind of record not found, and `code` is present exactly where spec 7.3 lists a code for that kind
 * (`INTEGRATIONS_CONFIGURATION_NOT_FOUND`, tested in Integrations.test.ts); every other 404 of the API host carries
 * no code, since 7.3 lists none for it.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NOT_FOUND_CODES, RecordNotFound } from "../../src/platform/RecordNotFound.js"
import { toProblem } from "../../src/platform/Problems.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const UNKNOWN = "00000000-0000-4000-8000-000000000000"

describe("the 404 rule (unit): the code comes from the kind, and only spec 7.3's codes are used", () => {
  it("an integration configuration → INTEGRATIONS_CONFIGURATION_NOT_FOUND; any other kind → no code", () => {
    expect(toProblem(new RecordNotFound({ kind: "integration configuration" }))).toMatchObject({
      status: 404,
      code: "INTEGRATIONS_CONFIGURATION_NOT_FOUND"
    })
    for (const kind of ["signing attempt", "invoice", "upload", "document", "booking request"]) {
      const answer = toProblem(new RecordNotFound({ kind }))
      expect(answer).toMatchObject({ status: 404, detail: `No such ${kind}, or the token cannot see it.` })
      expect(answer.code).toBeUndefined()
    }
    for (const code of Object.values(NOT_FOUND_CODES)) expect(code).toMatch(/_NOT_FOUND$/)
  })
})

describe.each(TestDatabase.kinds())("404s over HTTP on %s", (kind) => {
  let app: TestApp
  let bearer: string

  beforeAll(async () => {
    app = await start(kind)
    const org = await app.run(Fixtures.organization({ name: "Nowhere" }))
    const application = await app.run(Fixtures.application(org, { roles: ["billing", "signing", "booking"] }))
    bearer = await token(app.authUrl, application.clientId, application.secret)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it.each([
    ["POST", `/v1/crm/signing-attempts/${UNKNOWN}/started`, { providerDocumentId: "d" }, "signing attempt"],
    ["POST", `/v1/crm/signing-attempts/${UNKNOWN}/signed-document-upload`, { sizeBytes: 10, sha256: "a".repeat(64) }, "signing attempt"],
    ["POST", `/v1/billing/invoices/${UNKNOWN}/report-failed`, { reason: "r" }, "invoice"],
    ["POST", `/v1/billing/invoice-proposals/${UNKNOWN}/reject`, { reason: "r" }, "proposal"],
    ["GET", `/v1/booking/booking-requests/${UNKNOWN}`, undefined, "booking request"],
    ["GET", `/v1/booking/resources/${UNKNOWN}`, undefined, "resource"],
    ["GET", "/v1/no-such-operation", undefined, "operation"]
  ] as const)("%s %s → 404 naming the %s's kind, without a code", async (method, path, body, named) => {
    const answer = await call(`${app.apiUrl}${path}`, { method, token: bearer, ...(body === undefined ? {} : { body }) })
    expect(answer.status).toBe(404)
    expect(answer.headers.get("content-type")).toContain("application/problem+json")
    expect(answer.body).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 })
    expect(answer.body.detail).toContain(named)
    expect(answer.body).not.toHaveProperty("code")
  })
})
