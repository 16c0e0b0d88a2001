/**
 * The benchmark's conventional peer keeps the product's round trips on the billing writes (docs/performance.md,
 * "What each operation asks of the database"; the product's counted by apps/api's `WriteStatements.test.ts`): a
 * pass is 5 (`begin`, the scope with the proposal locked, its charges locked with the reference check, the one
 * write with its events and audit entry, `commit`), report-payment 5 and its replay 4. Counted through a kysely driver that records
 * each statement and answers the rows a well-formed request finds (the statements run against PostgreSQL in every
 * `pnpm bench`).
 */
import type { Database } from "@propline/db/Database"
import Fastify from "fastify"
import {
  CamelCasePlugin,
  type CompiledQuery,
  type DatabaseConnection,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler
} from "kysely"
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { peerRoutes } from "../src/bench-peer/PeerRoutes.js"

const organizationId = randomUUID()
const contextId = randomUUID()
const principal = { organizationId, contextIds: [contextId], clientId: "peer", subject: randomUUID() }

/** The peer's routes on a kysely whose every statement is recorded and answered with `answer(sql)`'s rows. */
const recordingPeer = async (answer: (sql: string) => Array<Record<string, unknown>>) => {
  const statements: Array<string> = []
  const connection: DatabaseConnection = {
    executeQuery: async <R>(compiled: CompiledQuery) => {
      statements.push(compiled.sql.trim())
      return { rows: answer(compiled.sql) as Array<R> }
    },
    // eslint-disable-next-line require-yield
    streamQuery: async function* () {
      throw new Error("not streamed")
    }
  }
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => ({
        init: async () => {},
        acquireConnection: async () => connection,
        beginTransaction: async () => void statements.push("begin"),
        commitTransaction: async () => void statements.push("commit"),
        rollbackTransaction: async () => void statements.push("rollback"),
        releaseConnection: async () => {},
        destroy: async () => {}
      }),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler()
    },
    plugins: [new CamelCasePlugin()]
  })
  const app = Fastify({ logger: false })
  await app.register(peerRoutes({ db, authenticate: async () => principal, applicationId: randomUUID() }), { prefix: "/v1" })
  return { app, statements }
}

const scope = { declaredGates: ["verification"], contextIds: [contextId] }

describe("the conventional peer's billing writes", () => {
  it("pass: 5 round trips, the product's statements in its order", async () => {
    const proposalId = randomUUID()
    const { app, statements } = await recordingPeer((sql) =>
      sql.includes("locked as (")
        ? [{ ...scope, id: proposalId, organizationId, status: "proposed", invoiceNumber: 7, operationalContextId: contextId }]
        : sql.includes('as "charge_ids"')
          ? [{ chargeIds: [randomUUID(), randomUUID()], alreadyInvoiced: false, externalReferenceTaken: false }]
          : sql.includes("update") && sql.includes("returning")
            ? [{ id: proposalId, status: "passed" }]
            : []
    )
    const answer = await app.inject({
      method: "POST",
      url: `/v1/billing/invoice-proposals/${proposalId}/pass`,
      payload: { externalReference: "ERP-1" }
    })
    expect(answer.statusCode).toBe(201)
    expect(statements).toHaveLength(5)
    expect(statements[0]).toBe("begin")
    expect(statements[1]).toContain("from invoice_proposals")
    expect(statements[2]).toMatch(/^with "charged" as \(select .* for update\)/s)
    expect(statements[3]).toMatch(
      /^with "invoice" as \(insert into "invoices".*"lines" as \(insert into "document_lines".*"charged" as \(update "charges".*"appended" as \(insert into "events".*"audited" as \(insert into "audit_log".*\) update "invoice_proposals"/s
    )
    expect(statements[4]).toBe("commit")
    await app.close()
  })

  it("report-payment: 5 round trips, and 4 for a payment already recorded", async () => {
    const invoiceId = randomUUID()
    const invoice = { ...scope, id: invoiceId, organizationId, status: "sent", currency: "SEK", issuedTotalGrossMinorUnits: 1250000 }
    const payload = { paymentId: "P-1", amountMinorUnits: 100, paidOn: "2026-11-21", currency: "SEK" }
    const url = `/v1/billing/invoices/${invoiceId}/report-payment`

    const fresh = await recordingPeer((sql) =>
      sql.includes("locked as (") ? [invoice] : sql.includes("returning") ? [{ ...invoice, balanceMinorUnits: 1249900 }] : []
    )
    const first = await fresh.app.inject({ method: "POST", url, payload })
    expect(first.statusCode, first.body).toBe(200)
    expect(fresh.statements).toHaveLength(5)
    expect(fresh.statements[1]).toContain("from invoices")
    expect(fresh.statements[2]).toMatch(/from "payments" as "p" left join "payment_reversals" as "r".* union all select .* from "write_offs"/s)
    expect(fresh.statements[3]).toMatch(
      /^with "recorded" as \(insert into "payments".*"appended" as \(insert into "events".*"audited" as \(insert into "audit_log".*\) update "invoices"/s
    )
    expect(fresh.statements[4]).toBe("commit")
    await fresh.app.close()

    const replay = await recordingPeer((sql) =>
      sql.includes("locked as (")
        ? [invoice]
        : sql.includes("union all")
          ? [{ writeOff: false, reportId: "P-1", amountMinorUnits: "100", reversedOn: null }]
          : []
    )
    expect((await replay.app.inject({ method: "POST", url, payload })).statusCode).toBe(200)
    expect(replay.statements).toEqual(["begin", replay.statements[1], replay.statements[2], "commit"])
    await replay.app.close()
  })
})
