/**
 * SQL of invoice proposals (spec 2.2): the verification queue, locking one for a verdict, its charges, and
 * writing the verdict. Rows map to `@propline/billing`'s InvoiceProposalRecord (null columns become absent fields).
 */
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import type { InvoiceProposalTable } from "@propline/db/Database"
import { Effect } from "effect"
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
