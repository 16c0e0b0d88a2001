/**
 * SQL of invoice proposals (spec 2.2): the verification queue, what a verdict locks (with the billing scope, in one
 * round trip) or an operator's cancellation locks, writing the verdict, and inserting what an invoice run proposes.
 * The queue and pass run plain statements (`Sql.rows`), the columns named in each: they are hot paths. A locked
 * proposal maps to `@propline/billing`'s InvoiceProposalRecord (null columns become absent fields); the queue's rows
 * are encoded as they are read.
 */
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import type { DraftLine } from "@propline/billing/InvoiceRun"
import type { InvoiceProposalTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type RawBuilder, type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import type { LockTarget } from "./BillingScopeRepository.js"
import { documentColumns } from "./DocumentColumns.js"
import { insertDocumentLines } from "./DocumentLineRepository.js"

/** A proposal's columns but the created invoice's id, null where there is no value. */
type ProposalColumns = Omit<Selectable<InvoiceProposalTable>, "invoiceId">

/** A proposal as the verification queue reads it, with its cursor key. */
export type ProposalRow = ProposalColumns & { readonly cursorAt: string }

const proposalColumns = Sql.columns<ProposalColumns>({
  ...documentColumns,
  rejectionReason: true,
  passedAt: true,
  rejectedAt: true,
  cancelledAt: true
})

const toProposalRecord = (row: Selectable<InvoiceProposalTable>): InvoiceProposalRecord => {
  const { invoiceId: _invoiceId, ...fields } = withoutNulls(row)
  return fields as InvoiceProposalRecord
}

/** A proposal of the organization by id, whatever its context; locked (`for update`) when `lock` is true. */
const proposalOf = (organizationId: string, proposalId: string, lock: boolean) =>
  Sql.query((db) => {
    const query = db
      .selectFrom("invoiceProposals")
      .selectAll()
      .where("id", "=", proposalId)
      .where("organizationId", "=", organizationId)
    return (lock ? query.forUpdate() : query).executeTakeFirst()
  }).pipe(Effect.map((row) => (row === undefined ? undefined : toProposalRecord(row))))

/** A proposal's verdict values in the order {@link verdictUpdateOf} places them; its id last. */
export const verdictValues = (proposal: InvoiceProposalRecord): ReadonlyArray<unknown> => [
  proposal.status,
  nullable(proposal.externalReference),
  nullable(proposal.rejectionReason),
  nullable(proposal.passedAt),
  nullable(proposal.rejectedAt),
  nullable(proposal.cancelledAt),
  proposal.updatedAt,
  proposal.id
]

/** How many values {@link verdictValues} gives. */
export const VERDICT_VALUES = 8

/**
 * The statement writing a proposal's verdict fields, its values ({@link verdictValues}) `values` from `from` on (real
 * values, or a prepared statement's stand-ins) and, when given, the invoice it became (`invoiceId`, a value or a
 * stand-in).
 */
export const verdictUpdateOf = (values: ReadonlyArray<unknown>, from = 0, invoiceId?: unknown): RawBuilder<unknown> =>
  sql`
    update invoice_proposals
    set status = ${values[from]}, external_reference = ${values[from + 1]},
        rejection_reason = ${values[from + 2]}, passed_at = ${values[from + 3]},
        rejected_at = ${values[from + 4]}, cancelled_at = ${values[from + 5]},
        updated_at = ${values[from + 6]}${invoiceId === undefined ? sql`` : sql`, invoice_id = ${invoiceId}`}
    where id = ${values[from + 7]}`

/**
 * The statement writing a proposal's verdict fields (status, externalReference, reason, timestamps) and, when
 * given, the invoice it became: {@link ProposalRepository}'s `update`, and the last part of a pass's one write
 * (`InvoiceRepository.insertFromProposal`).
 */
export const verdictUpdate = (proposal: InvoiceProposalRecord, invoiceId?: string): RawBuilder<unknown> =>
  verdictUpdateOf(verdictValues(proposal), 0, invoiceId)

/** What a verdict locks with its billing scope: the proposal by id. */
const proposalById: LockTarget<ProposalColumns> = {
  columns: proposalColumns,
  from: "invoice_proposals",
  where: (id) => sql<boolean>`id = ${id}`
}

export class ProposalRepository extends Effect.Service<ProposalRepository>()("@propline/api/billing/ProposalRepository", {
  succeed: {
    /** Proposals `proposed` in the visible contexts, oldest first, after `after`; `limit + 1` rows. */
    verificationQueue: (
      organizationId: string,
      contextIds: ReadonlyArray<string>,
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      CursorPage.visiblePageRows({
        columns: proposalColumns,
        from: "invoice_proposals",
        where: sql`status = 'proposed'`,
        organizationId,
        contextIds,
        sortColumn: "created_at",
        after,
        limit
      }),

    /**
     * What a verdict locks with its billing scope (`BillingScopeRepository.scopeLocking`, the key its id): the
     * proposal by id, so concurrent verdicts on it run one after another; {@link toRecord} maps the row.
     */
    lockTarget: proposalById,

    /** A proposal's row as {@link lockTarget} reads it, as the domain's record (null columns become absent fields). */
    toRecord: (row: ProposalColumns): InvoiceProposalRecord => withoutNulls(row) as InvoiceProposalRecord,

    /** Inserts a proposal an invoice run made, with its lines. */
    insert: (
      proposal: InvoiceProposalRecord,
      lines: ReadonlyArray<DraftLine & { readonly chargeId: string }>
    ) =>
      Effect.gen(function* () {
        yield* Sql.query((db) =>
          db
            .insertInto("invoiceProposals")
            .values({
              id: proposal.id,
              organizationId: proposal.organizationId,
              invoiceRunId: proposal.invoiceRunId,
              invoiceNumber: nullable(proposal.invoiceNumber),
              operationalContextId: proposal.operationalContextId,
              contractId: proposal.contractId,
              recipientAgentId: proposal.recipientAgentId,
              recipientAgentName: proposal.recipientAgentName,
              billingAccountId: proposal.billingAccountId,
              documentKind: proposal.documentKind,
              creditedInvoiceId: nullable(proposal.creditedInvoiceId),
              billingStream: proposal.billingStream,
              requestedInvoiceDate: proposal.requestedInvoiceDate,
              requestedDueDate: nullable(proposal.requestedDueDate),
              paymentTermsDays: nullable(proposal.paymentTermsDays),
              status: proposal.status,
              currency: proposal.currency,
              totalNetMinorUnits: proposal.totalNetMinorUnits,
              totalVatMinorUnits: proposal.totalVatMinorUnits,
              totalGrossMinorUnits: proposal.totalGrossMinorUnits,
              externalReference: null,
              rejectionReason: null,
              passedAt: null,
              rejectedAt: null,
              cancelledAt: null,
              invoiceId: null,
              createdAt: proposal.createdAt,
              updatedAt: proposal.updatedAt
            })
            .execute()
        )
        yield* insertDocumentLines({ proposalId: proposal.id, invoiceId: null }, lines)
      }),

    /** A proposal of the organization, locked, whatever its context (an operator's action). */
    lockForOperator: (organizationId: string, proposalId: string) => proposalOf(organizationId, proposalId, true),

    /** Proposals by id, of any organization, not locked (the events publisher renders a batch's at once). */
    findMany: (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyArray<InvoiceProposalRecord>>([])
        : Sql.query((db) => db.selectFrom("invoiceProposals").selectAll().where("id", "in", ids).execute()).pipe(
            Effect.map((rows) => rows.map(toProposalRecord))
          ),

    /** Writes a proposal's verdict fields (status, externalReference, reason, timestamps, created invoice). */
    update: (proposal: InvoiceProposalRecord, invoiceId?: string) => Sql.rows(verdictUpdate(proposal, invoiceId)).pipe(Effect.asVoid)
  }
}) {}
