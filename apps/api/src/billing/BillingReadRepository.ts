/**
 * The console's billing read views: invoice runs, invoices and credit notes, proposals and the send queue, always
 * within one organization (an operator sees every operational context of it). The operator actions live in the
 * billing operator service (`BillingOperatorService`); these only read, with invoices' one not-deleted rule
 * (`InvoiceRepository.notDeleted`).
 */
import type { Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, sql } from "kysely"
import { contextNameOf } from "../contexts/ContextRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { containing, keyed } from "../platform/ConsoleListing.js"
import { notDeleted } from "./InvoiceRepository.js"

export interface DocumentFilter {
  /** Matches the customer's name or the external reference, or equals the invoice number. */
  readonly q: string | undefined
  readonly currency: string | undefined
  readonly invoiceRunId: string | undefined
}

const invoiceColumns = [
  "invoices.id",
  "invoices.invoiceRunId",
  "invoices.invoiceNumber",
  "invoices.documentKind",
  "invoices.status",
  "invoices.recipientAgentId",
  "invoices.recipientAgentName",
  "invoices.contractId",
  "invoices.currency",
  "invoices.totalNetMinorUnits",
  "invoices.totalVatMinorUnits",
  "invoices.totalGrossMinorUnits",
  "invoices.balanceMinorUnits",
  "invoices.requestedInvoiceDate",
  "invoices.requestedDueDate",
  "invoices.externalReference",
  "invoices.issuedInvoiceNumber",
  "invoices.approvedAt",
  "invoices.sentAt",
  "invoices.failedAt",
  "invoices.failureReason",
  "invoices.createdAt"
] as const

const invoices = (db: Kysely<Database>, organizationId: string, filter: DocumentFilter) => {
  let query = db
    .selectFrom("invoices")
    .select(invoiceColumns)
    .where("invoices.organizationId", "=", organizationId)
    .where(notDeleted())
  if (filter.q !== undefined) {
    const q = filter.q
    query = query.where((eb) =>
      eb.or([
        eb("invoices.recipientAgentName", "ilike", containing(q)),
        eb("invoices.externalReference", "ilike", containing(q)),
        eb(sql<string>`invoices.invoice_number::text`, "=", q)
      ])
    )
  }
  if (filter.currency !== undefined) query = query.where("invoices.currency", "=", filter.currency)
  if (filter.invoiceRunId !== undefined) query = query.where("invoices.invoiceRunId", "=", filter.invoiceRunId)
  return query
}

const proposalColumns = [
  "id",
  "invoiceRunId",
  "invoiceNumber",
  "documentKind",
  "status",
  "recipientAgentId",
  "recipientAgentName",
  "contractId",
  "currency",
  "totalGrossMinorUnits",
  "requestedInvoiceDate",
  "externalReference",
  "rejectionReason",
  "createdAt",
  "passedAt",
  "rejectedAt",
  "cancelledAt"
] as const

/**
 * Invoice runs with their context's name, their documents counted (invoices not deleted, proposals) and how many
 * other runs of the same operational context cover an overlapping period (`samePeriodRunCount`: a duplicate run).
 */
const runs = (db: Kysely<Database>, organizationId: string) =>
  db
    .selectFrom("invoiceRuns")
    .select([
      "invoiceRuns.id",
      "invoiceRuns.operationalContextId",
      contextNameOf("invoice_runs.operational_context_id").as("operationalContextName"),
      "invoiceRuns.periodStart",
      "invoiceRuns.periodEnd",
      "invoiceRuns.status",
      "invoiceRuns.approvedAt",
      "invoiceRuns.createdAt",
      sql<number>`(select count(*) from invoices i where i.invoice_run_id = invoice_runs.id and ${notDeleted("i")})::int`.as("invoiceCount"),
      sql<number>`(select count(*) from invoice_proposals p where p.invoice_run_id = invoice_runs.id)::int`.as("proposalCount"),
      sql<number>`(select count(*) from invoice_runs o
        where o.organization_id = invoice_runs.organization_id
          and o.operational_context_id = invoice_runs.operational_context_id
          and o.id <> invoice_runs.id
          and o.period_start <= invoice_runs.period_end
          and o.period_end >= invoice_runs.period_start)::int`.as("samePeriodRunCount")
    ])
    .where("invoiceRuns.organizationId", "=", organizationId)

type InvoiceStatus = "created" | "approved" | "sent" | "paid" | "written-off" | "failed"
type ProposalStatus = "proposed" | "passed" | "rejected" | "cancelled"

export class BillingReadRepository extends Effect.Service<BillingReadRepository>()("@propline/api/billing/BillingReadRepository", {
  succeed: spanned("BillingReadRepository", {
    /** Invoices and credit notes counted and summed per status and currency, and the proposals awaiting a verdict. */
    overview: (organizationId: string) =>
      Effect.all([
        Sql.query((db) =>
          db
            .selectFrom("invoices")
            .select([
              "status",
              "currency",
              (eb) => eb.fn.countAll<number>().as("count"),
              sql<number>`coalesce(sum(total_gross_minor_units), 0)`.as("grossMinorUnits"),
              sql<number>`coalesce(sum(balance_minor_units), 0)`.as("balanceMinorUnits")
            ])
            .where("organizationId", "=", organizationId)
            .where(notDeleted())
            .groupBy(["status", "currency"])
            .orderBy("currency")
            .orderBy("status")
            .execute()
        ),
        Sql.query((db) =>
          db
            .selectFrom("invoiceProposals")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("organizationId", "=", organizationId)
            .where("status", "=", "proposed")
            .executeTakeFirstOrThrow()
        )
      ]).pipe(
        Effect.map(([buckets, proposals]) => ({
          buckets: buckets.map((row) => ({
            ...row,
            count: Number(row.count),
            grossMinorUnits: Number(row.grossMinorUnits),
            balanceMinorUnits: Number(row.balanceMinorUnits)
          })),
          proposalsAwaitingVerification: Number(proposals.n)
        }))
      ),

    /** A page of invoice runs, newest first, with how many invoices and proposals each made. */
    invoiceRuns: (
      organizationId: string,
      filter: { readonly status: string | undefined },
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      Sql.query((db) => {
        let query = runs(db, organizationId).select(CursorPage.sortKey("invoiceRuns.createdAt").as("cursorAt"))
        if (after !== undefined) query = query.where(CursorPage.before("invoiceRuns.createdAt", "invoiceRuns.id", after))
        if (filter.status !== undefined) query = query.where(sql<string>`invoice_runs.status`, "=", filter.status)
        return query.orderBy("invoiceRuns.createdAt", "desc").orderBy("invoiceRuns.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-invoice-runs", keyed(rows), limit))),

    /**
     * One invoice run as the list shows it, with its documents counted per status and the other runs of its
     * operational context whose periods overlap its own (oldest first); RecordNotFound when not the organization's.
     */
    invoiceRun: (organizationId: string, runId: string) =>
      Sql.query(async (db) => {
        const run = await runs(db, organizationId).where("invoiceRuns.id", "=", runId).executeTakeFirst()
        if (run === undefined) return undefined
        const [invoicesByStatus, proposalsByStatus, samePeriodRuns] = await Promise.all([
          db
            .selectFrom("invoices")
            .select(["invoices.status", sql<number>`count(*)::int`.as("count")])
            .where("invoices.invoiceRunId", "=", runId)
            .where(notDeleted())
            .groupBy("invoices.status")
            .orderBy("invoices.status")
            .execute(),
          db
            .selectFrom("invoiceProposals")
            .select(["status", sql<number>`count(*)::int`.as("count")])
            .where("invoiceRunId", "=", runId)
            .groupBy("status")
            .orderBy("status")
            .execute(),
          runs(db, organizationId)
            .where("invoiceRuns.operationalContextId", "=", run.operationalContextId)
            .where("invoiceRuns.id", "<>", runId)
            .where("invoiceRuns.periodStart", "<=", run.periodEnd)
            .where("invoiceRuns.periodEnd", ">=", run.periodStart)
            .orderBy("invoiceRuns.createdAt")
            .limit(50)
            .execute()
        ])
        return { run, invoicesByStatus, proposalsByStatus, samePeriodRuns }
      }).pipe(Effect.flatMap((found) => (found === undefined ? new RecordNotFound({ kind: "invoice run" }) : Effect.succeed(found)))),

    /** A page of invoices and credit notes, newest first. */
    invoices: (
      organizationId: string,
      filter: DocumentFilter & { readonly status: InvoiceStatus | undefined; readonly documentKind: "invoice" | "credit-note" | undefined },
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      Sql.query((db) => {
        let query = invoices(db, organizationId, filter).select(CursorPage.sortKey("invoices.createdAt").as("cursorAt"))
        if (after !== undefined) query = query.where(CursorPage.before("invoices.createdAt", "invoices.id", after))
        if (filter.status !== undefined) query = query.where("invoices.status", "=", filter.status)
        if (filter.documentKind !== undefined) query = query.where("invoices.documentKind", "=", filter.documentKind)
        return query.orderBy("invoices.createdAt", "desc").orderBy("invoices.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-invoices", keyed(rows), limit))),

    /** The send queue as the API defines it (spec 4.2): `approved` documents, oldest approval first. */
    sendQueue: (organizationId: string, filter: DocumentFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = invoices(db, organizationId, filter)
          .select(CursorPage.sortKey("invoices.approvedAt").as("cursorAt"))
          .where("invoices.status", "=", "approved")
        if (after !== undefined) query = query.where(CursorPage.after("invoices.approvedAt", "invoices.id", after))
        return query.orderBy("invoices.approvedAt").orderBy("invoices.id").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-send-queue", keyed(rows), limit))),

    /** An invoice with its lines; RecordNotFound when not the organization's. */
    invoice: (organizationId: string, invoiceId: string) =>
      Effect.gen(function* () {
        const invoice = yield* Sql.query((db) =>
          invoices(db, organizationId, { q: undefined, currency: undefined, invoiceRunId: undefined })
            .where("invoices.id", "=", invoiceId)
            .executeTakeFirst()
        )
        if (invoice === undefined) return yield* new RecordNotFound({ kind: "invoice" })
        const lines = yield* Sql.query((db) =>
          db
            .selectFrom("documentLines as line")
            .select([
              "line.id",
              "line.position",
              "line.description",
              "line.netMinorUnits",
              "line.vatRateBasisPoints",
              "line.vatMinorUnits",
              "line.grossMinorUnits",
              sql<number>`coalesce((select sum(credit.net_minor_units) from document_lines credit
                join invoices note on note.id = credit.invoice_id
                where credit.credited_line_id = line.id and ${notDeleted("note")}), 0)`.as("creditedNetMinorUnits")
            ])
            .where("line.invoiceId", "=", invoiceId)
            .orderBy("line.position")
            .execute()
        )
        const payments = yield* Sql.query((db) =>
          db
            .selectFrom("payments")
            .leftJoin("paymentReversals", "paymentReversals.paymentRowId", "payments.id")
            .select([
              "payments.paymentId",
              "payments.amountMinorUnits",
              "payments.paidOn",
              "paymentReversals.reversedOn",
              "paymentReversals.reason as reversalReason"
            ])
            .where("payments.invoiceId", "=", invoiceId)
            .orderBy("payments.recordedAt")
            .orderBy("payments.id")
            .execute()
        )
        const writeOffs = yield* Sql.query((db) =>
          db
            .selectFrom("writeOffs")
            .select(["writeOffId", "amountMinorUnits", "writtenOffOn", "reason"])
            .where("invoiceId", "=", invoiceId)
            .orderBy("recordedAt")
            .orderBy("id")
            .execute()
        )
        const creditNotes = yield* Sql.query((db) =>
          invoices(db, organizationId, { q: undefined, currency: undefined, invoiceRunId: undefined })
            .where("invoices.creditedInvoiceId", "=", invoiceId)
            .orderBy("invoices.createdAt")
            .execute()
        )
        return { invoice, lines, payments, writeOffs, creditNotes }
      }),

    /** Deleted invoices the ERP may still hold (`pending`), oldest deletion first. */
    withdrawalQueue: (organizationId: string, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("invoiceWithdrawals")
          .select([
            "invoiceId as id",
            "invoiceNumber",
            "documentKind",
            "currency",
            "totalGrossMinorUnits",
            "externalReference",
            "invoiceStatus",
            "status",
            "deletedAt",
            "discardedAt",
            CursorPage.sortKey("invoiceWithdrawals.deletedAt").as("cursorAt")
          ])
          .where("organizationId", "=", organizationId)
          .where("status", "=", "pending")
        if (after !== undefined) query = query.where(CursorPage.after("invoiceWithdrawals.deletedAt", "invoiceWithdrawals.invoiceId", after))
        return query.orderBy("deletedAt").orderBy("invoiceId").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-withdrawals", keyed(rows), limit))),

    /** A proposal of the organization as the proposals list shows it; RecordNotFound when not the organization's. */
    proposal: (organizationId: string, proposalId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("invoiceProposals")
          .select(proposalColumns)
          .where("organizationId", "=", organizationId)
          .where("id", "=", proposalId)
          .executeTakeFirst()
      ).pipe(Effect.flatMap((row) => (row === undefined ? new RecordNotFound({ kind: "invoice proposal" }) : Effect.succeed(row)))),

    /** A page of proposals, newest first. */
    proposals: (
      organizationId: string,
      filter: DocumentFilter & { readonly status: ProposalStatus | undefined },
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("invoiceProposals")
          .select([...proposalColumns, CursorPage.sortKey("invoiceProposals.createdAt").as("cursorAt")])
          .where("organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("invoiceProposals.createdAt", "invoiceProposals.id", after))
        if (filter.q !== undefined) {
          const q = filter.q
          query = query.where((eb) =>
            eb.or([eb("recipientAgentName", "ilike", containing(q)), eb(sql<string>`invoice_proposals.invoice_number::text`, "=", q)])
          )
        }
        if (filter.currency !== undefined) query = query.where("currency", "=", filter.currency)
        if (filter.invoiceRunId !== undefined) query = query.where("invoiceRunId", "=", filter.invoiceRunId)
        if (filter.status !== undefined) query = query.where("status", "=", filter.status)
        return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-proposals", keyed(rows), limit)))
  })
}) {}
