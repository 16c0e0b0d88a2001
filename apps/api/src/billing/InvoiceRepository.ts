/**
 * SQL of invoices (spec 2.1): the send queue, locking one for a report, the externalReference's uniqueness,
 * inserting the invoice a pass created, and writing lifecycle fields. The send queue and pass run plain statements
 * (`Sql.rows`), the columns named in each: they are hot paths. A locked invoice maps to `@propline/billing`'s
 * InvoiceRecord (null columns become absent fields); the queue's rows are encoded as they are read.
 */
import type { InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceTable } from "@propline/db/Database"
import { Data, Effect } from "effect"
import { type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import { documentColumns } from "./DocumentColumns.js"

/** An invoice as the send queue reads it: every column (null where the record has no value) and its cursor key. */
export type InvoiceRow = Selectable<InvoiceTable> & { readonly cursorAt: string }

const invoiceColumns = Sql.columns<Selectable<InvoiceTable>>({
  ...documentColumns,
  issuedInvoiceNumber: true,
  issuedInvoiceDate: true,
  dueDate: true,
  issuedTotalGrossMinorUnits: true,
  paymentReference: true,
  paymentReferenceType: true,
  documentUrl: true,
  balanceMinorUnits: true,
  approvedAt: true,
  sentAt: true,
  paidAt: true,
  writtenOffAt: true,
  failedAt: true,
  failureReason: true
})

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
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<InvoiceRow>>>([])
        : CursorPage.pageRows({
            columns: invoiceColumns,
            from: "invoices",
            where: sql`organization_id = ${organizationId} and status = 'approved'
                       and operational_context_id in (${sql.join(contextIds)})`,
            sortColumn: "approved_at",
            idColumn: "id",
            after,
            limit
          }),

    /**
     * An invoice of the organization in one of the visible contexts, locked for the rest of the transaction so
     * concurrent reports on it run one after another. Undefined when it doesn't exist or can't be seen.
     */
    lock: (organizationId: string, contextIds: ReadonlyArray<string>, id: string) =>
      contextIds.length === 0
        ? Effect.succeed(undefined)
        : Sql.rows(
            sql<Selectable<InvoiceTable>>`
              select ${invoiceColumns} from invoices
              where id = ${id} and organization_id = ${organizationId}
                and operational_context_id in (${sql.join(contextIds)})
              for update`
          ).pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : (withoutNulls(rows[0]) as InvoiceRecord)))),

    /** Whether an invoice of the organization already carries this externalReference. */
    isExternalReferenceTaken: (organizationId: string, externalReference: string) =>
      Sql.rows(
        sql`select 1 from invoices where organization_id = ${organizationId} and external_reference = ${externalReference}`
      ).pipe(Effect.map((rows) => rows.length > 0)),

    /**
     * Inserts the invoice a pass created, copies the proposal's lines onto it and marks its charges invoiced.
     * Fails with {@link ExternalReferenceConflict} when a concurrent pass took the externalReference.
     */
    insertFromProposal: (invoice: InvoiceRecord, proposalId: string, chargeIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* Sql.rowsCatchingUniqueViolation(
          sql`
            insert into invoices (
              id, organization_id, invoice_run_id, operational_context_id, contract_id, recipient_agent_id,
              recipient_agent_name, billing_account_id, document_kind, credited_invoice_id, billing_stream,
              requested_invoice_date, requested_due_date, payment_terms_days, invoice_number, status, currency,
              total_net_minor_units, total_vat_minor_units, total_gross_minor_units, external_reference,
              approved_at, created_at, updated_at
            ) values (
              ${invoice.id}, ${invoice.organizationId}, ${invoice.invoiceRunId}, ${invoice.operationalContextId},
              ${invoice.contractId}, ${invoice.recipientAgentId}, ${invoice.recipientAgentName},
              ${invoice.billingAccountId}, ${invoice.documentKind}, ${nullable(invoice.creditedInvoiceId)},
              ${invoice.billingStream}, ${invoice.requestedInvoiceDate}, ${nullable(invoice.requestedDueDate)},
              ${nullable(invoice.paymentTermsDays)}, ${invoice.invoiceNumber}, ${invoice.status}, ${invoice.currency},
              ${invoice.totalNetMinorUnits}, ${invoice.totalVatMinorUnits}, ${invoice.totalGrossMinorUnits},
              ${nullable(invoice.externalReference)}, ${nullable(invoice.approvedAt)}, ${invoice.createdAt},
              ${invoice.updatedAt}
            )`,
          "invoices_external_reference_key",
          () => new ExternalReferenceConflict()
        )
        yield* Sql.rows(
          sql`
            insert into document_lines (
              id, proposal_id, invoice_id, charge_id, position, description, net_minor_units, vat_rate_basis_points,
              vat_minor_units, gross_minor_units
            )
            select gen_random_uuid(), null, ${invoice.id}, charge_id, position, description, net_minor_units,
                   vat_rate_basis_points, vat_minor_units, gross_minor_units
            from document_lines where proposal_id = ${proposalId}`
        )
        if (chargeIds.length > 0) {
          yield* Sql.rows(sql`update charges set invoice_id = ${invoice.id} where id in (${sql.join(chargeIds)})`)
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
