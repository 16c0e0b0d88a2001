/**
 * The billing group (spec 4.1 and 4.2, decisions 4 and 5): the verification queue with pass and reject, the send
 * queue, report-sent and report-failed, the money reports (payments, reversals, write-offs — by invoice id or by
 * the caller's own invoice id), and the withdrawal queue with report-discarded. Every operation needs the
 * `billing` role.
 */
import { Authentication } from "./Authentication.js"
import { JsonBody } from "./JsonBody.js"
import { BillingRole } from "./Roles.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { paymentReferenceProblem } from "@propline/billing/PaymentReference"
import { Schema } from "effect"
import { InvoiceId, ProposalId } from "./Ids.js"
import { Invoice } from "./Invoice.js"
import { InvoiceProposal } from "./InvoiceProposal.js"
import { InvoiceWithdrawal } from "./InvoiceWithdrawal.js"
import { Page, PageParams } from "./Page.js"
import { Conflict, NotFound } from "./Problem.js"
import { body, EmptyRequest } from "./Request.js"
import { BoundedText, CalendarDate, Currency, MinorUnits, PaymentReferenceType } from "./Values.js"

/** Spec 8: `reason` is 1 to 1000 characters. */
export const REASON_MAX_LENGTH = 1000
/** Spec 8: `externalReference` is 1 to 200 characters, unique in the organization. */
export const EXTERNAL_REFERENCE_MAX_LENGTH = 200

/** Body of pass (spec 4.1). */
export class PassProposalRequest extends Schema.Class<PassProposalRequest>("PassProposalRequest")({
  externalReference: BoundedText(1, EXTERNAL_REFERENCE_MAX_LENGTH).annotations({
    description:
      "The caller's own id for the invoice, 1 to 200 characters, unique in the organization. " +
      "Payments can later be reported by it."
  })
}) {}

/** 201 of pass (spec 4.1): the passed proposal and the invoice created from it. */
export class PassProposalResponse extends Schema.Class<PassProposalResponse>("PassProposalResponse")({
  proposal: InvoiceProposal,
  invoice: Invoice
}) {}

/** Body of reject (decisions 5): why the material is wrong, 1 to 1000 characters. */
export class RejectProposalRequest extends Schema.Class<RejectProposalRequest>("RejectProposalRequest")({
  reason: BoundedText(1, REASON_MAX_LENGTH).annotations({
    description: "Why the proposal is rejected; shown to an operator. 1 to 1000 characters."
  })
}) {}

/** Body of report-failed (spec 4.1). */
export class ReportFailedRequest extends Schema.Class<ReportFailedRequest>("ReportFailedRequest")({
  reason: BoundedText(1, REASON_MAX_LENGTH).annotations({
    description: "Why the invoice could not be sent; shown to an operator. 1 to 1000 characters."
  })
}) {}

/** Decisions 5: the caller's ids of payments and write-offs, 1 to 200 characters. */
export const CALLER_ID_MAX_LENGTH = 200
/** Longest `documentUrl` accepted. */
export const DOCUMENT_URL_MAX_LENGTH = 2000

const httpsUrl = Schema.String.pipe(
  Schema.filter((value) => {
    if (value.length > DOCUMENT_URL_MAX_LENGTH) return `must be at most ${DOCUMENT_URL_MAX_LENGTH} characters long`
    try {
      const parsed = new URL(value)
      return (parsed.protocol === "https:" && parsed.hostname.length > 0) || "must be an https address"
    } catch {
      return "must be an https address"
    }
  }),
  Schema.annotations({ jsonSchema: { type: "string", format: "uri", pattern: "^https://", maxLength: DOCUMENT_URL_MAX_LENGTH } })
)

/**
 * Body of report-sent (decisions 5). `paymentReference` and `paymentReferenceType` come together; an `ocr`
 * reference is 2 to 25 digits with a Luhn (MOD10) check digit, a `kid` 2 to 25 digits with a MOD10 or MOD11
 * check character (`-` for a MOD11 check of 10), a `reference` free text of 1 to 200 characters: a wrong check
 * digit is a VALIDATION_FAILED issue at `/paymentReference`.
 */
export class ReportSentRequest extends Schema.Class<ReportSentRequest>("ReportSentRequest")(
  Schema.Struct({
    issuedInvoiceNumber: BoundedText(1, 200).annotations({ description: "The legal invoice number the ERP issued." }),
    issuedInvoiceDate: CalendarDate.annotations({ description: "The date the ERP issued the invoice." }),
    dueDate: Schema.optional(
      CalendarDate.annotations({
        description:
          "The due date the invoice was issued with; required on an invoice, optional on a credit note. " +
          "Not before issuedInvoiceDate."
      })
    ),
    issuedTotalGrossMinorUnits: MinorUnits.annotations({
      description:
        "Total including VAT as issued; payments are measured against it. Greater than zero on an invoice, " +
        "less than zero on a credit note."
    }),
    externalReference: Schema.optional(
      BoundedText(1, EXTERNAL_REFERENCE_MAX_LENGTH).annotations({
        description:
          "The caller's own id for the invoice, when not attached by a pass; unique in the organization. If the " +
          "invoice already carries one, send the same or none."
      })
    ),
    paymentReference: Schema.optional(
      BoundedText(1, 200).annotations({ description: "The reference the payer quotes; with paymentReferenceType." })
    ),
    paymentReferenceType: Schema.optional(PaymentReferenceType),
    documentUrl: Schema.optional(httpsUrl.annotations({ description: "An https link to the issued document." }))
  }).pipe(
    Schema.filter((body) => {
      if (body.paymentReference === undefined && body.paymentReferenceType === undefined) return true
      if (body.paymentReferenceType === undefined) {
        return { path: ["paymentReferenceType"], message: "paymentReferenceType is required with paymentReference" }
      }
      if (body.paymentReference === undefined) {
        return { path: ["paymentReference"], message: "paymentReference is required with paymentReferenceType" }
      }
      const problem = paymentReferenceProblem(body.paymentReferenceType, body.paymentReference)
      return problem === undefined || { path: ["paymentReference"], message: problem }
    })
  )
) {}

const callerId = (what: string) =>
  BoundedText(1, CALLER_ID_MAX_LENGTH).annotations({
    description: `The caller's own id of the ${what}, 1 to 200 characters, unique on the invoice; a repeated report with the same id is answered with the current record.`
  })

/** Body of report-payment (decisions 5). */
export class ReportPaymentRequest extends Schema.Class<ReportPaymentRequest>("ReportPaymentRequest")({
  paymentId: callerId("payment"),
  amountMinorUnits: MinorUnits.annotations({
    description:
      "The amount paid, in minor units: not zero, positive on an invoice, negative (a refund) on a credit note."
  }),
  paidOn: CalendarDate.annotations({ description: "The date the money arrived." }),
  currency: Schema.optional(Currency.annotations({ description: "When sent, must be the invoice's currency." }))
}) {}

/** Body of report-payment-reversed (decisions 5). */
export class ReportPaymentReversedRequest extends Schema.Class<ReportPaymentReversedRequest>(
  "ReportPaymentReversedRequest"
)({
  paymentId: BoundedText(1, CALLER_ID_MAX_LENGTH).annotations({
    description: "The paymentId of the payment taken back."
  }),
  reversedOn: CalendarDate.annotations({ description: "The date the payment was taken back." }),
  reason: Schema.optional(BoundedText(1, REASON_MAX_LENGTH).annotations({ description: "Why, 1 to 1000 characters." }))
}) {}

/** Body of report-write-off (decisions 5). */
export class ReportWriteOffRequest extends Schema.Class<ReportWriteOffRequest>("ReportWriteOffRequest")({
  writeOffId: callerId("write-off"),
  amountMinorUnits: MinorUnits.annotations({
    description:
      "The amount written off, in minor units: not zero, the document's sign (negative on a credit note), not " +
      "beyond the balance."
  }),
  writtenOffOn: CalendarDate.annotations({ description: "The date of the write-off." }),
  reason: Schema.optional(BoundedText(1, REASON_MAX_LENGTH).annotations({ description: "Why, 1 to 1000 characters." }))
}) {}

export const ProposalPage = Page(InvoiceProposal, "InvoiceProposalPage")
export const WithdrawalPage = Page(InvoiceWithdrawal, "InvoiceWithdrawalPage")
export const InvoicePage = Page(Invoice, "InvoicePage")

const ProposalPath = Schema.Struct({ proposalId: ProposalId })
const InvoicePath = Schema.Struct({ invoiceId: InvoiceId })
const ExternalReferencePath = Schema.Struct({
  externalReference: BoundedText(1, EXTERNAL_REFERENCE_MAX_LENGTH).annotations({
    description: "The caller's own id for the invoice (attached by pass or report-sent), percent-encoded."
  })
})

const PAYMENT_CODES =
  "400 `VALIDATION_FAILED` (also for a `currency` other than the invoice's, at `/currency`); 400 " +
  "`BILLING_INVOICE_STATUS_INVALID` unless the invoice is `sent`, `paid` or `written-off`; 400 " +
  "`BILLING_PAYMENT_AMOUNT_INVALID` for a zero amount, the wrong sign, or a balance beyond ±9007199254740991; 400 " +
  "`BILLING_PAYMENT_REVERSED` when the payment with this paymentId was reversed; 409 " +
  "`BILLING_PAYMENT_REPLAY_MISMATCH` when this paymentId was reported with other content; 404 when the invoice does " +
  "not exist or the token cannot see it."
const PAYMENT_DESCRIPTION =
  "Records money that arrived on a sent invoice (decisions 5): the balance (issued total − payments + reversed " +
  "payments − write-offs) drops by the amount; at zero or below the invoice is `paid` (or `written-off` when it has " +
  "a write-off). Money is never refused on `sent`, `paid` and `written-off` invoices; an overpayment leaves a " +
  "negative balance. Idempotent by paymentId: the same report again answers 200 with the current record and " +
  "changes nothing. "
const REVERSAL_CODES =
  "400 `BILLING_INVOICE_STATUS_INVALID` unless the invoice is `sent`, `paid` or `written-off`; 400 " +
  "`BILLING_PAYMENT_NOT_FOUND` when no payment with this paymentId is on the invoice; 409 " +
  "`BILLING_PAYMENT_REPLAY_MISMATCH` when it was reversed with another date or reason; 404 when the invoice does not " +
  "exist or the token cannot see it."
const REVERSAL_DESCRIPTION =
  "Records that a payment was taken back: the balance grows by its amount, and a `paid` or `written-off` invoice " +
  "whose balance is due again returns to `sent`. Idempotent: the same reversal again answers 200 with the current " +
  "record. "

export class BillingGroup extends HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("getVerificationQueue", "/v1/billing/verification-queue")
      .setUrlParams(PageParams)
      .addSuccess(ProposalPage)
      .annotate(OpenApi.Summary, "List invoice proposals awaiting verification")
      .annotate(
        OpenApi.Description,
        "Proposals in status `proposed`, oldest first. A proposal leaves the queue when it is passed, rejected or " +
          "cancelled. Needs the `billing` role. Without a configured billing integration: 400 " +
          "`BILLING_INTEGRATION_NOT_CONFIGURED`; without the declared verification gate: 400 " +
          "`BILLING_INTEGRATION_GATE_NOT_DECLARED`."
      )
  )
  .add(
    HttpApiEndpoint.post("passProposal", "/v1/billing/invoice-proposals/:proposalId/pass")
      .setPath(ProposalPath)
      .setPayload(body(PassProposalRequest))
      .addSuccess(PassProposalResponse, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Pass an invoice proposal")
      .annotate(
        OpenApi.Description,
        "Accepts a proposal and attaches the caller's own invoice id; an invoice is created `approved` in the same " +
          "call and enters the send queue. Like the verification queue, 400 `BILLING_INTEGRATION_NOT_CONFIGURED` " +
          "without a configured billing integration and 400 `BILLING_INTEGRATION_GATE_NOT_DECLARED` without the " +
          "declared verification gate; 400 `BILLING_PROPOSAL_STATUS_INVALID` when the proposal is no longer " +
          "`proposed` (a repeated pass included); 409 `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED` when its charges " +
          "were already invoiced (an operator must cancel it); 409 `BILLING_EXTERNAL_REFERENCE_ALREADY_USED` when " +
          "the externalReference is already used in the organization; 404 when the proposal does not exist or the " +
          "token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.post("rejectProposal", "/v1/billing/invoice-proposals/:proposalId/reject")
      .setPath(ProposalPath)
      .setPayload(body(RejectProposalRequest))
      .addSuccess(InvoiceProposal, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Reject an invoice proposal")
      .annotate(
        OpenApi.Description,
        "Rejects a proposal with a reason shown to an operator. Answers 201 with the rejected proposal, like the " +
          "other reports. Like the verification queue, 400 `BILLING_INTEGRATION_NOT_CONFIGURED` without a " +
          "configured billing integration and 400 `BILLING_INTEGRATION_GATE_NOT_DECLARED` without the declared " +
          "verification gate; 400 `BILLING_PROPOSAL_STATUS_INVALID` when it is no longer `proposed` (a repeated " +
          "reject included, decisions 4); 404 when the proposal does not exist or the token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.get("getSendQueue", "/v1/billing/send-queue")
      .setUrlParams(PageParams)
      .addSuccess(InvoicePage)
      .annotate(OpenApi.Summary, "List approved invoices ready to send")
      .annotate(
        OpenApi.Description,
        "Invoices and credit notes in status `approved`, oldest approval first. An invoice leaves the queue when " +
          "it is reported sent or failed. Needs the `billing` role; without a configured billing integration: 400 " +
          "`BILLING_INTEGRATION_NOT_CONFIGURED`."
      )
  )
  .add(
    HttpApiEndpoint.post("reportFailed", "/v1/billing/invoices/:invoiceId/report-failed")
      .setPath(InvoicePath)
      .setPayload(body(ReportFailedRequest))
      .addSuccess(Invoice, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Report an approved invoice that cannot be sent")
      .annotate(
        OpenApi.Description,
        "Moves an `approved` invoice to `failed` and records the reason for an operator, who corrects the material " +
          "and invoices again. 400 `BILLING_INVOICE_STATUS_INVALID` when the invoice is not `approved` (a repeated " +
          "report included); 404 when it does not exist or the token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.post("reportSent", "/v1/billing/invoices/:invoiceId/report-sent")
      .setPath(InvoicePath)
      .setPayload(body(ReportSentRequest))
      .addSuccess(Invoice, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report an invoice sent")
      .annotate(
        OpenApi.Description,
        "Moves an `approved` invoice or credit note to `sent` with what the ERP issued; its balance starts at the " +
          "issued total. 400 `VALIDATION_FAILED` for a malformed body, a wrong OCR/KID check digit " +
          "(`/paymentReference`), a non-https documentUrl, and for fields the invoice decides: `dueDate` missing " +
          "on an invoice or before issuedInvoiceDate, an issued total of zero or of the wrong sign, an " +
          "externalReference other than the one attached; 400 `BILLING_INVOICE_STATUS_INVALID` when the invoice " +
          "is not `approved` (a repeated report included); 409 `BILLING_EXTERNAL_REFERENCE_ALREADY_USED` when " +
          "another invoice of the organization carries the externalReference; 404 when the invoice does not exist " +
          "or the token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.post("reportPayment", "/v1/billing/invoices/:invoiceId/report-payment")
      .setPath(InvoicePath)
      .setPayload(body(ReportPaymentRequest))
      .addSuccess(Invoice)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a payment on an invoice")
      .annotate(OpenApi.Description, PAYMENT_DESCRIPTION + PAYMENT_CODES)
  )
  .add(
    HttpApiEndpoint.post(
      "reportPaymentByExternalReference",
      "/v1/billing/invoices/by-external-reference/:externalReference/report-payment"
    )
      .setPath(ExternalReferencePath)
      .setPayload(body(ReportPaymentRequest))
      .addSuccess(Invoice)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a payment by the caller's own invoice id")
      .annotate(OpenApi.Description, PAYMENT_DESCRIPTION + "The invoice is found by its externalReference. " + PAYMENT_CODES)
  )
  .add(
    HttpApiEndpoint.post("reportPaymentReversed", "/v1/billing/invoices/:invoiceId/report-payment-reversed")
      .setPath(InvoicePath)
      .setPayload(body(ReportPaymentReversedRequest))
      .addSuccess(Invoice)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a payment taken back")
      .annotate(OpenApi.Description, REVERSAL_DESCRIPTION + REVERSAL_CODES)
  )
  .add(
    HttpApiEndpoint.post(
      "reportPaymentReversedByExternalReference",
      "/v1/billing/invoices/by-external-reference/:externalReference/report-payment-reversed"
    )
      .setPath(ExternalReferencePath)
      .setPayload(body(ReportPaymentReversedRequest))
      .addSuccess(Invoice)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a payment reversal by the caller's own invoice id")
      .annotate(
        OpenApi.Description,
        REVERSAL_DESCRIPTION + "The invoice is found by its externalReference. " + REVERSAL_CODES
      )
  )
  .add(
    HttpApiEndpoint.post("reportWriteOff", "/v1/billing/invoices/:invoiceId/report-write-off")
      .setPath(InvoicePath)
      .setPayload(body(ReportWriteOffRequest))
      .addSuccess(Invoice)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Report a write-off on an invoice")
      .annotate(
        OpenApi.Description,
        "Records an amount the caller gave up on: the balance drops by it; at zero the invoice is `written-off`. " +
          "Idempotent by writeOffId: the same report again answers 200 with the current record. 400 " +
          "`BILLING_INVOICE_STATUS_INVALID` unless the invoice is `sent`; 400 `BILLING_WRITE_OFF_AMOUNT_INVALID` " +
          "for a zero amount, the wrong sign or an amount beyond the balance; 409 " +
          "`BILLING_WRITE_OFF_REPLAY_MISMATCH` when this writeOffId was reported with other content; 404 when the " +
          "invoice does not exist or the token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.get("getWithdrawalQueue", "/v1/billing/withdrawal-queue")
      .setUrlParams(PageParams)
      .addSuccess(WithdrawalPage)
      .annotate(OpenApi.Summary, "List deleted invoices the caller may still hold")
      .annotate(
        OpenApi.Description,
        "Invoices an operator deleted after they had entered the send queue, oldest deletion first. Discard your " +
          "copy, then report it discarded; it leaves the queue. Needs the `billing` role; without a configured " +
          "billing integration: 400 `BILLING_INTEGRATION_NOT_CONFIGURED`."
      )
  )
  .add(
    HttpApiEndpoint.post("reportDiscarded", "/v1/billing/invoice-withdrawals/:invoiceId/report-discarded")
      .setPath(InvoicePath)
      .setPayload(EmptyRequest)
      .addSuccess(InvoiceWithdrawal, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Report a deleted invoice discarded")
      .annotate(
        OpenApi.Description,
        "Confirms the caller discarded its copy of a deleted invoice; answers the withdrawal, now `discarded`. The " +
          "body is an empty JSON object. 400 `BILLING_INVOICE_STATUS_INVALID` when it was " +
          "already reported discarded; 404 when there is no withdrawal for the invoice or the token cannot see it."
      )
  )
  .middleware(JsonBody)
  .middleware(BillingRole)
  .middleware(Authentication) {}
