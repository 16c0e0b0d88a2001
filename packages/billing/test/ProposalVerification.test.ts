import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { InvoiceRecord } from "../src/Invoice.js"
import type { InvoiceProposalRecord } from "../src/InvoiceProposal.js"
import { PROPOSAL_STATUSES } from "../src/InvoiceProposal.js"
import * as ProposalVerification from "../src/ProposalVerification.js"
import { aProposal, EARLIER, getLeft, getRight, NOW } from "./fixtures.js"

const NEW_INVOICE_ID = "c1a5e7f2-3b4d-4e6f-8a9b-0c1d2e3f4a5b"

const passCommand: ProposalVerification.PassCommand = {
  externalReference: "ERP-2025-000123",
  invoiceId: NEW_INVOICE_ID,
  materialAlreadyInvoiced: false,
  externalReferenceTaken: false
}

const notProposed = PROPOSAL_STATUSES.filter((status) => status !== "proposed")

describe("ProposalVerification.pass (spec 3 and 4.1)", () => {
  it("moves the proposal to passed with externalReference, passedAt and updatedAt; nothing else changes", () => {
    const proposal = aProposal()
    const { proposal: passed } = getRight(ProposalVerification.pass(proposal, passCommand, NOW))
    expect(passed).toStrictEqual({
      ...proposal,
      status: "passed",
      externalReference: "ERP-2025-000123",
      passedAt: NOW,
      updatedAt: NOW
    })
  })

  it("creates the invoice approved, with the proposal's material and number and the caller's reference", () => {
    const proposal = aProposal()
    const { invoice } = getRight(ProposalVerification.pass(proposal, passCommand, NOW))
    const expected: InvoiceRecord = {
      id: NEW_INVOICE_ID,
      invoiceRunId: proposal.invoiceRunId,
      organizationId: proposal.organizationId,
      operationalContextId: proposal.operationalContextId,
      contractId: proposal.contractId,
      recipientAgentId: proposal.recipientAgentId,
      recipientAgentName: "Fjord Kontor AS",
      billingAccountId: proposal.billingAccountId,
      documentKind: "invoice",
      billingStream: "running",
      requestedInvoiceDate: "2025-03-15",
      requestedDueDate: "2025-04-14",
      paymentTermsDays: 30,
      invoiceNumber: 20077,
      status: "approved",
      currency: "NOK",
      totalNetMinorUnits: 480_000,
      totalVatMinorUnits: 120_000,
      totalGrossMinorUnits: 600_000,
      externalReference: "ERP-2025-000123",
      approvedAt: NOW,
      createdAt: NOW,
      updatedAt: NOW
    }
    expect(invoice).toStrictEqual(expected)
  })

  it("creates a credit note with the credited invoice and without due date or payment terms", () => {
    const {
      requestedDueDate: _requestedDueDate,
      paymentTermsDays: _paymentTermsDays,
      ...invoiceMaterial
    } = aProposal()
    const creditProposal: InvoiceProposalRecord = {
      ...invoiceMaterial,
      documentKind: "credit-note",
      creditedInvoiceId: "9e8d7c6b-5a49-4837-a261-504f3e2d1c0b",
      totalNetMinorUnits: -480_000,
      totalVatMinorUnits: -120_000,
      totalGrossMinorUnits: -600_000
    }
    const { invoice } = getRight(ProposalVerification.pass(creditProposal, passCommand, NOW))
    expect(invoice.documentKind).toBe("credit-note")
    expect(invoice.creditedInvoiceId).toBe("9e8d7c6b-5a49-4837-a261-504f3e2d1c0b")
    expect(invoice.totalNetMinorUnits).toBe(-480_000)
    expect(invoice.totalVatMinorUnits).toBe(-120_000)
    expect(invoice.totalGrossMinorUnits).toBe(-600_000)
    expect(invoice).not.toHaveProperty("requestedDueDate")
    expect(invoice).not.toHaveProperty("paymentTermsDays")
  })

  it("sets none of the fields that later reports set", () => {
    const { invoice } = getRight(ProposalVerification.pass(aProposal(), passCommand, NOW))
    for (const field of [
      "creditedInvoiceId",
      "issuedInvoiceNumber",
      "issuedInvoiceDate",
      "dueDate",
      "issuedTotalGrossMinorUnits",
      "paymentReference",
      "paymentReferenceType",
      "documentUrl",
      "balanceMinorUnits",
      "sentAt",
      "paidAt",
      "writtenOffAt",
      "failedAt",
      "failureReason",
      "overdue"
    ]) {
      expect(invoice).not.toHaveProperty(field)
    }
  })

  it("emits proposal passed, invoice created and invoice approved, in that order, at now", () => {
    const proposal = aProposal()
    const { events } = getRight(ProposalVerification.pass(proposal, passCommand, NOW))
    const ids = { organizationId: proposal.organizationId, operationalContextId: proposal.operationalContextId }
    expect(events).toStrictEqual([
      { _tag: "billing.invoice_proposal.passed", proposalId: proposal.id, invoiceId: NEW_INVOICE_ID, ...ids, at: NOW },
      { _tag: "billing.invoice.created", invoiceId: NEW_INVOICE_ID, ...ids, at: NOW },
      { _tag: "billing.invoice.approved", invoiceId: NEW_INVOICE_ID, ...ids, at: NOW }
    ])
  })

  it("leaves the given proposal unchanged", () => {
    const proposal = aProposal()
    const before = structuredClone(proposal)
    ProposalVerification.pass(proposal, passCommand, NOW)
    expect(proposal).toStrictEqual(before)
  })

  for (const status of notProposed) {
    it(`refuses a proposal that is ${status} with BILLING_PROPOSAL_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(ProposalVerification.pass(aProposal({ status }), passCommand, NOW))
      expect(refusal._tag).toBe("ProposalStatusInvalid")
      expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
      if (refusal._tag !== "ProposalStatusInvalid") return expect.unreachable()
      expect(refusal.proposalStatus).toBe(status)
      expect(refusal.action).toBe("pass")
      expect(refusal.invoiceNumberMissing).toBe(false)
      expect(refusal.status).toBe(400)
    })
  }

  it("refuses a second pass of the proposal it passed with BILLING_PROPOSAL_STATUS_INVALID (400)", () => {
    const { proposal: passed } = getRight(ProposalVerification.pass(aProposal(), passCommand, NOW))
    const refusal = getLeft(ProposalVerification.pass(passed, passCommand, NOW))
    expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
    expect(refusal.status).toBe(400)
  })

  it("refuses a proposal without an invoice number with BILLING_PROPOSAL_STATUS_INVALID (400)", () => {
    const { invoiceNumber: _invoiceNumber, ...withoutNumber } = aProposal()
    const refusal = getLeft(ProposalVerification.pass(withoutNumber, passCommand, NOW))
    expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
    if (refusal._tag !== "ProposalStatusInvalid") return expect.unreachable()
    expect(refusal.proposalStatus).toBe("proposed")
    expect(refusal.invoiceNumberMissing).toBe(true)
    expect(refusal.status).toBe(400)
  })

  it("refuses a proposal whose charges were already invoiced with BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED (409)", () => {
    const refusal = getLeft(
      ProposalVerification.pass(aProposal(), { ...passCommand, materialAlreadyInvoiced: true }, NOW)
    )
    expect(refusal._tag).toBe("ProposalMaterialAlreadyInvoiced")
    expect(refusal.code).toBe("BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED")
    expect(refusal.status).toBe(409)
  })

  it("refuses an externalReference used in the organization with BILLING_EXTERNAL_REFERENCE_ALREADY_USED (409)", () => {
    const refusal = getLeft(
      ProposalVerification.pass(aProposal(), { ...passCommand, externalReferenceTaken: true }, NOW)
    )
    expect(refusal._tag).toBe("ExternalReferenceAlreadyUsed")
    expect(refusal.code).toBe("BILLING_EXTERNAL_REFERENCE_ALREADY_USED")
    if (refusal._tag !== "ExternalReferenceAlreadyUsed") return expect.unreachable()
    expect(refusal.externalReference).toBe("ERP-2025-000123")
    expect(refusal.status).toBe(409)
  })

  describe("order of checks: status, then material, then external reference", () => {
    const everythingWrong = { ...passCommand, materialAlreadyInvoiced: true, externalReferenceTaken: true }

    for (const status of notProposed) {
      it(`a proposal that is ${status} is refused for its status before anything else`, () => {
        const refusal = getLeft(ProposalVerification.pass(aProposal({ status }), everythingWrong, NOW))
        expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
      })
    }

    it("a missing invoice number is refused before material and reference", () => {
      const { invoiceNumber: _invoiceNumber, ...withoutNumber } = aProposal()
      const refusal = getLeft(ProposalVerification.pass(withoutNumber, everythingWrong, NOW))
      expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
    })

    it("already invoiced material is refused before a taken reference", () => {
      const refusal = getLeft(ProposalVerification.pass(aProposal(), everythingWrong, NOW))
      expect(refusal.code).toBe("BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED")
    })
  })
})

describe("ProposalVerification.reject (spec 3: proposed → rejected)", () => {
  const command = { reason: "Wrong billing account for this customer" }

  it("rejects a proposed proposal: status rejected, rejectionReason, rejectedAt and updatedAt set", () => {
    const proposal = aProposal()
    const { proposal: rejected } = getRight(ProposalVerification.reject(proposal, command, NOW))
    expect(rejected).toStrictEqual({
      ...proposal,
      status: "rejected",
      rejectionReason: command.reason,
      rejectedAt: NOW,
      updatedAt: NOW
    })
  })

  it("emits billing.invoice_proposal.rejected at now", () => {
    const proposal = aProposal()
    const { events } = getRight(ProposalVerification.reject(proposal, command, NOW))
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice_proposal.rejected",
        proposalId: proposal.id,
        organizationId: proposal.organizationId,
        operationalContextId: proposal.operationalContextId,
        at: NOW
      }
    ])
  })

  it("rejects a proposal without an invoice number (it never becomes an invoice)", () => {
    const { invoiceNumber: _invoiceNumber, ...withoutNumber } = aProposal()
    expect(Either.isRight(ProposalVerification.reject(withoutNumber, command, NOW))).toBe(true)
  })

  for (const status of notProposed) {
    it(`refuses a proposal that is ${status} with BILLING_PROPOSAL_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(ProposalVerification.reject(aProposal({ status }), command, NOW))
      expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
      expect(refusal.proposalStatus).toBe(status)
      expect(refusal.action).toBe("reject")
      expect(refusal.status).toBe(400)
    })
  }
})

describe("ProposalVerification.cancel (spec 3: an operator's action, proposed → cancelled)", () => {
  it("cancels a proposed proposal: status cancelled, cancelledAt and updatedAt set, nothing else changes", () => {
    const proposal = aProposal({ updatedAt: EARLIER })
    const { proposal: cancelled } = getRight(ProposalVerification.cancel(proposal, NOW))
    expect(cancelled).toStrictEqual({ ...proposal, status: "cancelled", cancelledAt: NOW, updatedAt: NOW })
  })

  it("emits billing.invoice_proposal.cancelled at now", () => {
    const proposal = aProposal()
    const { events } = getRight(ProposalVerification.cancel(proposal, NOW))
    expect(events).toStrictEqual([
      {
        _tag: "billing.invoice_proposal.cancelled",
        proposalId: proposal.id,
        organizationId: proposal.organizationId,
        operationalContextId: proposal.operationalContextId,
        at: NOW
      }
    ])
  })

  for (const status of notProposed) {
    it(`refuses a proposal that is ${status} with BILLING_PROPOSAL_STATUS_INVALID (400)`, () => {
      const refusal = getLeft(ProposalVerification.cancel(aProposal({ status }), NOW))
      expect(refusal.code).toBe("BILLING_PROPOSAL_STATUS_INVALID")
      expect(refusal.proposalStatus).toBe(status)
      expect(refusal.action).toBe("cancel")
      expect(refusal.status).toBe(400)
    })
  }
})

describe("ProposalVerification.requireBillingIntegration (decisions.md 5)", () => {
  it("accepts a configured billing integration", () => {
    expect(Either.isRight(ProposalVerification.requireBillingIntegration({ configured: true }))).toBe(true)
  })

  it("refuses without a configured billing integration with BILLING_INTEGRATION_NOT_CONFIGURED (400)", () => {
    const refusal = getLeft(ProposalVerification.requireBillingIntegration({ configured: false }))
    expect(refusal._tag).toBe("IntegrationNotConfigured")
    expect(refusal.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
    expect(refusal.status).toBe(400)
  })
})

describe("ProposalVerification.requireVerificationGate (decisions.md 5 and 8)", () => {
  it("accepts a configured integration that declared the verification gate", () => {
    const integration = { configured: true, declaredGates: ["verification"] }
    expect(Either.isRight(ProposalVerification.requireVerificationGate(integration))).toBe(true)
  })

  it("accepts the verification gate among other gates", () => {
    const integration = { configured: true, declaredGates: ["dispatch", "verification"] }
    expect(Either.isRight(ProposalVerification.requireVerificationGate(integration))).toBe(true)
  })

  it("refuses an integration that is not configured with BILLING_INTEGRATION_NOT_CONFIGURED (400), gate or not", () => {
    for (const declaredGates of [[], ["verification"]]) {
      const refusal = getLeft(ProposalVerification.requireVerificationGate({ configured: false, declaredGates }))
      expect(refusal.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
      expect(refusal.status).toBe(400)
    }
  })

  for (const declaredGates of [[], ["dispatch"], ["Verification"], ["verification "]]) {
    it(`refuses a configured integration declaring ${JSON.stringify(declaredGates)} with BILLING_INTEGRATION_GATE_NOT_DECLARED (400)`, () => {
      const refusal = getLeft(ProposalVerification.requireVerificationGate({ configured: true, declaredGates }))
      expect(refusal._tag).toBe("IntegrationGateNotDeclared")
      expect(refusal.code).toBe("BILLING_INTEGRATION_GATE_NOT_DECLARED")
      if (refusal._tag !== "IntegrationGateNotDeclared") return expect.unreachable()
      expect(refusal.gate).toBe("verification")
      expect(refusal.status).toBe(400)
    })
  }

  it("names the gate verification", () => {
    expect(ProposalVerification.VERIFICATION_GATE).toBe("verification")
  })
})
