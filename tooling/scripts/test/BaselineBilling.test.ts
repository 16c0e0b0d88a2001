/**
 * The benchmark's plain baseline keeps the product's round trips (docs/performance.md, "What each operation asks of
 * the database", counted for the product by apps/api's `WriteStatements.test.ts`): a pass is 5 (`begin`, the scope
 * with the proposal locked, its charges locked with the reference check, the one write with its events and audit
 * entry, `commit`), report-payment 5 and its replay 4. Counted on a pool that records each query and answers the rows a well-formed
 * request finds (the statements themselves run against PostgreSQL in every `pnpm bench`).
 */
import type { ServerResponse } from "node:http"
import { randomUUID } from "node:crypto"
import type pg from "pg"
import { describe, expect, it } from "vitest"
import {
  billingBaseline,
  LEDGER_SQL,
  PASS_FACTS_SQL,
  passWriteStatement,
  RECORD_PAYMENT_SQL
} from "../src/internal/BaselineBilling.js"

const organizationId = randomUUID()
const contextId = randomUUID()

/** A pool whose one client records every statement and answers `answer(text)`'s rows. */
const recordingPool = (answer: (text: string) => Array<Record<string, unknown>>) => {
  const statements: Array<string> = []
  const client = {
    query: async (text: string) => {
      statements.push(text.trim())
      return { rows: answer(text) }
    },
    release: () => {}
  }
  const pool = { connect: async () => client, query: client.query } as unknown as pg.Pool
  return { pool, statements }
}

/** A response that notes its status. */
const response = () => {
  const seen = { status: 0 }
  const written = {
    writeHead: (status: number) => {
      seen.status = status
      return written
    },
    end: () => written
  } as unknown as ServerResponse
  return { written, seen }
}

const scope = { declaredGates: ["verification"], contextIds: [contextId] }

describe("the plain baseline's billing writes", () => {
  it("pass: 5 round trips, the product's statements in its order", async () => {
    const proposalId = randomUUID()
    const { pool, statements } = recordingPool((text) =>
      text.includes("locked as (")
        ? [{ ...scope, id: proposalId, status: "proposed", invoiceNumber: 7, operationalContextId: contextId }]
        : text === PASS_FACTS_SQL
          ? [{ chargeIds: [randomUUID(), randomUUID()], alreadyInvoiced: false, externalReferenceTaken: false }]
          : []
    )
    const { written, seen } = response()
    await billingBaseline(pool, organizationId, [contextId]).pass(proposalId, JSON.stringify({ externalReference: "ERP-1" }), written)
    expect(seen.status).toBe(201)
    expect(statements).toHaveLength(5)
    expect(statements[0]).toBe("begin")
    expect(statements[1]).toContain("from invoice_proposals")
    expect(statements[2]).toBe(PASS_FACTS_SQL.trim())
    expect(statements[3]).toBe(passWriteStatement(2).trim())
    expect(statements[3]).toMatch(/charged as \(update charges.*appended as \(\s*insert into events.*audited as \(\s*insert into audit_log.*\)\s*update invoice_proposals/s)
    expect(statements[4]).toBe("commit")
  })

  it("pass refused for a proposal no longer proposed: 3 round trips (begin, scope with the lock, rollback)", async () => {
    const proposalId = randomUUID()
    const { pool, statements } = recordingPool((text) =>
      text.includes("locked as (") ? [{ ...scope, id: proposalId, status: "passed", invoiceNumber: 7 }] : []
    )
    const { written, seen } = response()
    await billingBaseline(pool, organizationId, [contextId]).pass(proposalId, JSON.stringify({ externalReference: "ERP-2" }), written)
    expect(seen.status).toBe(400)
    expect(statements).toEqual(["begin", statements[1], "rollback"])
  })

  it("report-payment: 5 round trips, and 4 for a payment already recorded", async () => {
    const invoiceId = randomUUID()
    const invoice = { ...scope, id: invoiceId, status: "sent", currency: "SEK", issuedTotalGrossMinorUnits: "1250000" }
    const body = JSON.stringify({ paymentId: "P-1", amountMinorUnits: 100, paidOn: "2026-11-21", currency: "SEK" })

    const fresh = recordingPool((text) => (text.includes("locked as (") ? [invoice] : []))
    const paid = response()
    await billingBaseline(fresh.pool, organizationId, [contextId]).reportPayment(invoiceId, body, paid.written)
    expect(paid.seen.status).toBe(200)
    expect(fresh.statements).toHaveLength(5)
    expect(fresh.statements[1]).toContain("from invoices")
    expect(fresh.statements.slice(2)).toEqual([LEDGER_SQL.trim(), RECORD_PAYMENT_SQL.trim(), "commit"])
    expect(fresh.statements[3]).toMatch(/recorded as \(\s*insert into payments.*appended as \(\s*insert into events.*audited as \(\s*insert into audit_log.*\)\s*update invoices/s)

    const replay = recordingPool((text) =>
      text.includes("locked as (")
        ? [invoice]
        : text === LEDGER_SQL
          ? [{ writeOff: false, reportId: "P-1", amountMinorUnits: "100", reversedOn: null }]
          : []
    )
    const replayed = response()
    await billingBaseline(replay.pool, organizationId, [contextId]).reportPayment(invoiceId, body, replayed.written)
    expect(replayed.seen.status).toBe(200)
    expect(replay.statements).toEqual(["begin", replay.statements[1], LEDGER_SQL.trim(), "commit"])
  })
})
