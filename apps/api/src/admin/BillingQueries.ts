/**
 * SQL of the console's billing read views: invoice runs, invoices and credit notes, proposals, the send queue.
 * Always within one organization; an operator sees every operational context of it.
 */
import * as Db from "@propline/db/Db"
import type { Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, sql } from "kysely"
import { containing, keyset, type Position } from "./AdminListing.js"

export interface DocumentFilter {
  readonly q: string | undefined
  readonly currency: string | undefined
  readonly invoiceRunId: string | undefined
}

const invoiceColumns = [
  "id",
  "invoiceRunId",
  "invoiceNumber",
  "documentKind",
  "status",
  "recipientAgentId",
  "recipientAgentName",
  "contractId",
  "currency",
  "totalNetMinorUnits",
  "totalVatMinorUnits",
  "totalGrossMinorUnits",
  "balanceMinorUnits",
  "requestedInvoiceDate",
  "requestedDueDate",
  "externalReference",
  "issuedInvoiceNumber",
  "approvedAt",
  "sentAt",
  "failedAt",
  "failureReason",
  "createdAt"
] as const

const invoiceBase = (db: Kysely<Database>, organizationId: string, filter: DocumentFilter) => {
  let query = db.selectFrom("invoices").select(invoiceColumns).where("organizationId", "=", organizationId)
  if (filter.q !== undefined) {
    const pattern = containing(filter.q)
    query = query.where((eb) =>
      eb.or([
        eb("recipientAgentName", "ilike", pattern),
        eb("externalReference", "ilike", pattern),
        eb(sql<string>`invoice_number::text`, "=", filter.q ?? "")
      ])
    )
  }
  if (filter.currency !== undefined) query = query.where("currency", "=", filter.currency)
  if (filter.invoiceRunId !== undefined) query = query.where("invoiceRunId", "=", filter.invoiceRunId)
  return query
}

/** Invoices and credit notes, newest first; `limit + 1` rows. `q` matches the customer, the reference or the number. */
export const invoices = (
  organizationId: string,
  filter: DocumentFilter & { readonly status: string | undefined; readonly documentKind: string | undefined },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = invoiceBase(db, organizationId, filter).where(keyset("invoices.created_at", "invoices.id", "desc", after))
    if (filter.status !== undefined) query = query.where("status", "=", filter.status as "approved")
    if (filter.documentKind !== undefined) query = query.where("documentKind", "=", filter.documentKind as "invoice")
    return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)

/** The send queue as the API defines it (spec 4.2): `approved` documents, oldest approval first; `limit + 1` rows. */
export const sendQueue = (organizationId: string, filter: DocumentFilter, after: Position | undefined, limit: number) =>
  Db.query((db) =>
    invoiceBase(db, organizationId, filter)
      .where("status", "=", "approved")
      .where(keyset("invoices.approved_at", "invoices.id", "asc", after))
      .orderBy("approvedAt")
      .orderBy("id")
      .limit(limit + 1)
      .execute()
  ).pipe(Effect.orDie)

export const invoice = (organizationId: string, invoiceId: string) =>
  Db.query((db) =>
    db
      .selectFrom("invoices")
      .select(invoiceColumns)
      .where("organizationId", "=", organizationId)
      .where("id", "=", invoiceId)
      .executeTakeFirst()
  ).pipe(Effect.orDie)

export const invoiceLines = (invoiceId: string) =>
  Db.query((db) =>
    db
      .selectFrom("documentLines")
      .select(["position", "description", "netMinorUnits", "vatRateBasisPoints", "vatMinorUnits", "grossMinorUnits"])
      .where("invoiceId", "=", invoiceId)
      .orderBy("position")
      .execute()
  ).pipe(Effect.orDie)

/** Proposals, newest first; `limit + 1` rows. */
export const proposals = (
  organizationId: string,
  filter: DocumentFilter & { readonly status: string | undefined },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = db
      .selectFrom("invoiceProposals")
      .select([
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
      ])
      .where("organizationId", "=", organizationId)
      .where(keyset("invoice_proposals.created_at", "invoice_proposals.id", "desc", after))
    if (filter.q !== undefined) {
      const pattern = containing(filter.q)
      query = query.where((eb) =>
        eb.or([eb("recipientAgentName", "ilike", pattern), eb(sql<string>`invoice_number::text`, "=", filter.q ?? "")])
      )
    }
    if (filter.currency !== undefined) query = query.where("currency", "=", filter.currency)
    if (filter.invoiceRunId !== undefined) query = query.where("invoiceRunId", "=", filter.invoiceRunId)
    if (filter.status !== undefined) query = query.where("status", "=", filter.status as "proposed")
    return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)

/** Invoice runs, newest first, with how many invoices and proposals each made; `limit + 1` rows. */
export const invoiceRuns = (
  organizationId: string,
  filter: { readonly status: string | undefined },
  after: Position | undefined,
  limit: number
) =>
  Db.query((db) => {
    let query = db
      .selectFrom("invoiceRuns")
      .innerJoin("operationalContexts", "operationalContexts.id", "invoiceRuns.operationalContextId")
      .select([
        "invoiceRuns.id",
        "invoiceRuns.operationalContextId",
        "operationalContexts.name as operationalContextName",
        "invoiceRuns.periodStart",
        "invoiceRuns.periodEnd",
        "invoiceRuns.status",
        "invoiceRuns.approvedAt",
        "invoiceRuns.createdAt",
        sql<number>`(select count(*) from invoices i where i.invoice_run_id = invoice_runs.id)`.as("invoiceCount"),
        sql<number>`(select count(*) from invoice_proposals p where p.invoice_run_id = invoice_runs.id)`.as("proposalCount")
      ])
      .where("invoiceRuns.organizationId", "=", organizationId)
      .where(keyset("invoice_runs.created_at", "invoice_runs.id", "desc", after))
    if (filter.status !== undefined) query = query.where("invoiceRuns.status", "=", filter.status as "draft")
    return query.orderBy("invoiceRuns.createdAt", "desc").orderBy("invoiceRuns.id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)
