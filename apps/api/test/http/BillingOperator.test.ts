/**
 * The operator's billing actions (decisions 1, 5) on PGlite and PostgreSQL: invoice runs (create, continue,
 * approve), approving an invoice, cancelling a proposal and crediting — called as the admin console will call
 * them, with every refusal code they answer — and what the ERP connector then sees over HTTP (send and
 * verification queues, a credit note sent and refunded).
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingOperatorService } from "../../src/billing/BillingOperatorService.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const OPERATOR = { type: "operator", id: "test-operator" } as const
const DECEMBER = { periodStart: "2026-12-01", periodEnd: "2026-12-31", invoiceDate: "2026-12-01" }

describe.each(TestDatabase.kinds())("the operator's billing actions on %s", (kind) => {
  let app: TestApp
  let plain: Fixtures.OrganizationFixture
  let gated: Fixtures.OrganizationFixture
  let plainToken: string
  let gatedToken: string

  const url = (path: string) => `${app.apiUrl}${path}`
  const operator = <A, E>(use: (service: BillingOperatorService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(Effect.flatMap(BillingOperatorService, use).pipe(Effect.provide(BillingOperatorService.Default)))
  /** The refusal's code, or "ok". */
  const codeOf = <A, E>(use: (service: BillingOperatorService) => Effect.Effect<A, E, Db.Db>) =>
    operator((service) => Effect.either(use(service))).then((result) =>
      Either.isRight(result) ? "ok" : String((result.left as { code?: string }).code ?? (result.left as { _tag?: string })._tag)
    )
  const addLines = (contractId: string, lines: ReadonlyArray<readonly [string, number, number]>) =>
    app.run(
      Db.query((db) =>
        db
          .insertInto("contractLines")
          .values(
            lines.map(([description, monthlyNetMinorUnits, vatRateBasisPoints]) => ({
              id: randomUUID(),
              contractId,
              description,
              monthlyNetMinorUnits,
              vatRateBasisPoints,
              createdAt: Fixtures.NOW
            }))
          )
          .execute()
      )
    )
  const addContract = (org: Fixtures.OrganizationFixture, number: string) =>
    app.run(
      Db.query(async (db) => {
        const id = randomUUID()
        await db
          .insertInto("contracts")
          .values({
            id,
            organizationId: org.organizationId,
            operationalContextId: org.propertyId,
            customerId: org.customerId,
            billingAccountId: org.billingAccountId,
            contractNumber: number,
            currency: "SEK",
            paymentTermsDays: 20,
            startsOn: "2026-01-01",
            endsOn: null,
            status: "active",
            createdAt: Fixtures.NOW,
            updatedAt: Fixtures.NOW
          })
          .execute()
        return id
      })
    )

  beforeAll(async () => {
    app = await start(kind)
    plain = await app.run(Fixtures.organization({ name: "Nordhavn", integration: { gates: [] } }))
    gated = await app.run(Fixtures.organization({ name: "Fjord" }))
    await addLines(plain.contractId, [["Office rent", 1_000_000, 2500], ["Coffee", 10_000, 1200]])
    await addLines(gated.contractId, [["Desk", 400_000, 2500]])
    const plainApp = await app.run(Fixtures.application(plain))
    const gatedApp = await app.run(Fixtures.application(gated))
    plainToken = await token(app.authUrl, plainApp.clientId, plainApp.secret)
    gatedToken = await token(app.authUrl, gatedApp.clientId, gatedApp.secret)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("invoice runs: create, continue, approve", () => {
    it("bills each contract once per period, continues with new contracts, and approves into the send queue", async () => {
      const created = await operator((service) =>
        service.createInvoiceRun(plain.organizationId, OPERATOR, { operationalContextId: plain.rootId, ...DECEMBER })
      )
      expect(created.run.status).toBe("draft")
      expect(created.invoices).toHaveLength(1)
      expect(created.invoices[0]).toMatchObject({
        status: "created",
        contractId: plain.contractId,
        totalNetMinorUnits: 1_010_000,
        totalVatMinorUnits: 251_200,
        totalGrossMinorUnits: 1_261_200,
        requestedDueDate: "2026-12-31"
      })

      const twice = await operator((service) =>
        service.createInvoiceRun(plain.organizationId, OPERATOR, { operationalContextId: plain.rootId, ...DECEMBER })
      )
      expect(twice.invoices).toHaveLength(0)

      const newContract = await addContract(plain, `K-${kind}-2`)
      await addLines(newContract, [["Storage", 50_000, 2500]])
      const continued = await operator((service) =>
        service.continueInvoiceRun(plain.organizationId, OPERATOR, created.run.id, { invoiceDate: "2026-12-02" })
      )
      expect(continued.invoices.map((invoice) => invoice.contractId)).toStrictEqual([newContract])

      const approved = await operator((service) => service.approveInvoiceRun(plain.organizationId, OPERATOR, created.run.id))
      expect(approved.run.status).toBe("approved")
      expect(approved.invoices.map((invoice) => invoice.status)).toStrictEqual(["approved", "approved"])
      const queue = await call(url("/v1/billing/send-queue?limit=100"), { token: plainToken })
      const ids = queue.body.items.map((item: { id: string }) => item.id)
      for (const invoice of approved.invoices) expect(ids).toContain(invoice.id)

      expect(await codeOf((service) => service.approveInvoiceRun(plain.organizationId, OPERATOR, created.run.id))).toBe(
        "BILLING_INVOICE_RUN_NOT_CONTINUABLE"
      )
      expect(
        await codeOf((service) =>
          service.continueInvoiceRun(plain.organizationId, OPERATOR, created.run.id, { invoiceDate: "2026-12-02" })
        )
      ).toBe("BILLING_INVOICE_RUN_NOT_CONTINUABLE")
    })

    it("makes proposals when the integration declared the verification gate; the caller can pass them", async () => {
      const created = await operator((service) =>
        service.createInvoiceRun(gated.organizationId, OPERATOR, { operationalContextId: gated.rootId, ...DECEMBER })
      )
      expect(created.proposals).toHaveLength(1)
      const proposalId = created.proposals[0]!.id
      const queue = await call(url("/v1/billing/verification-queue?limit=100"), { token: gatedToken })
      expect(queue.body.items.map((item: { id: string }) => item.id)).toContain(proposalId)
      const passed = await call(url(`/v1/billing/invoice-proposals/${proposalId}/pass`), {
        token: gatedToken,
        body: { externalReference: `RUN-${kind}` }
      })
      expect(passed.status).toBe(201)
      expect(passed.body.invoice).toMatchObject({ status: "approved", totalGrossMinorUnits: 500_000 })
    })

    it("refuses a period that is not whole months with VALIDATION_FAILED, and an unknown context with 404", async () => {
      expect(
        await codeOf((service) =>
          service.createInvoiceRun(plain.organizationId, OPERATOR, {
            operationalContextId: plain.rootId,
            ...DECEMBER,
            periodStart: "2026-12-02"
          })
        )
      ).toBe("VALIDATION_FAILED")
      expect(
        await codeOf((service) =>
          service.createInvoiceRun(plain.organizationId, OPERATOR, { operationalContextId: gated.rootId, ...DECEMBER })
        )
      ).toBe("RecordNotFound")
    })
  })

  describe("approve an invoice, cancel a proposal", () => {
    it("approves a created invoice once; a second approval is BILLING_INVOICE_STATUS_INVALID", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(plain))
      await app.run(Db.query((db) => db.updateTable("invoices").set({ status: "created", approvedAt: null }).where("id", "=", invoiceId).execute()))
      const approved = await operator((service) => service.approveInvoice(plain.organizationId, OPERATOR, invoiceId))
      expect(approved.status).toBe("approved")
      expect(await codeOf((service) => service.approveInvoice(plain.organizationId, OPERATOR, invoiceId))).toBe(
        "BILLING_INVOICE_STATUS_INVALID"
      )
      expect(await codeOf((service) => service.approveInvoice(gated.organizationId, OPERATOR, invoiceId))).toBe("RecordNotFound")
    })

    it("cancels a proposed proposal once; it leaves the verification queue", async () => {
      const proposalId = await app.run(Fixtures.proposal(gated))
      const cancelled = await operator((service) => service.cancelProposal(gated.organizationId, OPERATOR, proposalId))
      expect(cancelled.status).toBe("cancelled")
      const queue = await call(url("/v1/billing/verification-queue?limit=100"), { token: gatedToken })
      expect(queue.body.items.map((item: { id: string }) => item.id)).not.toContain(proposalId)
      expect(await codeOf((service) => service.cancelProposal(gated.organizationId, OPERATOR, proposalId))).toBe(
        "BILLING_PROPOSAL_STATUS_INVALID"
      )
    })

    it("refuses to delete a sent invoice (credit it instead) with BILLING_INVOICE_STATUS_INVALID", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(plain))
      await app.run(Db.query((db) => db.updateTable("invoices").set({ status: "sent" }).where("id", "=", invoiceId).execute()))
      expect(await codeOf((service) => service.deleteInvoice(plain.organizationId, OPERATOR, invoiceId))).toBe(
        "BILLING_INVOICE_STATUS_INVALID"
      )
    })
  })

  describe("credit an invoice", () => {
    /** A run invoice of `plain` for `month`, approved and reported sent over HTTP; its id and lines. */
    const sentRunInvoice = async (month: string) => {
      const contract = await addContract(plain, `K-${kind}-${month}`)
      await addLines(contract, [["Office rent", 1_000_000, 2500], ["Parking", 200_000, 2500]])
      const [year, mm] = month.split("-")
      const last = new Date(Date.UTC(Number(year), Number(mm), 0)).getUTCDate()
      const run = await operator((service) =>
        service.createInvoiceRun(plain.organizationId, OPERATOR, {
          operationalContextId: plain.propertyId,
          periodStart: `${month}-01`,
          periodEnd: `${month}-${last}`,
          invoiceDate: `${month}-01`
        })
      )
      await operator((service) => service.approveInvoiceRun(plain.organizationId, OPERATOR, run.run.id))
      const invoice = run.invoices.find((candidate) => candidate.contractId === contract)!
      const sent = await call(url(`/v1/billing/invoices/${invoice.id}/report-sent`), {
        token: plainToken,
        body: { issuedInvoiceNumber: `F-${month}`, issuedInvoiceDate: "2026-11-20", dueDate: "2026-12-20", issuedTotalGrossMinorUnits: 1_500_000 }
      })
      expect(sent.status).toBe(201)
      const lines = await app.run(
        Db.query((db) => db.selectFrom("documentLines").select(["id", "description"]).where("invoiceId", "=", invoice.id).execute())
      )
      // [rent, parking]: lines of one contract created at one instant are ordered by id, so find them by name
      const idOf = (description: string) => lines.find((line) => line.description === description)!.id
      return { invoiceId: invoice.id, lineIds: [idOf("Office rent"), idOf("Parking")] }
    }

    it("credits in full: an approved credit note in the send queue, which the ERP sends and refunds", async () => {
      const { invoiceId } = await sentRunInvoice("2027-01")
      const command = { creditActId: `ACT-${kind}-1`, invoiceId, reason: "Wrong tenant", invoiceDate: "2026-11-21", scope: { kind: "full" } } as const
      const note = await operator((service) => service.creditInvoice(plain.organizationId, OPERATOR, command))
      expect(note).toMatchObject({ documentKind: "credit-note", creditedInvoiceId: invoiceId, status: "approved", totalGrossMinorUnits: -1_500_000 })

      const replay = await operator((service) => service.creditInvoice(plain.organizationId, OPERATOR, command))
      expect(replay.id).toBe(note.id)
      expect(await codeOf((service) => service.creditInvoice(plain.organizationId, OPERATOR, { ...command, reason: "Other" }))).toBe(
        "BILLING_CREDIT_ACT_REPLAY_MISMATCH"
      )
      expect(
        await codeOf((service) => service.creditInvoice(plain.organizationId, OPERATOR, { ...command, creditActId: `ACT-${kind}-2` }))
      ).toBe("BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE")

      const queue = await call(url("/v1/billing/send-queue?limit=100"), { token: plainToken })
      expect(queue.body.items.find((item: { id: string }) => item.id === note.id)).toMatchObject({
        documentKind: "credit-note",
        creditedInvoiceId: invoiceId
      })
      const sent = await call(url(`/v1/billing/invoices/${note.id}/report-sent`), {
        token: plainToken,
        body: { issuedInvoiceNumber: "K-1", issuedInvoiceDate: "2026-11-21", issuedTotalGrossMinorUnits: -1_500_000 }
      })
      expect(sent.status).toBe(201)
      expect(sent.body.dueDate).toBeUndefined()
      const refund = await call(url(`/v1/billing/invoices/${note.id}/report-payment`), {
        token: plainToken,
        body: { paymentId: "REFUND-1", amountMinorUnits: -1_500_000, paidOn: "2026-11-22" }
      })
      expect(refund.body).toMatchObject({ status: "paid", balanceMinorUnits: 0 })
      const wrongSign = await call(url(`/v1/billing/invoices/${note.id}/report-payment`), {
        token: plainToken,
        body: { paymentId: "REFUND-2", amountMinorUnits: 1, paidOn: "2026-11-22" }
      })
      expect(wrongSign.body.code).toBe("BILLING_PAYMENT_AMOUNT_INVALID")
    })

    it("credits by lines, and refuses what exceeds a line, the invoice, or the country's VAT rates", async () => {
      const { invoiceId, lineIds } = await sentRunInvoice("2027-02")
      const base = { invoiceId, reason: "Parking closed", invoiceDate: "2026-11-21" }
      const byLines = (creditActId: string, lines: ReadonlyArray<{ lineId: string; netMinorUnits: number }>, manualLines: ReadonlyArray<{ description: string; netMinorUnits: number; vatRateBasisPoints: number }> = []) =>
        ({ ...base, creditActId, scope: { kind: "lines", lines, manualLines } }) as const

      const part = await operator((service) =>
        service.creditInvoice(plain.organizationId, OPERATOR, byLines(`L-${kind}-1`, [{ lineId: lineIds[1]!, netMinorUnits: 150_000 }]))
      )
      expect(part).toMatchObject({ totalNetMinorUnits: -150_000, totalGrossMinorUnits: -187_500 })
      expect(
        await codeOf((service) =>
          service.creditInvoice(plain.organizationId, OPERATOR, byLines(`L-${kind}-2`, [{ lineId: lineIds[1]!, netMinorUnits: 50_001 }]))
        )
      ).toBe("BILLING_CREDIT_EXCEEDS_LINE")
      expect(
        await codeOf((service) =>
          service.creditInvoice(
            plain.organizationId,
            OPERATOR,
            byLines(`L-${kind}-3`, [], [{ description: "Goodwill", netMinorUnits: 1_000, vatRateBasisPoints: 1500 }])
          )
        )
      ).toBe("BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN")
      expect(
        await codeOf((service) =>
          service.creditInvoice(
            plain.organizationId,
            OPERATOR,
            byLines(`L-${kind}-4`, [{ lineId: lineIds[0]!, netMinorUnits: 1_000_000 }], [{ description: "Goodwill", netMinorUnits: 100_000, vatRateBasisPoints: 2500 }])
          )
        )
      ).toBe("BILLING_CREDIT_EXCEEDS_INVOICE")
      expect(
        await codeOf((service) =>
          service.creditInvoice(plain.organizationId, OPERATOR, byLines(`L-${kind}-5`, [{ lineId: randomUUID(), netMinorUnits: 1 }]))
        )
      ).toBe("VALIDATION_FAILED")
    })

    it("refuses to credit an invoice that was not sent with BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE", async () => {
      const invoiceId = await app.run(Fixtures.approvedInvoice(plain))
      expect(
        await codeOf((service) =>
          service.creditInvoice(plain.organizationId, OPERATOR, {
            creditActId: `NS-${kind}`,
            invoiceId,
            reason: "x",
            invoiceDate: "2026-11-21",
            scope: { kind: "full" }
          })
        )
      ).toBe("BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE")
    })
  })
})
