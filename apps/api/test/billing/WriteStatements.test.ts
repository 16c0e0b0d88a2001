/**
 * Round trips per billing write (issue 27; docs/performance.md, "What each operation asks of the database"): the
 * statements pass, report-payment and the send queue's read send to the database (the send queue's one statement
 * also checked against the two it replaced, page by page), counted from the spans `@propline/db` opens for each
 * statement (`sql.query`) and transaction (`sql.transaction`: its `begin` and `commit`), on PGlite and PostgreSQL.
 * On PostgreSQL a transaction's `begin` travels with its first statement (`@propline/db`'s pipelined begin, whose
 * round trips `packages/db/test/PipelinedBegin.test.ts` counts on the wire), so there a transaction adds one round
 * trip of its own (`commit` or `rollback`), on PGlite two. A change that adds a round trip to one of these paths
 * fails here; one that removes one updates the figures here and in the documentation.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Layer, Tracer } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingScopeRepository } from "../../src/billing/BillingScopeRepository.js"
import { BillingService } from "../../src/billing/BillingService.js"
import { InvoiceRepository } from "../../src/billing/InvoiceRepository.js"
import * as CursorPage from "../../src/platform/CursorPage.js"
import * as Fixtures from "../support/Fixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

/**
 * Runs `effect` with a tracer that also notes each span's name; the round trips it made to the database, a
 * transaction counting `perTransaction` of its own.
 */
const roundTrips = <A, E, R>(effect: Effect.Effect<A, E, R>, perTransaction: number) =>
  Effect.gen(function* () {
    const names: Array<string> = []
    const tracer = yield* Effect.tracer
    const counting = Tracer.make({
      span: (name, ...rest) => {
        names.push(name)
        return tracer.span(name, ...rest)
      },
      context: tracer.context
    })
    const result = yield* effect.pipe(Effect.withTracer(counting), Effect.withTracerEnabled(true))
    const count = (name: string) => names.filter((spanName) => spanName === name).length
    return { result, statements: count("sql.query") + perTransaction * count("sql.transaction") }
  })

describe.each(TestDatabase.kinds())("round trips per billing write on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let principal: PrincipalShape
  // `begin` and `commit` (or `rollback`); on PostgreSQL `begin` goes in the first statement's write.
  const perTransaction = kind === "postgres" ? 1 : 2
  /** `pglite` on PGlite, `postgres` (one fewer: the transaction's `begin`) on PostgreSQL. */
  const expected = (pglite: number) => (kind === "postgres" ? pglite - 1 : pglite)

  const billing = <A, E>(use: (service: BillingService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(roundTrips(Effect.flatMap(BillingService, use), perTransaction).pipe(Effect.provide(BillingService.Default)))

  /** An invoice reported sent with a total of 1,250,000; its id. */
  const sentInvoice = async () => {
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference: `ERP-${randomUUID()}` }))
    await billing((service) =>
      service.reportSent(principal, invoiceId, {
        issuedInvoiceNumber: "F-2026-0001",
        issuedInvoiceDate: "2026-11-20",
        dueDate: "2026-12-20",
        issuedTotalGrossMinorUnits: 1_250_000
      })
    )
    return invoiceId
  }

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Round trips" }))
    principal = Fixtures.billingPrincipal(org, "round-trips")
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("send-queue: 1 (the scope with the page), refused or not", async () => {
    await app.run(Fixtures.approvedInvoice(org, { order: 1 }))
    const page = await billing((service) => service.sendQueue(principal, undefined, 50))
    expect(page.result.items.length).toBeGreaterThan(0)
    expect(page.statements).toBe(1)
    const none = await app.run(Fixtures.organization({ name: "Round trips, no ERP", integration: "none" }))
    const refused = await billing((service) =>
      Effect.either(service.sendQueue({ ...principal, organizationId: none.organizationId, contexts: [none.rootId] }, undefined, 50))
    )
    expect(refused.result._tag).toBe("Left")
    expect(refused.statements).toBe(1)
  })

  it("send-queue: the one statement's pages are the scope's and then the page's (ties, deleted, other contexts and statuses, every limit)", async () => {
    const queued = await app.run(Fixtures.organization({ name: "Round trips, queue" }))
    for (const order of [3, 1, 2, 2, 2, 5]) await app.run(Fixtures.approvedInvoice(queued, { order }))
    await app.run(Fixtures.approvedInvoice(queued, { order: 4, contextId: queued.otherPropertyId }))
    const deleted = await app.run(Fixtures.approvedInvoice(queued, { order: 1 }))
    const sent = await app.run(Fixtures.approvedInvoice(queued, { order: 1 }))
    await app.run(
      Db.query((db) =>
        Promise.all([
          db.updateTable("invoices").set({ deletedAt: Fixtures.NOW }).where("id", "=", deleted).execute(),
          db.updateTable("invoices").set({ status: "sent" }).where("id", "=", sent).execute()
        ])
      )
    )
    const walk = (grantedIds: ReadonlyArray<string>, limit: number, oneStatement: boolean) =>
      Effect.gen(function* () {
        const scopes = yield* BillingScopeRepository
        const target = (yield* InvoiceRepository).sendQueuePage
        const pages: Array<{ readonly ids: ReadonlyArray<string>; readonly cursorAts: ReadonlyArray<string> }> = []
        let after: CursorPage.Position | undefined = undefined
        for (;;) {
          const rows: ReadonlyArray<CursorPage.Keyed<{ readonly id: string }>> = oneStatement
            ? (yield* scopes.integrationAndPage(queued.organizationId, grantedIds, target, after, limit)).rows
            : yield* CursorPage.visiblePageRows({
                ...target,
                organizationId: queued.organizationId,
                contextIds: (yield* scopes.scope(queued.organizationId, grantedIds)).contextIds,
                after,
                limit
              })
          pages.push({ ids: rows.map((row) => row.record.id), cursorAts: rows.map((row) => row.position.at) })
          if (rows.length <= limit) return pages
          after = rows[limit - 1]!.position
        }
      }).pipe(Effect.provide(Layer.mergeAll(BillingScopeRepository.Default, InvoiceRepository.Default)))
    for (const grantedIds of [[queued.rootId], [queued.regionId], [], [org.rootId]]) {
      for (const limit of [1, 2, 3, 50]) {
        const [before, now] = await app.run(Effect.all([walk(grantedIds, limit, false), walk(grantedIds, limit, true)]))
        expect(now).toEqual(before)
      }
    }
    const all = await app.run(walk([queued.rootId], 50, true))
    expect(all[0]!.ids).toHaveLength(7)
  })

  it("pass: 5 on PGlite, 4 on PostgreSQL (begin, scope with the proposal locked, its charges locked with the reference check, invoice with lines, charges, proposal, events and audit, commit)", async () => {
    const proposalId = await app.run(Fixtures.proposal(org))
    const passed = await billing((service) => service.passProposal(principal, proposalId, `ERP-${randomUUID()}`))
    expect(passed.result.proposal.status).toBe("passed")
    expect(passed.statements).toBe(expected(5))
  })

  it("pass refused for a proposal no longer proposed: 3 on PGlite, 2 on PostgreSQL (begin, scope with the proposal locked, rollback)", async () => {
    const proposalId = await app.run(Fixtures.proposal(org))
    await billing((service) => service.passProposal(principal, proposalId, `ERP-${randomUUID()}`))
    const again = await billing((service) => Effect.either(service.passProposal(principal, proposalId, `ERP-${randomUUID()}`)))
    expect(again.result._tag).toBe("Left")
    expect(again.statements).toBe(expected(3))
  })

  it("report-payment: 5 on PGlite, 4 on PostgreSQL (begin, scope with the invoice locked, ledger, payment with the invoice, event and audit, commit)", async () => {
    const invoiceId = await sentInvoice()
    const command = { paymentId: `P-${randomUUID()}`, amountMinorUnits: 100, paidOn: "2026-11-21", currency: "SEK" as const }
    const paid = await billing((service) => service.reportPayment(principal, { invoiceId }, command))
    expect(paid.result.balanceMinorUnits).toBe(1_250_000 - 100)
    expect(paid.statements).toBe(expected(5))

    const replayed = await billing((service) => service.reportPayment(principal, { invoiceId }, command))
    expect(replayed.result.balanceMinorUnits).toBe(1_250_000 - 100)
    expect(replayed.statements).toBe(expected(4))
  })
})
