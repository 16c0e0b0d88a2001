/**
 * The invoice record of the Integration API (spec section 2.1) and the values its fields take.
 *
 * Conventions shared by every record of this package:
 * - money is a `number` holding an integer amount in minor units of the record's currency
 *   (öre, øre, cent, penny), within ±9007199254740991 (spec section 8);
 * - dates are ISO calendar dates as `string`s, `YYYY-MM-DD`;
 * - timestamps are `Date`s (the contract encodes them as ISO 8601 in UTC);
 * - an optional field is absent, never `undefined` (`exactOptionalPropertyTypes`).
 *
 * @since 0.1.0
 */

/**
 * Every invoice status, in lifecycle order (spec section 3, decisions.md section 5).
 *
 * @since 0.1.0
 */
export const INVOICE_STATUSES = ["created", "approved", "sent", "paid", "written-off", "failed"] as const

/**
 * Invoice status (spec sections 2.1 and 3):
 * `created` → `approved` (operator approval, or a passed proposal) → `sent` (report-sent) → `paid` or
 * `written-off` (settled); `approved` → `failed` (report-failed, terminal).
 *
 * @since 0.1.0
 */
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number]

/**
 * Every document kind (spec section 2.1).
 *
 * @since 0.1.0
 */
export const DOCUMENT_KINDS = ["invoice", "credit-note"] as const

/**
 * `invoice`, or `credit-note` (negative totals; names the invoice it credits in `creditedInvoiceId`).
 *
 * @since 0.1.0
 */
export type DocumentKind = (typeof DOCUMENT_KINDS)[number]

/**
 * Every billing stream (spec section 2.1).
 *
 * @since 0.1.0
 */
export const BILLING_STREAMS = ["contractual", "running"] as const

/**
 * `contractual` (the contract's own products) or `running` (purchases beside the contract, such as bookings).
 *
 * @since 0.1.0
 */
export type BillingStream = (typeof BILLING_STREAMS)[number]

/**
 * Every accepted currency (spec section 2.1).
 *
 * @since 0.1.0
 */
export const CURRENCIES = ["SEK", "NOK", "DKK", "EUR", "USD", "GBP"] as const

/**
 * ISO 4217 currency code of a record; its amounts are in this currency's minor units.
 *
 * @since 0.1.0
 */
export type Currency = (typeof CURRENCIES)[number]

/**
 * Every payment reference type (spec section 2.1).
 *
 * @since 0.1.0
 */
export const PAYMENT_REFERENCE_TYPES = ["ocr", "kid", "reference"] as const

/**
 * `ocr` (Swedish OCR number), `kid` (Norwegian KID number) or `reference` (free text), as reported with the send.
 *
 * @since 0.1.0
 */
export type PaymentReferenceType = (typeof PAYMENT_REFERENCE_TYPES)[number]

/**
 * An invoice or a credit note as stored (spec section 2.1), field for field, except `overdue`: it depends on the
 * day it is read, so it is computed by {@link isOverdue} / {@link withOverdue} and never stored.
 *
 * Ids are UUID strings. Money fields (`*MinorUnits`) are integers in minor units of `currency`, negative on a
 * credit note. `requestedInvoiceDate`, `requestedDueDate`, `issuedInvoiceDate` and `dueDate` are `YYYY-MM-DD`.
 * `*At` fields are timestamps. Optional fields are absent until the event that sets them
 * (`externalReference`: pass or report-sent; `issued*`, `dueDate`, `balanceMinorUnits`, payment reference,
 * `documentUrl`, `sentAt`: report-sent; `failedAt`, `failureReason`: report-failed).
 *
 * @since 0.1.0
 */
export interface InvoiceRecord {
  readonly id: string
  readonly invoiceRunId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly contractId: string
  readonly recipientAgentId: string
  readonly recipientAgentName: string
  readonly billingAccountId: string
  readonly documentKind: DocumentKind
  /** On a credit note, the invoice it credits; absent on an invoice. */
  readonly creditedInvoiceId?: string
  readonly billingStream: BillingStream
  /** `YYYY-MM-DD`. */
  readonly requestedInvoiceDate: string
  /** `YYYY-MM-DD`; absent on a credit note. */
  readonly requestedDueDate?: string
  /** Integer ≥ 0; absent on a credit note. */
  readonly paymentTermsDays?: number
  /** The service's own number (integer ≤ 9007199254740991); the legal number is `issuedInvoiceNumber`. */
  readonly invoiceNumber: number
  readonly status: InvoiceStatus
  readonly currency: Currency
  readonly totalNetMinorUnits: number
  readonly totalVatMinorUnits: number
  readonly totalGrossMinorUnits: number
  readonly externalReference?: string
  readonly issuedInvoiceNumber?: string
  /** `YYYY-MM-DD`. */
  readonly issuedInvoiceDate?: string
  /** `YYYY-MM-DD`: the due date the invoice was issued with. */
  readonly dueDate?: string
  readonly issuedTotalGrossMinorUnits?: number
  readonly paymentReference?: string
  readonly paymentReferenceType?: PaymentReferenceType
  readonly documentUrl?: string
  /** Issued total − payments + reversed payments − write-offs; below zero after an overpayment. */
  readonly balanceMinorUnits?: number
  readonly approvedAt?: Date
  readonly sentAt?: Date
  readonly paidAt?: Date
  readonly writtenOffAt?: Date
  readonly failedAt?: Date
  readonly failureReason?: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/**
 * An invoice as the API shows it: the stored record plus the computed `overdue` flag (spec section 2.1).
 *
 * @since 0.1.0
 */
export interface InvoiceWithOverdue extends InvoiceRecord {
  readonly overdue: boolean
}

/**
 * Whether the invoice is overdue on `today` (spec section 2.1, decisions.md section 5): true while its status is
 * `sent` and its issued `dueDate` is before `today`. An invoice due today is not overdue; a credit note issued
 * without a due date never is. Settling it (paid, written-off) ends overdue.
 *
 * @param invoice its status and issued due date; a stored row's `null` due date counts as absent, so a page read
 *   from the database is judged without first being turned into records.
 * @param today the caller's current calendar date, `YYYY-MM-DD`, in the organization's time zone.
 * @since 0.1.0
 */
export const isOverdue = (
  invoice: { readonly status: InvoiceStatus; readonly dueDate?: string | null | undefined },
  today: string
): boolean => invoice.status === "sent" && invoice.dueDate != null && invoice.dueDate < today

/**
 * The invoice with its `overdue` flag computed for `today` (`YYYY-MM-DD`), for encoding a response
 * (spec section 2.1). See {@link isOverdue}.
 *
 * @since 0.1.0
 */
export const withOverdue = (invoice: InvoiceRecord, today: string): InvoiceWithOverdue => ({
  ...invoice,
  overdue: isOverdue(invoice, today)
})
