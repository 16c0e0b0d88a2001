/**
 * The console's billing actions over the admin API, black box, on PGlite and PostgreSQL (issue 11): an operator
 * creates an invoice run for a period, approves it and its invoices reach the API's send queue; credits an invoice
 * by lines (idempotent by creditActId, 409 on a mismatch), deletes one onto the withdrawal queue, cancels a proposal
 * — each refusal with its spec code, another organization's ids answered 404 changing nothing, every change audited
 * with the operator and the request id.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, auditCount, type OperatorFixture, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const DECEMBER = { periodStart: "2026-12-01", periodEnd: "2026-12-31", invoiceDate: "2026-12-01" }

describe.each(TestDatabase.kinds())("the console's billing actions on %s", (kind) => {
  let app: TestApp
  let plain: Fixtures.OrganizationFixture
  let gated: Fixtures.OrganizationFixture
  let me: OperatorFixture
  let session: Session
  let gatedSession: Session
  let apiToken: string

  const url = (path: string) => `${app.adminUrl}${path}`
  const post = (path: string, body?: unknown, as: Session = session) => adminCall(url(path), as, { method: "POST", ...(body === undefined ? {} : { body }) })
  const get = (path: string, as: Session = session) => adminCall(url(path), as)

  const addLines = (contractId: string, lines: ReadonlyArray<readonly [string, number]>) =>
    app.run(
      Db.query((db) =>
        db
          .insertInto("contractLines")
          .values(
            lines.map(([description, monthlyNetMinorUnits]) => ({
              id: randomUUID(),
              contractId,
              description,
              monthlyNetMinorUnits,
              vatRateBasisPoints: 2500,
              createdAt: Fixtures.NOW
            }))
          )
          .execute()
      ).pipe(Effect.orDie)
    )

  beforeAll(async () => {
    app = await start(kind)
    plain = await app.run(Fixtures.organization({ name: "Nordhavn", integration: { gates: [] } }))
    gated = await app.run(Fixtures.organization({ name: "Fjord", integration: { gates: ["verification"] } }))
    await addLines(plain.contractId, [["Office 4.12", 1_200_000], ["Parking", 150_000]])
    await addLines(gated.contractId, [["Desk", 400_000]])
    me = await app.run(operator(plain.organizationId))
    session = await signIn(app.adminUrl, me)
    gatedSession = await signIn(app.adminUrl, await app.run(operator(gated.organizationId)))
    const erp = await app.run(Fixtures.application(plain))
    apiToken = await token(app.authUrl, erp.clientId, erp.secret)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("invoice runs", () => {
    let runId: string

    it("creates a run for a period: its invoices are drafted `created`, audited with the operator", async () => {
      const before = await app.run(auditCount(plain.organizationId, "billing.invoice_run.create"))
      const created = await post("/api/billing/invoice-runs", { operationalContextId: plain.rootId, ...DECEMBER })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ run: { status: "draft", ...{ periodStart: DECEMBER.periodStart } }, invoiceCount: 1, proposalCount: 0 })
      runId = created.body.run.id
      const invoices = await get(`/api/billing/invoices?invoiceRunId=${runId}`)
      expect(invoices.body.items).toEqual([expect.objectContaining({ status: "created", totalNetMinorUnits: 1_350_000 })])
      expect(await app.run(auditCount(plain.organizationId, "billing.invoice_run.create"))).toBe(before + 1)
      const log = await get(`/api/audit-log?targetId=${runId}`)
      expect(log.body.items[0]).toMatchObject({ actorType: "operator", actorId: me.id, requestId: created.headers.get("x-request-id") })
    })

    it("refuses a period that is not whole months, and malformed dates, with the fields' issues", async () => {
      const partial = await post("/api/billing/invoice-runs", {
        operationalContextId: plain.rootId,
        periodStart: "2027-01-05",
        periodEnd: "2027-01-31",
        invoiceDate: "2027-01-05"
      })
      expect(partial.status).toBe(400)
      const malformed = await post("/api/billing/invoice-runs", { operationalContextId: plain.rootId, periodStart: "2027-13-01", periodEnd: "x", invoiceDate: "" })
      expect(malformed.status).toBe(400)
      expect(malformed.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["/invoiceDate", "/periodEnd", "/periodStart"])
      // Impossible dates (issue 19): each field once, with the calendar's sentence.
      const impossible = await post("/api/billing/invoice-runs", { operationalContextId: plain.rootId, periodStart: "2026-02-29", periodEnd: "2026-04-31", invoiceDate: "2026-11-31" })
      expect(impossible.body.issues).toEqual(
        ["/periodStart", "/periodEnd", "/invoiceDate"].map((path) => ({
          path,
          message: "must be a date (YYYY-MM-DD) that exists in the calendar, from 1900-01-01 to 2999-12-31"
        }))
      )
    })

    it("approves the run: its invoices enter the API's send queue", async () => {
      const approved = await post(`/api/billing/invoice-runs/${runId}/approve`)
      expect(approved.status).toBe(200)
      expect(approved.body).toMatchObject({ run: { id: runId, status: "approved" }, invoiceCount: 1 })
      const invoice = (await get(`/api/billing/invoices?invoiceRunId=${runId}`)).body.items[0]
      expect(invoice.status).toBe("approved")
      const queue = await call(`${app.apiUrl}/v1/billing/send-queue?limit=100`, { token: apiToken })
      expect(queue.status).toBe(200)
      expect(queue.body.items.map((item: { id: string }) => item.id)).toContain(invoice.id)
    })

    it("refuses to continue an approved run: BILLING_INVOICE_RUN_NOT_CONTINUABLE", async () => {
      const answer = await post(`/api/billing/invoice-runs/${runId}/continue`, { invoiceDate: "2026-12-02" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_INVOICE_RUN_NOT_CONTINUABLE")
    })
  })

  describe("invoices", () => {
    const approvedInvoice = async () => {
      const id = await app.run(Fixtures.approvedInvoice(plain))
      return id
    }

    it("shows what the ERP reported: the invoice sent, its payments and its balance", async () => {
      const runs = await get("/api/billing/invoices?status=approved&documentKind=invoice")
      const invoice = runs.body.items.find((item: { totalNetMinorUnits: number }) => item.totalNetMinorUnits === 1_350_000)
      const sent = await call(`${app.apiUrl}/v1/billing/invoices/${invoice.id}/report-sent`, {
        token: apiToken,
        body: {
          issuedInvoiceNumber: "F-1001",
          issuedInvoiceDate: "2026-12-01",
          dueDate: "2026-12-31",
          issuedTotalGrossMinorUnits: invoice.totalGrossMinorUnits
        }
      })
      expect(sent.status).toBe(201)
      const paid = await call(`${app.apiUrl}/v1/billing/invoices/${invoice.id}/report-payment`, {
        token: apiToken,
        body: { paymentId: "BG-1", amountMinorUnits: 100_000, paidOn: "2026-12-10" }
      })
      expect([200, 201]).toContain(paid.status)
      const detail = await get(`/api/billing/invoices/${invoice.id}`)
      expect(detail.body.invoice).toMatchObject({
        status: "sent",
        issuedInvoiceNumber: "F-1001",
        balanceMinorUnits: invoice.totalGrossMinorUnits - 100_000
      })
      expect(detail.body.payments).toEqual([
        { paymentId: "BG-1", amountMinorUnits: 100_000, paidOn: "2026-12-10", reversedOn: null, reversalReason: null }
      ])
    })

    it("credits an invoice by lines, once per creditActId; other content under the same id is 409", async () => {
      const runs = await get("/api/billing/invoices?status=sent&documentKind=invoice")
      const invoice = runs.body.items.find((item: { totalNetMinorUnits: number }) => item.totalNetMinorUnits === 1_350_000)
      const detail = await get(`/api/billing/invoices/${invoice.id}`)
      const parking = detail.body.lines.find((line: { description: string }) => line.description === "Parking")
      const act = {
        creditActId: randomUUID(),
        reason: "Parking was not available in December",
        invoiceDate: "2026-12-05",
        scope: { kind: "lines", lines: [{ lineId: parking.id, netMinorUnits: 150_000 }], manualLines: [] }
      }
      const credited = await post(`/api/billing/invoices/${invoice.id}/credit`, act)
      expect(credited.status).toBe(201)
      expect(credited.body).toMatchObject({ documentKind: "credit-note", status: "approved", totalNetMinorUnits: -150_000 })
      const again = await post(`/api/billing/invoices/${invoice.id}/credit`, act)
      expect(again.status).toBe(201)
      expect(again.body.id).toBe(credited.body.id)
      const mismatch = await post(`/api/billing/invoices/${invoice.id}/credit`, { ...act, reason: "Another reason" })
      expect(mismatch.status).toBe(409)
      expect(mismatch.body.code).toBe("BILLING_CREDIT_ACT_REPLAY_MISMATCH")
      const beyond = await post(`/api/billing/invoices/${invoice.id}/credit`, { ...act, creditActId: randomUUID() })
      expect(beyond.status).toBe(400)
      expect(beyond.body.code).toBe("BILLING_CREDIT_EXCEEDS_LINE")
      // Issue 25: the console shows it beside the line's amount, so the problem names the line's place in the body.
      expect(beyond.body.issues).toEqual([{ path: "/scope/lines/0/netMinorUnits", message: "is more than what is left on the line" }])
      const after = await get(`/api/billing/invoices/${invoice.id}`)
      expect(after.body.creditNotes.map((note: { id: string }) => note.id)).toEqual([credited.body.id])
      expect(after.body.lines.find((line: { id: string }) => line.id === parking.id).creditedNetMinorUnits).toBe(-150_000)
    })

    it("deletes an approved invoice onto the withdrawal queue; it is 404 afterwards, and approving it is too", async () => {
      const id = await approvedInvoice()
      const deleted = await adminCall(url(`/api/billing/invoices/${id}`), session, { method: "DELETE" })
      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ invoiceId: id, withdrawn: true })
      expect((await get(`/api/billing/invoices/${id}`)).status).toBe(404)
      const queue = await get("/api/billing/withdrawal-queue")
      expect(queue.body.items.map((item: { invoiceId: string }) => item.invoiceId)).toContain(id)
      expect((await post(`/api/billing/invoices/${id}/approve`)).status).toBe(404)
    })

    it("refuses to approve an invoice that is not `created`: BILLING_INVOICE_STATUS_INVALID", async () => {
      const id = await approvedInvoice()
      const answer = await post(`/api/billing/invoices/${id}/approve`)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    })
  })

  describe("proposals", () => {
    it("cancels a proposal once; a second cancel is BILLING_PROPOSAL_STATUS_INVALID", async () => {
      const proposalId = await app.run(Fixtures.proposal(gated))
      const cancelled = await post(`/api/billing/invoice-proposals/${proposalId}/cancel`, undefined, gatedSession)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body).toMatchObject({ id: proposalId, status: "cancelled" })
      const again = await post(`/api/billing/invoice-proposals/${proposalId}/cancel`, undefined, gatedSession)
      expect(again.status).toBe(400)
      expect(again.body.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
    })

    it("a run under the verification gate drafts proposals, not invoices", async () => {
      const created = await post("/api/billing/invoice-runs", { operationalContextId: gated.rootId, ...DECEMBER }, gatedSession)
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ invoiceCount: 0, proposalCount: 1 })
    })
  })

  describe("another organization's ids → 404, changing nothing", () => {
    it.each([
      ["approve a run", () => post(`/api/billing/invoice-runs/${gated.invoiceRunId}/approve`)],
      ["continue a run", () => post(`/api/billing/invoice-runs/${gated.invoiceRunId}/continue`, { invoiceDate: "2026-12-02" })],
      ["create a run in its context", () => post("/api/billing/invoice-runs", { operationalContextId: gated.rootId, ...DECEMBER })],
      ["cancel its proposal", async () => post(`/api/billing/invoice-proposals/${await app.run(Fixtures.proposal(gated))}/cancel`)],
      ["approve its invoice", async () => post(`/api/billing/invoices/${await app.run(Fixtures.approvedInvoice(gated))}/approve`)],
      [
        "delete its invoice",
        async () => adminCall(url(`/api/billing/invoices/${await app.run(Fixtures.approvedInvoice(gated))}`), session, { method: "DELETE" })
      ],
      [
        "credit its invoice",
        async () =>
          post(`/api/billing/invoices/${await app.run(Fixtures.approvedInvoice(gated))}/credit`, {
            creditActId: randomUUID(),
            reason: "x",
            invoiceDate: "2026-12-01",
            scope: { kind: "full" }
          })
      ]
    ])("%s", async (_, attempt) => {
      const before = await app.run(auditCount(gated.organizationId))
      const answer = await attempt()
      expect(answer.status).toBe(404)
      expect(await app.run(auditCount(gated.organizationId))).toBe(before)
    })
  })
})
