/**
 * SQL of invoice proposals (spec 2.2): the verification queue, locking one for a verdict or an operator's
 * cancellation, its charges, writing the verdict, and inserting what an invoice run proposes. Rows map to `@propline/billing`'s InvoiceProposalRecord (null columns become absent fields).
 */
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import type { DraftLine } from "@propline/billing/InvoiceRun"
import type { InvoiceProposalTable } from "@propline/db/Database"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { Selectable } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

const toProposal = (row: Selectable<InvoiceProposalTable>): InvoiceProposalRecord => {
  const { invoiceId: _invoiceId, ...fields } = withoutNulls(row)
  return fields as InvoiceProposalRecord
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
      contextIds.length === 0
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<InvoiceProposalRecord>>>([])
        : Sql.query((db) => {
            let query = db
              .selectFrom("invoiceProposals")
              .selectAll()
              .select(CursorPage.sortKey("invoiceProposals.createdAt").as("cursorAt"))
              .where("organizationId", "=", organizationId)
              .where("status", "=", "proposed")
              .where("operationalContextId", "in", contextIds)
            if (after !== undefined) query = query.where(CursorPage.after("invoiceProposals.createdAt", "invoiceProposals.id", after))
            return query.orderBy("createdAt").orderBy("id").limit(limit + 1).execute()
          }).pipe(
            Effect.map((rows) =>
              rows.map(({ cursorAt, ...row }) => ({ record: toProposal(row), position: { at: cursorAt, id: row.id } }))
            )
          ),

    /**
     * A proposal of the organization in one of the visible contexts, locked for the rest of the transaction so
     * concurrent verdicts on it run one after another. Undefined when it doesn't exist or can't be seen.
     */
    lock: (organizationId: string, contextIds: ReadonlyArray<string>, id: string) =>
      contextIds.length === 0
        ? Effect.succeed(undefined)
        : Sql.query((db) =>
            db
              .selectFrom("invoiceProposals")
              .selectAll()
              .where("id", "=", id)
              .where("organizationId", "=", organizationId)
              .where("operationalContextId", "in", contextIds)
              .forUpdate()
              .executeTakeFirst()
          ).pipe(Effect.map((row) => (row === undefined ? undefined : toProposal(row)))),

    /** Ids of the charges behind a proposal's lines, locked; and whether any of them is already invoiced. */
    lockCharges: (proposalId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("charges")
          .select(["id", "invoiceId"])
          .where("id", "in", (qb) =>
            qb.selectFrom("documentLines").select("chargeId").where("proposalId", "=", proposalId).where("chargeId", "is not", null)
          )
          .forUpdate()
          .execute()
      ).pipe(
        Effect.map((rows) => ({
          chargeIds: rows.map((row) => row.id),
          alreadyInvoiced: rows.some((row) => row.invoiceId !== null)
        }))
      ),

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
        yield* Sql.query((db) =>
          db
            .insertInto("documentLines")
            .values(
              lines.map((line) => ({
                id: randomUUID(),
                proposalId: proposal.id,
                invoiceId: null,
                chargeId: line.chargeId,
                creditedLineId: null,
                position: line.position,
                description: line.description,
                netMinorUnits: line.netMinorUnits,
                vatRateBasisPoints: line.vatRateBasisPoints,
                vatMinorUnits: line.vatMinorUnits,
                grossMinorUnits: line.grossMinorUnits
              }))
            )
            .execute()
        )
      }),

    /** A proposal of the organization, locked, whatever its context (an operator's action). */
    lockForOperator: (organizationId: string, proposalId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("invoiceProposals")
          .selectAll()
          .where("id", "=", proposalId)
          .where("organizationId", "=", organizationId)
          .forUpdate()
          .executeTakeFirst()
      ).pipe(
        Effect.map((row) => {
          if (row === undefined) return undefined
          const { invoiceId: _invoiceId, ...fields } = withoutNulls(row)
          return fields as InvoiceProposalRecord
        })
      ),

    /** Writes a proposal's verdict fields (status, externalReference, reason, timestamps, created invoice). */
    update: (proposal: InvoiceProposalRecord, invoiceId?: string) =>
      Sql.query((db) =>
        db
          .updateTable("invoiceProposals")
          .set({
            status: proposal.status,
            externalReference: nullable(proposal.externalReference),
            rejectionReason: nullable(proposal.rejectionReason),
            passedAt: nullable(proposal.passedAt),
            rejectedAt: nullable(proposal.rejectedAt),
            cancelledAt: nullable(proposal.cancelledAt),
            updatedAt: proposal.updatedAt,
            ...(invoiceId === undefined ? {} : { invoiceId })
          })
          .where("id", "=", proposal.id)
          .execute()
      ).pipe(Effect.asVoid)
  }
}) {}
