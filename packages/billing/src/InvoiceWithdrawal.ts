/**
 * Deleting an invoice, and the withdrawal queue (decisions.md section 5: "Deleting an invoice that was ever in
 * the send queue puts it on the withdrawal queue until report-discarded"; spec section 4.2,
 * `GET /v1/billing/withdrawal-queue` and `POST /v1/billing/invoice-withdrawals/{invoiceId}/report-discarded`).
 *
 * An operator deletes an invoice that has not been issued: `created`, `approved` or `failed`. A sent document is a
 * legal one; it is credited instead. Once deleted, the invoice is gone from every list and report (404). If it
 * had been approved (so the caller may have read it from the send queue and may hold a copy), a withdrawal tells
 * the caller to discard that copy; the caller confirms with report-discarded.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import { InvoiceStatusInvalid, WithdrawalStatusInvalid } from "./BillingRefusal.js"
import type { Currency, DocumentKind, InvoiceRecord, InvoiceStatus } from "./Invoice.js"
import { invoiceEvent } from "./internal/events.js"

/**
 * Every withdrawal status: `pending` (in the withdrawal queue) and `discarded` (the caller reported it
 * discarded).
 *
 * @since 0.1.0
 */
export const WITHDRAWAL_STATUSES = ["pending", "discarded"] as const

/**
 * A withdrawal's status.
 *
 * @since 0.1.0
 */
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number]

/**
 * Statuses an operator may delete an invoice in: not yet issued.
 *
 * @since 0.1.0
 */
export const DELETABLE_STATUSES: ReadonlyArray<InvoiceStatus> = ["created", "approved", "failed"]

/**
 * A deleted invoice the caller may still hold: enough of it to find the copy (`invoiceId`, `invoiceNumber`,
 * `externalReference`), what it was (`documentKind`, `creditedInvoiceId`, `currency`, `totalGrossMinorUnits` in
 * minor units, `invoiceStatus` when deleted), and the withdrawal's own `status`, `deletedAt`, `discardedAt` and
 * `updatedAt`.
 *
 * @since 0.1.0
 */
export interface WithdrawalRecord {
  readonly invoiceId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly invoiceNumber: number
  readonly documentKind: DocumentKind
  readonly creditedInvoiceId?: string
  readonly currency: Currency
  readonly totalGrossMinorUnits: number
  readonly externalReference?: string
  readonly invoiceStatus: InvoiceStatus
  readonly status: WithdrawalStatus
  readonly deletedAt: Date
  readonly discardedAt?: Date
  readonly updatedAt: Date
}

/**
 * A deleted invoice: the invoice as it was (`updatedAt` = the deletion time), its withdrawal when the caller
 * must be told (else undefined), and the events.
 *
 * @since 0.1.0
 */
export interface Deletion {
  readonly invoice: InvoiceRecord
  readonly withdrawal: WithdrawalRecord | undefined
  readonly events: ReadonlyArray<BillingEvent>
}

/**
 * Whether an invoice was ever in the send queue: it was approved at some point (`approvedAt` is set, and stays
 * set when it later fails).
 *
 * @since 0.1.0
 */
export const wasInSendQueue = (invoice: InvoiceRecord): boolean => invoice.approvedAt !== undefined

/**
 * Delete an invoice, an operator's action (decisions.md section 5). The status must be `created`, `approved` or
 * `failed`, else `InvoiceStatusInvalid` (`BILLING_INVOICE_STATUS_INVALID`, 400, action `delete`).
 *
 * A withdrawal (`pending`, `deletedAt` = `now`) is made when the invoice {@link wasInSendQueue}. Event
 * `billing.invoice.deleted` with `withdrawn` telling which.
 *
 * @since 0.1.0
 */
export const deleteInvoice = (invoice: InvoiceRecord, now: Date): Either.Either<Deletion, InvoiceStatusInvalid> => {
  if (!DELETABLE_STATUSES.includes(invoice.status)) {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "delete" }))
  }
  const deleted: InvoiceRecord = { ...invoice, updatedAt: now }
  const withdrawal: WithdrawalRecord | undefined = wasInSendQueue(invoice)
    ? {
        invoiceId: invoice.id,
        organizationId: invoice.organizationId,
        operationalContextId: invoice.operationalContextId,
        invoiceNumber: invoice.invoiceNumber,
        documentKind: invoice.documentKind,
        ...(invoice.creditedInvoiceId !== undefined ? { creditedInvoiceId: invoice.creditedInvoiceId } : {}),
        currency: invoice.currency,
        totalGrossMinorUnits: invoice.totalGrossMinorUnits,
        ...(invoice.externalReference !== undefined ? { externalReference: invoice.externalReference } : {}),
        invoiceStatus: invoice.status,
        status: "pending",
        deletedAt: now,
        updatedAt: now
      }
    : undefined
  return Either.right({
    invoice: deleted,
    withdrawal,
    events: [{ ...invoiceEvent("billing.invoice.deleted", deleted, now), withdrawn: withdrawal !== undefined }]
  })
}

/**
 * Report a deleted invoice discarded (`POST /v1/billing/invoice-withdrawals/{invoiceId}/report-discarded`):
 * `pending` → `discarded`, `discardedAt` = `updatedAt` = `now`; it leaves the withdrawal queue. Event
 * `billing.invoice_withdrawal.discarded`. A repeated report is refused with `WithdrawalStatusInvalid`
 * (`BILLING_INVOICE_STATUS_INVALID`, 400; decisions.md section 4).
 *
 * @since 0.1.0
 */
export const reportDiscarded = (
  withdrawal: WithdrawalRecord,
  now: Date
): Either.Either<
  { readonly withdrawal: WithdrawalRecord; readonly events: ReadonlyArray<BillingEvent> },
  WithdrawalStatusInvalid
> => {
  if (withdrawal.status !== "pending") {
    return Either.left(
      new WithdrawalStatusInvalid({
        withdrawalStatus: withdrawal.status,
        detail: `The withdrawal is ${withdrawal.status}; report-discarded is only allowed while it is pending.`
      })
    )
  }
  const discarded: WithdrawalRecord = { ...withdrawal, status: "discarded", discardedAt: now, updatedAt: now }
  return Either.right({
    withdrawal: discarded,
    events: [
      {
        _tag: "billing.invoice_withdrawal.discarded",
        invoiceId: discarded.invoiceId,
        organizationId: discarded.organizationId,
        operationalContextId: discarded.operationalContextId,
        at: now
      }
    ]
  })
}
