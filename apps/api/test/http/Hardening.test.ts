/**
 * The defects of the independent review (issue "Hardening the foundation"), each black box over HTTP on PGlite and
 * PostgreSQL: deep nesting, `limit` forms and its OpenAPI declaration, C1 control characters, the order of 404 and
 * integration refusals, and cursors at the column's full (microsecond) precision.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth)

describe.each(TestDatabase.kinds())("hardening over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let billingToken: string

  const url = (path: string) => `${app.apiUrl}${path}`

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const billingApp = await app.run(Fixtures.application(org))
    billingToken = await token(app.authUrl, billingApp.clientId, billingApp.secret)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("a body nested thousands of levels deep (item 1)", () => {
    it.each([
      ["pass", "/v1/billing/invoice-proposals/ID/pass", "externalReference"],
      ["reject", "/v1/billing/invoice-proposals/ID/reject", "reason"],
      ["report-failed", "/v1/billing/invoices/ID/report-failed", "reason"]
    ])("is 400 VALIDATION_FAILED on %s, and changes nothing", async (operation, path, field) => {
      const id = operation === "report-failed" ? await app.run(Fixtures.approvedInvoice(org)) : await app.run(Fixtures.proposal(org))
      const before = await app.run(Fixtures.counts)
      for (const body of [nested(3000), `{"${field}":${nested(3000)}}`, `{"${field}":${nested(40)}}`]) {
        const answer = await call(url(path.replace("ID", id)), { token: billingToken, body, headers: { "content-type": "application/json" } })
        expect(answer.status).toBe(400)
        expect(answer.headers.get("content-type")).toContain("application/problem+json")
        expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [{ path: "" }] })
      }
      expect(await app.run(Fixtures.counts)).toEqual(before)
    })

    it("still reads brackets inside strings as text, and a body nested within the bound", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/reject`), {
        token: billingToken,
        body: { reason: "[".repeat(500) + "{".repeat(400) }
      })
      expect(answer.status).toBe(201)
      const shallow = await call(url(`/v1/billing/invoice-proposals/${proposalId}/reject`), {
        token: billingToken,
        body: `{"reason":${nested(20)}}`,
        headers: { "content-type": "application/json" }
      })
      expect(shallow.status).toBe(400)
      expect(shallow.body.issues).toEqual([{ path: "/reason", message: expect.any(String) }])
    })
  })

  describe("limit (items 3 and 4)", () => {
    it.each(["0x10", "1e2", " 5", "5 ", "016", "0", "101", "5.0", "+5", "-1", "", "1_0", "٣"])(
      "refuses limit=%j with VALIDATION_FAILED at /limit",
      async (limit) => {
        const answer = await call(url(`/v1/billing/send-queue?limit=${encodeURIComponent(limit)}`), { token: billingToken })
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("VALIDATION_FAILED")
        expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/limit"])
      }
    )

    it.each(["1", "9", "16", "100"])("accepts limit=%s", async (limit) => {
      const answer = await call(url(`/v1/operational-contexts?limit=${limit}`), { token: billingToken })
      expect(answer.status).toBe(200)
      expect(answer.body.items.length).toBeLessThanOrEqual(Number(limit))
    })

    it("is declared in the OpenAPI document as an integer 1 to 100 with default 50", async () => {
      const document = (await call(url("/openapi.json"))).body
      for (const path of ["/v1/billing/send-queue", "/v1/billing/verification-queue", "/v1/operational-contexts"]) {
        const limit = document.paths[path].get.parameters.find((p: { name: string }) => p.name === "limit")
        expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 })
      }
    })
  })

  describe("C1 control characters (item 5)", () => {
    it.each(["\u0080", "\u0085", "\u009B", "\u009F"])("refuses U+%s in a reason like a C0 control", async (char) => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/reject`), {
        token: billingToken,
        body: { reason: `Parking ${char}31m billed twice` }
      })
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [{ path: "/reason" }] })
    })

    it("keeps accepting printable text just past the C1 block (U+00A0, U+00E5)", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/reject`), {
        token: billingToken,
        body: { reason: "Städning\u00a0ej utförd" }
      })
      expect(answer.status).toBe(201)
    })
  })

  describe("order of checks: 404 before the integration's refusal (item 6)", () => {
    it("answers 404 for a missing record whatever the integration, and the integration's code for a visible one", async () => {
      for (const integration of [{ gates: [], status: "connecting" as const }, { gates: [] }, "none" as const]) {
        const bare = await app.run(Fixtures.organization({ name: "Bare", integration }))
        const bareApp = await app.run(Fixtures.application(bare))
        const bareToken = await token(app.authUrl, bareApp.clientId, bareApp.secret)
        const missing = "00000000-0000-4000-8000-000000000000"
        // Each body names only its operation's members: an unknown one is refused before the lookup (issue 19).
        for (const [path, body] of [
          [`/v1/billing/invoice-proposals/${missing}/pass`, { externalReference: "ERP-404" }],
          [`/v1/billing/invoice-proposals/${missing}/reject`, { reason: "x" }],
          [`/v1/billing/invoices/${missing}/report-failed`, { reason: "x" }]
        ] as const) {
          const answer = await call(url(path), { token: bareToken, body })
          expect(answer.status).toBe(404)
        }
        const visible = await app.run(Fixtures.proposal(bare))
        const refused = await call(url(`/v1/billing/invoice-proposals/${visible}/reject`), { token: bareToken, body: { reason: "x" } })
        expect(refused.status).toBe(400)
        expect(refused.body.code).toBe(
          integration === "none" || "status" in integration ? "BILLING_INTEGRATION_NOT_CONFIGURED" : "BILLING_INTEGRATION_GATE_NOT_DECLARED"
        )
      }
    })
  })

  describe("cursors at the column's full precision (item 7)", () => {
    it("pages through rows written by SQL now() (microseconds) without repeating or skipping one", async () => {
      const precise = await app.run(Fixtures.organization({ name: "Micro" }))
      const preciseApp = await app.run(Fixtures.application(precise))
      const preciseToken = await token(app.authUrl, preciseApp.clientId, preciseApp.secret)
      const ids: Array<string> = []
      for (let order = 0; order < 7; order++) ids.push(await app.run(Fixtures.approvedInvoice(precise, { order })))
      // Another writer: approval times with sub-millisecond digits, two of them equal.
      await app.run(
        Db.query((db) =>
          sql`update invoices set approved_at = now() + (interval '1 microsecond' * (case when id = ${ids[1]} then 7 else ${sql.lit(3)} end))
              where id in (${sql.join(ids.slice(0, 4))})`.execute(db)
        )
      )
      const seen: Array<string> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${cursor}`
        const answer = await call(url(`/v1/billing/send-queue${query}`), { token: preciseToken })
        expect(answer.status).toBe(200)
        seen.push(...answer.body.items.map((invoice: { id: string }) => invoice.id))
        cursor = answer.body.nextCursor
        expect(++pages).toBeLessThan(10)
      } while (cursor !== null)
      expect(seen).toHaveLength(ids.length)
      expect(new Set(seen)).toEqual(new Set(ids))
    })

    it("refuses a cursor of another list and a forged one", async () => {
      const first = await call(url("/v1/operational-contexts?limit=1"), { token: billingToken })
      const foreign = await call(url(`/v1/billing/send-queue?cursor=${first.body.nextCursor}`), { token: billingToken })
      expect(foreign.status).toBe(400)
      expect(foreign.body.issues).toEqual([{ path: "/cursor", message: expect.any(String) }])
      const forged = Buffer.from(JSON.stringify({ k: "send-queue", t: "2026-13-45T99:00:00.000000Z", i: org.rootId })).toString("base64url")
      expect((await call(url(`/v1/billing/send-queue?cursor=${forged}`), { token: billingToken })).status).toBe(400)
    })
  })
})
