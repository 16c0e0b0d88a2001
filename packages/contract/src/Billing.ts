/**
 * The billing group (spec 4.1 and 4.2, decisions 4 and 5): the verification queue with pass and reject, the send
 * queue and report-failed. Every operation needs the `billing` role.
 */
import { Authentication } from "./Authentication.js"
import { JsonBody } from "./JsonBody.js"
import { BillingRole } from "./Roles.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { InvoiceId, ProposalId } from "./Ids.js"
import { Invoice } from "./Invoice.js"
import { InvoiceProposal } from "./InvoiceProposal.js"
import { Page, PageParams } from "./Page.js"
import { Conflict, NotFound } from "./Problem.js"
import { BoundedText } from "./Values.js"

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

export const ProposalPage = Page(InvoiceProposal, "InvoiceProposalPage")
export const InvoicePage = Page(Invoice, "InvoicePage")

const ProposalPath = Schema.Struct({ proposalId: ProposalId })
const InvoicePath = Schema.Struct({ invoiceId: InvoiceId })

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
      .setPayload(PassProposalRequest)
      .addSuccess(PassProposalResponse, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Pass an invoice proposal")
      .annotate(
        OpenApi.Description,
        "Accepts a proposal and attaches the caller's own invoice id; an invoice is created `approved` in the same " +
          "call and enters the send queue. 400 `BILLING_PROPOSAL_STATUS_INVALID` when the proposal is no longer " +
          "`proposed` (a repeated pass included); 409 `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED` when its charges " +
          "were already invoiced (an operator must cancel it); 409 `BILLING_EXTERNAL_REFERENCE_ALREADY_USED` when " +
          "the externalReference is already used in the organization; 404 when the proposal does not exist or the " +
          "token cannot see it."
      )
  )
  .add(
    HttpApiEndpoint.post("rejectProposal", "/v1/billing/invoice-proposals/:proposalId/reject")
      .setPath(ProposalPath)
      .setPayload(RejectProposalRequest)
      .addSuccess(InvoiceProposal, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Reject an invoice proposal")
      .annotate(
        OpenApi.Description,
        "Rejects a proposal with a reason shown to an operator. Answers 201 with the rejected proposal, like the " +
          "other reports. 400 `BILLING_PROPOSAL_STATUS_INVALID` when it is no longer `proposed` (a repeated reject " +
          "included, decisions 4)."
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
      .setPayload(ReportFailedRequest)
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
  .middleware(JsonBody)
  .middleware(BillingRole)
  .middleware(Authentication) {}
