/**
 * SQL of invoices (spec 2.1): the send queue's page (read with the billing scope, in one round trip), what a report
 * locks (with the billing scope, in one round trip), the externalReference's uniqueness, a pass's facts and its one
 * write (the invoice, its lines, its charges and the proposal's verdict), and writing lifecycle fields. Rows map to
 * `@propline/billing`'s InvoiceRecord (null columns become absent fields). The send queue and pass run plain
 * statements (`Sql.rows`), the columns named in each: they are hot paths; the queue's rows are views of the column
 * texts pg received (`Sql.viewRows`), each column parsed when the page's encoder reads it, and pass's statements are
 * compiled once per shape (`Sql.prepare`, `Sql.preparedByShape`).
 */
import type { InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import type { InvoiceTable } from "@propline/db/Database"
import { Data, Effect } from "effect"
import { type Insertable, type RawBuilder, type Selectable, sql } from "kysely"
import * as EventsAndAudit from "../platform/EventsAndAudit.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import type { LockTarget, PageTarget } from "./BillingScopeRepository.js"
import { documentColumns } from "./DocumentColumns.js"
import { insertDocumentLines, type NewLine } from "./DocumentLineRepository.js"
import { VERDICT_VALUES, verdictUpdateOf, verdictValues } from "./ProposalRepository.js"

/**
 * The one rule for which invoices and credit notes still count (spec 2.1): a deleted one (`deleted_at` set, now on
 * the withdrawal queue) is never listed, locked, summed or credited against. `table` is the name or alias the
 * statement gives `invoices` (default `invoices`).
 */
export const notDeleted = (table: string = "invoices"): RawBuilder<boolean> => sql<boolean>`${sql.ref(table)}.deleted_at is null`

const toInvoice = (row: Selectable<InvoiceTable>): InvoiceRecord => withoutNulls(row) as InvoiceRecord

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
  failureReason: true,
  deletedAt: true
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

/** An invoice record as a new row (report fields empty until reported). */
const invoiceRow = (invoice: InvoiceRecord): Insertable<InvoiceTable> => ({
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

const insertLines = (invoiceId: string, lines: ReadonlyArray<NewLine>) =>
  lines.length === 0 ? Effect.void : insertDocumentLines({ proposalId: null, invoiceId }, lines)

/** Another invoice of the organization took the externalReference first (the unique key decided). */
export class ExternalReferenceConflict extends Data.TaggedError("ExternalReferenceConflict") {}

/** What a report locks with its billing scope: the invoice `where` names by its key, not deleted. */
const lockTarget = (where: (key: string) => RawBuilder<boolean>): LockTarget<Selectable<InvoiceTable>> => ({
  columns: invoiceColumns,
  from: "invoices",
  where: (key) => sql<boolean>`${where(key)} and ${notDeleted()}`
})

/** Whether an invoice of the organization already carries `externalReference`, as a boolean expression. */
const externalReferenceTaken = (organizationId: string, externalReference: string): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from invoices where organization_id = ${organizationId} and external_reference = ${externalReference})`

/** `passFacts`' statement ({@link InvoiceRepository}): the organization's id, the proposal's, the externalReference. */
export const passFactsStatement = (organizationId: string, proposalId: string, externalReference: string) =>
  sql<{ readonly chargeIds: ReadonlyArray<string>; readonly alreadyInvoiced: boolean; readonly externalReferenceTaken: boolean }>`
    with charged as (
      select id, invoice_id from charges
      where id in (select charge_id from document_lines where proposal_id = ${proposalId} and charge_id is not null)
      for update
    )
    select array(select id from charged) as "chargeIds",
           exists (select 1 from charged where invoice_id is not null) as "alreadyInvoiced",
           ${externalReferenceTaken(organizationId, externalReference)} as "externalReferenceTaken"`

/** {@link passFactsStatement}, compiled once. */
export const PASS_FACTS = Sql.prepare(3, passFactsStatement)

/** An invoice's values in the order {@link invoiceUpdateOf} places them: every field a report sets, then its id. */
export const invoiceUpdateValues = (invoice: InvoiceRecord): ReadonlyArray<unknown> => [
  invoice.status,
  nullable(invoice.externalReference),
  nullable(invoice.issuedInvoiceNumber),
  nullable(invoice.issuedInvoiceDate),
  nullable(invoice.dueDate),
  nullable(invoice.issuedTotalGrossMinorUnits),
  nullable(invoice.paymentReference),
  nullable(invoice.paymentReferenceType),
  nullable(invoice.documentUrl),
  nullable(invoice.balanceMinorUnits),
  nullable(invoice.approvedAt),
  nullable(invoice.sentAt),
  nullable(invoice.paidAt),
  nullable(invoice.writtenOffAt),
  nullable(invoice.failedAt),
  nullable(invoice.failureReason),
  invoice.updatedAt,
  invoice.id
]

/** How many values {@link invoiceUpdateValues} gives. */
export const INVOICE_UPDATE_VALUES = 18

/**
 * The statement writing every field a report or settlement sets on an invoice, its values ({@link
 * invoiceUpdateValues}) `values` from `from` on: real values, or a prepared statement's stand-ins.
 */
export const invoiceUpdateOf = (values: ReadonlyArray<unknown>, from = 0): RawBuilder<unknown> =>
  sql`
    update invoices set
      status = ${values[from]}, external_reference = ${values[from + 1]},
      issued_invoice_number = ${values[from + 2]},
      issued_invoice_date = ${values[from + 3]}, due_date = ${values[from + 4]},
      issued_total_gross_minor_units = ${values[from + 5]},
      payment_reference = ${values[from + 6]},
      payment_reference_type = ${values[from + 7]},
      document_url = ${values[from + 8]}, balance_minor_units = ${values[from + 9]},
      approved_at = ${values[from + 10]}, sent_at = ${values[from + 11]},
      paid_at = ${values[from + 12]}, written_off_at = ${values[from + 13]},
      failed_at = ${values[from + 14]}, failure_reason = ${values[from + 15]},
      updated_at = ${values[from + 16]}
    where id = ${values[from + 17]}`

/**
 * The statement writing every field a report or settlement sets on an invoice: {@link InvoiceRepository}'s
 * `update`, and the last part of a money report's one write (`LedgerRepository`).
 */
export const invoiceUpdate = (invoice: InvoiceRecord): RawBuilder<unknown> => invoiceUpdateOf(invoiceUpdateValues(invoice))

/** A new invoice's values in the order {@link insertFromProposalStatement} places them (its id first). */
const newInvoiceValues = (invoice: InvoiceRecord): ReadonlyArray<unknown> => [
  invoice.id,
  invoice.organizationId,
  invoice.invoiceRunId,
  invoice.operationalContextId,
  invoice.contractId,
  invoice.recipientAgentId,
  invoice.recipientAgentName,
  invoice.billingAccountId,
  invoice.documentKind,
  nullable(invoice.creditedInvoiceId),
  invoice.billingStream,
  invoice.requestedInvoiceDate,
  nullable(invoice.requestedDueDate),
  nullable(invoice.paymentTermsDays),
  invoice.invoiceNumber,
  invoice.status,
  invoice.currency,
  invoice.totalNetMinorUnits,
  invoice.totalVatMinorUnits,
  invoice.totalGrossMinorUnits,
  nullable(invoice.externalReference),
  nullable(invoice.approvedAt),
  invoice.createdAt,
  invoice.updatedAt
]

const NEW_INVOICE_VALUES = 24

/**
 * A pass's one write (`insertFromProposal`) with `chargeCount` charges and `eventCount` events, its values the new
 * invoice's (24, its id first), the proposal's verdict (`verdictValues`, 8, its id last), the charges' ids, then the
 * events' and the audit entry's (`EventsAndAudit`).
 */
export const insertFromProposalStatement = (
  chargeCount: number,
  eventCount: number,
  v: ReadonlyArray<unknown>
): RawBuilder<unknown> => {
  const invoiceId = v[0]
  const verdictFrom = NEW_INVOICE_VALUES
  const proposalId = v[verdictFrom + VERDICT_VALUES - 1]
  const chargesFrom = verdictFrom + VERDICT_VALUES
  const also = EventsAndAudit.ctes(eventCount, v, chargesFrom + chargeCount)
  return sql`
          with invoice as (
            insert into invoices (
              id, organization_id, invoice_run_id, operational_context_id, contract_id, recipient_agent_id,
              recipient_agent_name, billing_account_id, document_kind, credited_invoice_id, billing_stream,
              requested_invoice_date, requested_due_date, payment_terms_days, invoice_number, status, currency,
              total_net_minor_units, total_vat_minor_units, total_gross_minor_units, external_reference,
              approved_at, created_at, updated_at
            ) values (
              ${v[0]}, ${v[1]}, ${v[2]}, ${v[3]},
              ${v[4]}, ${v[5]}, ${v[6]},
              ${v[7]}, ${v[8]}, ${v[9]},
              ${v[10]}, ${v[11]}, ${v[12]},
              ${v[13]}, ${v[14]}, ${v[15]}, ${v[16]},
              ${v[17]}, ${v[18]}, ${v[19]},
              ${v[20]}, ${v[21]}, ${v[22]},
              ${v[23]}
            )
          ), lines as (
            insert into document_lines (
              id, proposal_id, invoice_id, charge_id, position, description, net_minor_units, vat_rate_basis_points,
              vat_minor_units, gross_minor_units
            )
            select gen_random_uuid(), null, ${invoiceId}, charge_id, position, description, net_minor_units,
                   vat_rate_basis_points, vat_minor_units, gross_minor_units
            from document_lines where proposal_id = ${proposalId}
          )${
            chargeCount === 0
              ? sql``
              : sql`, charged as (update charges set invoice_id = ${invoiceId} where id in (${sql.join(
                  v.slice(chargesFrom, chargesFrom + chargeCount)
                )}))`
          }, ${sql.join(also)}
          ${verdictUpdateOf(v, verdictFrom, invoiceId)}`
}

/** {@link insertFromProposalStatement} compiled once per shape, `${chargeCount}:${eventCount}`. */
export const insertFromProposalPrepared = Sql.preparedByShape((shape: `${number}:${number}`) => {
  const [chargeCount, eventCount] = shape.split(":").map(Number) as [number, number]
  return Sql.prepare(
    NEW_INVOICE_VALUES + VERDICT_VALUES + chargeCount + EventsAndAudit.valueCount(eventCount),
    (...values: ReadonlyArray<unknown>) => insertFromProposalStatement(chargeCount, eventCount, values)
  )
})

/** The values of {@link insertFromProposalStatement} for a pass. */
export const insertFromProposalValues = (
  invoice: InvoiceRecord,
  proposal: InvoiceProposalRecord,
  chargeIds: ReadonlyArray<string>,
  also: EventsAndAudit.EventsAndAudit
): Array<unknown> => [...newInvoiceValues(invoice), ...verdictValues(proposal), ...chargeIds, ...also.values]

export class InvoiceRepository extends Effect.Service<InvoiceRepository>()("@propline/api/billing/InvoiceRepository", {
  succeed: {
    /**
     * The send queue's page (`BillingScopeRepository.integrationAndPage` reads it with the scope): invoices
     * `approved` and not deleted, oldest approval first.
     */
    sendQueuePage: {
      columns: invoiceColumns,
      from: "invoices",
      where: sql<boolean>`status = 'approved' and ${notDeleted()}`,
      sortColumn: "approved_at"
    } satisfies PageTarget<Selectable<InvoiceTable>>,

    /**
     * What a report locks with its billing scope (`BillingScopeRepository.scopeLocking`, the key its id): the
     * invoice by id, not deleted, so concurrent reports on it run one after another; {@link toRecord} maps the row.
     */
    lockTarget: lockTarget((id) => sql<boolean>`id = ${id}`),

    /**
     * As {@link lockTarget}, the invoice found by the caller's own id for it (spec 4.2, by-external-reference), the
     * key that id.
     */
    lockTargetByExternalReference: lockTarget((externalReference) => sql<boolean>`external_reference = ${externalReference}`),

    /** An invoice's row as {@link lockTarget} reads it, as the domain's record (null columns become absent fields). */
    toRecord: toInvoice,

    /** An invoice of the organization, locked, whatever its context (an operator's action). Not deleted ones. */
    lockForOperator: (organizationId: string, id: string) =>
      Sql.query((db) =>
        db
          .selectFrom("invoices")
          .selectAll()
          .where("id", "=", id)
          .where("organizationId", "=", organizationId)
          .where(notDeleted())
          .forUpdate()
          .executeTakeFirst()
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvoice(row)))),

    /** The invoices of a run that are not deleted, locked. */
    lockRunInvoices: (invoiceRunId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("invoices")
          .selectAll()
          .where("invoiceRunId", "=", invoiceRunId)
          .where(notDeleted())
          .orderBy("invoiceNumber")
          .forUpdate()
          .execute()
      ).pipe(Effect.map((rows) => rows.map(toInvoice))),

    /** Whether an invoice of the organization already carries this externalReference. */
    isExternalReferenceTaken: (organizationId: string, externalReference: string) =>
      Sql.rows(sql<{ readonly taken: boolean }>`select ${externalReferenceTaken(organizationId, externalReference)} as taken`).pipe(
        Effect.map((rows) => rows[0]?.taken === true)
      ),

    /**
     * What a pass must know once its proposal is locked, in one round trip: the ids of the charges behind the
     * proposal's lines, locked (so two proposals over the same material can't both pass); whether any of them is
     * already invoiced; and whether an invoice of the organization already carries `externalReference` (read in
     * this statement's snapshot, taken before any wait for the charges: the unique key on the reference stays the
     * last guard, see {@link insertFromProposal}).
     */
    passFacts: (organizationId: string, proposalId: string, externalReference: string) =>
      Sql.preparedRows(PASS_FACTS, organizationId, proposalId, externalReference).pipe(
        Effect.map((rows) => ({
          chargeIds: rows[0]?.chargeIds ?? [],
          alreadyInvoiced: rows[0]?.alreadyInvoiced === true,
          externalReferenceTaken: rows[0]?.externalReferenceTaken === true
        }))
      ),

    /**
     * A pass's one write: inserts the invoice it created, copies the proposal's lines onto it, marks the charges
     * (`chargeIds`, locked by {@link passFacts}) invoiced and writes the proposal's verdict with the invoice's id,
     * in one statement (data-modifying CTEs; the foreign keys are checked at its end), with `also`, the rows that
     * go with the pass (its events and audit entry, `EventsAndAudit`), after those CTEs; compiled once per number
     * of charges and events ({@link insertFromProposalStatement}). Fails with
     * {@link ExternalReferenceConflict}, having written nothing (`also` included), when another invoice took the
     * externalReference meanwhile (the unique key decides).
     */
    insertFromProposal: (
      invoice: InvoiceRecord,
      proposal: InvoiceProposalRecord,
      chargeIds: ReadonlyArray<string>,
      also: EventsAndAudit.EventsAndAudit
    ) =>
      Sql.preparedRowsCatchingUniqueViolation(
        insertFromProposalPrepared(`${chargeIds.length}:${also.eventCount}`),
        insertFromProposalValues(invoice, proposal, chargeIds, also),
        "invoices_external_reference_key",
        () => new ExternalReferenceConflict()
      ).pipe(Effect.asVoid),

    /**
     * Inserts a new invoice or credit note with its lines (an invoice run's document, or a credit note). New
     * documents carry no externalReference, so no reference can collide.
     */
    insert: (invoice: InvoiceRecord, lines: ReadonlyArray<NewLine>) =>
      Effect.gen(function* () {
        yield* Sql.query((db) => db.insertInto("invoices").values(invoiceRow(invoice)).execute())
        yield* insertLines(invoice.id, lines)
      }),

    /** Inserts lines of an invoice (after the charges they reference). */
    insertLines,

    /** Invoices by id, of any organization, deleted or not (the events publisher renders a batch's at once). */
    byIds: (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyArray<InvoiceRecord>>([])
        : Sql.query((db) => db.selectFrom("invoices").selectAll().where("id", "in", ids).execute()).pipe(
            Effect.map((rows) => rows.map(toInvoice))
          ),

    /** An invoice of the organization by id, deleted or not (an operator's replayed act reads what it made). */
    byId: (organizationId: string, id: string) =>
      Sql.query((db) =>
        db.selectFrom("invoices").selectAll().where("id", "=", id).where("organizationId", "=", organizationId).executeTakeFirst()
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvoice(row)))),

    /**
     * Writes every field a report or settlement sets (report-sent, payments, reversals, write-offs, approval,
     * failure). A report-sent that attaches an externalReference another invoice took meanwhile fails with
     * {@link ExternalReferenceConflict} (the unique key decides).
     */
    update: (invoice: InvoiceRecord) =>
      Sql.rowsCatchingUniqueViolation(
        invoiceUpdate(invoice),
        "invoices_external_reference_key",
        () => new ExternalReferenceConflict()
      ).pipe(Effect.asVoid),

    /** Marks an invoice deleted and releases its charges, so a later run can bill the material again. */
    markDeleted: (invoice: InvoiceRecord, at: Date) =>
      Effect.gen(function* () {
        yield* Sql.query((db) =>
          db.updateTable("invoices").set({ deletedAt: at, updatedAt: at }).where("id", "=", invoice.id).execute()
        )
        yield* Sql.query((db) =>
          db.updateTable("charges").set({ invoiceId: null }).where("invoiceId", "=", invoice.id).execute()
        )
      }),

    /**
     * The invoice's lines with how much of each earlier credit notes (not deleted) took back, as a positive
     * amount of the line's sign; and the gross total of those credit notes (≤ 0).
     */
    creditState: (invoiceId: string) =>
      Effect.gen(function* () {
        const lines = yield* Sql.query((db) =>
          db
            .selectFrom("documentLines as line")
            .select((eb) => [
              "line.id",
              "line.description",
              "line.netMinorUnits",
              "line.vatRateBasisPoints",
              eb.fn
                .coalesce(
                  eb
                    .selectFrom("documentLines as credit")
                    .innerJoin("invoices as note", "note.id", "credit.invoiceId")
                    .select((inner) => inner.fn.sum<number>("credit.netMinorUnits").as("sum"))
                    .whereRef("credit.creditedLineId", "=", "line.id")
                    .where(notDeleted("note")),
                  eb.lit(0)
                )
                .as("creditedNet")
            ])
            .where("line.invoiceId", "=", invoiceId)
            .orderBy("line.position")
            .execute()
        )
        const credited = yield* Sql.query((db) =>
          db
            .selectFrom("invoices")
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("totalGrossMinorUnits"), eb.lit(0)).as("gross"))
            .where("creditedInvoiceId", "=", invoiceId)
            .where(notDeleted())
            .executeTakeFirstOrThrow()
        )
        return {
          lines: lines.map((line) => ({
            lineId: line.id,
            description: line.description,
            netMinorUnits: line.netMinorUnits,
            vatRateBasisPoints: line.vatRateBasisPoints,
            creditedNetMinorUnits: -Number(line.creditedNet)
          })),
          creditedGrossMinorUnits: Number(credited.gross)
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
