/**
 * The console's invoice-run and proposal pages over the admin API, black box, on PGlite and PostgreSQL (issue 25,
 * items 2 and 3): a run's page counts its documents per status and names the other runs of its context and period;
 * a run action's counts are the run's documents after it (an approval of a run whose invoices were approved one by
 * one said "0 invoices, 0 proposals"), with how many it changed and a duplicate run counted; an empty run is
 * recognizable; a proposal's page; another organization's ids and malformed ids are 404 and 400.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, operator, type Session, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

const JANUARY = { periodStart: "2027-01-01", periodEnd: "2027-01-31", invoiceDate: "2027-01-01" }

describe.each(TestDatabase.kinds())("the console's invoice-run and proposal pages on %s", (kind) => {
  let app: TestApp
  let plain: Fixtures.OrganizationFixture
  let gated: Fixtures.OrganizationFixture
  let session: Session
  let gatedSession: Session

  const url = (path: string) => `${app.adminUrl}${path}`
  const post = (path: string, body?: unknown, as: Session = session) => adminCall(url(path), as, { method: "POST", ...(body === undefined ? {} : { body }) })
  const get = (path: string, as: Session = session) => adminCall(url(path), as)

  beforeAll(async () => {
    app = await start(kind)
    plain = await app.run(Fixtures.organization({ name: "Nordhavn", integration: { gates: [] } }))
    gated = await app.run(Fixtures.organization({ name: "Fjord", integration: { gates: ["verification"] } }))
    await app.run(
      Db.query((db) =>
        db
          .insertInto("contractLines")
          .values(
            [plain.contractId, gated.contractId].map((contractId) => ({
              id: randomUUID(),
              contractId,
              description: "Office",
              monthlyNetMinorUnits: 900_000,
              vatRateBasisPoints: 2500,
              createdAt: Fixtures.NOW
            }))
          )
          .execute()
      ).pipe(Effect.orDie)
    )
    session = await signIn(app.adminUrl, await app.run(operator(plain.organizationId)))
    gatedSession = await signIn(app.adminUrl, await app.run(operator(gated.organizationId)))
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  let runId: string
  let emptyRunId: string

  it("creates a run: its counts are the run's documents, and what it drafted", async () => {
    const created = await post("/api/billing/invoice-runs", { operationalContextId: plain.rootId, ...JANUARY })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ invoiceCount: 1, proposalCount: 0, changedCount: 1, samePeriodRunCount: 0 })
    runId = created.body.run.id
  })

  it("a second run for the same context and period is empty and counted as a duplicate, on both runs", async () => {
    const again = await post("/api/billing/invoice-runs", { operationalContextId: plain.rootId, ...JANUARY })
    expect(again.status).toBe(201)
    expect(again.body).toMatchObject({ invoiceCount: 0, proposalCount: 0, changedCount: 0, samePeriodRunCount: 1 })
    emptyRunId = again.body.run.id
    const page = await get(`/api/billing/invoice-runs/${emptyRunId}`)
    expect(page.status).toBe(200)
    expect(page.body.run).toMatchObject({ id: emptyRunId, invoiceCount: 0, proposalCount: 0, samePeriodRunCount: 1, operationalContextName: expect.any(String) })
    expect(page.body.invoicesByStatus).toEqual([])
    expect(page.body.samePeriodRuns.map((run: { id: string }) => run.id)).toEqual([runId])
    const list = await get("/api/billing/invoice-runs?limit=100")
    const first = list.body.items.find((run: { id: string }) => run.id === runId)
    expect(first).toMatchObject({ invoiceCount: 1, samePeriodRunCount: 1 })
  })

  it("a run's page counts its invoices per status", async () => {
    const page = await get(`/api/billing/invoice-runs/${runId}`)
    expect(page.body.invoicesByStatus).toEqual([{ status: "created", count: 1 }])
    expect(page.body.proposalsByStatus).toEqual([])
  })

  it("approving a run whose invoice was approved alone still counts the run's invoice, and approves none now", async () => {
    const invoiceId = (await get(`/api/billing/invoices?invoiceRunId=${runId}`)).body.items[0].id as string
    expect((await post(`/api/billing/invoices/${invoiceId}/approve`)).status).toBe(200)
    const approved = await post(`/api/billing/invoice-runs/${runId}/approve`)
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({ run: { id: runId, status: "approved" }, invoiceCount: 1, proposalCount: 0, changedCount: 0 })
    const page = await get(`/api/billing/invoice-runs/${runId}`)
    expect(page.body.run).toMatchObject({ status: "approved", approvedAt: expect.any(String) })
    expect(page.body.invoicesByStatus).toEqual([{ status: "approved", count: 1 }])
  })

  it("a gated run counts its proposals; a proposal's page shows it", async () => {
    const created = await post("/api/billing/invoice-runs", { operationalContextId: gated.rootId, ...JANUARY }, gatedSession)
    expect(created.body).toMatchObject({ invoiceCount: 0, proposalCount: 1, changedCount: 1 })
    const page = await get(`/api/billing/invoice-runs/${created.body.run.id}`, gatedSession)
    expect(page.body.proposalsByStatus).toEqual([{ status: "proposed", count: 1 }])
    const proposals = await get(`/api/billing/invoice-proposals?invoiceRunId=${created.body.run.id}`, gatedSession)
    const proposalId = proposals.body.items[0].id as string
    const proposal = await get(`/api/billing/invoice-proposals/${proposalId}`, gatedSession)
    expect(proposal.status).toBe(200)
    expect(proposal.body).toMatchObject({ id: proposalId, invoiceRunId: created.body.run.id, status: "proposed" })
    // Another organization's run and proposal are 404.
    expect((await get(`/api/billing/invoice-proposals/${proposalId}`)).status).toBe(404)
    expect((await get(`/api/billing/invoice-runs/${created.body.run.id}`)).status).toBe(404)
  })

  it("answers 404 for an unknown id and 400 VALIDATION_FAILED for a malformed one; 401 without a session", async () => {
    expect((await get(`/api/billing/invoice-runs/${randomUUID()}`)).status).toBe(404)
    expect((await get(`/api/billing/invoice-proposals/${randomUUID()}`)).status).toBe(404)
    const malformed = await get("/api/billing/invoice-runs/not-a-uuid")
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("VALIDATION_FAILED")
    expect((await fetch(url(`/api/billing/invoice-runs/${runId}`))).status).toBe(401)
  })
})
