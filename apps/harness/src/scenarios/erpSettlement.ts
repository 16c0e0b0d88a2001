/**
 * Scenarios of an ERP connector after the send queue (decisions 4, 5): report-sent (with OCR/KID check digits and
 * the fields the invoice decides), payments by invoice id and by external reference with replays and mismatches,
 * reversals, write-offs, concurrent payments applied exactly, and the withdrawal queue with report-discarded. Each
 * picks an approved invoice this run has not touched, and skips when none is left.
 */
import { Invoice } from "@propline/contract/Invoice"
import { randomUUID } from "node:crypto"
import {
  api,
  check,
  type Context,
  decode,
  equal,
  expectProblem,
  expectStatus,
  expectValidationFailed,
  field,
  type Scenario,
  show,
  Skip,
  walk
} from "../Harness.js"
import { sendQueue } from "./erp.js"

const CONCURRENT_REPORTS = 20

const reportSent = (context: Context, invoiceId: string, body: Record<string, unknown>) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-sent`, body)
const reportPayment = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-payment`, body)
const reportPaymentByReference = (context: Context, externalReference: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/by-external-reference/${encodeURIComponent(externalReference)}/report-payment`, body)
const reportReversal = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-payment-reversed`, body)
const reportWriteOff = (context: Context, invoiceId: string, body: unknown) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-write-off`, body)

const today = () => new Date().toISOString().slice(0, 10)
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

/** A report-sent body for `invoice`: issued today, due in 30 days, its own total, a valid OCR reference. */
const sentBody = (invoice: Invoice, externalReference: string) => ({
  issuedInvoiceNumber: `H-${invoice.invoiceNumber}`,
  issuedInvoiceDate: today(),
  dueDate: inDays(30),
  issuedTotalGrossMinorUnits: invoice.totalGrossMinorUnits,
  externalReference,
  // 79927398713: the Luhn algorithm's published example
  paymentReference: "79927398713",
  paymentReferenceType: "ocr",
  documentUrl: `https://erp.example/${invoice.invoiceNumber}.pdf`
})

/** An approved invoice (not a credit note) this run has not touched yet, or a Skip. */
const untouchedInvoice = async (context: Context, skipMessage: string) => {
  const used = new Set([context.state.passed?.invoiceId, context.state.reportedInvoiceId, context.state.sent?.invoiceId])
  const target = (await sendQueue(context)).find((invoice) => invoice.documentKind === "invoice" && !used.has(invoice.id))
  if (target === undefined) throw new Skip(skipMessage)
  return target
}

const reportSentScenario: Scenario = {
  name: "send queue: report-sent",
  run: async (context) => {
    const target = await untouchedInvoice(context, "no approved invoice left in the send queue")
    const externalReference = `HARNESS-${context.runId}-SENT`
    const body = sentBody(target, externalReference)
    expectValidationFailed(await reportSent(context, target.id, { ...body, paymentReference: "79927398710" }), "/paymentReference", "an OCR number with a wrong check digit")
    expectValidationFailed(
      await reportSent(context, target.id, { ...body, paymentReferenceType: "kid", paymentReference: "602244" }),
      "/paymentReference",
      "a KID wrong by MOD10 and MOD11"
    )
    expectValidationFailed(await reportSent(context, target.id, { ...body, documentUrl: "http://erp.example/x.pdf" }), "/documentUrl", "an http documentUrl")
    expectValidationFailed(await reportSent(context, target.id, { ...body, issuedInvoiceDate: "2026-02-30" }), "/issuedInvoiceDate", "an impossible date")
    const { dueDate: _dueDate, ...withoutDue } = body
    expectValidationFailed(await reportSent(context, target.id, withoutDue), "/dueDate", "no dueDate on an invoice")
    const reply = await reportSent(context, target.id, body)
    expectStatus(reply, 201, `report-sent ${target.id}`)
    const sent = decode(Invoice, reply.body, "the sent invoice")
    equal(
      [sent.status, sent.externalReference, sent.paymentReference, sent.paymentReferenceType, sent.balanceMinorUnits, sent.overdue],
      ["sent", externalReference, "79927398713", "ocr", target.totalGrossMinorUnits, false],
      "the sent invoice"
    )
    check(sent.sentAt !== undefined, "the sent invoice has no sentAt")
    context.state.sent = { invoiceId: target.id, externalReference, total: target.totalGrossMinorUnits }
    expectProblem(await reportSent(context, target.id, body), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report-sent")
    check(!(await sendQueue(context)).some((invoice) => invoice.id === target.id), "the sent invoice is still in the send queue")
    return `400 VALIDATION_FAILED for OCR/KID check digits, http, impossible date, no dueDate; 201 sent #${sent.invoiceNumber}; repeat 400`
  }
}

const settlementScenario: Scenario = {
  name: "settlement: payments, replays, reversals",
  run: async (context) => {
    const sent = context.state.sent
    if (sent === undefined) throw new Skip("no invoice was reported sent in this run")
    const half = Math.floor(sent.total / 2)
    const first = { paymentId: `H-${context.runId}-1`, amountMinorUnits: half, paidOn: today() }
    const paid1 = await reportPayment(context, sent.invoiceId, first)
    expectStatus(paid1, 200, "a part payment")
    const part = decode(Invoice, paid1.body, "the part-paid invoice")
    equal([part.status, part.balanceMinorUnits], ["sent", sent.total - half], "after a part payment")
    const replay = await reportPayment(context, sent.invoiceId, first)
    expectStatus(replay, 200, "the same payment again")
    equal(replay.body, paid1.body, "the replay's answer")
    expectProblem(await reportPayment(context, sent.invoiceId, { ...first, amountMinorUnits: half + 1 }), 409, "BILLING_PAYMENT_REPLAY_MISMATCH", "the same paymentId, another amount")
    expectProblem(await reportPayment(context, sent.invoiceId, { ...first, paymentId: `H-${context.runId}-0`, amountMinorUnits: 0 }), 400, "BILLING_PAYMENT_AMOUNT_INVALID", "a zero payment")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { ...first, amountMinorUnits: 9007199254740992 }), "/amountMinorUnits", "an amount beyond 2^53 − 1")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { ...first, paidOn: "2026-13-01" }), "/paidOn", "an impossible date")
    expectValidationFailed(await reportPayment(context, sent.invoiceId, { amountMinorUnits: 1, paidOn: today() }), "/paymentId", "no paymentId")
    const rest = { paymentId: `H-${context.runId}-2`, amountMinorUnits: sent.total - half, paidOn: today() }
    const paid = await reportPaymentByReference(context, sent.externalReference, rest)
    expectStatus(paid, 200, "the rest, by external reference")
    equal([field(paid.body, "status"), field(paid.body, "balanceMinorUnits")], ["paid", 0], "after the rest")
    const reversal = { paymentId: rest.paymentId, reversedOn: today(), reason: "Returned by the bank" }
    const reversed = await reportReversal(context, sent.invoiceId, reversal)
    expectStatus(reversed, 200, "the reversal")
    equal([field(reversed.body, "status"), field(reversed.body, "balanceMinorUnits")], ["sent", sent.total - half], "after the reversal")
    expectStatus(await reportReversal(context, sent.invoiceId, reversal), 200, "the same reversal again")
    expectProblem(await reportReversal(context, sent.invoiceId, { ...reversal, reversedOn: inDays(1) }), 409, "BILLING_PAYMENT_REPLAY_MISMATCH", "the reversal with another date")
    expectProblem(await reportPaymentByReference(context, sent.externalReference, rest), 400, "BILLING_PAYMENT_REVERSED", "the reversed payment reported again")
    expectProblem(await reportReversal(context, sent.invoiceId, { paymentId: `H-${context.runId}-404`, reversedOn: today() }), 400, "BILLING_PAYMENT_NOT_FOUND", "a reversal of an unknown payment")
    expectProblem(await reportPaymentByReference(context, `HARNESS-${context.runId}-NONE`, rest), 404, undefined, "an unknown external reference")
    return "part payment, replay 200, mismatch 409, zero 400, malformed 400; paid by external reference; reversed back to sent; 400 REVERSED and NOT_FOUND"
  }
}

const writeOffScenario: Scenario = {
  name: "settlement: write-off",
  run: async (context) => {
    const sent = context.state.sent
    if (sent === undefined) throw new Skip("no invoice was reported sent in this run")
    const balance = sent.total - Math.floor(sent.total / 2)
    const body = { writeOffId: `WO-${context.runId}`, amountMinorUnits: balance, writtenOffOn: today(), reason: "Lost" }
    expectProblem(await reportWriteOff(context, sent.invoiceId, { ...body, amountMinorUnits: balance + 1 }), 400, "BILLING_WRITE_OFF_AMOUNT_INVALID", "a write-off beyond the balance")
    const reply = await reportWriteOff(context, sent.invoiceId, body)
    expectStatus(reply, 200, "the write-off")
    equal([field(reply.body, "status"), field(reply.body, "balanceMinorUnits")], ["written-off", 0], "after the write-off")
    check(typeof field(reply.body, "writtenOffAt") === "string", "no writtenOffAt")
    expectStatus(await reportWriteOff(context, sent.invoiceId, body), 200, "the same write-off again")
    expectProblem(await reportWriteOff(context, sent.invoiceId, { ...body, reason: "Other" }), 409, "BILLING_WRITE_OFF_REPLAY_MISMATCH", "the same writeOffId, another reason")
    const late = await reportPayment(context, sent.invoiceId, { paymentId: `H-${context.runId}-late`, amountMinorUnits: 100, paidOn: today() })
    expectStatus(late, 200, "money arriving after the write-off")
    equal([field(late.body, "status"), field(late.body, "balanceMinorUnits")], ["written-off", -100], "after late money")
    return "beyond the balance 400; written-off at zero; replay 200; mismatch 409; late money accepted (balance −100)"
  }
}

const concurrentPayments: Scenario = {
  name: `concurrency: ${CONCURRENT_REPORTS} copies of one payment, ${CONCURRENT_REPORTS} different payments`,
  run: async (context) => {
    const target = await untouchedInvoice(context, "no approved invoice left for the concurrency check")
    const externalReference = `HARNESS-${context.runId}-CONC`
    expectStatus(await reportSent(context, target.id, sentBody(target, externalReference)), 201, "report-sent")
    const total = target.totalGrossMinorUnits
    const copies = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, () =>
        reportPayment(context, target.id, { paymentId: `C-${context.runId}`, amountMinorUnits: 1, paidOn: today() })
      )
    )
    equal(copies.map((reply) => reply.status), Array.from({ length: CONCURRENT_REPORTS }, () => 200), "statuses of the copies")
    equal(new Set(copies.map((reply) => field(reply.body, "balanceMinorUnits"))), new Set([total - 1]), "balances after the copies")
    const share = Math.floor((total - 1) / CONCURRENT_REPORTS)
    const distinct = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, (_, i) =>
        reportPayment(context, target.id, { paymentId: `D-${context.runId}-${i}`, amountMinorUnits: share, paidOn: today() })
      )
    )
    check(distinct.every((reply) => reply.status === 200), `statuses: ${show(distinct.map((reply) => reply.status))}`)
    const expected = total - 1 - share * CONCURRENT_REPORTS
    const final = await reportPayment(context, target.id, { paymentId: `C-${context.runId}`, amountMinorUnits: 1, paidOn: today() })
    equal([field(final.body, "balanceMinorUnits"), field(final.body, "status")], [expected, expected <= 0 ? "paid" : "sent"], "the balance after every payment")
    return `one payment of ${CONCURRENT_REPORTS} copies; ${CONCURRENT_REPORTS} different payments leave exactly ${expected}`
  }
}

const withdrawalScenario: Scenario = {
  name: "withdrawal queue: report-discarded",
  run: async (context) => {
    const { items } = await walk(context, "/v1/billing/withdrawal-queue", 100)
    const unknown = randomUUID()
    expectProblem(await api(context, "POST", `/v1/billing/invoice-withdrawals/${unknown}/report-discarded`, {}), 404, undefined, "an invoice without a withdrawal")
    const first = items[0]
    if (first === undefined) throw new Skip("the withdrawal queue is empty (the 404 check passed)")
    const invoiceId = String(field(first, "invoiceId"))
    equal(field(first, "status"), "pending", "a queued withdrawal's status")
    const reply = await api(context, "POST", `/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {})
    expectStatus(reply, 201, "report-discarded")
    equal(field(reply.body, "status"), "discarded", "the discarded withdrawal")
    expectProblem(await api(context, "POST", `/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, {}), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report")
    const deletedSent = { issuedInvoiceNumber: "H-DELETED", issuedInvoiceDate: today(), dueDate: inDays(30), issuedTotalGrossMinorUnits: 100 }
    expectProblem(await reportSent(context, invoiceId, deletedSent), 404, undefined, "report-sent on the deleted invoice")
    const after = await walk(context, "/v1/billing/withdrawal-queue", 100)
    check(!after.items.some((item) => field(item, "invoiceId") === invoiceId), "the discarded withdrawal is still queued")
    return `201 discarded; repeat 400 BILLING_INVOICE_STATUS_INVALID; left the queue; the deleted invoice 404; 404 for an invoice without one`
  }
}

/** The settlement scenarios, in run order; they follow the ERP scenarios of `erp.ts`. */
export const erpSettlementScenarios: ReadonlyArray<Scenario> = [
  reportSentScenario,
  settlementScenario,
  writeOffScenario,
  concurrentPayments,
  withdrawalScenario
]
