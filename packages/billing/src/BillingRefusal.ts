/**
 * The business-rule refusals of the billing domain, one class per code of spec section 7.3 that this package
 * decides, and their HTTP status (spec section 7.1, decisions.md section 4).
 *
 * Each refusal is a `Data.TaggedError` (so it can be yielded in an `Effect`) carrying:
 * - `code`: the spec's code string, a literal type; clients match on it;
 * - `detail`: a message safe to show a client (no internal ids, no caller-supplied text); also the `message`;
 * - the facts that led to it (current status, attempted action, gate …).
 *
 * @since 0.1.0
 */
import { Data } from "effect"
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
export class InvoiceStatusInvalid extends Data.TaggedError("InvoiceStatusInvalid")<{
  readonly status: InvoiceStatus
  readonly action: InvoiceAction
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_INVOICE_STATUS_INVALID" as const
  constructor(args: { readonly status: InvoiceStatus; readonly action: InvoiceAction }) {
    const detail = `The invoice is ${args.status}; ${args.action} is not allowed in this status.`
    super({ ...args, detail, message: detail })
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
export class ProposalStatusInvalid extends Data.TaggedError("ProposalStatusInvalid")<{
  readonly status: ProposalStatus
  readonly action: ProposalAction
  readonly invoiceNumberMissing: boolean
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_PROPOSAL_STATUS_INVALID" as const
  constructor(args: {
    readonly status: ProposalStatus
    readonly action: ProposalAction
    readonly invoiceNumberMissing?: boolean
  }) {
    const invoiceNumberMissing = args.invoiceNumberMissing ?? false
    const detail = invoiceNumberMissing
      ? `The proposal has no invoice number; ${args.action} is not allowed. An operator must cancel it.`
      : `The proposal is ${args.status}; ${args.action} is only allowed on a proposal that is proposed.`
    super({ status: args.status, action: args.action, invoiceNumberMissing, detail, message: detail })
  }
}

/**
 * `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`, HTTP 409: the proposal's charges were already invoiced by
 * another invoice; an operator must cancel the proposal (spec sections 4.1 and 7.1).
 *
 * @since 0.1.0
 */
export class ProposalMaterialAlreadyInvoiced extends Data.TaggedError("ProposalMaterialAlreadyInvoiced")<{
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED" as const
  constructor() {
    const detail = "The proposal's charges were already invoiced; an operator must cancel the proposal."
    super({ detail, message: detail })
  }
}

/**
 * `BILLING_EXTERNAL_REFERENCE_ALREADY_USED`, HTTP 409: the `externalReference` is already attached to another
 * invoice of the organization; it must be unique there (spec sections 4.1 and 8). The reference is carried for
 * logs but not repeated in `detail`.
 *
 * @since 0.1.0
 */
export class ExternalReferenceAlreadyUsed extends Data.TaggedError("ExternalReferenceAlreadyUsed")<{
  readonly externalReference: string
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_EXTERNAL_REFERENCE_ALREADY_USED" as const
  constructor(args: { readonly externalReference: string }) {
    const detail = "The externalReference is already used by another invoice of this organization."
    super({ externalReference: args.externalReference, detail, message: detail })
  }
}

/**
 * `BILLING_INTEGRATION_NOT_CONFIGURED`, HTTP 400: the organization has no configured billing integration, so
 * the billing operations are not available (decisions.md section 5).
 *
 * @since 0.1.0
 */
export class IntegrationNotConfigured extends Data.TaggedError("IntegrationNotConfigured")<{
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_INTEGRATION_NOT_CONFIGURED" as const
  constructor() {
    const detail = "The organization has no configured billing integration."
    super({ detail, message: detail })
  }
}

/**
 * `BILLING_INTEGRATION_GATE_NOT_DECLARED`, HTTP 400: the billing integration is configured but did not declare
 * `gate` (for the verification queue, pass and reject: `verification`; decisions.md sections 5 and 8).
 *
 * @since 0.1.0
 */
export class IntegrationGateNotDeclared extends Data.TaggedError("IntegrationGateNotDeclared")<{
  readonly gate: string
  readonly detail: string
  readonly message: string
}> {
  readonly code = "BILLING_INTEGRATION_GATE_NOT_DECLARED" as const
  constructor(args: { readonly gate: string }) {
    const detail = `The billing integration has not declared the ${args.gate} gate.`
    super({ gate: args.gate, detail, message: detail })
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
 * HTTP status of each refusal code (spec section 7.1, decisions.md section 4): 400 for a business rule that
 * refused the request, 409 where the request conflicts with state another request made.
 *
 * @since 0.1.0
 */
export const HTTP_STATUS_BY_CODE: { readonly [Code in BillingRefusalCode]: 400 | 409 } = {
  BILLING_INVOICE_STATUS_INVALID: 400,
  BILLING_PROPOSAL_STATUS_INVALID: 400,
  BILLING_INTEGRATION_NOT_CONFIGURED: 400,
  BILLING_INTEGRATION_GATE_NOT_DECLARED: 400,
  BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED: 409,
  BILLING_EXTERNAL_REFERENCE_ALREADY_USED: 409
}

/**
 * The HTTP status to answer a refusal with: 400 or 409, see {@link HTTP_STATUS_BY_CODE}.
 *
 * @since 0.1.0
 */
export const httpStatusOf = (refusal: BillingRefusal): 400 | 409 => HTTP_STATUS_BY_CODE[refusal.code]
