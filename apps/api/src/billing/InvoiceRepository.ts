/**
 * SQL of invoices (spec 2.1): the send queue, locking one for a report, the externalReference's uniqueness,
 * inserting the invoice a pass created, and writing lifecycle fields. Rows map to `@propline/billing`'s
 * InvoiceRecord (null columns become absent fields).
 */
import type { InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceTable } from "@propline/db/Database"
import { Data, Effect } from "effect"
import type { Selectable } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

const toInvoice = (row: Selectable<InvoiceTable>): InvoiceRecord => withoutNulls(row) as InvoiceRecord

/** The columns of an invoice that report-sent, payments and failures set later: empty on a new invoice. */
export const unsentInvoiceColumns = {
  issuedInvoiceNumber: null,
  issuedInvoiceDate: null,
  dueDate: null,
  issuedTotalGrossMinorUnits: null,
  paymentReference: null,
  paymentReferenceType: null,
  documentUrl: null,
  balanceMinorUnits: null,
  sentAt: null,
  paidAt: null,
  writtenOffAt: null,
  failedAt: null,
  failureReason: null
} as const

/** Another invoice of the organization took the externalReference first (the unique key decided). */
export class ExternalReferenceConflict extends Data.TaggedError("ExternalReferenceConflict") {}

export class InvoiceRepository extends Effect.Service<InvoiceRepository>()("@propline/api/billing/InvoiceRepository", {
  succeed: {
    /** Invoices `approved` in the visible contexts, oldest approval first, after `after`; `limit + 1` rows. */
    sendQueue: (
      organizationId: string,
      contextIds: ReadonlyArray<string>,
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      contextIds.length === 0
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<InvoiceRecord>>>([])
        : Sql.query((db) => {
            let query = db
              .selectFrom("invoices")
              .selectAll()
              .select(CursorPage.sortKey("invoices.approvedAt").as("cursorAt"))
              .where("organizationId", "=", organizationId)
              .where("status", "=", "approved")
              .where("operationalContextId", "in", contextIds)
            if (after !== undefined) query = query.where(CursorPage.after("invoices.approvedAt", "invoices.id", after))
            return query.orderBy("approvedAt").orderBy("id").limit(limit + 1).execute()
          }).pipe(
            Effect.map((rows) =>
              rows.map(({ cursorAt, ...row }) => ({ record: toInvoice(row), position: { at: cursorAt, id: row.id } }))
            )
          ),

    /**
     * An invoice of the organization in one of the visible contexts, locked for the rest of the transaction so
     * concurrent reports on it run one after another. Undefined when it doesn't exist or can't be seen.
     */
    lock: (organizationId: string, contextIds: ReadonlyArray<string>, id: string) =>
      contextIds.length === 0
        ? Effect.succeed(undefined)
        : Sql.query((db) =>
            db
              .selectFrom("invoices")
              .selectAll()
              .where("id", "=", id)
              .where("organizationId", "=", organizationId)
              .where("operationalContextId", "in", contextIds)
              .forUpdate()
              .executeTakeFirst()
          ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvoice(row)))),

    /** Whether an invoice of the organization already carries this externalReference. */
    isExternalReferenceTaken: (organizationId: string, externalReference: string) =>
      Sql.query((db) =>
        db
          .selectFrom("invoices")
          .select("id")
          .where("organizationId", "=", organizationId)
          .where("externalReference", "=", externalReference)
          .executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

    /**
     * Inserts the invoice a pass created, copies the proposal's lines onto it and marks its charges invoiced.
     * Fails with {@link ExternalReferenceConflict} when a concurrent pass took the externalReference.
     */
    insertFromProposal: (invoice: InvoiceRecord, proposalId: string, chargeIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* Sql.catchUniqueViolation(
          (db) =>
          db
            .insertInto("invoices")
            .values({
              id: invoice.id,
              organizationId: invoice.organizationId,
              invoiceRunId: invoice.invoiceRunId,
              operationalContextId: invoice.operationalContextId,
              contractId: invoice.contractId,
              recipientAgentId: invoice.recipientAgentId,
              recipientAgentName: invoice.recipientAgentName,
              billingAccountId: invoice.billingAccountId,
              documentKind: invoice.documentKind,
              creditedInvoiceId: nullable(invoice.creditedInvoiceId),
              billingStream: invoice.billingStream,
              requestedInvoiceDate: invoice.requestedInvoiceDate,
              requestedDueDate: nullable(invoice.requestedDueDate),
              paymentTermsDays: nullable(invoice.paymentTermsDays),
              invoiceNumber: invoice.invoiceNumber,
              status: invoice.status,
              currency: invoice.currency,
              totalNetMinorUnits: invoice.totalNetMinorUnits,
              totalVatMinorUnits: invoice.totalVatMinorUnits,
              totalGrossMinorUnits: invoice.totalGrossMinorUnits,
              externalReference: nullable(invoice.externalReference),
              ...unsentInvoiceColumns,
              approvedAt: nullable(invoice.approvedAt),
              createdAt: invoice.createdAt,
              updatedAt: invoice.updatedAt
            })
            .execute(),
          "invoices_external_reference_key",
          () => new ExternalReferenceConflict()
        )
        yield* Sql.query((db) =>
          db
            .insertInto("documentLines")
            .columns([
              "id",
              "proposalId",
              "invoiceId",
              "chargeId",
              "position",
              "description",
              "netMinorUnits",
              "vatRateBasisPoints",
              "vatMinorUnits",
              "grossMinorUnits"
            ])
            .expression((eb) =>
              eb
                .selectFrom("documentLines")
                .select((eb) => [
                  eb.fn<string>("gen_random_uuid").as("id"),
                  eb.val(null).as("proposalId"),
                  eb.val(invoice.id).as("invoiceId"),
                  "chargeId",
                  "position",
                  "description",
                  "netMinorUnits",
                  "vatRateBasisPoints",
                  "vatMinorUnits",
                  "grossMinorUnits"
                ])
                .where("proposalId", "=", proposalId)
            )
            .execute()
        )
        if (chargeIds.length > 0) {
          yield* Sql.query((db) =>
            db.updateTable("charges").set({ invoiceId: invoice.id }).where("id", "in", chargeIds).execute()
          )
        }
      }),

    /** Writes an invoice's lifecycle fields after a transition. */
    updateStatus: (invoice: InvoiceRecord) =>
      Sql.query((db) =>
        db
          .updateTable("invoices")
          .set({
            status: invoice.status,
            approvedAt: nullable(invoice.approvedAt),
            failedAt: nullable(invoice.failedAt),
            failureReason: nullable(invoice.failureReason),
            updatedAt: invoice.updatedAt
          })
          .where("id", "=", invoice.id)
          .execute()
      ).pipe(Effect.asVoid)
  }
}) {}
