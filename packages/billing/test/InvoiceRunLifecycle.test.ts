import { describe, expect, it } from "@effect/vitest"
import type { ContractMaterial } from "../src/InvoiceRun.js"
import {
  approveRun,
  continueRun,
  createRun,
  documentFromDraft,
  type InvoiceRunRecord,
  proposalFromDraft
} from "../src/InvoiceRunLifecycle.js"
import { anInvoice, getLeft, getRight, NOW } from "./fixtures.js"

const contract: ContractMaterial = {
  contractId: "c-1",
  customerName: "Ångström Fastigheter AB",
  currency: "SEK",
  paymentTermsDays: 30,
  lines: [
    { description: "Office rent", monthlyNetMinorUnits: 1_000_000, vatRateBasisPoints: 2500 },
    { description: "Coffee", monthlyNetMinorUnits: 10_000, vatRateBasisPoints: 1200 }
  ]
}
const empty: ContractMaterial = { ...contract, contractId: "c-empty", lines: [] }
const command = {
  runId: "run-1",
  organizationId: "org-1",
  operationalContextId: "ctx-1",
  periodStart: "2025-03-01",
  periodEnd: "2025-03-31",
  invoiceDate: "2025-03-01",
  contracts: [contract, empty]
}

describe("InvoiceRunLifecycle.createRun", () => {
  it("creates a draft run with one draft per contract that has lines, VAT per line", () => {
    const { drafts, events, run } = getRight(createRun(command, NOW))
    expect(run).toStrictEqual({
      id: "run-1",
      organizationId: "org-1",
      operationalContextId: "ctx-1",
      periodStart: "2025-03-01",
      periodEnd: "2025-03-31",
      status: "draft",
      createdAt: NOW,
      updatedAt: NOW
    })
    expect(drafts.map((draft) => draft.contractId)).toStrictEqual(["c-1"])
    expect(drafts[0]?.totals).toStrictEqual({ net: 1_010_000, vat: 251_200, gross: 1_261_200 })
    expect(drafts[0]?.requestedDueDate).toBe("2025-03-31")
    expect(events.map((event) => event._tag)).toStrictEqual(["billing.invoice_run.created"])
  })

  it("refuses a period that is not whole months with VALIDATION_FAILED at /periodStart", () => {
    const refusal = getLeft(createRun({ ...command, periodStart: "2025-03-02" }, NOW))
    if (refusal._tag !== "FieldsInvalid") return expect.unreachable()
    expect(refusal.code).toBe("VALIDATION_FAILED")
    expect(refusal.issues[0]?.path).toBe("/periodStart")
  })

  it("refuses an impossible invoice date with VALIDATION_FAILED at /invoiceDate", () => {
    const refusal = getLeft(createRun({ ...command, invoiceDate: "2025-02-30" }, NOW))
    if (refusal._tag !== "FieldsInvalid") return expect.unreachable()
    expect(refusal.issues[0]?.path).toBe("/invoiceDate")
  })
})

describe("InvoiceRunLifecycle.continueRun", () => {
  const draftRun = getRight(createRun(command, NOW)).run

  it("drafts more contracts into a draft run", () => {
    const { drafts, events, run } = getRight(continueRun(draftRun, { invoiceDate: "2025-03-01", contracts: [{ ...contract, contractId: "c-2" }] }, NOW))
    expect(run.status).toBe("draft")
    expect(drafts.map((draft) => draft.contractId)).toStrictEqual(["c-2"])
    expect(events.map((event) => event._tag)).toStrictEqual(["billing.invoice_run.continued"])
  })

  it("refuses an approved run with BILLING_INVOICE_RUN_NOT_CONTINUABLE (400)", () => {
    const approved: InvoiceRunRecord = { ...draftRun, status: "approved", approvedAt: NOW }
    const refusal = getLeft(continueRun(approved, { invoiceDate: "2025-03-01", contracts: [] }, NOW))
    if (refusal._tag !== "InvoiceRunNotContinuable") return expect.unreachable()
    expect(refusal.code).toBe("BILLING_INVOICE_RUN_NOT_CONTINUABLE")
    expect(refusal.status).toBe(400)
  })
})

describe("InvoiceRunLifecycle.approveRun", () => {
  const draftRun = getRight(createRun(command, NOW)).run

  it("approves the run and each of its created invoices; other statuses are left as they are", () => {
    const created = anInvoice({ id: "i-1", status: "created" })
    const failed = anInvoice({ id: "i-2", status: "failed" })
    const { events, invoices, run } = getRight(approveRun(draftRun, [created, failed], NOW))
    expect(run).toStrictEqual({ ...draftRun, status: "approved", approvedAt: NOW, updatedAt: NOW })
    expect(invoices.map((invoice) => [invoice.id, invoice.status])).toStrictEqual([["i-1", "approved"]])
    expect(events.map((event) => event._tag)).toStrictEqual(["billing.invoice_run.approved", "billing.invoice.approved"])
  })

  it("refuses an approved run with BILLING_INVOICE_RUN_NOT_CONTINUABLE (400)", () => {
    const { run } = getRight(approveRun(draftRun, [], NOW))
    const refusal = getLeft(approveRun(run, [], NOW))
    expect(refusal.code).toBe("BILLING_INVOICE_RUN_NOT_CONTINUABLE")
    expect(refusal.action).toBe("approve")
  })
})

describe("InvoiceRunLifecycle.documentFromDraft / proposalFromDraft", () => {
  const draft = getRight(createRun(command, NOW)).drafts[0]!
  const fields = {
    id: "doc-1",
    invoiceRunId: "run-1",
    organizationId: "org-1",
    operationalContextId: "ctx-1",
    recipientAgentId: "cust-1",
    billingAccountId: "ba-1",
    invoiceNumber: 42
  }

  it("makes a created invoice of the draft's material", () => {
    const { events, invoice } = documentFromDraft(draft, fields, NOW)
    expect(invoice).toMatchObject({ ...fields, status: "created", totalGrossMinorUnits: 1_261_200, paymentTermsDays: 30 })
    expect(events.map((event) => event._tag)).toStrictEqual(["billing.invoice.created"])
  })

  it("makes a proposed proposal of the same material", () => {
    const { events, proposal } = proposalFromDraft(draft, fields, NOW)
    expect(proposal).toMatchObject({ ...fields, status: "proposed", totalGrossMinorUnits: 1_261_200 })
    expect(events.map((event) => event._tag)).toStrictEqual(["billing.invoice_proposal.created"])
  })
})
