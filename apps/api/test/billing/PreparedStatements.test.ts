/**
 * The billing write paths' statements compiled once (issue 27, `Sql.prepare` / `Sql.preparedByShape`): pass's and
 * report-payment's scope with the locked row, the ledger read, pass's facts and both writes. For every shape, the
 * text and parameters a call sends are those kysely compiles from the same `sql` template given the call's values;
 * and the reads answer the rows `Sql.rows` answers for the template built per call, on PGlite and PostgreSQL.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { createQueryId, PostgresQueryCompiler, type RawBuilder } from "kysely"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type LockTarget,
  scopeLockingPrepared,
  scopeLockingStatement
} from "../../src/billing/BillingScopeRepository.js"
import { BillingService } from "../../src/billing/BillingService.js"
import {
  InvoiceRepository,
  insertFromProposalPrepared,
  insertFromProposalStatement,
  PASS_FACTS,
  passFactsStatement
} from "../../src/billing/InvoiceRepository.js"
import { LEDGER, ledgerStatement, recordPaymentPrepared, recordPaymentStatement } from "../../src/billing/LedgerRepository.js"
import { ProposalRepository } from "../../src/billing/ProposalRepository.js"
import * as Sql from "../../src/platform/Sql.js"
import * as Fixtures from "../support/Fixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

const compile = (builder: RawBuilder<unknown>) =>
  new PostgresQueryCompiler().compileQuery(builder.toOperationNode(), createQueryId())

/** What kysely sends for `builder`, and what the prepared `statement` sends for `args`: equal. */
const expectSame = <Args extends ReadonlyArray<unknown>, Row>(
  statement: Db.PreparedStatement<Args, Row>,
  args: Args,
  builder: RawBuilder<unknown>
) => {
  const ours = Db.compiledWith(statement, args)
  const kysely = compile(builder)
  expect(ours.sql).toBe(kysely.sql)
  expect(ours.parameters).toEqual(kysely.parameters)
  expect(ours.parameters.length).toBeGreaterThanOrEqual(args.length)
}

/** `count` distinct values of the kinds the statements send: text (quotes included), dates, numbers, nulls. */
const values = (count: number): Array<unknown> =>
  Array.from({ length: count }, (_, index) =>
    [`it's ${index} $1`, new Date(Date.UTC(2026, 10, 1 + (index % 28), index % 24)), index * 7 - 3, null][index % 4]
  )

const targets = Effect.gen(function* () {
  const invoices = yield* InvoiceRepository
  const proposals = yield* ProposalRepository
  return [invoices.lockTarget, invoices.lockTargetByExternalReference, proposals.lockTarget] as ReadonlyArray<
    LockTarget<{ readonly id: string }>
  >
}).pipe(Effect.provide([InvoiceRepository.Default, ProposalRepository.Default]))

describe("the billing writes' prepared statements", () => {
  it("send kysely's text and parameters for the scope with the locked row, for any number of granted contexts", async () => {
    for (const target of await Effect.runPromise(targets)) {
      for (const count of [0, 1, 2, 5]) {
        const granted = Array.from({ length: count }, () => randomUUID())
        const organizationId = randomUUID()
        const key = `ERP-'${randomUUID()}`
        expectSame(
          scopeLockingPrepared(target, count),
          [organizationId, key, ...granted],
          scopeLockingStatement(target, organizationId, key, granted)
        )
        // Compiled once per target and count: the same statement on the next call.
        expect(scopeLockingPrepared(target, count)).toBe(scopeLockingPrepared(target, count))
      }
    }
  })

  it("send kysely's text and parameters for the ledger read and pass's facts", () => {
    const invoiceId = randomUUID()
    expectSame(LEDGER, [invoiceId], ledgerStatement(invoiceId))
    const [organizationId, proposalId, reference] = [randomUUID(), randomUUID(), "ERP-'1'"]
    expectSame(PASS_FACTS, [organizationId, proposalId, reference], passFactsStatement(organizationId, proposalId, reference))
  })

  it("send kysely's text and parameters for report-payment's and pass's one write, for every number of events and charges", () => {
    for (const eventCount of [0, 1, 2, 3]) {
      const statement = recordPaymentPrepared(eventCount)
      const args = values(8 + eventCount * 5 + 10 + 18)
      expectSame(statement, args, recordPaymentStatement(eventCount, args))
      expect(Db.compiledWith(statement, args).sql.match(/insert into events/g)?.length ?? 0).toBe(eventCount === 0 ? 0 : 1)
      for (const chargeCount of [0, 1, 4]) {
        const pass = insertFromProposalPrepared(`${chargeCount}:${eventCount}`)
        const passArgs = values(24 + 8 + chargeCount + eventCount * 5 + 10)
        expectSame(pass, passArgs, insertFromProposalStatement(chargeCount, eventCount, passArgs))
        expect(Db.compiledWith(pass, passArgs).sql.includes("charged as (")).toBe(chargeCount > 0)
      }
    }
  })

  it("refuse to keep more than a bounded number of shapes, compiling further ones per call", () => {
    let made = 0
    const shapes = Sql.preparedByShape((shape: number) => ({ shape, made: ++made }))
    for (let shape = 0; shape < 100; shape++) expect(shapes(shape).shape).toBe(shape)
    expect(shapes(0)).toBe(shapes(0))
    const before = made
    expect(shapes(99)).not.toBe(shapes(99))
    expect(made).toBe(before + 2)
  })
})

describe.each(TestDatabase.kinds())("the billing writes' prepared reads on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let principal: PrincipalShape

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Prepared statements" }))
    principal = Fixtures.billingPrincipal(org, "prepared")
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  /** The rows of the template built per call (`Sql.rows`) and of the prepared statement, in one transaction each. */
  const both = async <Args extends ReadonlyArray<unknown>, Row>(
    statement: Db.PreparedStatement<Args, Row>,
    args: Args,
    builder: RawBuilder<Row>
  ) => {
    const plain = await app.run(Sql.transaction(Sql.rows(builder)))
    const prepared = await app.run(Sql.transaction(Sql.preparedRows(statement, ...args)))
    expect(prepared).toEqual(plain)
    return prepared
  }

  it("the scope with the locked invoice or proposal: the same rows, visible or not, for 0 to 3 granted contexts", async () => {
    const reference = `ERP-${randomUUID()}`
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference: reference }))
    const proposalId = await app.run(Fixtures.proposal(org))
    const [byId, byReference, proposalById] = await Effect.runPromise(targets)
    const grants: ReadonlyArray<ReadonlyArray<string>> = [
      [],
      [org.rootId],
      [org.otherPropertyId],
      [org.otherPropertyId, org.regionId, randomUUID()]
    ]
    const cases: ReadonlyArray<readonly [LockTarget<{ readonly id: string }>, string, string]> = [
      [byId!, invoiceId, invoiceId],
      [byReference!, reference, invoiceId],
      [proposalById!, proposalId, proposalId],
      [byId!, randomUUID(), ""]
    ]
    let locked = 0
    for (const [target, key, expectedId] of cases) {
      for (const granted of grants) {
        const rows = await both(
          scopeLockingPrepared(target, granted.length),
          [org.organizationId, key, ...granted],
          scopeLockingStatement(target, org.organizationId, key, granted)
        )
        expect(rows).toHaveLength(1)
        const row = rows[0] as { readonly id: string | null; readonly contextIds: ReadonlyArray<string> }
        if (row.id !== null) {
          locked++
          expect(row.id).toBe(expectedId)
          expect(row.contextIds.length).toBeGreaterThan(0)
        }
      }
    }
    // The root and the region see the property of the invoice and the proposal; the other property does not.
    expect(locked).toBe(6)
  })

  it("the ledger and pass's facts: the same rows", async () => {
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference: `ERP-${randomUUID()}` }))
    const billing = <A, E>(use: (service: BillingService) => Effect.Effect<A, E, Db.Db>) =>
      app.run(Effect.flatMap(BillingService, use).pipe(Effect.provide(BillingService.Default)))
    await billing((service) =>
      service.reportSent(principal, invoiceId, {
        issuedInvoiceNumber: "F-2026-0002",
        issuedInvoiceDate: "2026-11-20",
        dueDate: "2026-12-20",
        issuedTotalGrossMinorUnits: 1_250_000
      })
    )
    for (const paymentId of ["p-1", "p-2"]) {
      await billing((service) =>
        service.reportPayment(principal, { invoiceId }, { paymentId, amountMinorUnits: 100_000, paidOn: "2026-11-21" })
      )
    }
    await billing((service) => service.reportPaymentReversed(principal, { invoiceId }, { paymentId: "p-1", reversedOn: "2026-11-22" }))
    const ledger = await both(LEDGER, [invoiceId], ledgerStatement(invoiceId))
    // Both payments were recorded at the test clock's one instant: their order is the rows' ids'.
    expect(ledger.map((row) => [row.reportId, row.reversedOn]).sort()).toEqual([
      ["p-1", "2026-11-22"],
      ["p-2", null]
    ])

    const taken = `ERP-${randomUUID()}`
    await app.run(Fixtures.approvedInvoice(org, { externalReference: taken }))
    const proposalId = await app.run(Fixtures.proposal(org))
    for (const reference of [taken, `ERP-${randomUUID()}`]) {
      const facts = await both(
        PASS_FACTS,
        [org.organizationId, proposalId, reference],
        passFactsStatement(org.organizationId, proposalId, reference)
      )
      expect(facts[0]?.chargeIds).toHaveLength(1)
      expect(facts[0]?.alreadyInvoiced).toBe(false)
      expect(facts[0]?.externalReferenceTaken).toBe(reference === taken)
    }
  })
})
