/**
 * The billing part of the demo (spec 2.1, 2.2; decisions 2, 5), drafted from the tenancy's contracts with the
 * billing domain's own functions, so totals and VAT are what a run would compute:
 * - "Nordhavn Workspaces AB": billed through the demo connector's ready billing configuration, which declared the
 *   `verification` gate (`integrations/DemoIntegrations.ts`);
 *   - last month's run, approved: 22 invoices and 1 credit note in the send queue;
 *   - a one-contract run this month: 1 invoice the operator made for a parking charge, also in the send queue;
 *   - this month's run, approved under the verification gate: 23 proposals awaiting verification, one of which
 *     ({@link DEMO_IDS}.doubleBilledProposal) bills the parking charge that invoice already billed.
 * - "Fjord Offices AS": likewise through its own installation of the demo connector, 1 approved invoice, 1 proposal.
 *
 * Timeline (UTC): last month's run approved 25 h ago; the integration declared the verification gate 24 h ago
 * (so last month's run produced invoices, this month's proposals); the credit note 20 h ago; this month's run
 * 2 h ago; the manual invoice 1 h ago, after the run had proposed its material.
 */
import { unsentInvoiceColumns } from "../../billing/InvoiceRepository.js"
import type {
  ChargeTable,
  DocumentLineTable,
  InvoiceProposalTable,
  InvoiceRunTable,
  InvoiceTable
} from "@propline/db/Database"
import {
  type BillingPeriod,
  type ContractMaterial,
  draftCreditNote,
  draftDocuments,
  type DraftLine
} from "@propline/billing/InvoiceRun"
import type { Insertable } from "kysely"
import { DEMO_IDS, demoId, type DemoTimeline, HOUR, isoDate, monthLabel, orDie } from "../DemoIds.js"
import { type ContractRows, type DemoContracts, nordhavnContextId } from "../tenancy/DemoTenancy.js"

/** The customer whose parking the operator invoiced by hand this month (the double-billing case). */
const MANUALLY_INVOICED_CUSTOMER = "SE-04"
/** The customer whose cleaning last month is credited. */
const CREDITED_CUSTOMER = "SE-08"

/** First number of the demo organizations' invoice number series. */
const FIRST_INVOICE_NUMBER = { nordhavn: 24_001, fjord: 1_001 } as const

/** Builds the plan's rows for one organization step by step; `take` hands out invoice numbers in order. */
const planBuilder = (firstInvoiceNumber: number) => {
  let nextNumber = firstInvoiceNumber
  const rows = {
    charges: [] as Array<Insertable<ChargeTable>>,
    invoices: [] as Array<Insertable<InvoiceTable>>,
    invoiceProposals: [] as Array<Insertable<InvoiceProposalTable>>,
    documentLines: [] as Array<Insertable<DocumentLineTable>>
  }
  const take = () => nextNumber++

  /** One charge per contract line for `period`; ids are derived from the contract line and the month. */
  const chargesFor = (
    contract: ContractRows,
    period: BillingPeriod,
    lines: ReadonlyArray<DraftLine>,
    createdAt: Date,
    invoiceIdOf: (position: number) => string | null
  ): ReadonlyArray<string> =>
    lines.map((line) => {
      const lineId = contract.lineIds[line.position - 1] as string
      const id = demoId(`charge:${lineId}:${monthLabel(period)}`)
      rows.charges.push({
        id,
        organizationId: "",
        contractId: contract.contractId,
        contractLineId: lineId,
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        description: line.description,
        netMinorUnits: line.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints,
        invoiceId: invoiceIdOf(line.position),
        createdAt
      })
      return id
    })

  const documentLinesFor = (
    owner: { readonly invoiceId: string } | { readonly proposalId: string },
    lines: ReadonlyArray<DraftLine>,
    chargeIds: ReadonlyArray<string | null>
  ) => {
    const ownerId = "invoiceId" in owner ? owner.invoiceId : owner.proposalId
    for (const line of lines) {
      rows.documentLines.push({
        id: demoId(`line:${ownerId}:${line.position}`),
        proposalId: "proposalId" in owner ? owner.proposalId : null,
        invoiceId: "invoiceId" in owner ? owner.invoiceId : null,
        chargeId: chargeIds[line.position - 1] ?? null,
        position: line.position,
        description: line.description,
        netMinorUnits: line.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints,
        vatMinorUnits: line.vatMinorUnits,
        grossMinorUnits: line.grossMinorUnits
      })
    }
  }

  return {
    rows,
    take,
    chargesFor,
    documentLinesFor,
    used: () => nextNumber
  }
}

/** The document columns every invoice and proposal of a contract share. */
const documentParty = (contract: ContractRows) => ({
  operationalContextId: contract.contextId,
  contractId: contract.contractId,
  recipientAgentId: contract.customerId,
  recipientAgentName: contract.spec.name,
  billingAccountId: contract.billingAccountId,
  currency: contract.currency,
  billingStream: "contractual" as const,
  externalReference: null
})

const withMonth = (material: ContractMaterial, period: BillingPeriod): ContractMaterial => ({
  ...material,
  lines: material.lines.map((line) => ({ ...line, description: `${line.description}, ${monthLabel(period)}` }))
})

/** The billing rows of the demo, per table, each in an order that satisfies its own foreign keys. */
export interface DemoBillingPlan {
  readonly invoiceRuns: ReadonlyArray<Insertable<InvoiceRunTable>>
  readonly invoices: ReadonlyArray<Insertable<InvoiceTable>>
  readonly invoiceProposals: ReadonlyArray<Insertable<InvoiceProposalTable>>
  readonly charges: ReadonlyArray<Insertable<ChargeTable>>
  readonly documentLines: ReadonlyArray<Insertable<DocumentLineTable>>
  /** Why the credit note credits its invoice (kept in the audit entry of the seed). */
  readonly creditReason: string
}

/**
 * The billing rows for `timeline` from the tenancy's `contracts`, and the next free number of each
 * organization's invoice number series after them.
 */
export const demoBilling = (
  timeline: DemoTimeline,
  { fjord: fjordContract, nordhavn: contractRows }: DemoContracts
): {
  readonly plan: DemoBillingPlan
  readonly nextInvoiceNumber: { readonly nordhavn: number; readonly fjord: number }
} => {
  const { ago, lastMonth, thisMonth } = timeline
  const lastRunCreatedAt = ago(26 * HOUR)
  const lastRunApprovedAt = ago(25 * HOUR)
  const creditNoteAt = ago(20 * HOUR)
  const currentRunAt = ago(2 * HOUR)
  const manualAt = ago(1 * HOUR)

  // -- Nordhavn Workspaces AB -------------------------------------------------------------------------------
  const organizationId = DEMO_IDS.organization
  const root = DEMO_IDS.rootContext
  const nordhavn = planBuilder(FIRST_INVOICE_NUMBER.nordhavn)

  // Last month's run: approved, one invoice per contract that ran last month, all in the send queue.
  const lastMonthContracts = contractRows.filter((contract) => contract.spec.timing !== "new")
  const lastDrafts = orDie(
    draftDocuments({
      ...lastMonth,
      invoiceDate: lastMonth.periodStart,
      contracts: lastMonthContracts.map((contract) => withMonth(contract.material, lastMonth))
    })
  )
  lastDrafts.forEach((draft, index) => {
    const contract = lastMonthContracts[index] as ContractRows
    const invoiceId = demoId(`invoice:nordhavn:last-month:${contract.spec.key}`)
    const approvedAt = new Date(lastRunApprovedAt.getTime() + index * 1000)
    nordhavn.rows.invoices.push({
      id: invoiceId,
      organizationId,
      invoiceRunId: DEMO_IDS.lastMonthRun,
      ...documentParty(contract),
      documentKind: "invoice",
      creditedInvoiceId: null,
      requestedInvoiceDate: draft.requestedInvoiceDate,
      requestedDueDate: draft.requestedDueDate,
      paymentTermsDays: draft.paymentTermsDays,
      invoiceNumber: nordhavn.take(),
      status: "approved",
      totalNetMinorUnits: draft.totals.net,
      totalVatMinorUnits: draft.totals.vat,
      totalGrossMinorUnits: draft.totals.gross,
      ...unsent,
      approvedAt,
      createdAt: lastRunCreatedAt,
      updatedAt: approvedAt
    })
    const chargeIds = nordhavn.chargesFor(contract, lastMonth, draft.lines, lastRunCreatedAt, () => invoiceId)
    nordhavn.documentLinesFor({ invoiceId }, draft.lines, chargeIds)
  })

  // The credit note: last month's cleaning at Vinga Logistik was not done (the floor was being rebuilt).
  const creditReason = `Städning ej utförd ${monthLabel(lastMonth)} på grund av ombyggnad av våningsplanet.`
  const creditedIndex = lastMonthContracts.findIndex((contract) => contract.spec.key === CREDITED_CUSTOMER)
  const creditedContract = lastMonthContracts[creditedIndex] as ContractRows
  const creditedDraft = lastDrafts[creditedIndex]
  const cleaning = creditedDraft?.lines.filter((line) => line.description.startsWith("Städning")) ?? []
  const credit = orDie(draftCreditNote(cleaning, creditReason))
  nordhavn.rows.invoices.push({
    id: DEMO_IDS.creditNote,
    organizationId,
    invoiceRunId: DEMO_IDS.lastMonthRun,
    ...documentParty(creditedContract),
    documentKind: "credit-note",
    creditedInvoiceId: DEMO_IDS.creditedInvoice,
    requestedInvoiceDate: isoDate(creditNoteAt),
    requestedDueDate: null,
    paymentTermsDays: null,
    invoiceNumber: nordhavn.take(),
    status: "approved",
    totalNetMinorUnits: credit.totals.net,
    totalVatMinorUnits: credit.totals.vat,
    totalGrossMinorUnits: credit.totals.gross,
    ...unsent,
    approvedAt: creditNoteAt,
    createdAt: creditNoteAt,
    updatedAt: creditNoteAt
  })
  nordhavn.documentLinesFor({ invoiceId: DEMO_IDS.creditNote }, credit.lines, [])

  // This month's run: approved under the verification gate, so it proposes; one proposal per running contract.
  const currentContracts = contractRows.filter((contract) => contract.spec.timing !== "ended")
  const currentDrafts = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: thisMonth.periodStart,
      contracts: currentContracts.map((contract) => withMonth(contract.material, thisMonth))
    })
  )
  const currentChargeIds = new Map<string, ReadonlyArray<string>>()
  currentDrafts.forEach((draft, index) => {
    const contract = currentContracts[index] as ContractRows
    const proposalId = demoId(`proposal:nordhavn:current-month:${contract.spec.key}`)
    const createdAt = new Date(currentRunAt.getTime() + index * 1000)
    nordhavn.rows.invoiceProposals.push({
      id: proposalId,
      organizationId,
      invoiceRunId: DEMO_IDS.currentMonthRun,
      invoiceNumber: nordhavn.take(),
      ...documentParty(contract),
      documentKind: "invoice",
      creditedInvoiceId: null,
      requestedInvoiceDate: draft.requestedInvoiceDate,
      requestedDueDate: draft.requestedDueDate,
      paymentTermsDays: draft.paymentTermsDays,
      status: "proposed",
      totalNetMinorUnits: draft.totals.net,
      totalVatMinorUnits: draft.totals.vat,
      totalGrossMinorUnits: draft.totals.gross,
      ...notDecided,
      createdAt,
      updatedAt: createdAt
    })
    const isManual = contract.spec.key === MANUALLY_INVOICED_CUSTOMER
    const parkingPosition = draft.lines.find((line) => line.description.startsWith("Parkering"))?.position
    const chargeIds = nordhavn.chargesFor(contract, thisMonth, draft.lines, currentRunAt, (position) =>
      isManual && position === parkingPosition ? DEMO_IDS.manualInvoice : null
    )
    currentChargeIds.set(contract.spec.key, chargeIds)
    nordhavn.documentLinesFor({ proposalId }, draft.lines, chargeIds)
  })

  // The manual invoice: after the run had proposed it, the operator invoiced Kvarnholmen Juridik's parking for
  // this month on its own (the customer asked for a separate invoice). The proposal still holds that charge.
  const manualIndex = currentContracts.findIndex((contract) => contract.spec.key === MANUALLY_INVOICED_CUSTOMER)
  const manualContract = currentContracts[manualIndex] as ContractRows
  const manualDraft = currentDrafts[manualIndex]
  const manualParking = manualDraft?.lines.find((line) => line.description.startsWith("Parkering"))
  const [manualDocument] = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: isoDate(manualAt),
      contracts: [
        {
          ...manualContract.material,
          lines:
            manualParking === undefined
              ? []
              : [
                  {
                    description: manualParking.description,
                    monthlyNetMinorUnits: manualParking.netMinorUnits,
                    vatRateBasisPoints: manualParking.vatRateBasisPoints
                  }
                ]
        }
      ]
    })
  )
  if (manualDocument === undefined || manualParking === undefined) throw new Error("demo catalog: no parking line")
  nordhavn.rows.invoices.push({
    id: DEMO_IDS.manualInvoice,
    organizationId,
    invoiceRunId: DEMO_IDS.manualRun,
    ...documentParty(manualContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: manualDocument.requestedInvoiceDate,
    requestedDueDate: manualDocument.requestedDueDate,
    paymentTermsDays: manualDocument.paymentTermsDays,
    invoiceNumber: nordhavn.take(),
    status: "approved",
    totalNetMinorUnits: manualDocument.totals.net,
    totalVatMinorUnits: manualDocument.totals.vat,
    totalGrossMinorUnits: manualDocument.totals.gross,
    ...unsent,
    approvedAt: manualAt,
    createdAt: manualAt,
    updatedAt: manualAt
  })
  const manualChargeId = currentChargeIds.get(MANUALLY_INVOICED_CUSTOMER)?.[manualParking.position - 1] ?? null
  nordhavn.documentLinesFor({ invoiceId: DEMO_IDS.manualInvoice }, manualDocument.lines, [manualChargeId])


  // -- Fjord Offices AS --------------------------------------------------------------------------------------
  const fjordId = DEMO_IDS.secondOrganization
  const fjordRoot = DEMO_IDS.secondRootContext
  const fjord = planBuilder(FIRST_INVOICE_NUMBER.fjord)
  const [fjordInvoiceDraft] = orDie(
    draftDocuments({
      ...lastMonth,
      invoiceDate: lastMonth.periodStart,
      contracts: [withMonth(fjordContract.material, lastMonth)]
    })
  )
  const [fjordProposalDraft] = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: thisMonth.periodStart,
      contracts: [withMonth(fjordContract.material, thisMonth)]
    })
  )
  if (fjordInvoiceDraft === undefined || fjordProposalDraft === undefined) throw new Error("demo catalog: fjord")
  fjord.rows.invoices.push({
    id: DEMO_IDS.secondInvoice,
    organizationId: fjordId,
    invoiceRunId: demoId("run:fjord:last-month"),
    ...documentParty(fjordContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: fjordInvoiceDraft.requestedInvoiceDate,
    requestedDueDate: fjordInvoiceDraft.requestedDueDate,
    paymentTermsDays: fjordInvoiceDraft.paymentTermsDays,
    invoiceNumber: fjord.take(),
    status: "approved",
    totalNetMinorUnits: fjordInvoiceDraft.totals.net,
    totalVatMinorUnits: fjordInvoiceDraft.totals.vat,
    totalGrossMinorUnits: fjordInvoiceDraft.totals.gross,
    ...unsent,
    approvedAt: lastRunApprovedAt,
    createdAt: lastRunCreatedAt,
    updatedAt: lastRunApprovedAt
  })
  fjord.documentLinesFor(
    { invoiceId: DEMO_IDS.secondInvoice },
    fjordInvoiceDraft.lines,
    fjord.chargesFor(fjordContract, lastMonth, fjordInvoiceDraft.lines, lastRunCreatedAt, () => DEMO_IDS.secondInvoice)
  )
  fjord.rows.invoiceProposals.push({
    id: DEMO_IDS.secondProposal,
    organizationId: fjordId,
    invoiceRunId: demoId("run:fjord:current-month"),
    invoiceNumber: fjord.take(),
    ...documentParty(fjordContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: fjordProposalDraft.requestedInvoiceDate,
    requestedDueDate: fjordProposalDraft.requestedDueDate,
    paymentTermsDays: fjordProposalDraft.paymentTermsDays,
    status: "proposed",
    totalNetMinorUnits: fjordProposalDraft.totals.net,
    totalVatMinorUnits: fjordProposalDraft.totals.vat,
    totalGrossMinorUnits: fjordProposalDraft.totals.gross,
    ...notDecided,
    createdAt: currentRunAt,
    updatedAt: currentRunAt
  })
  fjord.documentLinesFor(
    { proposalId: DEMO_IDS.secondProposal },
    fjordProposalDraft.lines,
    fjord.chargesFor(fjordContract, thisMonth, fjordProposalDraft.lines, currentRunAt, () => null)
  )

  const run = (
    id: string,
    organization: string,
    contextId: string,
    period: BillingPeriod,
    createdAt: Date,
    approvedAt: Date
  ): Insertable<InvoiceRunTable> => ({
    id,
    organizationId: organization,
    operationalContextId: contextId,
    ...period,
    status: "approved",
    approvedAt,
    createdAt,
    updatedAt: approvedAt
  })

  const ownCharges = (organization: string, charges: ReadonlyArray<Insertable<ChargeTable>>) =>
    charges.map((charge) => ({ ...charge, organizationId: organization }))

  const plan: DemoBillingPlan = {
    invoiceRuns: [
      run(DEMO_IDS.lastMonthRun, organizationId, root, lastMonth, lastRunCreatedAt, lastRunApprovedAt),
      run(DEMO_IDS.currentMonthRun, organizationId, root, thisMonth, currentRunAt, currentRunAt),
      run(DEMO_IDS.manualRun, organizationId, nordhavnContextId("sthlm"), thisMonth, manualAt, manualAt),
      run(demoId("run:fjord:last-month"), fjordId, fjordRoot, lastMonth, lastRunCreatedAt, lastRunApprovedAt),
      run(demoId("run:fjord:current-month"), fjordId, fjordRoot, thisMonth, currentRunAt, currentRunAt)
    ],
    // Originals before the credit note that references one of them.
    invoices: [...nordhavn.rows.invoices, ...fjord.rows.invoices].sort(
      (a, b) => Number(a.documentKind === "credit-note") - Number(b.documentKind === "credit-note")
    ),
    invoiceProposals: [...nordhavn.rows.invoiceProposals, ...fjord.rows.invoiceProposals],
    charges: [...ownCharges(organizationId, nordhavn.rows.charges), ...ownCharges(fjordId, fjord.rows.charges)],
    documentLines: [...nordhavn.rows.documentLines, ...fjord.rows.documentLines],
    creditReason
  }
  return { plan, nextInvoiceNumber: { nordhavn: nordhavn.used(), fjord: fjord.used() } }
}

/** A new invoice: no caller reference yet, and nothing that report-sent, payments or failures set later. */
const unsent = { externalReference: null, ...unsentInvoiceColumns } as const

/** The columns of a proposal that the verdicts set later: all empty. */
const notDecided = {
  rejectionReason: null,
  passedAt: null,
  rejectedAt: null,
  cancelledAt: null,
  invoiceId: null
} as const
