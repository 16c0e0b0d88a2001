/**
 * The ERP connector's whole life over HTTP, black box, on PGlite and on PostgreSQL (decisions 4 and 5): report-sent,
 * payments and reversals by invoice id and by external reference, write-offs, the withdrawal queue and
 * report-discarded — every code each can answer, malformed money reports, idempotent replays, and concurrent
 * reports that can't double-apply.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingOperatorService } from "../../src/billing/BillingOperatorService.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, type TestApp } from "../support/TestApp.js"
import { startTwoOrganizations } from "../support/TwoOrganizations.js"

const OPERATOR = { type: "operator", id: "test-operator" } as const

const sentBody = {
  issuedInvoiceNumber: "F-2026-0001",
  issuedInvoiceDate: "2026-11-20",
  dueDate: "2026-12-20",
  issuedTotalGrossMinorUnits: 1_250_000,
  paymentReference: "79927398713",
  paymentReferenceType: "ocr",
  documentUrl: "https://erp.example/invoices/F-2026-0001.pdf"
}

describe.each(TestDatabase.kinds())("billing settlement over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let billingToken: string
  let otherToken: string
  let references = 0

  const url = (path: string) => `${app.apiUrl}${path}`
  const post = (path: string, body: unknown, tokenValue = billingToken, headers?: Record<string, string>) =>
    call(url(path), { token: tokenValue, body, ...(headers === undefined ? {} : { headers }) })
  const reportSent = (invoiceId: string, body: unknown = sentBody) => post(`/v1/billing/invoices/${invoiceId}/report-sent`, body)
  const pay = (invoiceId: string, body: unknown, tokenValue = billingToken, headers?: Record<string, string>) =>
    post(`/v1/billing/invoices/${invoiceId}/report-payment`, body, tokenValue, headers)
  const payByReference = (externalReference: string, body: unknown) =>
    post(`/v1/billing/invoices/by-external-reference/${encodeURIComponent(externalReference)}/report-payment`, body)
  const reverse = (invoiceId: string, body: unknown) => post(`/v1/billing/invoices/${invoiceId}/report-payment-reversed`, body)
  const reverseByReference = (externalReference: string, body: unknown) =>
    post(`/v1/billing/invoices/by-external-reference/${encodeURIComponent(externalReference)}/report-payment-reversed`, body)
  const writeOff = (invoiceId: string, body: unknown) => post(`/v1/billing/invoices/${invoiceId}/report-write-off`, body)
  const operator = <A, E>(use: (service: BillingOperatorService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(Effect.flatMap(BillingOperatorService, use).pipe(Effect.provide(BillingOperatorService.Default)))
  const rows = (table: "payments" | "paymentReversals" | "writeOffs", invoiceId: string) =>
    app
      .run(
        Db.query((db) =>
          db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).where("invoiceId", "=", invoiceId).executeTakeFirstOrThrow()
        )
      )
      .then((row) => Number(row.n))

  /** An approved invoice with an externalReference, reported sent; its id and reference. */
  const sentInvoice = async (body: Record<string, unknown> = {}) => {
    const externalReference = `ERP-${kind}-${++references}`
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference }))
    const answer = await reportSent(invoiceId, { ...sentBody, ...body })
    expect(answer.status).toBe(201)
    return { invoiceId, externalReference }
  }
  const payment = (paymentId: string, amountMinorUnits: number, paidOn = "2026-11-21") => ({ paymentId, amountMinorUnits, paidOn })

  beforeAll(async () => {
    ;({ app, org, billingToken, otherToken } = await startTwoOrganizations(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("POST /v1/billing/invoices/{invoiceId}/report-sent", () => {
    it("answers 201 with the sent invoice and every field the report sets", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await reportSent(invoiceId, { ...sentBody, externalReference: `ERP-SENT-${kind}` })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({
        id: invoiceId,
        status: "sent",
        externalReference: `ERP-SENT-${kind}`,
        issuedInvoiceNumber: "F-2026-0001",
        issuedInvoiceDate: "2026-11-20",
        dueDate: "2026-12-20",
        issuedTotalGrossMinorUnits: 1_250_000,
        paymentReference: "79927398713",
        paymentReferenceType: "ocr",
        documentUrl: sentBody.documentUrl,
        balanceMinorUnits: 1_250_000,
        overdue: false
      })
      expect(typeof answer.body.sentAt).toBe("string")
      const queue = await call(url("/v1/billing/send-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((item: { id: string }) => item.id)).not.toContain(invoiceId)
    })

    it("shows overdue once the due date has passed, computed when read", async () => {
      const { invoiceId } = await sentInvoice({ issuedInvoiceDate: "2026-01-01", dueDate: "2026-01-31" })
      const answer = await pay(invoiceId, payment("part", 1))
      expect(answer.body).toMatchObject({ status: "sent", overdue: true })
    })

    it("accepts a KID with a MOD11 check digit and a free reference", async () => {
      for (const [paymentReferenceType, paymentReference] of [["kid", "137391"], ["kid", "23-"], ["reference", "Faktura 1"]]) {
        const invoiceId = await app.run(Fixtures.approvedInvoice(org))
        const answer = await reportSent(invoiceId, { ...sentBody, paymentReferenceType, paymentReference })
        expect(answer.status).toBe(201)
        expect(answer.body.paymentReference).toBe(paymentReference)
      }
    })

    it.each([
      ["an OCR number with a wrong check digit", { paymentReference: "79927398710" }, "/paymentReference"],
      ["a KID wrong by MOD10 and MOD11", { paymentReferenceType: "kid", paymentReference: "602244" }, "/paymentReference"],
      ["an OCR number with letters", { paymentReference: "7992A" }, "/paymentReference"],
      ["a reference without its type", { paymentReferenceType: undefined }, "/paymentReferenceType"],
      ["a type without a reference", { paymentReference: undefined }, "/paymentReference"],
      ["an http documentUrl", { documentUrl: "http://erp.example/F-1.pdf" }, "/documentUrl"],
      ["a documentUrl that is no address", { documentUrl: "not a url" }, "/documentUrl"],
      ["an impossible issued date", { issuedInvoiceDate: "2026-02-30" }, "/issuedInvoiceDate"],
      ["a total beyond 2^53 − 1", { issuedTotalGrossMinorUnits: 9007199254740992 }, "/issuedTotalGrossMinorUnits"],
      ["a fractional total", { issuedTotalGrossMinorUnits: 10.5 }, "/issuedTotalGrossMinorUnits"],
      ["no issued number", { issuedInvoiceNumber: undefined }, "/issuedInvoiceNumber"],
      ["no dueDate on an invoice", { dueDate: undefined }, "/dueDate"],
      ["a dueDate before the issued date", { dueDate: "2026-11-19" }, "/dueDate"],
      ["a zero issued total", { issuedTotalGrossMinorUnits: 0 }, "/issuedTotalGrossMinorUnits"],
      ["a negative total on an invoice", { issuedTotalGrossMinorUnits: -5 }, "/issuedTotalGrossMinorUnits"]
    ])("answers 400 VALIDATION_FAILED for %s, with an issue at %s, and changes nothing", async (_, change, path) => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const body: Record<string, unknown> = { ...sentBody, ...change }
      for (const key of Object.keys(change)) if ((change as Record<string, unknown>)[key] === undefined) delete body[key]
      const answer = await reportSent(invoiceId, body)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain(path)
      const queue = await call(url("/v1/billing/send-queue?limit=100"), { token: billingToken })
      expect(queue.body.items.map((item: { id: string }) => item.id)).toContain(invoiceId)
    })

    it("answers 400 BILLING_INVOICE_STATUS_INVALID to a repeated report", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await reportSent(invoiceId)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    })

    it("answers 409 BILLING_EXTERNAL_REFERENCE_ALREADY_USED for another invoice's reference", async () => {
      const { externalReference } = await sentInvoice()
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await reportSent(invoiceId, { ...sentBody, externalReference })
      expect(answer.status).toBe(409)
      expect(answer.body.code).toBe("BILLING_EXTERNAL_REFERENCE_ALREADY_USED")
    })

    it("answers 404 for another organization's token", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await post(`/v1/billing/invoices/${invoiceId}/report-sent`, sentBody, otherToken)
      expect(answer.status).toBe(404)
    })
  })

  describe("POST .../report-payment (by invoice id and by external reference)", () => {
    it("records a part payment: 200, the balance drops, the invoice stays sent", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await pay(invoiceId, payment("BANK-1", 250_000))
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ status: "sent", balanceMinorUnits: 1_000_000 })
      expect(answer.body.paidAt).toBeUndefined()
    })

    it("settles the invoice as paid by external reference, with paidAt", async () => {
      const { externalReference, invoiceId } = await sentInvoice()
      const answer = await payByReference(externalReference, { ...payment("BANK-1", 1_250_000), currency: "SEK" })
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: invoiceId, status: "paid", balanceMinorUnits: 0 })
      expect(typeof answer.body.paidAt).toBe("string")
    })

    it("finds the invoice by an external reference holding reserved characters, percent-encoded in the path", async () => {
      const externalReference = `ERP/${kind} ü?#%`
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      expect((await reportSent(invoiceId, { ...sentBody, externalReference })).status).toBe(201)
      const answer = await payByReference(externalReference, payment("BANK-1", 100))
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: invoiceId, externalReference, balanceMinorUnits: 1_249_900 })
    })

    it("accepts an overpayment on a paid invoice: the balance goes below zero", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_250_000))
      const answer = await pay(invoiceId, payment("BANK-2", 100))
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ status: "paid", balanceMinorUnits: -100 })
    })

    it("writes a settling payment's two events and its audit entry, row for row, with the caller's request id", async () => {
      const { invoiceId } = await sentInvoice()
      const body = { ...payment("BANK-ROWS", 1_250_000), currency: "SEK" }
      const answer = await pay(invoiceId, body, billingToken, { "x-request-id": "req-payment-rows" })
      expect(answer.status).toBe(200)
      expect(answer.body.status).toBe("paid")
      const at = new Date(answer.body.paidAt)
      const fields = { invoiceId, organizationId: org.organizationId, operationalContextId: answer.body.operationalContextId, at: at.toISOString() }
      const events = await app.run(
        Db.query((db) =>
          db
            .selectFrom("events")
            // The payload as text: the CamelCasePlugin would re-key its `_tag`.
            .select(["id", "organizationId", "type", sql<string>`payload::text`.as("payload"), "occurredAt"])
            .where(sql<boolean>`payload->>'invoiceId' = ${invoiceId}`)
            .where("type", "in", ["billing.invoice.payment_recorded", "billing.invoice.paid"])
            .orderBy("type")
            .execute()
        )
      )
      expect(events.map(({ id: _id, payload, ...row }) => ({ ...row, payload: JSON.parse(payload) }))).toEqual([
        { organizationId: org.organizationId, type: "billing.invoice.paid", occurredAt: at, payload: { _tag: "billing.invoice.paid", ...fields } },
        {
          organizationId: org.organizationId,
          type: "billing.invoice.payment_recorded",
          occurredAt: at,
          payload: { _tag: "billing.invoice.payment_recorded", paymentId: "BANK-ROWS", ...fields }
        }
      ])
      expect(events[0]?.id).not.toBe(events[1]?.id)
      const entries = await app.run(
        Db.query((db) =>
          db.selectFrom("auditLog").selectAll().where("targetId", "=", invoiceId).orderBy("occurredAt").orderBy("action").execute()
        )
      )
      const sent = entries.find((entry) => entry.action === "billing.invoice.report_sent")
      expect(entries.filter((entry) => entry.action === "billing.invoice.report_payment").map(({ id: _id, ...entry }) => entry)).toEqual([
        {
          organizationId: org.organizationId,
          actorType: "application",
          actorId: sent?.actorId,
          action: "billing.invoice.report_payment",
          targetType: "invoice",
          targetId: invoiceId,
          requestId: "req-payment-rows",
          details: body,
          occurredAt: at
        }
      ])
    })

    it("answers the same payment again with 200 and the current record, recording nothing", async () => {
      const { invoiceId } = await sentInvoice()
      const first = await pay(invoiceId, payment("BANK-1", 250_000))
      const again = await pay(invoiceId, payment("BANK-1", 250_000))
      expect(again.status).toBe(200)
      expect(again.body).toStrictEqual(first.body)
      expect(await rows("payments", invoiceId)).toBe(1)
    })

    it("answers 409 BILLING_PAYMENT_REPLAY_MISMATCH to the same paymentId with another amount", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 250_000))
      const answer = await pay(invoiceId, payment("BANK-1", 250_001))
      expect(answer.status).toBe(409)
      expect(answer.body.code).toBe("BILLING_PAYMENT_REPLAY_MISMATCH")
      expect(await rows("payments", invoiceId)).toBe(1)
    })

    it.each([
      ["zero", 0],
      ["negative on an invoice", -100]
    ])("answers 400 BILLING_PAYMENT_AMOUNT_INVALID for an amount %s", async (_, amount) => {
      const { invoiceId } = await sentInvoice()
      const answer = await pay(invoiceId, payment("BANK-1", amount))
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_PAYMENT_AMOUNT_INVALID")
      expect(await rows("payments", invoiceId)).toBe(0)
    })

    it("answers 400 BILLING_INVOICE_STATUS_INVALID on an invoice not sent", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      const answer = await pay(invoiceId, payment("BANK-1", 100))
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    })

    it("answers 400 VALIDATION_FAILED at /currency for another currency than the invoice's", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await pay(invoiceId, { ...payment("BANK-1", 100), currency: "EUR" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues).toStrictEqual([{ path: "/currency", message: "The invoice's currency is SEK." }])
    })

    it.each([
      ["no paymentId", { amountMinorUnits: 100, paidOn: "2026-11-21" }, "/paymentId"],
      ["an empty paymentId", { paymentId: "", amountMinorUnits: 100, paidOn: "2026-11-21" }, "/paymentId"],
      ["a paymentId over 200 characters", { paymentId: "x".repeat(201), amountMinorUnits: 100, paidOn: "2026-11-21" }, "/paymentId"],
      ["no amount", { paymentId: "p", paidOn: "2026-11-21" }, "/amountMinorUnits"],
      ["an amount as a string", { paymentId: "p", amountMinorUnits: "100", paidOn: "2026-11-21" }, "/amountMinorUnits"],
      ["an amount beyond 2^53 − 1", { paymentId: "p", amountMinorUnits: 9007199254740992, paidOn: "2026-11-21" }, "/amountMinorUnits"],
      ["an amount below −(2^53 − 1)", { paymentId: "p", amountMinorUnits: -9007199254740992, paidOn: "2026-11-21" }, "/amountMinorUnits"],
      ["a fractional amount", { paymentId: "p", amountMinorUnits: 1.5, paidOn: "2026-11-21" }, "/amountMinorUnits"],
      ["no date", { paymentId: "p", amountMinorUnits: 100 }, "/paidOn"],
      ["an impossible date", { paymentId: "p", amountMinorUnits: 100, paidOn: "2026-02-29" }, "/paidOn"],
      ["a timestamp for a date", { paymentId: "p", amountMinorUnits: 100, paidOn: "2026-11-21T10:00:00Z" }, "/paidOn"],
      ["an unknown currency", { paymentId: "p", amountMinorUnits: 100, paidOn: "2026-11-21", currency: "BTC" }, "/currency"]
    ])("answers 400 VALIDATION_FAILED for %s (issue at %s), never 5xx", async (_, body, path) => {
      const { invoiceId } = await sentInvoice()
      const answer = await pay(invoiceId, body)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain(path)
    })

    it("answers 400 VALIDATION_FAILED for a body that is not an object", async () => {
      const { invoiceId } = await sentInvoice()
      for (const body of ["[]", "42", "null"]) {
        const answer = await call(url(`/v1/billing/invoices/${invoiceId}/report-payment`), {
          token: billingToken,
          body,
          headers: { "content-type": "application/json" }
        })
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("VALIDATION_FAILED")
      }
    })

    it("answers 404 for an unknown external reference, and for another organization's invoice", async () => {
      expect((await payByReference("NO-SUCH-REF", payment("p", 1))).status).toBe(404)
      const { invoiceId } = await sentInvoice()
      expect((await pay(invoiceId, payment("p", 1), otherToken)).status).toBe(404)
    })
  })

  describe("POST .../report-payment-reversed (by invoice id and by external reference)", () => {
    it("returns a paid invoice to sent when the reversal makes the balance due again", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_250_000))
      const answer = await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-11-22", reason: "Returned" })
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ status: "sent", balanceMinorUnits: 1_250_000 })
      expect(answer.body.paidAt).toBeUndefined()
    })

    it("reverses by external reference, and answers the same reversal again with 200", async () => {
      const { externalReference, invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_000))
      const first = await reverseByReference(externalReference, { paymentId: "BANK-1", reversedOn: "2026-11-22" })
      const again = await reverseByReference(externalReference, { paymentId: "BANK-1", reversedOn: "2026-11-22" })
      expect(first.status).toBe(200)
      expect(again.status).toBe(200)
      expect(again.body).toStrictEqual(first.body)
      expect(await rows("paymentReversals", invoiceId)).toBe(1)
    })

    it("answers 409 BILLING_PAYMENT_REPLAY_MISMATCH to a reversal reported with another date", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_000))
      await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-11-22" })
      const answer = await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-11-23" })
      expect(answer.status).toBe(409)
      expect(answer.body.code).toBe("BILLING_PAYMENT_REPLAY_MISMATCH")
    })

    it("answers 400 BILLING_PAYMENT_NOT_FOUND for an unknown paymentId", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await reverse(invoiceId, { paymentId: "NOPE", reversedOn: "2026-11-22" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_PAYMENT_NOT_FOUND")
    })

    it("answers 400 BILLING_PAYMENT_REVERSED when a reversed payment is reported again", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_000))
      await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-11-22" })
      const answer = await pay(invoiceId, payment("BANK-1", 1_000))
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_PAYMENT_REVERSED")
    })

    it("answers 400 VALIDATION_FAILED for a malformed reversal", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-13-01" })
      expect(answer.status).toBe(400)
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain("/reversedOn")
    })
  })

  describe("POST .../report-write-off", () => {
    it("writes off part, then the rest: the invoice becomes written-off with writtenOffAt", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_000_000))
      const part = await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 200_000, writtenOffOn: "2026-11-22" })
      expect(part.status).toBe(200)
      expect(part.body).toMatchObject({ status: "sent", balanceMinorUnits: 50_000 })
      const rest = await writeOff(invoiceId, { writeOffId: "WO-2", amountMinorUnits: 50_000, writtenOffOn: "2026-11-22", reason: "Small" })
      expect(rest.body).toMatchObject({ status: "written-off", balanceMinorUnits: 0 })
      expect(typeof rest.body.writtenOffAt).toBe("string")
      const replay = await writeOff(invoiceId, { writeOffId: "WO-2", amountMinorUnits: 50_000, writtenOffOn: "2026-11-22", reason: "Small" })
      expect(replay.status).toBe(200)
      expect(replay.body).toStrictEqual(rest.body)
    })

    it("answers 400 BILLING_WRITE_OFF_AMOUNT_INVALID beyond the balance", async () => {
      const { invoiceId } = await sentInvoice()
      const answer = await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 1_250_001, writtenOffOn: "2026-11-22" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_WRITE_OFF_AMOUNT_INVALID")
      expect(await rows("writeOffs", invoiceId)).toBe(0)
    })

    it("answers 409 BILLING_WRITE_OFF_REPLAY_MISMATCH to the same writeOffId with other content", async () => {
      const { invoiceId } = await sentInvoice()
      await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 100, writtenOffOn: "2026-11-22" })
      const answer = await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 101, writtenOffOn: "2026-11-22" })
      expect(answer.status).toBe(409)
      expect(answer.body.code).toBe("BILLING_WRITE_OFF_REPLAY_MISMATCH")
    })

    it("answers 400 BILLING_INVOICE_STATUS_INVALID on a paid invoice", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 1_250_000))
      const answer = await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 1, writtenOffOn: "2026-11-22" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    })

    it("a payment reversal on a written-off invoice returns it to sent", async () => {
      const { invoiceId } = await sentInvoice()
      await pay(invoiceId, payment("BANK-1", 250_000))
      await writeOff(invoiceId, { writeOffId: "WO-1", amountMinorUnits: 1_000_000, writtenOffOn: "2026-11-22" })
      const answer = await reverse(invoiceId, { paymentId: "BANK-1", reversedOn: "2026-11-23" })
      expect(answer.body).toMatchObject({ status: "sent", balanceMinorUnits: 250_000 })
      expect(answer.body.writtenOffAt).toBeUndefined()
    })
  })

  describe("concurrent money reports (decisions 4: row locks and unique keys, never process memory)", () => {
    it("20 concurrent copies of one payment record one payment; every answer is 200", async () => {
      const { invoiceId } = await sentInvoice()
      const answers = await Promise.all(Array.from({ length: 20 }, () => pay(invoiceId, payment("SAME", 100_000))))
      expect(answers.map((answer) => answer.status)).toStrictEqual(Array.from({ length: 20 }, () => 200))
      expect(new Set(answers.map((answer) => answer.body.balanceMinorUnits))).toStrictEqual(new Set([1_150_000]))
      expect(await rows("payments", invoiceId)).toBe(1)
    })

    it("20 concurrent different payments leave exactly their sum off the balance, and the exact status", async () => {
      const { invoiceId } = await sentInvoice()
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) => pay(invoiceId, payment(`P-${index}`, 62_500)))
      )
      expect(answers.every((answer) => answer.status === 200)).toBe(true)
      expect(await rows("payments", invoiceId)).toBe(20)
      const last = await pay(invoiceId, payment("P-0", 62_500))
      expect(last.body).toMatchObject({ balanceMinorUnits: 0, status: "paid" })
      expect(answers.filter((answer) => answer.body.status === "paid")).toHaveLength(1)
    })
  })

  it("documents every operation and its codes in the OpenAPI document", async () => {
    const document = await call(url("/openapi.json"))
    expect(document.status).toBe(200)
    const paths = document.body.paths as Record<string, Record<string, { description?: string }>>
    for (const path of [
      "/v1/billing/invoices/{invoiceId}/report-sent",
      "/v1/billing/invoices/{invoiceId}/report-payment",
      "/v1/billing/invoices/{invoiceId}/report-payment-reversed",
      "/v1/billing/invoices/{invoiceId}/report-write-off",
      "/v1/billing/invoices/by-external-reference/{externalReference}/report-payment",
      "/v1/billing/invoices/by-external-reference/{externalReference}/report-payment-reversed",
      "/v1/billing/withdrawal-queue",
      "/v1/billing/invoice-withdrawals/{invoiceId}/report-discarded"
    ]) {
      expect(Object.keys(paths)).toContain(path)
    }
    const payment = paths["/v1/billing/invoices/{invoiceId}/report-payment"]?.["post"]?.description ?? ""
    for (const code of ["BILLING_PAYMENT_REPLAY_MISMATCH", "BILLING_PAYMENT_REVERSED", "BILLING_PAYMENT_AMOUNT_INVALID", "BILLING_INVOICE_STATUS_INVALID"]) {
      expect(payment).toContain(code)
    }
  })

  describe("withdrawals: GET /v1/billing/withdrawal-queue and report-discarded", () => {
    it("lists an approved invoice the operator deleted, until it is reported discarded", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference: `DEL-${kind}` }))
      const deletion = await operator((service) => service.deleteInvoice(org.organizationId, OPERATOR, invoiceId))
      expect(deletion.withdrawal?.status).toBe("pending")
      const queue = await call(url("/v1/billing/withdrawal-queue?limit=100"), { token: billingToken })
      expect(queue.status).toBe(200)
      const item = queue.body.items.find((entry: { invoiceId: string }) => entry.invoiceId === invoiceId)
      expect(item).toMatchObject({ invoiceId, status: "pending", invoiceStatus: "approved", externalReference: `DEL-${kind}`, currency: "SEK" })
      expect((await reportSent(invoiceId)).status).toBe(404)
      const sendQueue = await call(url("/v1/billing/send-queue?limit=100"), { token: billingToken })
      expect(sendQueue.body.items.map((entry: { id: string }) => entry.id)).not.toContain(invoiceId)

      const discarded = await post(`/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {})
      expect(discarded.status).toBe(201)
      expect(discarded.body).toMatchObject({ invoiceId, status: "discarded" })
      const after = await call(url("/v1/billing/withdrawal-queue?limit=100"), { token: billingToken })
      expect(after.body.items.map((entry: { invoiceId: string }) => entry.invoiceId)).not.toContain(invoiceId)

      const again = await post(`/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {})
      expect(again.status).toBe(400)
      expect(again.body.code).toBe("BILLING_INVOICE_STATUS_INVALID")
    })

    it("answers 404 to report-discarded for an invoice without a withdrawal, and across organizations", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      expect((await post(`/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {})).status).toBe(404)
      await operator((service) => service.deleteInvoice(org.organizationId, OPERATOR, invoiceId))
      expect((await post(`/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {}, otherToken)).status).toBe(404)
    })

    it("puts no withdrawal on the queue for an invoice that never entered the send queue", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(org))
      await app.run(Db.query((db) => db.updateTable("invoices").set({ status: "created", approvedAt: null }).where("id", "=", invoiceId).execute()))
      const deletion = await operator((service) => service.deleteInvoice(org.organizationId, OPERATOR, invoiceId))
      expect(deletion.withdrawal).toBeUndefined()
    })
  })
})
