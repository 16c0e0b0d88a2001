/**
 * Scenarios of an ERP connector (spec 4, billing): the verification queue (pass, a reused external reference,
 * reject, validation) and the send queue (report-failed, and concurrent reports of one invoice applied once).
 * They consume records, so each picks records still in the right state and skips when a queue is empty; later
 * ones use what earlier ones did ({@link Context.state}).
 */
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import { randomUUID } from "node:crypto"
import {
  accessToken,
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
  Skip,
  show,
  walkDecoded
} from "../Harness.js"

const VERIFICATION_QUEUE = "/v1/billing/verification-queue"
const SEND_QUEUE = "/v1/billing/send-queue"
const pass = (context: Context, proposalId: string, externalReference: string) =>
  api(context, "POST", `/v1/billing/invoice-proposals/${proposalId}/pass`, { externalReference })
const reject = (context: Context, proposalId: string, reason: string) =>
  api(context, "POST", `/v1/billing/invoice-proposals/${proposalId}/reject`, { reason })
const reportFailed = (context: Context, invoiceId: string, reason: string) =>
  api(context, "POST", `/v1/billing/invoices/${invoiceId}/report-failed`, { reason })

const verificationQueue = (context: Context) =>
  walkDecoded(context, VERIFICATION_QUEUE, 100, InvoiceProposal, "verification queue item")

/** The whole send queue, decoded; `erpSettlement.ts` reads it too. */
export const sendQueue = (context: Context) => walkDecoded(context, SEND_QUEUE, 100, Invoice, "send queue item")

const verificationPass: Scenario = {
  name: "verification queue: pass",
  run: async (context) => {
    const queue = await verificationQueue(context)
    for (const proposal of queue) equal(proposal.status, "proposed", `proposal ${proposal.id} in the queue`)
    for (let i = 1; i < queue.length; i++) {
      check(
        queue[i - 1]!.createdAt.getTime() <= queue[i]!.createdAt.getTime(),
        "the verification queue is not oldest first"
      )
    }
    for (const [i, proposal] of queue.entries()) {
      const externalReference = `HARNESS-${context.runId}-${i}`
      const reply = await pass(context, proposal.id, externalReference)
      if (reply.status === 409 && field(reply.body, "code") === "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED") {
        expectProblem(reply, 409, "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED", `pass ${proposal.id}`)
        context.state.materialInvoiced.add(proposal.id)
        continue
      }
      expectStatus(reply, 201, `pass ${proposal.id}`)
      const passed = decode(InvoiceProposal, field(reply.body, "proposal"), "the passed proposal")
      const invoice = decode(Invoice, field(reply.body, "invoice"), "the invoice")
      equal([passed.id, passed.status, passed.externalReference], [proposal.id, "passed", externalReference], "the passed proposal")
      check(passed.passedAt !== undefined, "the passed proposal has no passedAt")
      equal([invoice.status, invoice.externalReference], ["approved", externalReference], "the invoice")
      if (proposal.invoiceNumber !== undefined) equal(invoice.invoiceNumber, proposal.invoiceNumber, "the invoice's invoiceNumber")
      context.state.passed = { proposalId: proposal.id, invoiceId: invoice.id, externalReference }

      const again = await pass(context, proposal.id, `${externalReference}-again`)
      expectProblem(again, 400, "BILLING_PROPOSAL_STATUS_INVALID", "the repeated pass")
      const after = await verificationQueue(context)
      check(!after.some((p) => p.id === proposal.id), "the passed proposal is still in the verification queue")
      const skipped = context.state.materialInvoiced.size
      return (
        `201: proposal ${proposal.id} passed as ${externalReference}, invoice #${invoice.invoiceNumber} approved` +
        `${skipped > 0 ? ` (${skipped} older proposal(s) 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED)` : ""}; ` +
        "repeat 400 BILLING_PROPOSAL_STATUS_INVALID; left the queue"
      )
    }
    throw new Skip(
      queue.length === 0
        ? "the verification queue is empty"
        : `no passable proposal: all ${queue.length} answered 409 BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`
    )
  }
}

const verificationDuplicateReference: Scenario = {
  name: "verification queue: externalReference already used",
  run: async (context) => {
    const passed = context.state.passed
    if (passed === undefined) throw new Skip("no proposal was passed in this run")
    const candidates = (await verificationQueue(context)).filter((p) => !context.state.materialInvoiced.has(p.id))
    for (const proposal of candidates) {
      const reply = await pass(context, proposal.id, passed.externalReference)
      if (reply.status === 409 && field(reply.body, "code") === "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED") {
        context.state.materialInvoiced.add(proposal.id)
        continue
      }
      expectProblem(reply, 409, "BILLING_EXTERNAL_REFERENCE_ALREADY_USED", `pass ${proposal.id} with ${passed.externalReference}`)
      const still = await verificationQueue(context)
      check(still.some((p) => p.id === proposal.id), "the refused proposal left the verification queue")
      context.state.duplicateTarget = proposal.id
      return `409 BILLING_EXTERNAL_REFERENCE_ALREADY_USED for ${proposal.id}; it stays in the queue`
    }
    throw new Skip("no other passable proposal in the verification queue")
  }
}

const verificationReject: Scenario = {
  name: "verification queue: reject",
  run: async (context) => {
    const queue = await verificationQueue(context)
    // Rather a proposal that cannot be passed anyway, so later runs still find passable ones.
    const target =
      queue.find((p) => context.state.materialInvoiced.has(p.id)) ??
      queue.find((p) => p.id === context.state.duplicateTarget) ??
      queue[0]
    if (target === undefined) throw new Skip("the verification queue is empty")
    const reason = `Harness run ${context.runId}: wrong VAT rate on parking`
    const reply = await reject(context, target.id, reason)
    expectStatus(reply, 201, `reject ${target.id}`)
    const rejected = decode(InvoiceProposal, reply.body, "the rejected proposal")
    equal([rejected.id, rejected.status, rejected.rejectionReason], [target.id, "rejected", reason], "the rejected proposal")
    check(rejected.rejectedAt !== undefined, "the rejected proposal has no rejectedAt")
    expectProblem(await reject(context, target.id, reason), 400, "BILLING_PROPOSAL_STATUS_INVALID", "the repeated reject")
    expectProblem(
      await pass(context, target.id, `HARNESS-${context.runId}-rejected`),
      400,
      "BILLING_PROPOSAL_STATUS_INVALID",
      "a pass after the reject"
    )
    return `201: proposal ${target.id} rejected; repeated reject and a pass 400 BILLING_PROPOSAL_STATUS_INVALID`
  }
}

const verificationValidation: Scenario = {
  name: "verification queue: validation and 404",
  run: async (context) => {
    const queue = await verificationQueue(context)
    // Input is validated before the record is looked up, so a queued proposal stays untouched.
    const proposalId = queue[0]?.id ?? randomUUID()
    expectValidationFailed(await reject(context, proposalId, "x".repeat(1001)), "/reason", "reject with a 1001-character reason")
    expectValidationFailed(await reject(context, proposalId, ""), "/reason", "reject with an empty reason")
    expectValidationFailed(
      await pass(context, proposalId, "R".repeat(201)),
      "/externalReference",
      "pass with a 201-character externalReference"
    )
    expectValidationFailed(await pass(context, "not-a-uuid", "HARNESS-X"), "/proposalId", "pass on a proposal id that is not a UUID")
    expectValidationFailed(await reject(context, "not-a-uuid", "x"), "/proposalId", "reject on a proposal id that is not a UUID")
    const unknown = randomUUID()
    expectProblem(await pass(context, unknown, `HARNESS-${context.runId}-404`), 404, undefined, "pass on an unknown proposal")
    expectProblem(await reject(context, unknown, "unknown"), 404, undefined, "reject on an unknown proposal")
    if (queue[0] !== undefined) {
      const after = await verificationQueue(context)
      check(after.some((p) => p.id === proposalId), "a refused request changed the proposal")
    }
    return "400 VALIDATION_FAILED at /reason (1001 and 0 characters), /externalReference (201), /proposalId (not a UUID); 404 for an unknown UUID"
  }
}

const sendQueueReportFailed: Scenario = {
  name: "send queue: report-failed",
  run: async (context) => {
    const queue = await sendQueue(context)
    for (const invoice of queue) equal(invoice.status, "approved", `invoice ${invoice.id} in the send queue`)
    expectValidationFailed(
      await reportFailed(context, queue[0]?.id ?? randomUUID(), "x".repeat(1001)),
      "/reason",
      "report-failed with a 1001-character reason"
    )
    expectValidationFailed(await reportFailed(context, "not-a-uuid", "x"), "/invoiceId", "report-failed on an id that is not a UUID")
    expectProblem(await reportFailed(context, randomUUID(), "unknown"), 404, undefined, "report-failed on an unknown invoice")
    const target = queue.find((invoice) => invoice.id !== context.state.passed?.invoiceId) ?? queue[0]
    if (target === undefined) throw new Skip("the send queue is empty (validation and 404 checks passed)")
    const reason = `Harness run ${context.runId}: customer unknown in the ERP`
    const reply = await reportFailed(context, target.id, reason)
    expectStatus(reply, 201, `report-failed ${target.id}`)
    const failed = decode(Invoice, reply.body, "the failed invoice")
    equal([failed.id, failed.status, failed.failureReason], [target.id, "failed", reason], "the failed invoice")
    check(failed.failedAt !== undefined, "the failed invoice has no failedAt")
    context.state.reportedInvoiceId = target.id
    expectProblem(await reportFailed(context, target.id, "again"), 400, "BILLING_INVOICE_STATUS_INVALID", "the repeated report")
    const after = await sendQueue(context)
    check(!after.some((invoice) => invoice.id === target.id), "the failed invoice is still in the send queue")
    return `201: invoice #${failed.invoiceNumber} failed; repeat 400 BILLING_INVOICE_STATUS_INVALID; left the send queue`
  }
}

const CONCURRENT_REPORTS = 20

const concurrentReports: Scenario = {
  name: `concurrency: ${CONCURRENT_REPORTS} concurrent report-failed on one invoice`,
  run: async (context) => {
    const queue = await sendQueue(context)
    const target = queue.find((invoice) => invoice.id !== context.state.passed?.invoiceId) ?? queue[0]
    if (target === undefined) throw new Skip("the send queue is empty")
    await accessToken(context)
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT_REPORTS }, (_, i) =>
        reportFailed(context, target.id, `Harness run ${context.runId}: concurrent report ${i + 1}`)
      )
    )
    const statuses = replies.map((reply) => reply.status)
    const created = replies.filter((reply) => reply.status === 201)
    check(statuses.every((status) => status < 500), `5xx answers: ${show(statuses)}`)
    equal(created.length, 1, "201 answers")
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expectProblem(reply, 400, "BILLING_INVOICE_STATUS_INVALID", "a losing report")
    }
    const failed = decode(Invoice, created[0]!.body, "the failed invoice")
    equal(failed.status, "failed", "the winner's invoice status")
    return `invoice ${target.id}: one 201, ${CONCURRENT_REPORTS - 1} × 400 BILLING_INVOICE_STATUS_INVALID, no 5xx`
  }
}

/** The ERP scenarios, in the order they run (later ones use what earlier ones did). */
export const erpScenarios: ReadonlyArray<Scenario> = [
  verificationPass,
  verificationDuplicateReference,
  verificationReject,
  verificationValidation,
  sendQueueReportFailed,
  concurrentReports
]
