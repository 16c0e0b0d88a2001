/**
 * Crediting an invoice, an operator's action (decisions.md section 1: "credit notes"; spec section 2.1: a credit
 * note has negative totals and names the invoice it credits in `creditedInvoiceId`). The operator credits the
 * invoice in full, or chosen amounts of its lines, and may add manual lines (an amount and a VAT rate not taken
 * from the invoice). The credit note is created `approved`: it enters the send queue and travels like an
 * invoice, with refunds as negative payments.
 *
 * A credit act is idempotent by its `creditActId`: carried out again with the same content it changes nothing
 * and answers the credit note it made; with other content it is refused.
 *
 * Money is integer minor units; VAT rates are basis points (2500 = 25 %); dates `YYYY-MM-DD`.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { BillingEvent } from "./BillingEvent.js"
import {
  CreditActReplayMismatch,
  CreditExceedsInvoice,
  CreditExceedsLine,
  CreditNoteInvoiceNotCreditable,
  type FieldIssue,
  FieldsInvalid,
  ManualCreditVatRateUnknown
} from "./BillingRefusal.js"
import type { InvoiceRecord, InvoiceStatus } from "./Invoice.js"
import { invoiceEvent } from "./internal/events.js"
import { type CreditableLine, draftCreditNote, type DraftLine } from "./InvoiceRun.js"
import { type VatCountry, vatRatesFor } from "./Money.js"
import { isReasonText } from "./ReasonText.js"

/**
 * Statuses an invoice can be credited in: issued (`sent`, `paid`, `written-off`). An unsent invoice is deleted
 * instead.
 *
 * @since 0.1.0
 */
export const CREDITABLE_STATUSES: ReadonlyArray<InvoiceStatus> = ["sent", "paid", "written-off"]

/**
 * A line of the invoice to credit: `netMinorUnits` as invoiced, `creditedNetMinorUnits` how much of it earlier
 * credit notes took back (same sign as the line, 0 when none).
 *
 * @since 0.1.0
 */
export interface InvoiceLineToCredit {
  readonly lineId: string
  readonly description: string
  readonly netMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly creditedNetMinorUnits: number
}

/**
 * Part of a line to credit: `netMinorUnits` excluding VAT, the line's sign (positive for an ordinary line).
 *
 * @since 0.1.0
 */
export interface LineCredit {
  readonly lineId: string
  readonly netMinorUnits: number
}

/**
 * A manual credit line: a `description`, `netMinorUnits` > 0 to credit (excluding VAT), and a VAT rate the
 * organization's country has.
 *
 * @since 0.1.0
 */
export interface ManualCredit {
  readonly description: string
  readonly netMinorUnits: number
  readonly vatRateBasisPoints: number
}

/**
 * What to credit: everything not yet credited (`full`), or chosen `lines` and `manualLines`.
 *
 * @since 0.1.0
 */
export type CreditScope =
  | { readonly kind: "full" }
  | {
      readonly kind: "lines"
      readonly lines: ReadonlyArray<LineCredit>
      readonly manualLines: ReadonlyArray<ManualCredit>
    }

/**
 * The operator's request: the invoice, the scope, the `reason` (1 to 1000 characters, kept on the credit note's
 * act), and the credit note's `invoiceDate`.
 *
 * @since 0.1.0
 */
export interface CreditRequest {
  readonly invoiceId: string
  readonly reason: string
  readonly invoiceDate: string
  readonly scope: CreditScope
}

/**
 * A credit act carried out before: its id, the request and the credit note it made.
 *
 * @since 0.1.0
 */
export interface CreditAct {
  readonly creditActId: string
  readonly request: CreditRequest
  readonly creditNote: InvoiceRecord
}

/**
 * What crediting reads: the invoice, its lines with what was credited of each, the gross total of its earlier
 * credit notes (≤ 0), the organization's VAT country, and the act already carried out with this command's
 * `creditActId`, if any.
 *
 * @since 0.1.0
 */
export interface CreditState {
  readonly invoice: InvoiceRecord
  readonly lines: ReadonlyArray<InvoiceLineToCredit>
  readonly creditedGrossMinorUnits: number
  readonly country: VatCountry
  readonly earlierAct: CreditAct | undefined
}

/**
 * The request plus what the caller of the function generates: `creditActId` (the operator's idempotency key),
 * the credit note's id and its `invoiceNumber` (the organization's next number).
 *
 * @since 0.1.0
 */
export interface CreditCommand extends CreditRequest {
  readonly creditActId: string
  readonly creditNoteId: string
  readonly invoiceNumber: number
}

/**
 * A credit note line: the drafted line (negative amounts) and the invoice line it credits (absent on a manual
 * line).
 *
 * @since 0.1.0
 */
export interface CreditNoteLine extends DraftLine {
  readonly creditedLineId?: string
}

/**
 * An accepted credit act. `replayed`: the same act was carried out before; `creditNote` is the one it made and
 * nothing else is to be persisted. Else `creditNote` (approved) with its `lines`, and the events.
 *
 * @since 0.1.0
 */
export interface CreditOutcome {
  readonly replayed: boolean
  readonly creditNote: InvoiceRecord
  readonly lines: ReadonlyArray<CreditNoteLine>
  readonly events: ReadonlyArray<BillingEvent>
}

const sameScope = (a: CreditScope, b: CreditScope): boolean => {
  if (a.kind === "full" || b.kind === "full") return a.kind === b.kind
  return (
    a.lines.length === b.lines.length &&
    a.lines.every((line, index) => {
      const other = b.lines[index]
      return other !== undefined && other.lineId === line.lineId && other.netMinorUnits === line.netMinorUnits
    }) &&
    a.manualLines.length === b.manualLines.length &&
    a.manualLines.every((line, index) => {
      const other = b.manualLines[index]
      return (
        other !== undefined &&
        other.description === line.description &&
        other.netMinorUnits === line.netMinorUnits &&
        other.vatRateBasisPoints === line.vatRateBasisPoints
      )
    })
  )
}

/**
 * Whether two credit requests are the same act's content: same invoice, reason, date and scope (lines in the
 * same order).
 *
 * @since 0.1.0
 */
export const sameCreditRequest = (a: CreditRequest, b: CreditRequest): boolean =>
  a.invoiceId === b.invoiceId && a.reason === b.reason && a.invoiceDate === b.invoiceDate && sameScope(a.scope, b.scope)

const remainingOf = (line: InvoiceLineToCredit): number => line.netMinorUnits - line.creditedNetMinorUnits

type Chosen = { readonly material: CreditableLine; readonly creditedLineId?: string }

/** The lines to draft, or the first refusal among the scope's lines. */
const chooseLines = (
  state: CreditState,
  scope: CreditScope
): Either.Either<
  ReadonlyArray<Chosen>,
  FieldsInvalid | CreditExceedsLine | ManualCreditVatRateUnknown | CreditNoteInvoiceNotCreditable
> => {
  if (scope.kind === "full") {
    const open = state.lines.filter((line) => remainingOf(line) !== 0)
    if (open.length === 0) {
      return Either.left(
        new CreditNoteInvoiceNotCreditable({
          invoiceStatus: state.invoice.status,
          documentKind: state.invoice.documentKind,
          problem: "fully-credited",
          detail: "The invoice is already credited in full."
        })
      )
    }
    return Either.right(
      open.map((line) => ({
        material: {
          description: line.description,
          netMinorUnits: remainingOf(line),
          vatRateBasisPoints: line.vatRateBasisPoints
        },
        creditedLineId: line.lineId
      }))
    )
  }
  const issues: Array<FieldIssue> = []
  if (scope.lines.length === 0 && scope.manualLines.length === 0) {
    issues.push({ path: "/lines", message: "Credit at least one line." })
  }
  const seen = new Set<string>()
  scope.lines.forEach((credit, index) => {
    if (!state.lines.some((line) => line.lineId === credit.lineId)) {
      issues.push({ path: `/lines/${index}/lineId`, message: "No such line on the invoice." })
    } else if (seen.has(credit.lineId)) {
      issues.push({ path: `/lines/${index}/lineId`, message: "Each line is credited once per credit note." })
    }
    seen.add(credit.lineId)
    if (credit.netMinorUnits === 0) {
      issues.push({ path: `/lines/${index}/netMinorUnits`, message: "A credited amount is not zero." })
    }
  })
  scope.manualLines.forEach((manual, index) => {
    if (manual.netMinorUnits <= 0) {
      issues.push({ path: `/manualLines/${index}/netMinorUnits`, message: "A manual credit is greater than zero." })
    }
  })
  if (issues.length > 0) {
    return Either.left(new FieldsInvalid({ issues, detail: "The credit does not fit the invoice." }))
  }
  const chosen: Array<Chosen> = []
  for (const credit of scope.lines) {
    const line = state.lines.find((candidate) => candidate.lineId === credit.lineId)
    if (line === undefined) continue
    const remaining = remainingOf(line)
    const sameSide = Math.sign(credit.netMinorUnits) === Math.sign(remaining)
    if (!sameSide || Math.abs(credit.netMinorUnits) > Math.abs(remaining)) {
      return Either.left(
        new CreditExceedsLine({
          lineId: line.lineId,
          requestedNetMinorUnits: credit.netMinorUnits,
          remainingNetMinorUnits: remaining,
          detail: "The amount credited exceeds what is left to credit on the line."
        })
      )
    }
    chosen.push({
      material: {
        description: line.description,
        netMinorUnits: credit.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints
      },
      creditedLineId: line.lineId
    })
  }
  const rates = vatRatesFor(state.country)
  for (const manual of scope.manualLines) {
    if (!rates.includes(manual.vatRateBasisPoints)) {
      return Either.left(
        new ManualCreditVatRateUnknown({
          vatRateBasisPoints: manual.vatRateBasisPoints,
          detail: `The VAT rate is not one of the organization's country's rates (${rates.join(", ")} basis points).`
        })
      )
    }
    chosen.push({ material: manual })
  }
  return Either.right(chosen)
}

/**
 * Credit an invoice (an operator's action). Checks, in this order, answering the first that fails:
 * 1. an act with this `creditActId` was carried out: with the same request (see {@link sameCreditRequest}) it is
 *    a replay answering its credit note; else `CreditActReplayMismatch` (`BILLING_CREDIT_ACT_REPLAY_MISMATCH`,
 *    409);
 * 2. the document is an invoice (not a credit note) in `sent`, `paid` or `written-off`, else
 *    `CreditNoteInvoiceNotCreditable` (`BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE`, 400);
 * 3. the request's fields, else `FieldsInvalid` (`VALIDATION_FAILED`, 400): the reason 1 to 1000 characters; at
 *    least one line; each `lineId` on the invoice, once; no zero amount; manual amounts > 0;
 * 4. `full` with nothing left to credit → `CreditNoteInvoiceNotCreditable` (problem `fully-credited`); each
 *    line's amount on the line's side of zero and not beyond what is left of it, else `CreditExceedsLine`
 *    (`BILLING_CREDIT_EXCEEDS_LINE`, 400); each manual line's VAT rate one of the country's, else
 *    `ManualCreditVatRateUnknown` (`BILLING_MANUAL_CREDIT_VAT_RATE_UNKNOWN`, 400);
 * 5. the credit note's gross total is below zero (else `FieldsInvalid` at `/lines`) and, as a positive amount,
 *    not beyond the invoice's gross total less earlier credit notes, else `CreditExceedsInvoice` (`BILLING_CREDIT_EXCEEDS_INVOICE`, 400).
 *
 * On success: a credit note (`documentKind` `credit-note`, `creditedInvoiceId` the invoice, status `approved`,
 * `approvedAt` = `createdAt` = `updatedAt` = `now`) copying the invoice's run, organization, context, contract,
 * recipient, billing account, stream and currency, with `requestedInvoiceDate` = `invoiceDate`, no due date and
 * no payment terms, and lines that negate the credited amounts (VAT per line, halves away from zero). Events:
 * `billing.invoice.created` and `billing.invoice.approved` for the credit note, `billing.invoice.credited` for the
 * invoice.
 *
 * @since 0.1.0
 */
export const credit = (
  state: CreditState,
  command: CreditCommand,
  now: Date
): Either.Either<
  CreditOutcome,
  | CreditActReplayMismatch
  | CreditNoteInvoiceNotCreditable
  | FieldsInvalid
  | CreditExceedsLine
  | ManualCreditVatRateUnknown
  | CreditExceedsInvoice
> =>
  Either.gen(function* () {
    const { invoice } = state
    if (state.earlierAct !== undefined) {
      if (sameCreditRequest(state.earlierAct.request, command)) {
        return { replayed: true, creditNote: state.earlierAct.creditNote, lines: [], events: [] }
      }
      return yield* Either.left(
        new CreditActReplayMismatch({
          creditActId: command.creditActId,
          detail: "A credit act with this id was already carried out with other content."
        })
      )
    }
    if (invoice.documentKind !== "invoice" || !CREDITABLE_STATUSES.includes(invoice.status)) {
      return yield* Either.left(
        new CreditNoteInvoiceNotCreditable({
          invoiceStatus: invoice.status,
          documentKind: invoice.documentKind,
          problem: invoice.documentKind !== "invoice" ? "credit-note" : "status",
          detail:
            invoice.documentKind !== "invoice"
              ? "A credit note is not credited."
              : `The invoice is ${invoice.status}; only a sent, paid or written-off invoice is credited.`
        })
      )
    }
    if (!isReasonText(command.reason)) {
      return yield* Either.left(
        new FieldsInvalid({
          issues: [{ path: "/reason", message: "The reason is 1 to 1000 characters." }],
          detail: "The credit does not fit the invoice."
        })
      )
    }
    const chosen = yield* chooseLines(state, command.scope)
    const remainingGross = invoice.totalGrossMinorUnits + state.creditedGrossMinorUnits
    const exceeds = (requested: number) =>
      new CreditExceedsInvoice({
        requestedGrossMinorUnits: requested,
        remainingGrossMinorUnits: remainingGross,
        detail: "The credit note's total exceeds what is left to credit of the invoice."
      })
    const drafted = draftCreditNote(
      chosen.map((line) => line.material),
      command.reason
    )
    if (Either.isLeft(drafted)) {
      // What is left to fail here: a total that is not negative (discount lines outweighing the rest).
      return yield* Either.left(
        new FieldsInvalid({
          issues: [{ path: "/lines", message: "The credited lines add up to a credit note total below zero." }],
          detail: "The credit does not fit the invoice."
        })
      )
    }
    const draft = drafted.right
    if (-draft.totals.gross > remainingGross) return yield* Either.left(exceeds(-draft.totals.gross))
    const creditNote: InvoiceRecord = {
      id: command.creditNoteId,
      invoiceRunId: invoice.invoiceRunId,
      organizationId: invoice.organizationId,
      operationalContextId: invoice.operationalContextId,
      contractId: invoice.contractId,
      recipientAgentId: invoice.recipientAgentId,
      recipientAgentName: invoice.recipientAgentName,
      billingAccountId: invoice.billingAccountId,
      documentKind: "credit-note",
      creditedInvoiceId: invoice.id,
      billingStream: invoice.billingStream,
      requestedInvoiceDate: command.invoiceDate,
      invoiceNumber: command.invoiceNumber,
      status: "approved",
      currency: invoice.currency,
      totalNetMinorUnits: draft.totals.net,
      totalVatMinorUnits: draft.totals.vat,
      totalGrossMinorUnits: draft.totals.gross,
      approvedAt: now,
      createdAt: now,
      updatedAt: now
    }
    const lines: ReadonlyArray<CreditNoteLine> = draft.lines.map((line, index) => {
      const creditedLineId = chosen[index]?.creditedLineId
      return creditedLineId !== undefined ? { ...line, creditedLineId } : line
    })
    return {
      replayed: false,
      creditNote,
      lines,
      events: [
        invoiceEvent("billing.invoice.created", creditNote, now),
        invoiceEvent("billing.invoice.approved", creditNote, now),
        { ...invoiceEvent("billing.invoice.credited", invoice, now), creditNoteId: creditNote.id }
      ]
    }
  })
