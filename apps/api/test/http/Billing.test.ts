/**
 * The billing slice over HTTP, black box, on PGlite and on PostgreSQL: spec 3 and 4.1 (pass, report-failed, with
 * every status and code), 4.2 (queues, reject), 7.1 (errors), decisions 2 (roles, 404 across tenants) and 4
 * (pagination, problem details, repeated reports, X-Request-Id).
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { sql } from "kysely"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { call, type TestApp, token } from "../support/TestApp.js"
import { startTwoOrganizations } from "../support/TwoOrganizations.js"

describe.each(TestDatabase.kinds())("billing over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let billingToken: string
  let otherToken: string

  const url = (path: string) => `${app.apiUrl}${path}`
  const pass = (proposalId: string, externalReference: unknown, tokenValue = billingToken) =>
    call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), { token: tokenValue, body: { externalReference } })
  const reject = (proposalId: string, reason: unknown, tokenValue = billingToken) =>
    call(url(`/v1/billing/invoice-proposals/${proposalId}/reject`), { token: tokenValue, body: { reason } })
  const reportFailed = (invoiceId: string, reason: unknown, tokenValue = billingToken) =>
    call(url(`/v1/billing/invoices/${invoiceId}/report-failed`), { token: tokenValue, body: { reason } })
  const invoiceCount = () =>
    app.run(
      Db.query((db) => db.selectFrom("invoices").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow())
    ).then((row) => Number(row.n))

  beforeAll(async () => {
    ;({ app, org, other, billingToken, otherToken } = await startTwoOrganizations(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("authentication (spec 5)", () => {
    it("answers 401 problem details without a token, with a Bearer challenge", async () => {
      const answer = await call(url("/v1/billing/send-queue"))
      expect(answer.status).toBe(401)
      expect(answer.headers.get("content-type")).toContain("application/problem+json")
      // RFC 6750 3.1: no error code when the request carried no credentials
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="api"')
      expect(answer.body).toMatchObject({ type: "about:blank", title: "Unauthorized", status: 401 })
    })

    it.each([
      ["a malformed token", "Bearer not-a-jwt"],
      ["another scheme", `Basic ${Buffer.from("a:b").toString("base64")}`],
      ["a tampered token", "TAMPER"]
    ])("answers 401 for %s", async (_, header) => {
      const value = header === "TAMPER" ? `Bearer ${billingToken.slice(0, -4)}AAAA` : header
      const answer = await call(url("/v1/billing/send-queue"), { headers: { authorization: value } })
      expect(answer.status).toBe(401)
      expect(answer.body.status).toBe(401)
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="api", error="invalid_token"')
    })

    it("answers 401 before validating input", async () => {
      const answer = await call(url("/v1/billing/invoice-proposals/not-a-uuid/pass"), { body: "{" })
      expect(answer.status).toBe(401)
    })

    it("answers 403 to a token without the billing role, on every billing operation", async () => {
      const signingApp = await app.run(Fixtures.application(org, { roles: ["signing"] }))
      const signingToken = await token(app.authUrl, signingApp.clientId, signingApp.secret)
      const proposalId = await app.run(Fixtures.proposal(org))
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answers = await Promise.all([
        call(url("/v1/billing/verification-queue"), { token: signingToken }),
        call(url("/v1/billing/send-queue"), { token: signingToken }),
        pass(proposalId, "ERP-403", signingToken),
        reject(proposalId, "no", signingToken),
        reportFailed(invoiceId, "no", signingToken)
      ])
      for (const answer of answers) {
        expect(answer.status).toBe(403)
        expect(answer.body).toMatchObject({ type: "about:blank", title: "Forbidden", status: 403 })
      }
      expect((await call(url("/v1/operational-contexts"), { token: signingToken })).status).toBe(200)
      // the role is checked before the input is read
      const malformed = await call(url("/v1/billing/invoice-proposals/not-a-uuid/pass"), { token: signingToken, body: "{" })
      expect(malformed.status).toBe(403)
    })
  })

  describe("GET /v1/operational-contexts", () => {
    it("lists the granted context and its subtree, in pages", async () => {
      const all = await call(url("/v1/operational-contexts"), { token: billingToken })
      expect(all.status).toBe(200)
      expect(all.body.items).toHaveLength(5)
      expect(all.body.nextCursor).toBeNull()
      expect(new Set(all.body.items.map((c: { organizationId: string }) => c.organizationId))).toEqual(new Set([org.organizationId]))

      const seen: Array<string> = []
      let cursor: string | null = null
      do {
        const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${cursor}`
        const answer = await call(url(`/v1/operational-contexts${query}`), { token: billingToken })
        expect(answer.status).toBe(200)
        expect(answer.body.items.length).toBeLessThanOrEqual(2)
        seen.push(...answer.body.items.map((c: { id: string }) => c.id))
        cursor = answer.body.nextCursor
      } while (cursor !== null)
      expect(seen.sort()).toEqual(all.body.items.map((c: { id: string }) => c.id).sort())
    })

    it("limits a region grant to that region's subtree", async () => {
      const regional = await app.run(Fixtures.application(org, { contextIds: [org.regionId] }))
      const regionalToken = await token(app.authUrl, regional.clientId, regional.secret)
      const answer = await call(url("/v1/operational-contexts"), { token: regionalToken })
      expect(answer.body.items.map((c: { id: string }) => c.id).sort()).toEqual([org.regionId, org.propertyId].sort())
    })

    it.each([
      ["limit=0", "/limit"],
      ["limit=101", "/limit"],
      ["limit=abc", "/limit"],
      ["limit=1.5", "/limit"],
      ["cursor=bm90LWEtY3Vyc29y", "/cursor"],
      ["cursor=%25%25", "/cursor"]
    ])("refuses ?%s with 400 VALIDATION_FAILED at %s", async (query, path) => {
      const answer = await call(url(`/v1/operational-contexts?${query}`), { token: billingToken })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      // spec 7.1: one entry per failing field
      expect(answer.body.issues.map((i: { path: string }) => i.path)).toEqual([path])
    })

    it("says what a valid limit is", async () => {
      const answer = await call(url("/v1/operational-contexts?limit=0"), { token: billingToken })
      expect(answer.body.issues).toEqual([{ path: "/limit", message: "must be an integer from 1 to 100" }])
    })

    it.each([
      "0000-01-01T00:00:00.000Z",
      "+275760-09-13T00:00:00.000Z",
      "-271821-04-20T00:00:00.000Z",
      "2026-11-20",
      // the pattern's shape, a day the calendar lacks (PostgreSQL refuses to cast it)
      "2026-02-30T00:00:00.000000Z",
      "2025-02-29T12:00:00.000000Z"
    ])(
      "refuses a forged cursor at %s with 400, not 500",
      async (t) => {
        const cursor = Buffer.from(JSON.stringify({ k: "send-queue", t, i: org.contractId })).toString("base64url")
        const answer = await call(url(`/v1/billing/send-queue?cursor=${cursor}`), { token: billingToken })
        expect(answer.status).toBe(400)
        expect(answer.body.issues.map((i: { path: string }) => i.path)).toEqual(["/cursor"])
      }
    )
  })

  describe("GET /v1/billing/verification-queue", () => {
    it("lists proposed proposals of the token's organization and contexts, oldest first", async () => {
      const fresh = await app.run(Fixtures.organization({ name: "Queue org" }))
      const freshApp = await app.run(Fixtures.application(fresh, { contextIds: [fresh.regionId] }))
      const freshToken = await token(app.authUrl, freshApp.clientId, freshApp.secret)
      const second = await app.run(Fixtures.proposal(fresh, { order: 2 }))
      const first = await app.run(Fixtures.proposal(fresh, { order: 1 }))
      await app.run(Fixtures.proposal(fresh, { order: 3, contextId: fresh.otherPropertyId }))
      const answer = await call(url("/v1/billing/verification-queue"), { token: freshToken })
      expect(answer.status).toBe(200)
      expect(answer.body.items.map((p: { id: string }) => p.id)).toEqual([first, second])
      expect(answer.body.items[0]).toMatchObject({ status: "proposed", organizationId: fresh.organizationId, currency: "SEK" })
      const page = await call(url("/v1/billing/verification-queue?limit=1"), { token: freshToken })
      expect(page.body.items.map((p: { id: string }) => p.id)).toEqual([first])
      const next = await call(url(`/v1/billing/verification-queue?limit=1&cursor=${page.body.nextCursor}`), { token: freshToken })
      expect(next.body.items.map((p: { id: string }) => p.id)).toEqual([second])
      expect(next.body.nextCursor).toBeNull()
    })

    it("refuses a send-queue cursor", async () => {
      await app.run(Fixtures.approvedInvoice(org, { order: 1 }))
      await app.run(Fixtures.approvedInvoice(org, { order: 2 }))
      const page = await call(url("/v1/billing/send-queue?limit=1"), { token: billingToken })
      const answer = await call(url(`/v1/billing/verification-queue?cursor=${page.body.nextCursor}`), { token: billingToken })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
    })

    it("answers BILLING_INTEGRATION_NOT_CONFIGURED and BILLING_INTEGRATION_GATE_NOT_DECLARED", async () => {
      const none = await app.run(Fixtures.organization({ name: "No ERP", integration: "none" }))
      const noGate = await app.run(Fixtures.organization({ name: "No gate", integration: { gates: [] } }))
      const noneApp = await app.run(Fixtures.application(none))
      const noGateApp = await app.run(Fixtures.application(noGate))
      const noneToken = await token(app.authUrl, noneApp.clientId, noneApp.secret)
      const noGateToken = await token(app.authUrl, noGateApp.clientId, noGateApp.secret)
      const a = await call(url("/v1/billing/verification-queue"), { token: noneToken })
      expect([a.status, a.body.code]).toEqual([400, "BILLING_INTEGRATION_NOT_CONFIGURED"])
      const b = await call(url("/v1/billing/verification-queue"), { token: noGateToken })
      expect([b.status, b.body.code]).toEqual([400, "BILLING_INTEGRATION_GATE_NOT_DECLARED"])
      const c = await call(url("/v1/billing/send-queue"), { token: noneToken })
      expect([c.status, c.body.code]).toEqual([400, "BILLING_INTEGRATION_NOT_CONFIGURED"])
      const d = await call(url("/v1/billing/send-queue"), { token: noGateToken })
      expect(d.status).toBe(200)
      // an integration that is not ready (decisions 8) is not configured
      const failed = await app.run(Fixtures.organization({ name: "Failed ERP", integration: { gates: ["verification"], status: "failed" } }))
      const failedApp = await app.run(Fixtures.application(failed))
      const failedToken = await token(app.authUrl, failedApp.clientId, failedApp.secret)
      const f = await call(url("/v1/billing/send-queue"), { token: failedToken })
      expect([f.status, f.body.code]).toEqual([400, "BILLING_INTEGRATION_NOT_CONFIGURED"])
      const proposalId = await app.run(Fixtures.proposal(noGate))
      const e = await pass(proposalId, "ERP-GATE", noGateToken)
      expect([e.status, e.body.code]).toEqual([400, "BILLING_INTEGRATION_GATE_NOT_DECLARED"])
    })
  })

  describe("POST /v1/billing/invoice-proposals/{proposalId}/pass", () => {
    it("passes a proposal: 201 with the passed proposal and the approved invoice it became", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await pass(proposalId, "ERP-1001")
      expect(answer.status).toBe(201)
      const { proposal, invoice } = answer.body
      expect(proposal).toMatchObject({ id: proposalId, status: "passed", externalReference: "ERP-1001" })
      expect(typeof proposal.passedAt).toBe("string")
      expect(invoice).toMatchObject({
        status: "approved",
        externalReference: "ERP-1001",
        invoiceNumber: proposal.invoiceNumber,
        organizationId: org.organizationId,
        contractId: org.contractId,
        totalGrossMinorUnits: 1_250_000,
        overdue: false
      })
      expect(invoice.approvedAt).toBe(proposal.passedAt)
      const sendQueue = await call(url("/v1/billing/send-queue?limit=100"), { token: billingToken })
      expect(sendQueue.body.items.map((i: { id: string }) => i.id)).toContain(invoice.id)
      const queue = await call(url("/v1/billing/verification-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((p: { id: string }) => p.id)).not.toContain(proposalId)
    })

    it("writes a pass's three events and its audit entry, row for row, with the caller's request id", async () => {
      // The actor a write's entry names: the caller's subject, as a reject (its own audit statement) records it.
      const rejectedId = await app.run(Fixtures.proposal(org))
      expect((await reject(rejectedId, "wrong period")).status).toBe(201)
      const rejected = await app.run(
        Db.query((db) => db.selectFrom("auditLog").selectAll().where("targetId", "=", rejectedId).executeTakeFirstOrThrow())
      )
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: billingToken,
        body: { externalReference: "ERP-ROWS-1" },
        headers: { "x-request-id": "req-pass-rows" }
      })
      expect(answer.status).toBe(201)
      const { proposal, invoice } = answer.body
      const at = new Date(proposal.passedAt)
      const fields = { organizationId: org.organizationId, operationalContextId: invoice.operationalContextId, at: at.toISOString() }
      const events = await app.run(
        Db.query((db) =>
          db
            .selectFrom("events")
            // The payload as text: the CamelCasePlugin would re-key its `_tag`.
            .select(["id", "organizationId", "type", sql<string>`payload::text`.as("payload"), "occurredAt"])
            .where(sql<boolean>`payload->>'invoiceId' = ${invoice.id}`)
            .orderBy("type")
            .execute()
        )
      )
      expect(events.map(({ id: _id, payload, ...row }) => ({ ...row, payload: JSON.parse(payload) }))).toEqual([
        { organizationId: org.organizationId, type: "billing.invoice.approved", occurredAt: at, payload: { _tag: "billing.invoice.approved", invoiceId: invoice.id, ...fields } },
        { organizationId: org.organizationId, type: "billing.invoice.created", occurredAt: at, payload: { _tag: "billing.invoice.created", invoiceId: invoice.id, ...fields } },
        {
          organizationId: org.organizationId,
          type: "billing.invoice_proposal.passed",
          occurredAt: at,
          payload: { _tag: "billing.invoice_proposal.passed", proposalId, invoiceId: invoice.id, ...fields }
        }
      ])
      expect(new Set(events.map((event) => event.id)).size).toBe(3)
      const entries = await app.run(
        Db.query((db) => db.selectFrom("auditLog").selectAll().where("targetId", "=", proposalId).execute())
      )
      expect(entries.map(({ id: _id, ...entry }) => entry)).toEqual([
        {
          organizationId: org.organizationId,
          actorType: "application",
          actorId: rejected.actorId,
          action: "billing.invoice_proposal.pass",
          targetType: "invoice_proposal",
          targetId: proposalId,
          requestId: "req-pass-rows",
          details: { externalReference: "ERP-ROWS-1", invoiceId: invoice.id },
          occurredAt: at
        }
      ])
    })

    it("refuses a proposal no longer in proposed with 400 BILLING_PROPOSAL_STATUS_INVALID", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      expect((await pass(proposalId, "ERP-2001")).status).toBe(201)
      const before = await invoiceCount()
      const again = await pass(proposalId, "ERP-2002")
      expect([again.status, again.body.code]).toEqual([400, "BILLING_PROPOSAL_STATUS_INVALID"])
      const rejected = await app.run(Fixtures.proposal(org))
      expect((await reject(rejected, "wrong period")).status).toBe(201)
      const afterReject = await pass(rejected, "ERP-2003")
      expect([afterReject.status, afterReject.body.code]).toEqual([400, "BILLING_PROPOSAL_STATUS_INVALID"])
      expect(await invoiceCount()).toBe(before)
    })

    it("refuses an externalReference already used in the organization with 409, changing nothing", async () => {
      const first = await app.run(Fixtures.proposal(org))
      const second = await app.run(Fixtures.proposal(org))
      expect((await pass(first, "ERP-DUP")).status).toBe(201)
      const before = await app.run(Fixtures.counts)
      const answer = await pass(second, "ERP-DUP")
      expect([answer.status, answer.body.code]).toEqual([409, "BILLING_EXTERNAL_REFERENCE_ALREADY_USED"])
      expect(await app.run(Fixtures.counts)).toEqual(before)
      const queue = await call(url("/v1/billing/verification-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((p: { id: string }) => p.id)).toContain(second)
      // another organization may use the same reference
      const foreign = await app.run(Fixtures.proposal(other))
      expect((await pass(foreign, "ERP-DUP", otherToken)).status).toBe(201)
    })

    it("refuses a proposal whose charges were already invoiced with 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const proposalId = await app.run(Fixtures.proposal(org, { chargeInvoicedBy: invoiceId }))
      const answer = await pass(proposalId, "ERP-MAT")
      expect([answer.status, answer.body.code]).toEqual([409, "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED"])
    })

    it("lets exactly one of 20 concurrent passes of one proposal succeed", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const before = await invoiceCount()
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => pass(proposalId, `ERP-RACE-${i}`)))
      const statuses = answers.map((a) => a.status)
      expect(statuses.filter((s) => s === 201)).toHaveLength(1)
      expect(statuses.filter((s) => s >= 500)).toHaveLength(0)
      for (const answer of answers.filter((a) => a.status !== 201)) {
        expect([answer.status, answer.body.code]).toEqual([400, "BILLING_PROPOSAL_STATUS_INVALID"])
      }
      expect(await invoiceCount()).toBe(before + 1)
    })

    it("lets one of two concurrent passes with the same externalReference succeed; the other gets 409", async () => {
      const a = await app.run(Fixtures.proposal(org))
      const b = await app.run(Fixtures.proposal(org))
      const answers = await Promise.all([pass(a, "ERP-SAME"), pass(b, "ERP-SAME")])
      expect(answers.map((x) => x.status).sort()).toEqual([201, 409])
      expect(answers.find((x) => x.status === 409)?.body.code).toBe("BILLING_EXTERNAL_REFERENCE_ALREADY_USED")
    })

    it.each([
      ["an empty externalReference", { externalReference: "" }, "/externalReference"],
      ["a 201-character externalReference", { externalReference: "x".repeat(201) }, "/externalReference"],
      ["a blank externalReference", { externalReference: "   " }, "/externalReference"],
      ["a number", { externalReference: 42 }, "/externalReference"],
      ["no externalReference", {}, "/externalReference"],
      ["an array body", [], ""]
    ])("refuses %s with 400 VALIDATION_FAILED", async (_, body, path) => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), { token: billingToken, body })
      expect(answer.status).toBe(400)
      expect(answer.headers.get("content-type")).toContain("application/problem+json")
      expect(answer.body).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400, code: "VALIDATION_FAILED" })
      expect(answer.body.issues.map((i: { path: string }) => i.path)).toContain(path)
      expect(answer.body.issues.every((i: { message: unknown }) => typeof i.message === "string")).toBe(true)
    })

    it("accepts a 200-character externalReference (counted in code points)", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await pass(proposalId, "ö".repeat(199) + "😀")
      expect(answer.status).toBe(201)
    })

    it.each([
      ["malformed JSON", "{\"externalReference\":", "application/json"],
      ["an empty body", "", "application/json"],
      ["a form body", "externalReference=ERP-FORM", "application/x-www-form-urlencoded"],
      ["a text body", "ERP-TEXT", "text/plain"]
    ])("refuses %s with 400 VALIDATION_FAILED and changes nothing", async (_, body, contentType) => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: billingToken,
        body,
        headers: { "content-type": contentType }
      })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      const queue = await call(url("/v1/billing/verification-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((p: { id: string }) => p.id)).toContain(proposalId)
    })

    it.each([
      ["a NUL character", "ERP-\u0000-1"],
      ["an escape character", "ERP-\u001b-1"],
      ["a lone surrogate", "ERP-\ud800-1"]
    ])("refuses an externalReference with %s with 400, never 500", async (_, externalReference) => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await pass(proposalId, externalReference)
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues.map((i: { path: string }) => i.path)).toEqual(["/externalReference"])
    })

    it("refuses a body that is not UTF-8 with 400, changing nothing", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const body = Buffer.concat([Buffer.from('{"externalReference":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: billingToken,
        body,
        headers: { "content-type": "application/json" }
      })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      const row = await app.run(
        Db.query((db) => db.selectFrom("invoiceProposals").select("status").where("id", "=", proposalId).executeTakeFirstOrThrow())
      )
      expect(row.status).toBe("proposed")
    })

    it("refuses a body over 64 KiB with 413 without reading it into memory", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await pass(proposalId, "x".repeat(70 * 1024))
      expect(answer.status).toBe(413)
      expect(answer.body).toMatchObject({ type: "about:blank", status: 413 })
    })

    it("refuses a body without Content-Type with 400", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: billingToken,
        body: new TextEncoder().encode(JSON.stringify({ externalReference: "ERP-NO-CT" }))
      })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
    })

    it("refuses a path id that is not a UUID with 400 VALIDATION_FAILED at /proposalId", async () => {
      const answer = await pass("not-a-uuid", "ERP-X")
      expect(answer.status).toBe(400)
      expect(answer.body.issues.map((i: { path: string }) => i.path)).toEqual(["/proposalId"])
    })

    it("answers 404 for an unknown proposal and for one outside the token's contexts", async () => {
      expect((await pass("7b0b7a52-4f36-4a8e-9d0e-3f3a5c0c9f11", "ERP-404")).status).toBe(404)
      const regional = await app.run(Fixtures.application(org, { contextIds: [org.regionId] }))
      const regionalToken = await token(app.authUrl, regional.clientId, regional.secret)
      const outside = await app.run(Fixtures.proposal(org, { contextId: org.otherPropertyId }))
      const answer = await pass(outside, "ERP-OUT", regionalToken)
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 })
    })
  })

  describe("POST /v1/billing/invoice-proposals/{proposalId}/reject", () => {
    it("rejects with the reason; a repeat is 400 BILLING_PROPOSAL_STATUS_INVALID", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await reject(proposalId, "Wrong VAT rate on parking")
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ id: proposalId, status: "rejected", rejectionReason: "Wrong VAT rate on parking" })
      expect(typeof answer.body.rejectedAt).toBe("string")
      const again = await reject(proposalId, "again")
      expect([again.status, again.body.code]).toEqual([400, "BILLING_PROPOSAL_STATUS_INVALID"])
    })

    it.each([
      ["0", "", 400],
      ["1001", "r".repeat(1001), 400],
      ["1000", "r".repeat(1000), 201],
      ["1", "r", 201]
    ])("a reason of %s characters answers %s", async (_, reason, status) => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const answer = await reject(proposalId, reason)
      expect(answer.status).toBe(status)
      if (status === 400) expect(answer.body.code).toBe("VALIDATION_FAILED")
    })
  })

  describe("POST /v1/billing/invoices/{invoiceId}/report-failed", () => {
    it("moves an approved invoice to failed with failedAt and failureReason; it leaves the send queue", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await reportFailed(invoiceId, "Customer unknown in Fortnox")
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ id: invoiceId, status: "failed", failureReason: "Customer unknown in Fortnox" })
      expect(typeof answer.body.failedAt).toBe("string")
      const queue = await call(url("/v1/billing/send-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((i: { id: string }) => i.id)).not.toContain(invoiceId)
    })

    it("refuses a repeated report with 400 BILLING_INVOICE_STATUS_INVALID, keeping the first reason", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      expect((await reportFailed(invoiceId, "first")).status).toBe(201)
      const again = await reportFailed(invoiceId, "second")
      expect([again.status, again.body.code]).toEqual([400, "BILLING_INVOICE_STATUS_INVALID"])
      const row = await app.run(
        Db.query((db) => db.selectFrom("invoices").select("failureReason").where("id", "=", invoiceId).executeTakeFirstOrThrow())
      )
      expect(row.failureReason).toBe("first")
    })

    it("lets exactly one of 20 concurrent reports succeed", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => reportFailed(invoiceId, `reason ${i}`)))
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
      expect(answers.filter((a) => a.status >= 500)).toHaveLength(0)
      for (const answer of answers.filter((a) => a.status !== 201)) {
        expect([answer.status, answer.body.code]).toEqual([400, "BILLING_INVOICE_STATUS_INVALID"])
      }
    })

    it.each([
      ["0", ""],
      ["1001", "r".repeat(1001)]
    ])("refuses a reason of %s characters with 400 VALIDATION_FAILED at /reason", async (_, reason) => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await reportFailed(invoiceId, reason)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((i: { path: string }) => i.path)).toEqual(["/reason"])
    })

    it("writes the audit log with the caller's request id", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await call(url(`/v1/billing/invoices/${invoiceId}/report-failed`), {
        token: billingToken,
        body: { reason: "ERP down" },
        headers: { "x-request-id": "req-audit-1" }
      })
      expect(answer.headers.get("x-request-id")).toBe("req-audit-1")
      const entry = await app.run(
        Db.query((db) => db.selectFrom("auditLog").selectAll().where("targetId", "=", invoiceId).executeTakeFirstOrThrow())
      )
      expect(entry).toMatchObject({ action: "billing.invoice.report_failed", requestId: "req-audit-1", actorType: "application", organizationId: org.organizationId })
      expect(entry.details).toEqual({ reason: "ERP down" })
      const event = await app.run(
        Db.query((db) => db.selectFrom("events").selectAll().where("type", "=", "billing.invoice.failed").execute())
      )
      expect(event.some((e) => (e.payload as { invoiceId?: string }).invoiceId === invoiceId)).toBe(true)
    })
  })

  describe("strict input (issue 19): real dates, known members, {} for no fields", () => {
    const DATE = "must be a date (YYYY-MM-DD) that exists in the calendar, from 1900-01-01 to 2999-12-31"
    const statusOf = (invoiceId: string) =>
      app.run(Db.query((db) => db.selectFrom("invoices").select("status").where("id", "=", invoiceId).executeTakeFirstOrThrow())).then((row) => row.status)

    it("refuses impossible report-sent dates, each field once, and leaves the invoice approved", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await call(url(`/v1/billing/invoices/${invoiceId}/report-sent`), {
        token: billingToken,
        body: { issuedInvoiceNumber: "F-1", issuedInvoiceDate: "2027-02-29", dueDate: "0999-12-31", issuedTotalGrossMinorUnits: 12_500 }
      })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues).toEqual([
        { path: "/issuedInvoiceDate", message: DATE },
        { path: "/dueDate", message: DATE }
      ])
      expect(await statusOf(invoiceId)).toBe("approved")
    })

    it.each([
      ["report-payment", { paymentId: "p-1", amountMinorUnits: 100, paidOn: "2027-04-31" }, "/paidOn"],
      ["report-payment-reversed", { paymentId: "p-1", reversedOn: "2026-02-29" }, "/reversedOn"],
      ["report-write-off", { writeOffId: "w-1", amountMinorUnits: 100, writtenOffOn: "3000-01-01" }, "/writtenOffOn"]
    ])("%s refuses an impossible date before looking the invoice up", async (operation, body, path) => {
      const answer = await call(url(`/v1/billing/invoices/${randomUUID()}/${operation}`), { token: billingToken, body })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues).toEqual([{ path, message: DATE }])
    })

    it("refuses unknown members, naming each, and changes nothing", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await call(url(`/v1/billing/invoices/${invoiceId}/report-failed`), {
        token: billingToken,
        body: { reason: "ERP down", retry: true, "a/b": 1 }
      })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues).toEqual([
        { path: "/retry", message: "is not a member of this request; its members are: reason" },
        { path: "/a~1b", message: "is not a member of this request; its members are: reason" }
      ])
      expect(await statusOf(invoiceId)).toBe("approved")
    })

    it("report-discarded takes {} or no body, and refuses [], [1,2], \"s\" and 1", async () => {
      for (const text of ["[]", "[1,2]", "\"s\"", "1"]) {
        const answer = await call(url(`/v1/billing/invoice-withdrawals/${randomUUID()}/report-discarded`), {
          token: billingToken,
          body: text,
          headers: { "content-type": "application/json" }
        })
        expect([answer.status, answer.body.issues]).toEqual([400, [{ path: "", message: "The body must be an empty JSON object, {}, or absent." }]])
      }
      for (const body of [{}, undefined]) {
        const answer = await call(url(`/v1/billing/invoice-withdrawals/${randomUUID()}/report-discarded`), { token: billingToken, method: "POST", body })
        expect(answer.status).toBe(404)
      }
    })
  })

  describe("tenancy (decisions 2)", () => {
    it("answers 404 to a token of another organization for every record, and lists none of them", async () => {
      const proposalId = await app.run(Fixtures.proposal(org))
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answers = await Promise.all([
        pass(proposalId, "ERP-FOREIGN", otherToken),
        reject(proposalId, "not mine", otherToken),
        reportFailed(invoiceId, "not mine", otherToken)
      ])
      expect(answers.map((a) => a.status)).toEqual([404, 404, 404])
      await app.run(Fixtures.proposal(other))
      await app.run(Fixtures.approvedInvoice(other))
      const queues = await Promise.all([
        call(url("/v1/billing/verification-queue?limit=100"), { token: otherToken }),
        call(url("/v1/billing/send-queue?limit=100"), { token: otherToken }),
        call(url("/v1/operational-contexts?limit=100"), { token: otherToken })
      ])
      for (const queue of queues) {
        expect(queue.status).toBe(200)
        expect(queue.body.items.length).toBeGreaterThan(0)
        for (const item of queue.body.items) expect(item.organizationId).toBe(other.organizationId)
      }
      const proposal = await app.run(
        Db.query((db) => db.selectFrom("invoiceProposals").select("status").where("id", "=", proposalId).executeTakeFirstOrThrow())
      )
      expect(proposal.status).toBe("proposed")
      const invoice = await app.run(
        Db.query((db) => db.selectFrom("invoices").select("status").where("id", "=", invoiceId).executeTakeFirstOrThrow())
      )
      expect(invoice.status).toBe("approved")
    })
  })

  describe("the API host", () => {
    it("serves the OpenAPI 3.1 document with the configured server address, and the reference page", async () => {
      const document = await call(url("/openapi.json"))
      expect(document.status).toBe(200)
      expect(document.body.openapi).toMatch(/^3\.1/)
      expect(document.body.servers[0].url).toBe(app.apiUrl)
      expect(Object.keys(document.body.paths)).toContain("/v1/billing/invoices/{invoiceId}/report-failed")
      const docs = await fetch(url("/docs"))
      expect(docs.status).toBe(200)
      const html = await docs.text()
      expect(html).toContain("<html")
      expect(html).toContain("/v1/billing/invoices/{invoiceId}/report-failed")
      expect(html).not.toContain("HttpApiDecodeError")
      const script = await fetch(url("/docs/scalar.js"))
      expect([script.status, script.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"])
      expect((await script.text()).length).toBeGreaterThan(1_000_000)
    })

    it("answers an unknown path with a 404 problem and a request id", async () => {
      const answer = await call(url("/v1/nothing-here"), { token: billingToken })
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ type: "about:blank", status: 404 })
      expect(answer.headers.get("x-request-id")).toMatch(/.+/)
    })
  })

})
