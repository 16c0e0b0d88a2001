/**
 * SQL of the billing slice: proposals, invoices, their lines and charges, the integration's declared gates, and
 * the event outbox. Rows map to the domain records of `@propline/billing` (null columns become absent fields).
 * Infrastructure failures are defects; a unique violation a caller can act on is returned as a typed error.
 */
import type { BillingEvent } from "@propline/billing/BillingEvent"
import type { InvoiceRecord } from "@propline/billing/Invoice"
import type { InvoiceProposalRecord } from "@propline/billing/InvoiceProposal"
import * as Db from "@propline/db/Db"
import type { InvoiceProposalTable, InvoiceTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type Selectable, sql } from "kysely"
import { randomUUID } from "node:crypto"
import { keysetAfter, type Position } from "../http/Cursor.js"

type Row<T> = { readonly [K in keyof Selectable<T>]: Selectable<T>[K] }

/** Drops null members, so `exactOptionalPropertyTypes` records get absent fields instead of nulls. */
const withoutNulls = <T extends object>(row: T): { [K in keyof T]: Exclude<T[K], null> } => {
  // A plain for-in over the row: this runs for every row of every page, and Object.entries allocates per row.
  const out: Record<string, unknown> = {}
  for (const key in row) {
    const value = row[key]
    if (value !== null) out[key] = value
  }
  return out as { [K in keyof T]: Exclude<T[K], null> }
}

const toProposal = (row: Row<InvoiceProposalTable>): InvoiceProposalRecord => {
  const { invoiceId: _invoiceId, ...fields } = withoutNulls(row)
  return fields as InvoiceProposalRecord
}

const toInvoice = (row: Row<InvoiceTable>): InvoiceRecord => withoutNulls(row) as InvoiceRecord

const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value)

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

/** An invoice as the queues read it: every column, null where the record has no value. */
export type InvoiceRow = Row<InvoiceTable>

/** A proposal as the queues read it: every column but the created invoice's id, null where there is no value. */
export type ProposalRow = Omit<Row<InvoiceProposalTable>, "invoiceId">

const invoiceColumns = Db.selectColumns<InvoiceRow>({
  id: true,
  organizationId: true,
  invoiceRunId: true,
  operationalContextId: true,
  contractId: true,
  recipientAgentId: true,
  recipientAgentName: true,
  billingAccountId: true,
  documentKind: true,
  creditedInvoiceId: true,
  billingStream: true,
  requestedInvoiceDate: true,
  requestedDueDate: true,
  paymentTermsDays: true,
  invoiceNumber: true,
  status: true,
  currency: true,
  totalNetMinorUnits: true,
  totalVatMinorUnits: true,
  totalGrossMinorUnits: true,
  externalReference: true,
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
  createdAt: true,
  updatedAt: true
})

const proposalColumns = Db.selectColumns<ProposalRow>({
  id: true,
  organizationId: true,
  invoiceRunId: true,
  invoiceNumber: true,
  operationalContextId: true,
  contractId: true,
  recipientAgentId: true,
  recipientAgentName: true,
  billingAccountId: true,
  documentKind: true,
  creditedInvoiceId: true,
  billingStream: true,
  requestedInvoiceDate: true,
  requestedDueDate: true,
  paymentTermsDays: true,
  status: true,
  currency: true,
  totalNetMinorUnits: true,
  totalVatMinorUnits: true,
  totalGrossMinorUnits: true,
  externalReference: true,
  rejectionReason: true,
  passedAt: true,
  rejectedAt: true,
  cancelledAt: true,
  createdAt: true,
  updatedAt: true
})

/**
 * Proposals `proposed` in the visible contexts, oldest first; `limit + 1` rows. One plain statement (no row
 * mapping): the queue is a hot path.
 */
export const verificationQueue = (
  organizationId: string,
  contextIds: ReadonlyArray<string>,
  after: Position | undefined,
  limit: number
) =>
  contextIds.length === 0
    ? Effect.succeed<ReadonlyArray<ProposalRow>>([])
    : Db.queryPlain(
        sql<ProposalRow>`
          select ${proposalColumns} from invoice_proposals
          where organization_id = ${organizationId} and status = 'proposed'
            and operational_context_id in (${sql.join(contextIds)}) and ${keysetAfter("created_at", after)}
          order by created_at, id
          limit ${limit + 1}`
      ).pipe(Effect.orDie)

/**
 * Invoices `approved` in the visible contexts, oldest approval first; `limit + 1` rows. One plain statement (no
 * row mapping): the queue is a hot path.
 */
export const sendQueue = (
  organizationId: string,
  contextIds: ReadonlyArray<string>,
  after: Position | undefined,
  limit: number
) =>
  contextIds.length === 0
    ? Effect.succeed<ReadonlyArray<InvoiceRow>>([])
    : Db.queryPlain(
        sql<InvoiceRow>`
          select ${invoiceColumns} from invoices
          where organization_id = ${organizationId} and status = 'approved'
            and operational_context_id in (${sql.join(contextIds)}) and ${keysetAfter("approved_at", after)}
          order by approved_at, id
          limit ${limit + 1}`
      ).pipe(Effect.orDie)

/**
 * A proposal of the organization in one of the visible contexts, locked for the rest of the transaction so
 * concurrent verdicts on it run one after another. Undefined when it doesn't exist or can't be seen.
 */
export const lockProposal = (organizationId: string, contextIds: ReadonlyArray<string>, id: string) =>
  contextIds.length === 0
    ? Effect.succeed(undefined)
    : Db.query((db) =>
        db
          .selectFrom("invoiceProposals")
          .selectAll()
          .where("id", "=", id)
          .where("organizationId", "=", organizationId)
          .where("operationalContextId", "in", contextIds)
          .forUpdate()
          .executeTakeFirst()
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toProposal(row))), Effect.orDie)

/** An invoice of the organization in one of the visible contexts, locked like {@link lockProposal}. */
export const lockInvoice = (organizationId: string, contextIds: ReadonlyArray<string>, id: string) =>
  contextIds.length === 0
    ? Effect.succeed(undefined)
    : Db.query((db) =>
        db
          .selectFrom("invoices")
          .selectAll()
          .where("id", "=", id)
          .where("organizationId", "=", organizationId)
          .where("operationalContextId", "in", contextIds)
          .forUpdate()
          .executeTakeFirst()
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvoice(row))), Effect.orDie)

/** Ids of the charges behind a proposal's lines, locked; and whether any of them is already invoiced. */
export const lockProposalCharges = (proposalId: string) =>
  Db.query((db) =>
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
    })),
    Effect.orDie
  )

/** Whether an invoice of the organization already carries this externalReference. */
export const isExternalReferenceTaken = (organizationId: string, externalReference: string) =>
  Db.query((db) =>
    db
      .selectFrom("invoices")
      .select("id")
      .where("organizationId", "=", organizationId)
      .where("externalReference", "=", externalReference)
      .executeTakeFirst()
  ).pipe(
    Effect.map((row) => row !== undefined),
    Effect.orDie
  )

/** Another invoice of the organization took the externalReference first (the unique key decided). */
export class ExternalReferenceConflict {
  readonly _tag = "ExternalReferenceConflict"
}

/**
 * Inserts the invoice a pass created, copies the proposal's lines onto it and marks its charges invoiced.
 * Fails with {@link ExternalReferenceConflict} when a concurrent pass took the externalReference.
 */
export const insertInvoiceFromProposal = (invoice: InvoiceRecord, proposalId: string, chargeIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* Db.query((db) =>
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
        .execute()
    ).pipe(
      Effect.catchIf(
        (error) => error.isUniqueViolation("invoices_external_reference_key"),
        () => Effect.fail(new ExternalReferenceConflict())
      ),
      Effect.catchTag("SqlError", Effect.die)
    )
    yield* Db.query((db) =>
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
    ).pipe(Effect.orDie)
    if (chargeIds.length > 0) {
      yield* Db.query((db) =>
        db.updateTable("charges").set({ invoiceId: invoice.id }).where("id", "in", chargeIds).execute()
      ).pipe(Effect.orDie)
    }
  })

/** Writes a proposal's verdict fields (status, externalReference, reason, timestamps, created invoice). */
export const updateProposal = (proposal: InvoiceProposalRecord, invoiceId?: string) =>
  Db.query((db) =>
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
  ).pipe(Effect.orDie, Effect.asVoid)

/** Writes an invoice's lifecycle fields after a transition. */
export const updateInvoiceStatus = (invoice: InvoiceRecord) =>
  Db.query((db) =>
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
  ).pipe(Effect.orDie, Effect.asVoid)

/** Appends domain events to the outbox, in the caller's transaction (decisions 9). */
export const appendEvents = (events: ReadonlyArray<BillingEvent>) =>
  events.length === 0
    ? Effect.void
    : Db.query((db) =>
        db
          .insertInto("events")
          .values(
            events.map((event) => ({
              id: randomUUID(),
              organizationId: event.organizationId,
              type: event._tag,
              payload: { ...event, at: event.at.toISOString() },
              occurredAt: event.at,
              deliveredAt: null
            }))
          )
          .execute()
      ).pipe(Effect.orDie, Effect.asVoid)
