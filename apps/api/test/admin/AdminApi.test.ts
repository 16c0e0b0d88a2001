/**
 * The admin host's HttpApi over HTTP, black box, on PGlite and on PostgreSQL (issue 11): operator sign-in
 * (argon2id, throttling in the database, HttpOnly SameSite=Lax cookies), sessions and sign-out, CSRF on every
 * change, 401 → 403 → 400 → 404 order, another organization's ids answered 404 on every capability's reads, the
 * lists' paging and filters, and the front end's pages. Each capability's console cases live in its own test folder.
 */

import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FIRST_DELAY_SECONDS, FREE_FAILURES } from "../../src/admin/SignInThrottle.js"
import { adminCall, auditCount, type OperatorFixture, operator, type Session, signIn } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import type * as Fixtures from "../support/Fixtures.js"
import { call, type TestApp } from "../support/TestApp.js"

const OTHER_UUID = "00000000-0000-4000-8000-000000000000"

describe.each(TestDatabase.kinds())("admin API on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let me: OperatorFixture
  let session: Session
  let otherApplicationId: string
  let otherInvoiceId: string
  let url: AdminConsole["url"]
  let createApplication: AdminConsole["createApplication"]

  beforeAll(async () => {
    ;({ app, org, other, me, session, otherApplicationId, otherInvoiceId, url, createApplication } = await startAdminConsole(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("sign-in", () => {
    it("answers 201 with the session and sets an HttpOnly, SameSite=Lax session cookie (not Secure over http)", async () => {
      const answer = await call(url("/api/session"), { body: { email: me.email.toUpperCase(), password: me.password } })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({
        operator: { id: me.id, email: me.email },
        organization: { id: org.organizationId, name: "Nordhavn" }
      })
      expect(answer.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const cookie = answer.headers.get("set-cookie") ?? ""
      expect(cookie).toMatch(/^propline_admin_session=[A-Za-z0-9_-]{43};/)
      expect(cookie).toContain("HttpOnly")
      expect(cookie).toContain("SameSite=Lax")
      expect(cookie).toContain("Path=/")
      expect(cookie).not.toContain("Secure")
      expect(answer.headers.get("cache-control")).toBe("no-store")
    })

    it("answers a wrong password and an unknown address alike: 401, the same body", async () => {
      const wrong = await call(url("/api/session"), { body: { email: me.email, password: "not it" } })
      const unknown = await call(url("/api/session"), { body: { email: "nobody@example.com", password: "not it" } })
      expect(wrong.status).toBe(401)
      expect(unknown.status).toBe(401)
      expect(wrong.body).toEqual(unknown.body)
      expect(wrong.headers.get("set-cookie")).toBeNull()
    })

    it("refuses a disabled operator like a wrong password", async () => {
      const disabled = await app.run(operator(org.organizationId, { status: "disabled" }))
      const answer = await call(url("/api/session"), { body: { email: disabled.email, password: disabled.password } })
      expect(answer.status).toBe(401)
    })

    it(`throttles an address at a client after ${FREE_FAILURES + 1} failures: 429 with Retry-After, even with the right password`, async () => {
      const victim = await app.run(operator(org.organizationId))
      for (let attempt = 0; attempt <= FREE_FAILURES; attempt++) {
        expect((await call(url("/api/session"), { body: { email: victim.email, password: "guess" } })).status).toBe(401)
      }
      const throttled = await call(url("/api/session"), { body: { email: victim.email, password: victim.password } })
      expect(throttled.status).toBe(429)
      expect(throttled.headers.get("content-type")).toContain("application/problem+json")
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(Number(throttled.headers.get("retry-after"))).toBeLessThanOrEqual(FIRST_DELAY_SECONDS)
      expect(throttled.body).toMatchObject({ status: 429, title: "Too Many Requests" })
      expect(throttled.body.detail).toMatch(/^Too many failed sign-ins .* Try again in \d+ seconds?\.$/)
      // Another address is not affected.
      expect((await call(url("/api/session"), { body: { email: me.email, password: me.password } })).status).toBe(201)
    })

    it("ignores X-Forwarded-For when no proxy is trusted: a guesser can't leave its socket's address by naming another", async () => {
      const victim = await app.run(operator(org.organizationId))
      for (let attempt = 0; attempt <= FREE_FAILURES; attempt++) {
        const answer = await call(url("/api/session"), {
          body: { email: victim.email, password: "guess" },
          headers: { "x-forwarded-for": `198.51.100.${attempt + 1}` }
        })
        expect(answer.status).toBe(401)
      }
      const renamed = await call(url("/api/session"), {
        body: { email: victim.email, password: victim.password },
        headers: { "x-forwarded-for": "203.0.113.77" }
      })
      expect(renamed.status).toBe(429)
      const entries = await app.run(
        Db.query((db) =>
          db.selectFrom("auditLog").select(["actorId", "details"]).where("action", "=", "operator.sign_in_failed").where("targetId", "=", victim.id).execute()
        ).pipe(Effect.orDie)
      )
      expect(entries).toHaveLength(FREE_FAILURES + 1)
      for (const entry of entries) expect(["127.0.0.1", "::1"]).toContain(entry.actorId)
    })

    it("answers 400 VALIDATION_FAILED with an issue for every failing field", async () => {
      const answer = await call(url("/api/session"), { body: { email: "", password: "" } })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/email", "/password"])
    })

    it("refuses a body that is not JSON, and a foreign Origin", async () => {
      const form = await call(url("/api/session"), {
        body: `email=${encodeURIComponent(me.email)}&password=x`,
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(form.status).toBe(400)
      expect(form.body.code).toBe("VALIDATION_FAILED")
      const foreign = await call(url("/api/session"), {
        body: { email: me.email, password: me.password },
        headers: { origin: "https://evil.example" }
      })
      expect(foreign.status).toBe(403)
    })
  })

  describe("no session → 401 on every operation", () => {
    const operations: ReadonlyArray<{ readonly method: string; readonly path: string; readonly body?: unknown }> = [
      { method: "GET", path: "/api/session" },
      { method: "DELETE", path: "/api/session" },
      { method: "GET", path: "/api/organization" },
      { method: "GET", path: "/api/customers" },
      { method: "GET", path: `/api/customers/${OTHER_UUID}` },
      { method: "GET", path: "/api/contracts" },
      { method: "GET", path: `/api/contracts/${OTHER_UUID}` },
      { method: "GET", path: "/api/applications" },
      { method: "GET", path: `/api/applications/${OTHER_UUID}` },
      { method: "POST", path: "/api/applications", body: { name: "x" } },
      { method: "POST", path: `/api/applications/${OTHER_UUID}/secrets` },
      { method: "POST", path: `/api/applications/${OTHER_UUID}/secrets/${OTHER_UUID}/revoke` },
      { method: "POST", path: `/api/applications/${OTHER_UUID}/disable` },
      { method: "POST", path: `/api/applications/${OTHER_UUID}/enable` },
      { method: "PUT", path: `/api/applications/${OTHER_UUID}/grant`, body: { roles: [] } },
      { method: "GET", path: "/api/audit-log" },
      { method: "GET", path: "/api/connector-apps" },
      { method: "GET", path: "/api/connector-apps/some-app" },
      { method: "POST", path: "/api/connector-apps", body: {} },
      { method: "POST", path: "/api/connector-apps/some-app/keys", body: {} },
      { method: "POST", path: "/api/connector-apps/some-app/keys/k1/retire" },
      { method: "POST", path: "/api/connector-apps/some-app/installation", body: {} },
      { method: "POST", path: `/api/installations/${OTHER_UUID}/suspend` },
      { method: "POST", path: `/api/installations/${OTHER_UUID}/resume` },
      { method: "POST", path: `/api/installations/${OTHER_UUID}/remove` },
      { method: "PUT", path: `/api/installations/${OTHER_UUID}/grant`, body: {} },
      { method: "POST", path: "/api/billing/invoice-runs", body: {} },
      { method: "POST", path: `/api/billing/invoice-runs/${OTHER_UUID}/approve` },
      { method: "POST", path: `/api/billing/invoice-runs/${OTHER_UUID}/continue`, body: {} },
      { method: "POST", path: `/api/billing/invoices/${OTHER_UUID}/approve` },
      { method: "DELETE", path: `/api/billing/invoices/${OTHER_UUID}` },
      { method: "POST", path: `/api/billing/invoices/${OTHER_UUID}/credit`, body: {} },
      { method: "POST", path: `/api/billing/invoice-proposals/${OTHER_UUID}/cancel` },
      { method: "GET", path: "/api/billing/withdrawal-queue" },
      { method: "GET", path: "/api/booking/resources" },
      { method: "GET", path: `/api/booking/resources/${OTHER_UUID}` },
      { method: "GET", path: "/api/booking/add-on-products" },
      { method: "GET", path: `/api/booking/resources/${OTHER_UUID}/setup` },
      { method: "POST", path: "/api/booking/resources", body: {} },
      { method: "PUT", path: `/api/booking/resources/${OTHER_UUID}`, body: {} },
      { method: "PUT", path: `/api/booking/resources/${OTHER_UUID}/add-on-products`, body: { addOnProductIds: [] } },
      { method: "POST", path: `/api/booking/resources/${OTHER_UUID}/sellers`, body: {} },
      { method: "GET", path: `/api/booking/add-on-products/${OTHER_UUID}/setup` },
      { method: "POST", path: "/api/booking/add-on-products", body: {} },
      { method: "PUT", path: `/api/booking/add-on-products/${OTHER_UUID}`, body: {} },
      { method: "GET", path: "/api/booking/requests" },
      { method: "POST", path: `/api/booking/requests/${OTHER_UUID}/approve` },
      { method: "POST", path: `/api/booking/requests/${OTHER_UUID}/decline`, body: {} },
      { method: "POST", path: `/api/booking/requests/${OTHER_UUID}/cancel`, body: {} },
      { method: "GET", path: `/api/contracts/${OTHER_UUID}/signing-attempts` },
      { method: "POST", path: `/api/contracts/${OTHER_UUID}/signing-attempts`, body: {} },
      { method: "GET", path: `/api/signing-attempts/${OTHER_UUID}` },
      { method: "POST", path: `/api/signing-attempts/${OTHER_UUID}/request-withdrawal` },
      { method: "GET", path: `/api/signing-attempts/${OTHER_UUID}/contract-pdf` },
      { method: "GET", path: `/api/signing-attempts/${OTHER_UUID}/signed-pdf` },
      { method: "GET", path: "/api/billing/overview" },
      { method: "GET", path: "/api/billing/invoice-runs" },
      { method: "GET", path: "/api/billing/invoices" },
      { method: "GET", path: `/api/billing/invoices/${OTHER_UUID}` },
      { method: "GET", path: "/api/billing/invoice-proposals" },
      { method: "GET", path: "/api/billing/send-queue" }
    ]
    it.each(operations)("$method $path", async ({ method, path, body }) => {
      const without = await adminCall(url(path), undefined, { method, ...(body === undefined ? {} : { body }) })
      expect(without.status).toBe(401)
      expect(without.headers.get("content-type")).toContain("application/problem+json")
      const forged = await adminCall(url(path), { cookie: "propline_admin_session=forged", csrfToken: "x" }, { method })
      expect(forged.status).toBe(401)
    })

    it("answers 401 before reading the input", async () => {
      const answer = await adminCall(url("/api/applications/not-a-uuid/secrets"), undefined, { method: "POST", body: "{" })
      expect(answer.status).toBe(401)
    })
  })

  describe("CSRF: every change needs the session's token", () => {
    it("refuses a change without the token, or with another session's, with 403 and changes nothing", async () => {
      const before = await app.run(auditCount(org.organizationId))
      const body = { name: "No token", roles: ["billing"], contextIds: [org.rootId] }
      const missing = await createApplication(body, session, false)
      expect(missing.status).toBe(403)
      const second = await signIn(app.adminUrl, me)
      const foreignToken = await adminCall(url("/api/applications"), session, { body, csrf: second.csrfToken })
      expect(foreignToken.status).toBe(403)
      const revoke = await adminCall(url(`/api/applications/${OTHER_UUID}/secrets/${OTHER_UUID}/revoke`), session, {
        method: "POST",
        csrf: false
      })
      expect(revoke.status).toBe(403)
      // sign-in wrote one entry; the refused changes none
      expect(await app.run(auditCount(org.organizationId))).toBe(before + 1)
      const list = await adminCall(url("/api/applications?q=No%20token"), session)
      expect(list.body.items).toEqual([])
    })

    it("checks CSRF before the input (403 before 400) and refuses a change from a foreign Origin", async () => {
      expect((await adminCall(url("/api/applications"), session, { body: { bad: true }, csrf: false })).status).toBe(403)
      const foreign = await adminCall(url("/api/applications"), session, {
        body: { name: "Foreign", roles: ["billing"], contextIds: [org.rootId] },
        headers: { origin: "https://evil.example" }
      })
      expect(foreign.status).toBe(403)
    })

    it("lets reads through without the token", async () => {
      expect((await adminCall(url("/api/organization"), session, { csrf: false })).status).toBe(200)
    })
  })

  describe("another organization's ids → 404", () => {
    it.each([
      ["customer", () => `/api/customers/${other.customerId}`],
      ["contract", () => `/api/contracts/${other.contractId}`],
      ["Application", () => `/api/applications/${otherApplicationId}`],
      ["invoice", () => `/api/billing/invoices/${otherInvoiceId}`]
    ])("GET the %s", async (_, path) => {
      const answer = await adminCall(url(path()), session)
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ status: 404, title: "Not Found" })
    })

    it("never lists another organization's records", async () => {
      const [customers, contracts, applications, invoices] = await Promise.all(
        ["/api/customers", "/api/contracts", "/api/applications", "/api/billing/invoices"].map((path) => adminCall(url(path), session))
      )
      expect(customers!.body.items.map((c: { id: string }) => c.id)).toEqual([org.customerId])
      expect(contracts!.body.items.map((c: { id: string }) => c.id)).toEqual([org.contractId])
      expect(applications!.body.items.map((a: { id: string }) => a.id)).not.toContain(otherApplicationId)
      expect(invoices!.body.items.map((i: { id: string }) => i.id)).not.toContain(otherInvoiceId)
    })

    it("refuses unknown members, naming each, and creates nothing (issue 19)", async () => {
      const answer = await createApplication({ name: "Typo", roles: ["billing"], contextIds: [org.rootId], context_ids: [org.rootId], rolez: [] })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["/context_ids", "/rolez"])
      expect(answer.body.issues[0].message).toMatch(/^is not a member of this request; its members are: /)
      const listed = await adminCall(url("/api/applications?q=Typo"), session)
      expect(listed.body.items).toEqual([])
    })
  })

  describe("every change writes the audit log", () => {
    it("ends the session at sign-out: its cookie is 401 afterwards, and the cookie is cleared", async () => {
      const own = await signIn(app.adminUrl, me)
      const missingToken = await adminCall(url("/api/session"), own, { method: "DELETE", csrf: false })
      expect(missingToken.status).toBe(403)
      expect((await adminCall(url("/api/session"), own)).status).toBe(200)
      const out = await adminCall(url("/api/session"), own, { method: "DELETE" })
      expect(out.status).toBe(204)
      expect(out.headers.get("set-cookie")).toMatch(/propline_admin_session=; Max-Age=0/)
      expect((await adminCall(url("/api/session"), own)).status).toBe(401)
    })
  })

  describe("lists", () => {
    it("pages with limit and nextCursor, newest first, and refuses a foreign cursor", async () => {
      const first = await adminCall(url("/api/audit-log?limit=2"), session)
      expect(first.body.items).toHaveLength(2)
      expect(new Date(first.body.items[0].occurredAt) >= new Date(first.body.items[1].occurredAt)).toBe(true)
      const next = await adminCall(url(`/api/audit-log?limit=2&cursor=${first.body.nextCursor}`), session)
      expect(next.status).toBe(200)
      const ids = new Set([...first.body.items, ...next.body.items].map((entry: { id: string }) => entry.id))
      expect(ids.size).toBe(first.body.items.length + next.body.items.length)
      const foreign = await adminCall(url(`/api/customers?cursor=${first.body.nextCursor}`), session)
      expect(foreign.status).toBe(400)
      expect(foreign.body.issues).toEqual([{ path: "/cursor", message: "is not a cursor of this list" }])
      expect((await adminCall(url("/api/customers?limit=0"), session)).body.issues[0].path).toBe("/limit")
    })

    it("filters: text, choices and dates", async () => {
      expect((await adminCall(url("/api/customers?q=ljusg%C3%A5rden"), session)).body.items).toHaveLength(1)
      expect((await adminCall(url("/api/customers?q=100%25"), session)).body.items).toHaveLength(0)
      expect((await adminCall(url("/api/customers?kind=private"), session)).body.items).toHaveLength(0)
      expect((await adminCall(url("/api/billing/send-queue"), session)).body.items.length).toBeGreaterThan(0)
      expect((await adminCall(url("/api/billing/invoice-proposals?status=proposed"), session)).body.items.length).toBeGreaterThan(0)
      const DATE_BOUND =
        "must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a UTC offset that exists in the calendar, from " +
        "1900-01-01 to 2999-12-31"
      // Impossible dates and date-times, and a date-time without an offset (issue 19): never read as another day.
      for (const from of ["2026-13-40", "2026-02-30", "2026-11-31T09:00:00Z", "2026-11-20T09:00", "0000-01-01"]) {
        const badDate = await adminCall(url(`/api/audit-log?from=${encodeURIComponent(from)}`), session)
        expect([badDate.status, from]).toEqual([400, from])
        expect(badDate.body.issues).toEqual([{ path: "/from", message: DATE_BOUND }])
      }
      const badDay = await adminCall(url("/api/booking/requests?from=2027-02-29"), session)
      expect(badDay.body.issues).toEqual([
        { path: "/from", message: "must be a date (YYYY-MM-DD) that exists in the calendar, from 1900-01-01 to 2999-12-31" }
      ])
      const future = await adminCall(url("/api/audit-log?from=2999-01-01"), session)
      expect(future.body.items).toEqual([])
    })
  })

  describe("the front end", () => {
    it("serves index.html for the console's routes with a strict CSP, and 404s for unknown assets and API paths", async () => {
      const page = await fetch(url("/applications/new"))
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toContain("text/html")
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'")
      expect(page.headers.get("x-frame-options")).toBe("DENY")
      expect(await page.text()).toContain('<div id="root">')
      expect((await fetch(url("/assets/nothing.js"))).status).toBe(404)
      const api = await adminCall(url("/api/nothing"), session)
      expect(api.status).toBe(404)
      expect(api.headers.get("content-type")).toContain("application/problem+json")
    })
  })
})
