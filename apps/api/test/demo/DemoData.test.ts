import { describe, expect, it } from "@effect/vitest"
import { lineTotals, vatRatesFor } from "@propline/billing/Money"
import { isLuhnValid } from "@propline/billing/PaymentReference"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either, ManagedRuntime } from "effect"
import { afterAll, beforeAll } from "vitest"
import {
  DEMO_APPLICATION_NAME,
  DEMO_IDS,
  DEMO_ORGANIZATION_NAME,
  SECOND_ORGANIZATION_NAME
} from "../../src/demo/DemoIds.js"
import { type DemoSeed, seedDemoData } from "../../src/demo/DemoData.js"
import { DEMO_LIFE, lastMonthInvoiceId } from "../../src/demo/billing/DemoBillingLife.js"
import { DEMO_CONNECTOR_APP_ID } from "../../src/demo/identity/DemoConnector.js"

/** Frozen: the 22nd of a month, so "last month" is October 2026 and "this month" November 2026. */
const NOW = new Date("2026-11-22T10:00:00.000Z")

// Check digits computed here from the registries' rules, independently of the seeder's own helpers.

/** Swedish organisationsnummer: 10 digits, the last a Luhn check digit over the first nine. */
const isValidSwedishOrganisationNumber = (value: string): boolean => {
  if (!/^\d{10}$/.test(value) || Number(value[2]) < 2) return false
  const sum = [...value].reduce((total, char, index) => {
    const doubled = Number(char) * (index % 2 === 0 ? 2 : 1)
    return total + Math.floor(doubled / 10) + (doubled % 10)
  }, 0)
  return sum % 10 === 0
}

/** Norwegian organisasjonsnummer: 9 digits, the last a MOD11 check digit (weights 3 2 7 6 5 4 3 2). */
const isValidNorwegianOrganisationNumber = (value: string): boolean => {
  if (!/^[89]\d{8}$/.test(value)) return false
  const weights = [3, 2, 7, 6, 5, 4, 3, 2]
  const remainder = weights.reduce((total, weight, index) => total + weight * Number(value[index]), 0) % 11
  const check = remainder === 0 ? 0 : 11 - remainder
  return check !== 10 && check === Number(value[8])
}

const addDaysUtc = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10)

const TABLES = [
  "organizations",
  "operationalContexts",
  "customers",
  "billingAccounts",
  "contracts",
  "contractLines",
  "connectorApps",
  "installations",
  "integrationConfigurations",
  "integrationConfigurationContexts",
  "invoiceRuns",
  "charges",
  "invoiceProposals",
  "invoices",
  "documentLines",
  "applications",
  "applicationContexts",
  "applicationSecrets"
] as const

const countRows = Effect.forEach(TABLES, (table) =>
  Db.query((db) =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow()
  ).pipe(Effect.map((row) => [table, Number(row.count)] as const))
).pipe(Effect.map((entries) => Object.fromEntries(entries)))

describe.each(TestDatabase.kinds())("seedDemoData on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)
  let seeds: ReadonlyArray<DemoSeed>

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    // Two instances starting together on a fresh database: one seeds, the other waits and finds the seed.
    seeds = await run(Effect.all([seedDemoData(NOW), seedDemoData(NOW)], { concurrency: "unbounded" }))
  })
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  describe("seeding", () => {
    it("seeds once when two seeds start together, and both answer the same organizations and Applications", () => {
      expect(seeds.map((seed) => seed.seeded).sort()).toStrictEqual([false, true])
      const [a, b] = seeds
      expect({ ...a, seeded: true }).toStrictEqual({ ...b, seeded: true })
      expect(a?.organizationId).toBe(DEMO_IDS.organization)
      expect(a?.second.organizationId).toBe(DEMO_IDS.secondOrganization)
      expect(a?.clientId).not.toBe(a?.second.clientId)
    })

    it("does not seed again, and answers the same ids", async () => {
      const before = await run(countRows)
      const again = await run(seedDemoData(new Date(NOW.getTime() + 40 * 86_400_000)))
      expect(again).toStrictEqual({ ...seeds[0], seeded: false })
      expect(await run(countRows)).toStrictEqual(before)
    })

    it("holds exactly the two demo organizations", async () => {
      const organizations = await run(
        Db.query((db) => db.selectFrom("organizations").select(["id", "name", "country"]).orderBy("name").execute())
      )
      expect(organizations).toStrictEqual([
        { id: DEMO_IDS.secondOrganization, name: SECOND_ORGANIZATION_NAME, country: "NO" },
        { id: DEMO_IDS.organization, name: DEMO_ORGANIZATION_NAME, country: "SE" }
      ])
    })
  })

  describe("operational contexts", () => {
    it("form a tree: the root, 2 regions (Sverige, Norge), 4 properties, 2 under each region", async () => {
      const contexts = await run(
        Db.query((db) =>
          db
            .selectFrom("operationalContexts")
            .select(["id", "parentId", "kind", "name"])
            .where("organizationId", "=", DEMO_IDS.organization)
            .execute()
        )
      )
      expect(contexts).toHaveLength(7)
      const roots = contexts.filter((context) => context.parentId === null)
      expect(roots).toStrictEqual([
        { id: DEMO_IDS.rootContext, parentId: null, kind: "organization", name: DEMO_ORGANIZATION_NAME }
      ])
      const regions = contexts.filter((context) => context.kind === "region")
      expect(regions.map((region) => region.name).sort()).toStrictEqual(["Norge", "Sverige"])
      for (const region of regions) {
        expect(region.parentId).toBe(DEMO_IDS.rootContext)
        const properties = contexts.filter((context) => context.parentId === region.id)
        expect(properties).toHaveLength(2)
        expect(properties.every((property) => property.kind === "property")).toBe(true)
      }
    })

    it("give the second organization its own small tree", async () => {
      const contexts = await run(
        Db.query((db) =>
          db
            .selectFrom("operationalContexts")
            .select(["kind"])
            .where("organizationId", "=", DEMO_IDS.secondOrganization)
            .execute()
        )
      )
      expect(contexts.map((context) => context.kind).sort()).toStrictEqual(["organization", "property", "region"])
    })
  })

  describe("customers", () => {
    it("number at least 20, companies with valid organisation numbers, private persons without", async () => {
      const customers = await run(
        Db.query((db) =>
          db
            .selectFrom("customers")
            .select(["name", "kind", "country", "organisationNumber"])
            .where("organizationId", "=", DEMO_IDS.organization)
            .execute()
        )
      )
      expect(customers.length).toBeGreaterThanOrEqual(20)
      expect(new Set(customers.map((customer) => customer.country))).toStrictEqual(new Set(["SE", "NO"]))
      const numbers = new Set<string>()
      for (const customer of customers) {
        if (customer.kind === "private") {
          expect(customer.organisationNumber).toBeNull()
          continue
        }
        const number = customer.organisationNumber ?? ""
        const valid =
          customer.country === "SE"
            ? isValidSwedishOrganisationNumber(number)
            : isValidNorwegianOrganisationNumber(number)
        expect(valid, `${customer.name}: ${number}`).toBe(true)
        numbers.add(number)
      }
      expect(customers.filter((customer) => customer.kind === "private").length).toBeGreaterThanOrEqual(1)
      expect(numbers.size).toBe(customers.filter((customer) => customer.kind === "company").length)
    })

    it("the second organization's customer has a valid Norwegian number", async () => {
      const [customer] = await run(
        Db.query((db) =>
          db
            .selectFrom("customers")
            .select(["organisationNumber"])
            .where("organizationId", "=", DEMO_IDS.secondOrganization)
            .execute()
        )
      )
      expect(isValidNorwegianOrganisationNumber(customer?.organisationNumber ?? "")).toBe(true)
    })
  })

  describe("contracts", () => {
    it("bill SEK in Swedish properties and NOK in Norwegian ones, at each country's VAT rates", async () => {
      const rows = await run(
        Db.query((db) =>
          db
            .selectFrom("contracts")
            .innerJoin("operationalContexts as property", "property.id", "contracts.operationalContextId")
            .innerJoin("operationalContexts as region", "region.id", "property.parentId")
            .innerJoin("contractLines", "contractLines.contractId", "contracts.id")
            .select([
              "contracts.id",
              "contracts.currency",
              "contracts.paymentTermsDays",
              "region.name as region",
              "contractLines.vatRateBasisPoints"
            ])
            .where("contracts.organizationId", "=", DEMO_IDS.organization)
            .execute()
        )
      )
      const used = { SE: new Set<number>(), NO: new Set<number>() }
      for (const row of rows) {
        const country = row.region === "Sverige" ? "SE" : "NO"
        expect(row.currency).toBe(country === "SE" ? "SEK" : "NOK")
        expect(vatRatesFor(country)).toContain(row.vatRateBasisPoints)
        used[country].add(row.vatRateBasisPoints)
      }
      expect([...used.SE].sort((a, b) => a - b)).toStrictEqual([0, 600, 1200, 2500])
      expect([...used.NO].sort((a, b) => a - b)).toStrictEqual([0, 1500, 2500])
      const terms = new Set(rows.map((row) => row.paymentTermsDays))
      expect(terms).toStrictEqual(new Set([10, 20, 30]))
      expect(new Set(rows.map((row) => row.id)).size).toBeGreaterThanOrEqual(20)
    })

    it("have one charge per contract line and billed month", async () => {
      const charges = await run(
        Db.query((db) =>
          db
            .selectFrom("charges")
            .innerJoin("contractLines", "contractLines.id", "charges.contractLineId")
            .select([
              "charges.contractLineId",
              "charges.periodStart",
              "charges.contractId",
              "contractLines.contractId as lineContractId",
              "charges.netMinorUnits",
              "contractLines.monthlyNetMinorUnits"
            ])
            .execute()
        )
      )
      const keys = charges.map((charge) => `${charge.contractLineId}/${charge.periodStart}`)
      expect(new Set(keys).size).toBe(keys.length)
      for (const charge of charges) {
        expect(charge.contractId).toBe(charge.lineContractId)
        expect(charge.netMinorUnits).toBe(charge.monthlyNetMinorUnits)
      }
      expect(new Set(charges.map((charge) => charge.periodStart))).toStrictEqual(new Set(["2026-10-01", "2026-11-01"]))
    })
  })

  describe("billing integration", () => {
    it("is the demo connector's billing configuration of the root context, ready with the verification gate, in both organizations", async () => {
      const configurations = await run(
        Db.query((db) =>
          db
            .selectFrom("integrationConfigurations")
            .innerJoin("installations", "installations.id", "integrationConfigurations.installationId")
            .innerJoin("integrationConfigurationContexts", "integrationConfigurationContexts.configurationId", "integrationConfigurations.id")
            .innerJoin("operationalContexts", "operationalContexts.id", "integrationConfigurationContexts.operationalContextId")
            .select([
              "integrationConfigurations.organizationId",
              "integrationConfigurations.kind",
              "integrationConfigurations.status",
              "integrationConfigurations.declaredGates",
              "installations.appId",
              "installations.status as installationStatus",
              "operationalContexts.parentId",
              "integrationConfigurationContexts.filled"
            ])
            .orderBy("integrationConfigurations.organizationId")
            .execute()
        )
      )
      expect(configurations.map((row) => row.organizationId).sort()).toStrictEqual(
        [DEMO_IDS.organization, DEMO_IDS.secondOrganization].sort()
      )
      for (const configuration of configurations) {
        expect(configuration).toMatchObject({
          kind: "billing",
          status: "ready",
          appId: DEMO_CONNECTOR_APP_ID,
          installationStatus: "active",
          parentId: null,
          filled: true
        })
        expect(configuration.declaredGates).toContain("verification")
      }
    })
  })

  describe("send queue (last month's approved run)", () => {
    const approved = () =>
      run(
        Db.query((db) =>
          db
            .selectFrom("invoices")
            .innerJoin("invoiceRuns", "invoiceRuns.id", "invoices.invoiceRunId")
            .selectAll("invoices")
            .select(["invoiceRuns.status as runStatus", "invoiceRuns.periodStart as runPeriodStart"])
            .where("invoices.organizationId", "=", DEMO_IDS.organization)
            .where("invoices.status", "=", "approved")
            .execute()
        )
      )

    it("holds at least 12 approved invoices in SEK and NOK from an approved run for last month", async () => {
      const invoices = await approved()
      const lastMonth = invoices.filter((invoice) => invoice.invoiceRunId === DEMO_IDS.lastMonthRun)
      expect(lastMonth.filter((invoice) => invoice.documentKind === "invoice").length).toBeGreaterThanOrEqual(12)
      expect(new Set(lastMonth.map((invoice) => invoice.currency))).toStrictEqual(new Set(["SEK", "NOK"]))
      for (const invoice of invoices) {
        expect(invoice.runStatus).toBe("approved")
        expect(invoice.approvedAt).toBeInstanceOf(Date)
        expect(invoice.approvedAt?.getTime()).toBeLessThanOrEqual(NOW.getTime())
        expect(invoice.sentAt).toBeNull()
        expect(invoice.externalReference).toBeNull()
      }
      expect(lastMonth.every((invoice) => invoice.runPeriodStart === "2026-10-01")).toBe(true)
    })

    it("gives each invoice a due date of its invoice date plus its payment terms", async () => {
      for (const invoice of (await approved()).filter((row) => row.documentKind === "invoice")) {
        expect(invoice.paymentTermsDays).not.toBeNull()
        expect(invoice.requestedDueDate).toBe(addDaysUtc(invoice.requestedInvoiceDate, invoice.paymentTermsDays ?? -1))
      }
    })

    it("holds a credit note that credits one of the invoices: negative totals, no due date, no terms", async () => {
      const invoices = await approved()
      const creditNotes = invoices.filter((invoice) => invoice.documentKind === "credit-note")
      expect(creditNotes.map((note) => note.id)).toStrictEqual([DEMO_IDS.creditNote])
      const [note] = creditNotes
      // the credited invoice itself was reported sent before it was credited (see DemoLife)
      const credited = await run(
        Db.query((db) =>
          db.selectFrom("invoices").selectAll().where("id", "=", note?.creditedInvoiceId ?? "").executeTakeFirst()
        )
      )
      expect(credited?.id).toBe(DEMO_IDS.creditedInvoice)
      expect(credited?.documentKind).toBe("invoice")
      expect(note).toMatchObject({
        requestedDueDate: null,
        paymentTermsDays: null,
        contractId: credited?.contractId,
        recipientAgentId: credited?.recipientAgentId,
        currency: credited?.currency
      })
      expect(note?.totalNetMinorUnits).toBeLessThan(0)
      expect(note?.totalVatMinorUnits).toBeLessThan(0)
      expect(note?.totalGrossMinorUnits).toBeLessThan(0)
      expect(-(note?.totalGrossMinorUnits ?? 0)).toBeLessThan(credited?.totalGrossMinorUnits ?? 0)
    })

    it("bills every charge of an invoice line to that invoice", async () => {
      const lines = await run(
        Db.query((db) =>
          db
            .selectFrom("documentLines")
            .innerJoin("invoices", "invoices.id", "documentLines.invoiceId")
            .innerJoin("charges", "charges.id", "documentLines.chargeId")
            .select(["invoices.id as invoiceId", "charges.invoiceId as chargeInvoiceId"])
            // a deleted invoice released its charges
            .where("invoices.deletedAt", "is", null)
            .execute()
        )
      )
      expect(lines.length).toBeGreaterThan(0)
      for (const line of lines) expect(line.chargeInvoiceId).toBe(line.invoiceId)
    })
  })

  describe("the ERP's life after start-up (DemoLife)", () => {
    const invoice = (customerKey: string) =>
      run(
        Db.query((db) =>
          db.selectFrom("invoices").selectAll().where("id", "=", lastMonthInvoiceId(customerKey)).executeTakeFirstOrThrow()
        )
      )
    const today = NOW.toISOString().slice(0, 10)

    it("shows a sent invoice with everything report-sent sets, and a payment reference with a valid check digit", async () => {
      const sent = await invoice(DEMO_LIFE.sent)
      expect(sent).toMatchObject({ status: "sent", balanceMinorUnits: sent.totalGrossMinorUnits })
      expect(sent.externalReference).toBe(`FNX-${sent.invoiceNumber}`)
      expect(sent.paymentReferenceType).toBe(sent.currency === "NOK" ? "kid" : "ocr")
      expect(isLuhnValid(sent.paymentReference ?? "")).toBe(true)
      expect(sent.documentUrl).toMatch(/^https:\/\//)
      expect(sent.dueDate! >= today).toBe(true)
    })

    it("shows a partly paid, a paid, an overdue, a written-off and a failed invoice", async () => {
      const partly = await invoice(DEMO_LIFE.partlyPaid)
      expect(partly.status).toBe("sent")
      expect(partly.balanceMinorUnits).toBeGreaterThan(0)
      expect(partly.balanceMinorUnits).toBeLessThan(partly.totalGrossMinorUnits)
      expect(await invoice(DEMO_LIFE.paid)).toMatchObject({ status: "paid", balanceMinorUnits: 0 })
      const overdue = await invoice(DEMO_LIFE.overdue)
      expect(overdue.status).toBe("sent")
      expect(overdue.dueDate! < today).toBe(true)
      expect(await invoice(DEMO_LIFE.writtenOff)).toMatchObject({ status: "written-off", balanceMinorUnits: 0 })
      expect((await invoice(DEMO_LIFE.failed)).status).toBe("failed")
      const ledger = await run(
        Db.query((db) => db.selectFrom("writeOffs").select("invoiceId").execute())
      )
      expect(ledger.map((row) => row.invoiceId)).toContain(lastMonthInvoiceId(DEMO_LIFE.writtenOff))
    })

    it("shows a credited invoice, sent, whose approved credit note waits in the send queue", async () => {
      const credited = await run(
        Db.query((db) => db.selectFrom("invoices").selectAll().where("id", "=", DEMO_IDS.creditedInvoice).executeTakeFirstOrThrow())
      )
      const note = await run(
        Db.query((db) => db.selectFrom("invoices").selectAll().where("id", "=", DEMO_IDS.creditNote).executeTakeFirstOrThrow())
      )
      expect(credited.status).toBe("sent")
      expect(note).toMatchObject({ status: "approved", creditedInvoiceId: DEMO_IDS.creditedInvoice })
    })

    it("keeps a deleted invoice waiting in the withdrawal queue", async () => {
      const deleted = await invoice(DEMO_LIFE.deleted)
      expect(deleted.deletedAt).toBeInstanceOf(Date)
      const withdrawals = await run(Db.query((db) => db.selectFrom("invoiceWithdrawals").selectAll().execute()))
      expect(withdrawals).toHaveLength(1)
      expect(withdrawals[0]).toMatchObject({ invoiceId: deleted.id, status: "pending", invoiceStatus: "approved" })
    })

    it("still holds at least 10 approved invoices in several currencies, 1 credit note and 5 proposals", async () => {
      const approvedRows = await run(
        Db.query((db) =>
          db
            .selectFrom("invoices")
            .select(["documentKind", "currency"])
            .where("organizationId", "=", DEMO_IDS.organization)
            .where("status", "=", "approved")
            .where("deletedAt", "is", null)
            .execute()
        )
      )
      const invoices = approvedRows.filter((row) => row.documentKind === "invoice")
      expect(invoices.length).toBeGreaterThanOrEqual(10)
      expect(new Set(invoices.map((row) => row.currency)).size).toBeGreaterThanOrEqual(2)
      expect(approvedRows.filter((row) => row.documentKind === "credit-note")).toHaveLength(1)
      const proposals = await run(
        Db.query((db) => db.selectFrom("invoiceProposals").select("id").where("status", "=", "proposed").execute())
      )
      expect(proposals.length).toBeGreaterThanOrEqual(5)
    })
  })

  describe("verification queue (this month's run)", () => {
    const proposalsWithCharges = () =>
      run(
        Db.query((db) =>
          db
            .selectFrom("invoiceProposals")
            .innerJoin("documentLines", "documentLines.proposalId", "invoiceProposals.id")
            .innerJoin("charges", "charges.id", "documentLines.chargeId")
            .select(["invoiceProposals.id", "invoiceProposals.status", "charges.invoiceId"])
            .where("invoiceProposals.organizationId", "=", DEMO_IDS.organization)
            .execute()
        )
      )

    it("holds at least 5 proposed proposals whose charges are not yet invoiced", async () => {
      const rows = await proposalsWithCharges()
      const clean = new Set(rows.map((row) => row.id))
      for (const row of rows) if (row.invoiceId !== null) clean.delete(row.id)
      expect(rows.every((row) => row.status === "proposed")).toBe(true)
      expect(clean.size).toBeGreaterThanOrEqual(5)
    })

    it("holds one proposal whose parking charge another (manual) invoice already billed", async () => {
      const rows = await proposalsWithCharges()
      const doubleBilled = rows.filter((row) => row.invoiceId !== null)
      expect(doubleBilled).toStrictEqual([
        { id: DEMO_IDS.doubleBilledProposal, status: "proposed", invoiceId: DEMO_IDS.manualInvoice }
      ])
      const manual = await run(
        Db.query((db) =>
          db
            .selectFrom("invoices")
            .select(["status", "contractId", "invoiceRunId"])
            .where("id", "=", DEMO_IDS.manualInvoice)
            .executeTakeFirstOrThrow()
        )
      )
      const proposal = await run(
        Db.query((db) =>
          db
            .selectFrom("invoiceProposals")
            .select(["contractId", "invoiceRunId", "invoiceId"])
            .where("id", "=", DEMO_IDS.doubleBilledProposal)
            .executeTakeFirstOrThrow()
        )
      )
      expect(manual.status).toBe("approved")
      expect(manual.contractId).toBe(proposal.contractId)
      expect(manual.invoiceRunId).not.toBe(proposal.invoiceRunId)
      expect(proposal.invoiceId).toBeNull()
    })

    it("proposals of this month's run have requested dates and terms", async () => {
      const proposals = await run(
        Db.query((db) =>
          db.selectFrom("invoiceProposals").selectAll().where("invoiceRunId", "=", DEMO_IDS.currentMonthRun).execute()
        )
      )
      for (const proposal of proposals) {
        expect(proposal.requestedInvoiceDate).toBe("2026-11-01")
        expect(proposal.requestedDueDate).toBe(addDaysUtc("2026-11-01", proposal.paymentTermsDays ?? -1))
        expect(proposal.invoiceNumber).not.toBeNull()
      }
    })
  })

  describe("documents", () => {
    it("totals of every document equal the sums of its lines; net + vat = gross; VAT per line", async () => {
      const documents = await run(
        Effect.all({
          invoices: Db.query((db) =>
            db
              .selectFrom("invoices")
              .select(["id", "currency", "totalNetMinorUnits", "totalVatMinorUnits", "totalGrossMinorUnits"])
              .execute()
          ),
          proposals: Db.query((db) =>
            db
              .selectFrom("invoiceProposals")
              .select(["id", "currency", "totalNetMinorUnits", "totalVatMinorUnits", "totalGrossMinorUnits"])
              .execute()
          ),
          lines: Db.query((db) => db.selectFrom("documentLines").selectAll().execute())
        })
      )
      const all = [...documents.invoices, ...documents.proposals]
      expect(all.length).toBe(documents.invoices.length + documents.proposals.length)
      for (const document of all) {
        const lines = documents.lines.filter((line) => (line.invoiceId ?? line.proposalId) === document.id)
        expect(lines.length, document.id).toBeGreaterThan(0)
        expect(lines.map((line) => line.position).sort((a, b) => a - b)).toStrictEqual(lines.map((_, i) => i + 1))
        const sum = (pick: (line: (typeof lines)[number]) => number) => lines.reduce((t, line) => t + pick(line), 0)
        expect(document.totalNetMinorUnits).toBe(sum((line) => line.netMinorUnits))
        expect(document.totalVatMinorUnits).toBe(sum((line) => line.vatMinorUnits))
        expect(document.totalGrossMinorUnits).toBe(sum((line) => line.grossMinorUnits))
        expect(document.totalNetMinorUnits + document.totalVatMinorUnits).toBe(document.totalGrossMinorUnits)
        const country = document.currency === "SEK" ? "SE" : "NO"
        for (const line of lines) {
          expect(vatRatesFor(country)).toContain(line.vatRateBasisPoints)
          expect(line.netMinorUnits + line.vatMinorUnits).toBe(line.grossMinorUnits)
          expect(Either.getOrThrow(lineTotals(line.netMinorUnits, line.vatRateBasisPoints)).vat).toBe(
            line.vatMinorUnits
          )
        }
      }
    })

    it("invoice numbers are unique per organization across invoices and proposals, below the counter", async () => {
      const rows = await run(
        Effect.all({
          organizations: Db.query((db) => db.selectFrom("organizations").select(["id", "nextInvoiceNumber"]).execute()),
          invoices: Db.query((db) => db.selectFrom("invoices").select(["organizationId", "invoiceNumber"]).execute()),
          proposals: Db.query((db) =>
            db.selectFrom("invoiceProposals").select(["organizationId", "invoiceNumber"]).execute()
          )
        })
      )
      for (const organization of rows.organizations) {
        const numbers = [...rows.invoices, ...rows.proposals]
          .filter((row) => row.organizationId === organization.id)
          .map((row) => row.invoiceNumber as number)
        expect(new Set(numbers).size).toBe(numbers.length)
        expect(Math.max(...numbers)).toBe(organization.nextInvoiceNumber - 1)
      }
    })

    it("the second organization has one approved invoice and one proposal", async () => {
      const counts = await run(
        Effect.all({
          invoices: Db.query((db) =>
            db
              .selectFrom("invoices")
              .select(["id", "status"])
              .where("organizationId", "=", DEMO_IDS.secondOrganization)
              .execute()
          ),
          proposals: Db.query((db) =>
            db
              .selectFrom("invoiceProposals")
              .select(["id", "status"])
              .where("organizationId", "=", DEMO_IDS.secondOrganization)
              .execute()
          )
        })
      )
      expect(counts.invoices).toStrictEqual([{ id: DEMO_IDS.secondInvoice, status: "approved" }])
      expect(counts.proposals).toStrictEqual([{ id: DEMO_IDS.secondProposal, status: "proposed" }])
    })
  })

  describe("demo Applications", () => {
    it("one per organization, billing, booking and signing roles, granted the organization's root context", async () => {
      const seed = seeds[0] as DemoSeed
      for (const [tenant, root] of [
        [seed, DEMO_IDS.rootContext],
        [seed.second, DEMO_IDS.secondRootContext]
      ] as const) {
        const application = await run(
          Db.query((db) =>
            db
              .selectFrom("applications")
              .select(["id", "clientId", "name", "roles", "status", "organizationId"])
              .where("id", "=", tenant.applicationId)
              .executeTakeFirstOrThrow()
          )
        )
        expect({ ...application, roles: [...application.roles].sort() }).toStrictEqual({
          id: tenant.applicationId,
          clientId: tenant.clientId,
          name: DEMO_APPLICATION_NAME,
          roles: ["billing", "booking", "signing"],
          status: "active",
          organizationId: tenant.organizationId
        })
        const contexts = await run(
          Db.query((db) =>
            db
              .selectFrom("applicationContexts")
              .select("operationalContextId")
              .where("applicationId", "=", tenant.applicationId)
              .execute()
          )
        )
        expect(contexts).toStrictEqual([{ operationalContextId: root }])
      }
    })

    it("a disabled demo Application is made again on the next start", async () => {
      const seed = seeds[0] as DemoSeed
      await run(
        Db.query((db) =>
          db
            .updateTable("applications")
            .set({ status: "disabled", disabledAt: NOW })
            .where("id", "=", seed.second.applicationId)
            .execute()
        )
      )
      const again = await run(seedDemoData(NOW))
      expect(again.seeded).toBe(false)
      expect(again.applicationId).toBe(seed.applicationId)
      expect(again.second.applicationId).not.toBe(seed.second.applicationId)
      expect(again.second.organizationId).toBe(DEMO_IDS.secondOrganization)
    })
  })
})

describe.each(TestDatabase.kinds())("seedDemoData on a database of another tenant, on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
  })
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  it("refuses with DemoOrganizationMissing and leaves the database as it was", async () => {
    await managed.runPromise(
      Db.query((db) =>
        db
          .insertInto("organizations")
          .values({
            id: "00000000-0000-4000-8000-00000000000a",
            name: "Real AB",
            country: "SE",
            createdAt: NOW,
            updatedAt: NOW
          })
          .execute()
      )
    )
    const error = await managed.runPromise(Effect.flip(seedDemoData(NOW)))
    expect(error._tag).toBe("DemoOrganizationMissing")
    expect(error.organizationName).toBe(DEMO_ORGANIZATION_NAME)
    const organizations = await managed.runPromise(
      Db.query((db) => db.selectFrom("organizations").select("name").execute())
    )
    expect(organizations).toStrictEqual([{ name: "Real AB" }])
  })
})
