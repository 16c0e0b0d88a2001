/**
 * The business-rule refusals of the billing domain: one class per rule, each a {@link Refusal} of
 * `@propline/refusal` carrying its spec code (section 7.3), its HTTP status (section 7.1, decisions.md section 4:
 * 409 for a conflict with state another request made, 400 otherwise), a `detail` safe to show a client, and the
 * facts that led to it.
 *
 * The refusals whose detail follows from their facts alone build it themselves (`new InvoiceStatusInvalid({
 * status, action })`); the others are constructed with the facts and a `detail`
 * (`new PaymentNotFound({ paymentId, detail: "…" })`). A detail never repeats text the caller sent (a
 * reference, a reason) or an internal id.
 *
 * @since 0.1.0
 */
import { Refusal } from "@propline/refusal/Refusal"
import type { DocumentKind, InvoiceStatus } from "./Invoice.js"
import type { ProposalStatus } from "./InvoiceProposal.js"

/**
 * An operation that moves an invoice, as named in a refusal's `action`: `approve`, `delete`, `credit` (an
 * operator's actions, decisions.md section 5); `report-sent`, `report-failed`, `report-payment`,
 * `report-payment-reversed`, `report-write-off` (the caller's reports, spec sections 3 and 4).
 *
 * @since 0.1.0
 */
export type InvoiceAction =
  | "approve"
  | "delete"
  | "credit"
  | "report-sent"
  | "report-failed"
  | "report-payment"
  | "report-payment-reversed"
  | "report-write-off"

/**
 * An operation that moves a proposal, as named in a refusal's `action` (spec section 3):
 * `pass` and `reject` (the caller's verdicts), `cancel` (an operator's action).
 *
 * @since 0.1.0
 */
export type ProposalAction = "pass" | "reject" | "cancel"

/**
 * `BILLING_INVOICE_STATUS_INVALID`, HTTP 400: the invoice's current `status` does not allow `action`
 * (spec section 7.1: report-failed on an invoice that is not approved, including a repeated report;
 * decisions.md section 5 for the other actions). Constructed with the invoice's `status`, kept as `invoiceStatus`.
 *
 * @since 0.1.0
 */
export class InvoiceStatusInvalid extends Refusal("InvoiceStatusInvalid", "BILLING_INVOICE_STATUS_INVALID", 400)<{
  readonly invoiceStatus: InvoiceStatus
  readonly action: InvoiceAction
}> {
  constructor(args: { readonly status: InvoiceStatus; readonly action: InvoiceAction }) {
    super({
      invoiceStatus: args.status,
      action: args.action,
      detail: `The invoice is ${args.status}; ${args.action} is not allowed in this status.`
    })
  }
}

/**
 * `BILLING_INVOICE_STATUS_INVALID`, HTTP 400, for a withdrawal: report-discarded on a withdrawal already
 * discarded (decisions.md section 4: a repeated state report is refused with 400 and its status code).
 *
 * @since 0.1.0
 */
export class WithdrawalStatusInvalid extends Refusal(
  "WithdrawalStatusInvalid",
  "BILLING_INVOICE_STATUS_INVALID",
  400
)<{
  readonly withdrawalStatus: "pending" | "discarded"
}> {}

/**
 * `BILLING_PROPOSAL_STATUS_INVALID`, HTTP 400: the proposal's current `status` does not allow `action`
 * (spec section 7.1: pass on a proposal not in proposed; a repeated verdict). Also given when a proposal has no
 * `invoiceNumber` (`invoiceNumberMissing: true`), which only older rejected or cancelled proposals lack (spec 2.2),
 * so it cannot become an invoice.
 *
 * @since 0.1.0
 */
export class ProposalStatusInvalid extends Refusal("ProposalStatusInvalid", "BILLING_PROPOSAL_STATUS_INVALID", 400)<{
  readonly proposalStatus: ProposalStatus
  readonly action: ProposalAction
  readonly invoiceNumberMissing: boolean
}> {
  constructor(args: {
    readonly status: ProposalStatus
    readonly action: ProposalAction
    readonly invoiceNumberMissing?: boolean
  }) {
    const invoiceNumberMissing = args.invoiceNumberMissing ?? false
    const detail = invoiceNumberMissing
      ? `The proposal has no invoice number; ${args.action} is not allowed. An operator must cancel it.`
      : `The proposal is ${args.status}; ${args.action} is only allowed on a proposal that is proposed.`
    super({ proposalStatus: args.status, action: args.action, invoiceNumberMissing, detail })
  }
}

/**
 * `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`, HTTP 409: the proposal's charges were already invoiced by
 * another invoice; an operator must cancel the proposal (spec sections 4.1 and 7.1).
 *
 * @since 0.1.0
 */
export class ProposalMaterialAlreadyInvoiced extends Refusal(
  "ProposalMaterialAlreadyInvoiced",
  "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED",
  409
) {
  constructor() {
    super({ detail: "The proposal's charges were already invoiced; an operator must cancel the proposal." })
  }
}

/**
 * `BILLING_EXTERNAL_REFERENCE_ALREADY_USED`, HTTP 409: the `externalReference` is already attached to another
 * invoice of the organization; it must be unique there (spec sections 4.1 and 8). The reference is carried for
 * logs but not repeated in `detail`.
 *
 * @since 0.1.0
 */
export class ExternalReferenceAlreadyUsed extends Refusal(
  "ExternalReferenceAlreadyUsed",
  "BILLING_EXTERNAL_REFERENCE_ALREADY_USED",
  409
)<{ readonly externalReference: string }> {
  constructor(args: { readonly externalReference: string }) {
    super({
      externalReference: args.externalReference,
      detail: "The externalReference is already used by another invoice of this organization."
    })
  }
}

/**
 * `BILLING_INTEGRATION_NOT_CONFIGURED`, HTTP 400: the organization has no configured billing integration, so
 * the billing operations are not available (decisions.md section 5).
 *
 * @since 0.1.0
 */
export class IntegrationNotConfigured extends Refusal(
  "IntegrationNotConfigured",
  "BILLING_INTEGRATION_NOT_CONFIGURED",
  400
) {
  constructor() {
    super({ detail: "The organization has no configured billing integration." })
  }
}

/**
 * `BILLING_INTEGRATION_GATE_NOT_DECLARED`, HTTP 400: the billing integration is configured but did not declare
 * `gate` (for the verification queue, pass and reject: `verification`; decisions.md sections 5 and 8).
 *
 * @since 0.1.0
 */
export class IntegrationGateNotDeclared extends Refusal(
  "IntegrationGateNotDeclared",
  "BILLING_INTEGRATION_GATE_NOT_DECLARED",
  400
)<{ readonly gate: string }> {
  constructor(args: { readonly gate: string }) {
    super({ gate: args.gate, detail: `The billing integration has not declared the ${args.gate} gate.` })
  }
}

/**
 * `BILLING_PAYMENT_REPLAY_MISMATCH`, HTTP 409: a payment, or the reversal of one, with this caller's `paymentId`
 * was already recorded on the invoice with other content (decisions.md section 4: the same id with other content
 * is refused). `report` says which report was replayed.
 *
 * @since 0.1.0
 */
export class PaymentReplayMismatch extends Refusal("PaymentReplayMismatch", "BILLING_PAYMENT_REPLAY_MISMATCH", 409)<{
  readonly paymentId: string
  readonly report: "payment" | "reversal"
}> {}

/**
 * `BILLING_PAYMENT_REVERSED`, HTTP 400: the payment reported was recorded and then reversed; it can't be
 * recorded again (report a new payment with a new `paymentId`).
 *
 * @since 0.1.0
 */
export class PaymentReversed extends Refusal("PaymentReversed", "BILLING_PAYMENT_REVERSED", 400)<{
  readonly paymentId: string
}> {}

/**
 * `BILLING_PAYMENT_NOT_FOUND`, HTTP 400: a reversal names a `paymentId` that no payment on the invoice carries.
 *
 * @since 0.1.0
 */
export class PaymentNotFound extends Refusal("PaymentNotFound", "BILLING_PAYMENT_NOT_FOUND", 400)<{
  readonly paymentId: string
}> {}

/**
 * `BILLING_PAYMENT_AMOUNT_INVALID`, HTTP 400: a payment's `amountMinorUnits` is zero (`problem: "zero"`), has
 * the wrong sign for the document (`"sign"`: positive on an invoice, negative — a refund — on a credit note), or
 * would take the balance outside ±9007199254740991 (`"range"`, spec section 8).
 *
 * @since 0.1.0
 */
export class PaymentAmountInvalid extends Refusal("PaymentAmountInvalid", "BILLING_PAYMENT_AMOUNT_INVALID", 400)<{
  readonly amountMinorUnits: number
  readonly documentKind: DocumentKind
  readonly problem: "zero" | "sign" | "range"
}> {}

/**
 * `BILLING_WRITE_OFF_REPLAY_MISMATCH`, HTTP 409: a write-off with this caller's `writeOffId` was already
 * recorded on the invoice with other content (decisions.md section 4).
 *
 * @since 0.1.0
 */
export class WriteOffReplayMismatch extends Refusal(
  "WriteOffReplayMismatch",
  "BILLING_WRITE_OFF_REPLAY_MISMATCH",
  409
)<{
  readonly writeOffId: string
}> {}

/**
 * `BILLING_WRITE_OFF_AMOUNT_INVALID`, HTTP 400: a write-off's `amountMinorUnits` is zero, has the wrong sign
 * for the document, or goes beyond the balance (`balanceMinorUnits`, decisions.md section 5: "not beyond the
 * balance").
 *
 * @since 0.1.0
 */
export class WriteOffAmountInvalid extends Refusal("WriteOffAmountInvalid", "BILLING_WRITE_OFF_AMOUNT_INVALID", 400)<{
  readonly amountMinorUnits: number
  readonly balanceMinorUnits: number
}> {}

/**
 * `BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE`, HTTP 400: the document can't be credited: it is itself a credit
 * note (`problem: "credit-note"`), it has not been sent (`"status"`: only `sent`, `paid` and `written-off`
 * invoices are credited; an unsent one is deleted instead), or it is already credited in full
 * (`"fully-credited"`).
 *
 * @since 0.1.0
 */
export class CreditNoteInvoiceNotCreditable extends Refusal(
  "CreditNoteInvoiceNotCreditable",
  "BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE",
  400
)<{
  readonly invoiceStatus: InvoiceStatus
  readonly documentKind: DocumentKind
  readonly problem: "credit-note" | "status" | "fully-credited"
}> {}

/**
 * `BILLING_CREDIT_EXCEEDS_LINE`, HTTP 400: crediting `requestedNetMinorUnits` of a line would credit more than
 * the `remainingNetMinorUnits` earlier credit notes left on it (net amounts, minor units, the line's sign).
 *
 * @since 0.1.0
 */
export class CreditExceedsLine extends Refusal("CreditExceedsLine", "BILLING_CREDIT_EXCEEDS_LINE", 400)<{
  readonly lineId: string
  readonly requestedNetMinorUnits: number
  readonly remainingNetMinorUnits: number
}> {}

/**
 * `BILLING_CREDIT_EXCEEDS_INVOICE`, HTTP 400: the credit note's gross total (`requestedGrossMinorUnits`, as a
 * positive amount) exceeds what earlier credit notes left of the invoice's gross total
 * (`remainingGrossMinorUnits`).
 *
 * @since 0.1.0
 */
export class CreditExceedsInvoice extends Refusal("CreditExceedsInvoice", "BILLING_CREDIT_EXCEEDS_INVOICE", 400)<{
  readonly requestedGrossMinorUnits: number
  readonly remainingGrossMinorUnits: number
}> {}

/**
 * `BILLING_CREDIT_ACT_REPLAY_MISMATCH`, HTTP 409: a credit act with this `creditActId` was already carried out
 * with other content (an operator's retried action is idempotent by its id, like a money report).
 *
 * @since 0.1.0
 */
export class CreditActReplayMismatch extends Refusal(
  "CreditActReplayMismatch",
  "BILLING_CREDIT_ACT_REPLAY_MISMATCH",
  409
)<{
  readonly creditActId: string
}> {}

/**
 * `BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN`, HTTP 400: a manual credit line (one not taken from the invoice's
 * lines) names a VAT rate the organization's country does not have (see `Money.vatRatesFor`).
 *
 * @since 0.1.0
 */
export class ManualCreditVatRateUnknown extends Refusal(
  "ManualCreditVatRateUnknown",
  "BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN",
  400
)<{
  readonly vatRateBasisPoints: number
}> {}

/**
 * `BILLING_INVOICE_RUN_NOT_CONTINUABLE`, HTTP 400: the invoice run is `approved`, so it can't be continued
 * (drafting more documents into it) or approved again.
 *
 * @since 0.1.0
 */
export class InvoiceRunNotContinuable extends Refusal(
  "InvoiceRunNotContinuable",
  "BILLING_INVOICE_RUN_NOT_CONTINUABLE",
  400
)<{
  readonly runStatus: "draft" | "approved"
  readonly action: "continue" | "approve"
}> {}

/**
 * One failing field of a request: `path` a JSON Pointer (RFC 6901) into the request body, `message` a sentence
 * safe to show the client (spec section 2.3, `issues`).
 *
 * @since 0.1.0
 */
export interface FieldIssue {
  readonly path: string
  readonly message: string
}

/**
 * `VALIDATION_FAILED`, HTTP 400: fields whose validity depends on the record the request names, so the
 * contract's schema can't decide them (decisions.md section 5: `dueDate` is required on an invoice but not on a
 * credit note; a payment's `currency` must be the invoice's). The HTTP layer answers it like any other
 * validation failure, with `issues`.
 *
 * @since 0.1.0
 */
export class FieldsInvalid extends Refusal("FieldsInvalid", "VALIDATION_FAILED", 400)<{
  readonly issues: ReadonlyArray<FieldIssue>
}> {}

/**
 * Any refusal of this package.
 *
 * @since 0.1.0
 */
export type BillingRefusal =
  | InvoiceStatusInvalid
  | WithdrawalStatusInvalid
  | ProposalStatusInvalid
  | ProposalMaterialAlreadyInvoiced
  | ExternalReferenceAlreadyUsed
  | IntegrationNotConfigured
  | IntegrationGateNotDeclared
  | PaymentReplayMismatch
  | PaymentReversed
  | PaymentNotFound
  | PaymentAmountInvalid
  | WriteOffReplayMismatch
  | WriteOffAmountInvalid
  | CreditNoteInvoiceNotCreditable
  | CreditExceedsLine
  | CreditExceedsInvoice
  | CreditActReplayMismatch
  | ManualCreditVatRateUnknown
  | InvoiceRunNotContinuable
  | FieldsInvalid

/**
 * The spec code (section 7.3) of any refusal of this package.
 *
 * @since 0.1.0
 */
export type BillingRefusalCode = BillingRefusal["code"]

/**
 * The HTTP status to answer a refusal with: its `status`, 400 or 409. Kept for callers written before every
 * refusal carried its status; read `refusal.status` instead.
 *
 * @deprecated use `refusal.status`.
 * @since 0.1.0
 */
export const httpStatusOf = (refusal: BillingRefusal): 400 | 409 => refusal.status
