/**
 * Settlement of a sent invoice or credit note (decisions.md sections 4 and 5): the money the caller's ERP
 * reports — payments, payment reversals, write-offs — recorded in a ledger, the balance they leave, and the
 * status that balance gives.
 *
 * - `balanceMinorUnits` = issued total − payments + reversed payments − write-offs (minor units).
 * - A document is *settled* when its balance is no longer on the side of its issued total: ≤ 0 for an invoice,
 *   ≥ 0 for a credit note (whose totals and payments — refunds — are negative). Settled with at least one
 *   write-off: `written-off`; settled without: `paid`; not settled: `sent`.
 * - Payments are recorded on `sent`, `paid` and `written-off` documents (money that arrived is never refused; an
 *   overpayment leaves the balance past zero). A reversal that makes the balance due again returns a `paid` or
 *   `written-off` document to `sent`. A write-off needs a `sent` document and may not go beyond the balance.
 * - Every report is idempotent by the caller's id (`paymentId`, `writeOffId`): the same report again changes
 *   nothing and answers the current record (`replayed: true`); the same id with other content is refused.
 *
 * Pure functions `(state, command, now)`: the caller loads the invoice and its ledger in one transaction (with
 * the invoice row locked, so reports on one invoice run one after another), then persists the outcome.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import {
  FieldsInvalid,
  InvoiceStatusInvalid,
  PaymentAmountInvalid,
  PaymentNotFound,
  PaymentReplayMismatch,
  PaymentReversed,
  WriteOffAmountInvalid,
  WriteOffReplayMismatch
} from "./BillingRefusal.js"
import type { Currency, DocumentKind, InvoiceRecord, InvoiceStatus } from "./Invoice.js"
import { invoiceEvent } from "./internal/events.js"
import { MAX_MINOR_UNITS, MIN_MINOR_UNITS } from "./Money.js"

/**
 * A reversal of a payment, as reported: `reversedOn` is the date (`YYYY-MM-DD`) the payment was taken back,
 * `reason` the caller's optional text, `recordedAt` when the service recorded it.
 *
 * @since 0.1.0
 */
export interface PaymentReversal {
  readonly reversedOn: string
  readonly reason?: string
  readonly recordedAt: Date
}

/**
 * A payment recorded on a document: the caller's `paymentId` (unique on the document), `amountMinorUnits`
 * (integer minor units of `currency`, with the document's sign: positive on an invoice, negative on a credit
 * note), `paidOn` (`YYYY-MM-DD`), the `currency` (always the document's), `recordedAt`, and its `reversal`
 * once reversed.
 *
 * @since 0.1.0
 */
export interface PaymentRecord {
  readonly paymentId: string
  readonly amountMinorUnits: number
  readonly paidOn: string
  readonly currency: Currency
  readonly recordedAt: Date
  readonly reversal?: PaymentReversal
}

/**
 * A write-off recorded on a document: the caller's `writeOffId` (unique on the document), `amountMinorUnits`
 * (the document's sign, never beyond the balance), `writtenOffOn` (`YYYY-MM-DD`), the optional `reason` and
 * `recordedAt`.
 *
 * @since 0.1.0
 */
export interface WriteOffRecord {
  readonly writeOffId: string
  readonly amountMinorUnits: number
  readonly writtenOffOn: string
  readonly reason?: string
  readonly recordedAt: Date
}

/**
 * Everything reported on one document's money, in any order.
 *
 * @since 0.1.0
 */
export interface Ledger {
  readonly payments: ReadonlyArray<PaymentRecord>
  readonly writeOffs: ReadonlyArray<WriteOffRecord>
}

/**
 * The ledger of a document nothing was reported on.
 *
 * @since 0.1.0
 */
export const EMPTY_LEDGER: Ledger = { payments: [], writeOffs: [] }

/**
 * What a money report needs: the document (sent or later) and its ledger.
 *
 * @since 0.1.0
 */
export interface SettlementState {
  readonly invoice: InvoiceRecord
  readonly ledger: Ledger
}

/**
 * Body of report-payment (decisions.md section 5): `paymentId` (the caller's, 1 to 200 characters),
 * `amountMinorUnits` (non-zero, the document's sign), `paidOn` (`YYYY-MM-DD`) and optional `currency`, which
 * must be the document's.
 *
 * @since 0.1.0
 */
export interface ReportPaymentCommand {
  readonly paymentId: string
  readonly amountMinorUnits: number
  readonly paidOn: string
  readonly currency?: Currency
}

/**
 * Body of report-payment-reversed (decisions.md section 5): the `paymentId` of a recorded payment, `reversedOn`
 * (`YYYY-MM-DD`) and an optional `reason`.
 *
 * @since 0.1.0
 */
export interface ReportPaymentReversedCommand {
  readonly paymentId: string
  readonly reversedOn: string
  readonly reason?: string
}

/**
 * Body of report-write-off (decisions.md section 5): `writeOffId` (the caller's, 1 to 200 characters),
 * `amountMinorUnits` (non-zero, the document's sign, not beyond the balance), `writtenOffOn` (`YYYY-MM-DD`) and
 * an optional `reason`.
 *
 * @since 0.1.0
 */
export interface ReportWriteOffCommand {
  readonly writeOffId: string
  readonly amountMinorUnits: number
  readonly writtenOffOn: string
  readonly reason?: string
}

/**
 * The outcome of an accepted money report. `replayed` is true when the same report had been recorded before:
 * nothing changed, `invoice` is the current record, `events` is empty and there is nothing to persist. Else
 * `invoice` is the document with its new balance and status, `ledger` the ledger with the report in it, and
 * `events` what to write to the outbox.
 *
 * @since 0.1.0
 */
export interface MoneyReportOutcome {
  readonly replayed: boolean
  readonly invoice: InvoiceRecord
  readonly ledger: Ledger
  readonly events: ReadonlyArray<BillingEvent>
}

/**
 * The outcome of an accepted report-payment: see {@link MoneyReportOutcome}; `payment` is the payment as
 * recorded (now, or by the report this one replays).
 *
 * @since 0.1.0
 */
export interface PaymentOutcome extends MoneyReportOutcome {
  readonly payment: PaymentRecord
}

/**
 * The outcome of an accepted report-write-off: see {@link MoneyReportOutcome}; `writeOff` as recorded.
 *
 * @since 0.1.0
 */
export interface WriteOffOutcome extends MoneyReportOutcome {
  readonly writeOff: WriteOffRecord
}

/**
 * The sign every amount on a document carries: 1 on an invoice, −1 on a credit note (spec section 2.1:
 * "negative on a credit note"; decisions.md section 5: refunds are negative).
 *
 * @since 0.1.0
 */
export const documentSign = (documentKind: DocumentKind): 1 | -1 => (documentKind === "invoice" ? 1 : -1)

/**
 * The balance of a document, exactly (BigInt inside): `issuedTotal` − payments + reversed payments − write-offs,
 * in minor units. May lie outside ±9007199254740991 only if the ledger does; the transitions never record a
 * report that would take it there.
 *
 * @since 0.1.0
 */
export const balanceOf = (issuedTotalGrossMinorUnits: number, ledger: Ledger): bigint => {
  let balance = BigInt(issuedTotalGrossMinorUnits)
  for (const payment of ledger.payments) {
    balance -= BigInt(payment.amountMinorUnits)
    if (payment.reversal !== undefined) balance += BigInt(payment.amountMinorUnits)
  }
  for (const writeOff of ledger.writeOffs) balance -= BigInt(writeOff.amountMinorUnits)
  return balance
}

/**
 * Whether a balance settles a document of `documentKind`: ≤ 0 on an invoice, ≥ 0 on a credit note.
 *
 * @since 0.1.0
 */
export const isSettled = (documentKind: DocumentKind, balanceMinorUnits: number | bigint): boolean =>
  documentSign(documentKind) === 1 ? balanceMinorUnits <= 0 : balanceMinorUnits >= 0

/**
 * The status a sent document's balance and ledger give it (decisions.md section 5): not settled → `sent`;
 * settled with at least one write-off → `written-off`; settled without → `paid`.
 *
 * @since 0.1.0
 */
export const settledStatus = (
  documentKind: DocumentKind,
  balanceMinorUnits: number | bigint,
  ledger: Ledger
): Extract<InvoiceStatus, "sent" | "paid" | "written-off"> =>
  !isSettled(documentKind, balanceMinorUnits) ? "sent" : ledger.writeOffs.length > 0 ? "written-off" : "paid"

const SETTLEMENT_STATUSES: ReadonlyArray<InvoiceStatus> = ["sent", "paid", "written-off"]

const inRange = (value: bigint): boolean => value >= BigInt(MIN_MINOR_UNITS) && value <= BigInt(MAX_MINOR_UNITS)

/**
 * The document after its ledger changed: balance by {@link balanceOf}, status by {@link settledStatus}, and the
 * settlement times: `paidAt` / `writtenOffAt` set to `now` when the status becomes `paid` / `written-off`, both
 * removed when it returns to `sent`, kept while it stays. Events: `billing.invoice.paid`,
 * `billing.invoice.written_off` or `billing.invoice.reopened` when the status changed.
 */
const resettle = (
  invoice: InvoiceRecord,
  ledger: Ledger,
  now: Date
): { readonly invoice: InvoiceRecord; readonly events: ReadonlyArray<BillingEvent> } => {
  const balance = balanceOf(invoice.issuedTotalGrossMinorUnits ?? 0, ledger)
  const status = settledStatus(invoice.documentKind, balance, ledger)
  const { paidAt: _paidAt, writtenOffAt: _writtenOffAt, ...unsettled } = invoice
  const base = { ...invoice, balanceMinorUnits: Number(balance), updatedAt: now }
  if (status === invoice.status) return { invoice: base, events: [] }
  switch (status) {
    case "sent": {
      const reopened: InvoiceRecord = { ...unsettled, status, balanceMinorUnits: Number(balance), updatedAt: now }
      return { invoice: reopened, events: [invoiceEvent("billing.invoice.reopened", reopened, now)] }
    }
    case "paid": {
      const paid: InvoiceRecord = { ...base, status, paidAt: now }
      return { invoice: paid, events: [invoiceEvent("billing.invoice.paid", paid, now)] }
    }
    case "written-off": {
      const writtenOff: InvoiceRecord = { ...base, status, writtenOffAt: now }
      return { invoice: writtenOff, events: [invoiceEvent("billing.invoice.written_off", writtenOff, now)] }
    }
  }
}

const samePayment = (recorded: PaymentRecord, command: ReportPaymentCommand, currency: Currency): boolean =>
  recorded.amountMinorUnits === command.amountMinorUnits &&
  recorded.paidOn === command.paidOn &&
  recorded.currency === currency

/**
 * Report a payment (`POST /v1/billing/invoices/{invoiceId}/report-payment`, or by external reference;
 * decisions.md sections 4 and 5). Checks, in this order, answering the first that fails:
 * 1. `currency`, when given, is the document's, else `FieldsInvalid` (`VALIDATION_FAILED`, 400, at `/currency`);
 * 2. a payment with this `paymentId` is on the document: with other content (amount, date, currency) →
 *    `PaymentReplayMismatch` (`BILLING_PAYMENT_REPLAY_MISMATCH`, 409); reversed since →
 *    `PaymentReversed` (`BILLING_PAYMENT_REVERSED`, 400); else a replay: nothing changes;
 * 3. the status is `sent`, `paid` or `written-off`, else `InvoiceStatusInvalid`
 *    (`BILLING_INVOICE_STATUS_INVALID`, 400, action `report-payment`);
 * 4. the amount is not zero, has the document's sign, and leaves the balance within ±9007199254740991, else
 *    `PaymentAmountInvalid` (`BILLING_PAYMENT_AMOUNT_INVALID`, 400, problem `zero`, `sign` or `range`).
 *
 * On success the payment joins the ledger (`recordedAt` = `now`), the balance and status follow
 * ({@link settledStatus}), `updatedAt` = `now`; events `billing.invoice.payment_recorded`, then
 * `billing.invoice.paid` or `billing.invoice.written_off` when the payment settled the document.
 *
 * @since 0.1.0
 */
export const reportPayment = (
  state: SettlementState,
  command: ReportPaymentCommand,
  now: Date
): Either.Either<
  PaymentOutcome,
  FieldsInvalid | PaymentReplayMismatch | PaymentReversed | InvoiceStatusInvalid | PaymentAmountInvalid
> => {
  const { invoice, ledger } = state
  if (command.currency !== undefined && command.currency !== invoice.currency) {
    return Either.left(
      new FieldsInvalid({
        issues: [{ path: "/currency", message: `The invoice's currency is ${invoice.currency}.` }],
        detail: "The payment's currency is not the invoice's."
      })
    )
  }
  const recorded = ledger.payments.find((payment) => payment.paymentId === command.paymentId)
  if (recorded !== undefined) {
    if (!samePayment(recorded, command, invoice.currency)) {
      return Either.left(
        new PaymentReplayMismatch({
          paymentId: command.paymentId,
          report: "payment",
          detail: "A payment with this paymentId was already reported on the invoice with other content."
        })
      )
    }
    if (recorded.reversal !== undefined) {
      return Either.left(
        new PaymentReversed({
          paymentId: command.paymentId,
          detail: "The payment with this paymentId was reversed; report a new payment with a new paymentId."
        })
      )
    }
    return Either.right({ replayed: true, invoice, ledger, payment: recorded, events: [] })
  }
  if (!SETTLEMENT_STATUSES.includes(invoice.status)) {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "report-payment" }))
  }
  const amountInvalid = (problem: "zero" | "sign" | "range", detail: string) =>
    Either.left(
      new PaymentAmountInvalid({
        amountMinorUnits: command.amountMinorUnits,
        documentKind: invoice.documentKind,
        problem,
        detail
      })
    )
  if (command.amountMinorUnits === 0) return amountInvalid("zero", "A payment amount is not zero.")
  if (Math.sign(command.amountMinorUnits) !== documentSign(invoice.documentKind)) {
    return amountInvalid(
      "sign",
      invoice.documentKind === "invoice"
        ? "A payment on an invoice is positive."
        : "A payment on a credit note (a refund) is negative."
    )
  }
  const payment: PaymentRecord = {
    paymentId: command.paymentId,
    amountMinorUnits: command.amountMinorUnits,
    paidOn: command.paidOn,
    currency: invoice.currency,
    recordedAt: now
  }
  const next: Ledger = { payments: [...ledger.payments, payment], writeOffs: ledger.writeOffs }
  if (!inRange(balanceOf(invoice.issuedTotalGrossMinorUnits ?? 0, next))) {
    return amountInvalid("range", `The payment would take the balance beyond ±${MAX_MINOR_UNITS} minor units.`)
  }
  const settled = resettle(invoice, next, now)
  return Either.right({
    replayed: false,
    invoice: settled.invoice,
    ledger: next,
    payment,
    events: [
      { ...invoiceEvent("billing.invoice.payment_recorded", settled.invoice, now), paymentId: payment.paymentId },
      ...settled.events
    ]
  })
}

/**
 * Report a payment taken back (`POST /v1/billing/invoices/{invoiceId}/report-payment-reversed`, or by external
 * reference; decisions.md sections 4 and 5). Checks, in this order:
 * 1. the status is `sent`, `paid` or `written-off`, else `InvoiceStatusInvalid`
 *    (`BILLING_INVOICE_STATUS_INVALID`, 400, action `report-payment-reversed`);
 * 2. a payment with this `paymentId` is on the document, else `PaymentNotFound` (`BILLING_PAYMENT_NOT_FOUND`,
 *    400);
 * 3. if it was reversed before: the same `reversedOn` and `reason` is a replay (nothing changes); other content
 *    → `PaymentReplayMismatch` (`BILLING_PAYMENT_REPLAY_MISMATCH`, 409, report `reversal`).
 *
 * On success the payment carries its reversal (`recordedAt` = `now`), the balance grows back by its amount and
 * the status follows: a `paid` or `written-off` document whose balance is due again returns to `sent`
 * (`paidAt` / `writtenOffAt` removed). Events `billing.invoice.payment_reversed`, then `billing.invoice.reopened`
 * when it returned to `sent`.
 *
 * @since 0.1.0
 */
export const reportPaymentReversed = (
  state: SettlementState,
  command: ReportPaymentReversedCommand,
  now: Date
): Either.Either<PaymentOutcome, InvoiceStatusInvalid | PaymentNotFound | PaymentReplayMismatch> => {
  const { invoice, ledger } = state
  if (!SETTLEMENT_STATUSES.includes(invoice.status)) {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "report-payment-reversed" }))
  }
  const recorded = ledger.payments.find((payment) => payment.paymentId === command.paymentId)
  if (recorded === undefined) {
    return Either.left(
      new PaymentNotFound({
        paymentId: command.paymentId,
        detail: "No payment with this paymentId was reported on the invoice."
      })
    )
  }
  if (recorded.reversal !== undefined) {
    return recorded.reversal.reversedOn === command.reversedOn && recorded.reversal.reason === command.reason
      ? Either.right({ replayed: true, invoice, ledger, payment: recorded, events: [] })
      : Either.left(
          new PaymentReplayMismatch({
            paymentId: command.paymentId,
            report: "reversal",
            detail: "The payment with this paymentId was already reversed with other content."
          })
        )
  }
  const reversed: PaymentRecord = {
    ...recorded,
    reversal: {
      reversedOn: command.reversedOn,
      ...(command.reason !== undefined ? { reason: command.reason } : {}),
      recordedAt: now
    }
  }
  const next: Ledger = {
    payments: ledger.payments.map((payment) => (payment === recorded ? reversed : payment)),
    writeOffs: ledger.writeOffs
  }
  const settled = resettle(invoice, next, now)
  return Either.right({
    replayed: false,
    invoice: settled.invoice,
    ledger: next,
    payment: reversed,
    events: [
      { ...invoiceEvent("billing.invoice.payment_reversed", settled.invoice, now), paymentId: reversed.paymentId },
      ...settled.events
    ]
  })
}

const sameWriteOff = (recorded: WriteOffRecord, command: ReportWriteOffCommand): boolean =>
  recorded.amountMinorUnits === command.amountMinorUnits &&
  recorded.writtenOffOn === command.writtenOffOn &&
  recorded.reason === command.reason

/**
 * Report a write-off (`POST /v1/billing/invoices/{invoiceId}/report-write-off`; decisions.md sections 4 and 5).
 * Checks, in this order:
 * 1. a write-off with this `writeOffId` is on the document: the same content is a replay (nothing changes);
 *    other content → `WriteOffReplayMismatch` (`BILLING_WRITE_OFF_REPLAY_MISMATCH`, 409);
 * 2. the status is `sent` (there is a balance to write off), else `InvoiceStatusInvalid`
 *    (`BILLING_INVOICE_STATUS_INVALID`, 400, action `report-write-off`);
 * 3. the amount is not zero, has the document's sign and is not beyond the balance, else
 *    `WriteOffAmountInvalid` (`BILLING_WRITE_OFF_AMOUNT_INVALID`, 400).
 *
 * On success the write-off joins the ledger (`recordedAt` = `now`) and the balance drops by it; a write-off that
 * brings it to zero settles the document as `written-off` (`writtenOffAt` = `now`). Events
 * `billing.invoice.write_off_recorded`, then `billing.invoice.written_off` when it settled the document.
 *
 * @since 0.1.0
 */
export const reportWriteOff = (
  state: SettlementState,
  command: ReportWriteOffCommand,
  now: Date
): Either.Either<WriteOffOutcome, WriteOffReplayMismatch | InvoiceStatusInvalid | WriteOffAmountInvalid> => {
  const { invoice, ledger } = state
  const recorded = ledger.writeOffs.find((writeOff) => writeOff.writeOffId === command.writeOffId)
  if (recorded !== undefined) {
    return sameWriteOff(recorded, command)
      ? Either.right({ replayed: true, invoice, ledger, writeOff: recorded, events: [] })
      : Either.left(
          new WriteOffReplayMismatch({
            writeOffId: command.writeOffId,
            detail: "A write-off with this writeOffId was already reported on the invoice with other content."
          })
        )
  }
  if (invoice.status !== "sent") {
    return Either.left(new InvoiceStatusInvalid({ status: invoice.status, action: "report-write-off" }))
  }
  const balance = balanceOf(invoice.issuedTotalGrossMinorUnits ?? 0, ledger)
  const sign = BigInt(documentSign(invoice.documentKind))
  const amount = BigInt(command.amountMinorUnits)
  if (amount * sign <= 0n || amount * sign > balance * sign) {
    return Either.left(
      new WriteOffAmountInvalid({
        amountMinorUnits: command.amountMinorUnits,
        balanceMinorUnits: Number(balance),
        detail:
          invoice.documentKind === "invoice"
            ? "A write-off is positive and not beyond the invoice's balance."
            : "A write-off on a credit note is negative and not beyond its balance."
      })
    )
  }
  const writeOff: WriteOffRecord = {
    writeOffId: command.writeOffId,
    amountMinorUnits: command.amountMinorUnits,
    writtenOffOn: command.writtenOffOn,
    ...(command.reason !== undefined ? { reason: command.reason } : {}),
    recordedAt: now
  }
  const next: Ledger = { payments: ledger.payments, writeOffs: [...ledger.writeOffs, writeOff] }
  const settled = resettle(invoice, next, now)
  return Either.right({
    replayed: false,
    invoice: settled.invoice,
    ledger: next,
    writeOff,
    events: [
      { ...invoiceEvent("billing.invoice.write_off_recorded", settled.invoice, now), writeOffId: writeOff.writeOffId },
      ...settled.events
    ]
  })
}
