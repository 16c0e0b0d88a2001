/**
 * The business-rule refusals of the billing domain, one class per code of spec section 7.3 that this package
 * decides. Each has the one shape of `@propline/refusal/Refusal` (spec sections 7.1, 7.3; decisions.md section 4):
 * - `code`: the spec's code string, a literal type; clients match on it;
 * - `status`: the HTTP status, 400 (a rule refused the request) or 409 (a conflict with state another request made);
 * - `detail`: a message safe to show a client (no internal ids, no caller-supplied text); also the `message`;
 * - the facts that led to it (current status, attempted action, gate …).
 *
 * @since 0.1.0
 */
import { Refusal } from "@propline/refusal/Refusal"
import type { InvoiceStatus } from "./Invoice.js"
import type { ProposalStatus } from "./InvoiceProposal.js"

/**
 * An operation that moves an invoice, as named in a refusal's `action`.
 * `approve`: decisions.md section 5; `report-failed`: spec sections 3 and 4.1.
 *
 * @since 0.1.0
 */
export type InvoiceAction = "approve" | "report-failed"

/**
 * An operation that moves a proposal, as named in a refusal's `action` (spec section 3):
 * `pass` and `reject` (the caller's verdicts), `cancel` (an operator's action).
 *
 * @since 0.1.0
 */
export type ProposalAction = "pass" | "reject" | "cancel"

/**
 * `BILLING_INVOICE_STATUS_INVALID`, HTTP 400: the invoice's current `status` does not allow `action`
 * (spec section 7.1: report-failed on an invoice that is not approved, including a repeated report).
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
 * Any refusal of this package.
 *
 * @since 0.1.0
 */
export type BillingRefusal =
  | InvoiceStatusInvalid
  | ProposalStatusInvalid
  | ProposalMaterialAlreadyInvoiced
  | ExternalReferenceAlreadyUsed
  | IntegrationNotConfigured
  | IntegrationGateNotDeclared

/**
 * The spec code (section 7.3) of any refusal of this package.
 *
 * @since 0.1.0
 */
export type BillingRefusalCode = BillingRefusal["code"]

/**
 * The HTTP status to answer a refusal with: its `status`, 400 or 409 (decisions.md section 4).
 *
 * @since 0.1.0
 */
export const httpStatusOf = (refusal: BillingRefusal): 400 | 409 => refusal.status
