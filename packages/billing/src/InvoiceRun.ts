/**
 * The pure part of an invoice run: from the contracts of an organization and a billing period, the draft
 * documents the run would create (spec sections 2.1 and 2.2), and the credit note that negates lines of an
 * invoice. No I/O and no clock: the period and the invoice date are given.
 *
 * Units, as everywhere in this package: money is an integer number of minor units of the document's currency
 * (öre, øre, cent), VAT rates are integer basis points (2500 = 25 %), dates are ISO calendar dates `YYYY-MM-DD`.
 * Date arithmetic is on the proleptic Gregorian calendar with no time of day and no time zone (the same as
 * UTC midnight arithmetic, without a `Date`), for years 0001 to 9999.
 *
 * @since 0.1.0
 */
import { Data, Either } from "effect"
import type { BillingStream, Currency } from "./Invoice.js"
import { AmountOutOfRange, lineTotals, type LineTotals, sumTotals, type VatRateInvalid } from "./Money.js"
import { isReasonText } from "./ReasonText.js"

// ---------------------------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------------------------

/**
 * A date given to the run is not a calendar date `YYYY-MM-DD` from 0001-01-01 to 9999-12-31. `field` names it:
 * `periodStart`, `periodEnd`, `invoiceDate` or `date` (the argument of {@link addDays} / {@link calendarMonthOf}).
 *
 * @since 0.1.0
 */
export class DateInvalid extends Data.TaggedError("DateInvalid")<{
  readonly field: "periodStart" | "periodEnd" | "invoiceDate" | "date"
  readonly value: string
  readonly message: string
}> {
  constructor(args: { readonly field: DateInvalid["field"]; readonly value: string }) {
    super({ ...args, message: `${args.field} is not a calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31.` })
  }
}

/**
 * The billing period is not one or more whole calendar months: `periodStart` must be the first day of a month,
 * `periodEnd` the last day of the same or a later month.
 *
 * @since 0.1.0
 */
export class PeriodInvalid extends Data.TaggedError("PeriodInvalid")<{
  readonly periodStart: string
  readonly periodEnd: string
  readonly message: string
}> {
  constructor(args: { readonly periodStart: string; readonly periodEnd: string }) {
    super({ ...args, message: "A billing period runs from the first day of a month to the last day of a month." })
  }
}

/**
 * A contract's payment terms are not an integer number of days ≥ 0, or they put the due date past 9999-12-31.
 *
 * @since 0.1.0
 */
export class PaymentTermsInvalid extends Data.TaggedError("PaymentTermsInvalid")<{
  readonly paymentTermsDays: number
  readonly message: string
}> {
  constructor(args: { readonly paymentTermsDays: number }) {
    super({
      ...args,
      message: "Payment terms are a whole number of days ≥ 0 that give a due date no later than 9999-12-31."
    })
  }
}

/**
 * A credit note can't be drafted: `no-lines` (nothing to credit), `reason-length` (the reason is not 1 to 1000
 * characters, as `ReasonText.isReasonText` counts) or `total-not-negative` (the credited lines add up to zero or
 * less, so the credit note would not have the negative total spec section 2.1 requires).
 *
 * @since 0.1.0
 */
export class CreditNoteInvalid extends Data.TaggedError("CreditNoteInvalid")<{
  readonly problem: "no-lines" | "reason-length" | "total-not-negative"
  readonly message: string
}> {
  constructor(args: { readonly problem: CreditNoteInvalid["problem"] }) {
    super({ ...args, message: `The credit note can't be drafted: ${args.problem}.` })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Calendar dates
// ---------------------------------------------------------------------------------------------------------------

interface CivilDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

const isoDatePattern = /^(\d{4})-(\d{2})-(\d{2})$/

const parseIsoDate = (value: string): CivilDate | undefined => {
  const match = isoDatePattern.exec(value)
  if (match === null) return undefined
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  return { year, month, day }
}

const formatIsoDate = (date: CivilDate): string =>
  `${String(date.year).padStart(4, "0")}-${String(date.month).padStart(2, "0")}-${String(date.day).padStart(2, "0")}`

// Days since 1970-01-01 and back (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): integer arithmetic
// on 400-year eras, exact for every date of the proleptic Gregorian calendar.
const daysFromCivil = ({ day, month, year }: CivilDate): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

const civilFromDays = (days: number): CivilDate => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

const LAST_DAY = daysFromCivil({ year: 9999, month: 12, day: 31 })

/**
 * `date` plus `days` calendar days (`days` may be negative), as `YYYY-MM-DD`: `addDays("2024-02-28", 1)` is
 * `2024-02-29`, `addDays("2025-12-15", 30)` is `2026-01-14`.
 *
 * @param date `YYYY-MM-DD`, 0001-01-01 to 9999-12-31.
 * @param days an integer number of days.
 * @returns `DateInvalid` (field `date`) for a malformed or impossible date, or when the result falls outside
 *   0001-01-01 to 9999-12-31 or `days` is not a safe integer.
 * @since 0.1.0
 */
export const addDays = (date: string, days: number): Either.Either<string, DateInvalid> => {
  const parsed = parseIsoDate(date)
  if (parsed === undefined || !Number.isSafeInteger(days)) {
    return Either.left(new DateInvalid({ field: "date", value: date }))
  }
  const result = daysFromCivil(parsed) + days
  return result < daysFromCivil({ year: 1, month: 1, day: 1 }) || result > LAST_DAY
    ? Either.left(new DateInvalid({ field: "date", value: date }))
    : Either.right(formatIsoDate(civilFromDays(result)))
}

/**
 * The requested due date of an invoice: `invoiceDate` plus `paymentTermsDays` calendar days (spec section 2.1:
 * "Payment terms in days that give the requested due date"). Terms of 0 make the invoice due on its date.
 *
 * @param invoiceDate `YYYY-MM-DD`.
 * @param paymentTermsDays integer ≥ 0.
 * @returns `DateInvalid` (field `invoiceDate`) for a bad date; `PaymentTermsInvalid` for terms that are not an
 *   integer ≥ 0 or that reach past 9999-12-31.
 * @since 0.1.0
 */
export const dueDateFor = (
  invoiceDate: string,
  paymentTermsDays: number
): Either.Either<string, DateInvalid | PaymentTermsInvalid> => {
  const parsed = parseIsoDate(invoiceDate)
  if (parsed === undefined) return Either.left(new DateInvalid({ field: "invoiceDate", value: invoiceDate }))
  if (!Number.isSafeInteger(paymentTermsDays) || paymentTermsDays < 0) {
    return Either.left(new PaymentTermsInvalid({ paymentTermsDays }))
  }
  const due = daysFromCivil(parsed) + paymentTermsDays
  return due > LAST_DAY
    ? Either.left(new PaymentTermsInvalid({ paymentTermsDays }))
    : Either.right(formatIsoDate(civilFromDays(due)))
}

/**
 * A billing period: ISO dates, both inclusive.
 *
 * @since 0.1.0
 */
export interface BillingPeriod {
  /** `YYYY-MM-DD`, the first day billed. */
  readonly periodStart: string
  /** `YYYY-MM-DD`, the last day billed. */
  readonly periodEnd: string
}

/**
 * The calendar month that contains `date`, moved by `offsetMonths` (−1: the month before, 1: the month after):
 * `calendarMonthOf("2024-03-31", -1)` is `2024-02-01`..`2024-02-29`.
 *
 * @param date `YYYY-MM-DD`.
 * @param offsetMonths an integer, default 0.
 * @returns `DateInvalid` (field `date`) for a bad date, a non-integer offset, or a month outside 0001 to 9999.
 * @since 0.1.0
 */
export const calendarMonthOf = (date: string, offsetMonths = 0): Either.Either<BillingPeriod, DateInvalid> => {
  const parsed = parseIsoDate(date)
  if (parsed === undefined || !Number.isSafeInteger(offsetMonths)) {
    return Either.left(new DateInvalid({ field: "date", value: date }))
  }
  const monthIndex = parsed.year * 12 + (parsed.month - 1) + offsetMonths
  const year = Math.floor(monthIndex / 12)
  const month = monthIndex - year * 12 + 1
  if (year < 1 || year > 9999) return Either.left(new DateInvalid({ field: "date", value: date }))
  return Either.right({
    periodStart: formatIsoDate({ year, month, day: 1 }),
    periodEnd: formatIsoDate({ year, month, day: daysInMonth(year, month) })
  })
}

/** How many whole calendar months the period covers, or a refusal. */
const monthsIn = (period: BillingPeriod): Either.Either<number, DateInvalid | PeriodInvalid> => {
  const start = parseIsoDate(period.periodStart)
  if (start === undefined) return Either.left(new DateInvalid({ field: "periodStart", value: period.periodStart }))
  const end = parseIsoDate(period.periodEnd)
  if (end === undefined) return Either.left(new DateInvalid({ field: "periodEnd", value: period.periodEnd }))
  const months = end.year * 12 + end.month - (start.year * 12 + start.month) + 1
  return start.day !== 1 || end.day !== daysInMonth(end.year, end.month) || months < 1
    ? Either.left(new PeriodInvalid(period))
    : Either.right(months)
}

// ---------------------------------------------------------------------------------------------------------------
// Drafts
// ---------------------------------------------------------------------------------------------------------------

/**
 * One monthly product line of a contract: `monthlyNetMinorUnits` is the price per calendar month excluding VAT,
 * in minor units of the contract's currency; `vatRateBasisPoints` is 0 to 10000 (see `Money.vatRatesFor`).
 *
 * @since 0.1.0
 */
export interface ContractLineMaterial {
  readonly description: string
  readonly monthlyNetMinorUnits: number
  readonly vatRateBasisPoints: number
}

/**
 * A contract as the run bills it: the customer's name as written on the document, the currency, the payment
 * terms in days (integer ≥ 0) and its monthly lines.
 *
 * @since 0.1.0
 */
export interface ContractMaterial {
  readonly contractId: string
  readonly customerName: string
  readonly currency: Currency
  readonly paymentTermsDays: number
  readonly lines: ReadonlyArray<ContractLineMaterial>
}

/**
 * What an invoice run drafts from: the billed period (whole calendar months), the invoice date every document
 * is requested with (`YYYY-MM-DD`) and the contracts.
 *
 * @since 0.1.0
 */
export interface InvoiceRunInput extends BillingPeriod {
  readonly invoiceDate: string
  readonly contracts: ReadonlyArray<ContractMaterial>
}

/**
 * One line of a drafted document (a `document_lines` row without its ids): `position` counts from 1;
 * `netMinorUnits`, `vatMinorUnits`, `grossMinorUnits` are minor units with `gross = net + vat`, VAT rounded per
 * line by `Money.lineTotals` (halves away from zero).
 *
 * @since 0.1.0
 */
export interface DraftLine {
  readonly position: number
  readonly description: string
  readonly netMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly vatMinorUnits: number
  readonly grossMinorUnits: number
}

/**
 * An invoice the run would create for one contract (the material of spec 2.1 / 2.2 before ids, numbers and
 * statuses are given): its lines in the order of the contract's lines, `totals` = the sums of the lines (minor
 * units), and the requested dates: `requestedDueDate` = `requestedInvoiceDate` + `paymentTermsDays`.
 *
 * @since 0.1.0
 */
export interface DraftInvoice extends BillingPeriod {
  readonly contractId: string
  readonly recipientAgentName: string
  readonly documentKind: "invoice"
  readonly billingStream: Extract<BillingStream, "contractual">
  readonly currency: Currency
  /** `YYYY-MM-DD`. */
  readonly requestedInvoiceDate: string
  /** `YYYY-MM-DD`. */
  readonly requestedDueDate: string
  /** Integer ≥ 0. */
  readonly paymentTermsDays: number
  readonly lines: ReadonlyArray<DraftLine>
  readonly totals: LineTotals
}

type LineMaterial = Pick<DraftLine, "description" | "netMinorUnits" | "vatRateBasisPoints">

interface DraftedLines {
  readonly lines: ReadonlyArray<DraftLine>
  readonly totals: LineTotals
}

const draftLines = (
  lines: ReadonlyArray<LineMaterial>
): Either.Either<DraftedLines, AmountOutOfRange | VatRateInvalid> =>
  Either.gen(function* () {
    const drafted: Array<DraftLine> = []
    for (const [index, line] of lines.entries()) {
      const totals = yield* lineTotals(line.netMinorUnits, line.vatRateBasisPoints)
      drafted.push({
        position: index + 1,
        description: line.description,
        netMinorUnits: totals.net,
        vatRateBasisPoints: line.vatRateBasisPoints,
        vatMinorUnits: totals.vat,
        grossMinorUnits: totals.gross
      })
    }
    const totals = yield* sumTotals(
      drafted.map((line) => ({ net: line.netMinorUnits, vat: line.vatMinorUnits, gross: line.grossMinorUnits }))
    )
    return { lines: drafted, totals }
  })

/** `monthly` × `months` as a safe integer, exactly (BigInt), or undefined when it leaves the spec's bounds. */
const timesMonths = (monthly: number, months: number): number | undefined => {
  if (!Number.isSafeInteger(monthly)) return undefined
  const product = BigInt(monthly) * BigInt(months)
  return product <= BigInt(Number.MAX_SAFE_INTEGER) && product >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(product)
    : undefined
}

/**
 * One draft invoice per contract, in the order of `input.contracts`. Each contract line becomes one document
 * line whose net amount is `monthlyNetMinorUnits` × the number of calendar months in the period (1 for a month,
 * 3 for a quarter); VAT is computed per line, then summed (so the document's VAT is the sum of rounded line
 * VATs, as on a Swedish or Norwegian invoice). A contract without lines drafts a document with zero totals; the
 * caller decides whether to skip it.
 *
 * @returns `DateInvalid` for a malformed period or invoice date; `PeriodInvalid` unless the period is whole
 *   calendar months; `PaymentTermsInvalid` for a contract's bad terms; `VatRateInvalid` / `AmountOutOfRange`
 *   (from `Money`) for a line's rate, or an amount outside ±9007199254740991 minor units.
 * @since 0.1.0
 */
export const draftDocuments = (
  input: InvoiceRunInput
): Either.Either<
  ReadonlyArray<DraftInvoice>,
  DateInvalid | PeriodInvalid | PaymentTermsInvalid | AmountOutOfRange | VatRateInvalid
> =>
  Either.gen(function* () {
    const months = yield* monthsIn(input)
    if (parseIsoDate(input.invoiceDate) === undefined) {
      return yield* Either.left(new DateInvalid({ field: "invoiceDate", value: input.invoiceDate }))
    }
    const documents: Array<DraftInvoice> = []
    for (const contract of input.contracts) {
      const requestedDueDate = yield* dueDateFor(input.invoiceDate, contract.paymentTermsDays)
      const material: Array<LineMaterial> = []
      for (const line of contract.lines) {
        const net = timesMonths(line.monthlyNetMinorUnits, months)
        if (net === undefined) {
          return yield* Either.left(new AmountOutOfRange({ field: "net" }))
        }
        const { description, vatRateBasisPoints } = line
        material.push({ description, netMinorUnits: net, vatRateBasisPoints })
      }
      const { lines, totals } = yield* draftLines(material)
      documents.push({
        contractId: contract.contractId,
        recipientAgentName: contract.customerName,
        documentKind: "invoice",
        billingStream: "contractual",
        currency: contract.currency,
        periodStart: input.periodStart,
        periodEnd: input.periodEnd,
        requestedInvoiceDate: input.invoiceDate,
        requestedDueDate,
        paymentTermsDays: contract.paymentTermsDays,
        lines,
        totals
      })
    }
    return documents
  })

/**
 * A line of an issued or drafted invoice, as much of it as crediting needs (minor units, basis points).
 *
 * @since 0.1.0
 */
export interface CreditableLine {
  readonly description: string
  readonly netMinorUnits: number
  readonly vatRateBasisPoints: number
}

/**
 * A credit note's material (spec 2.1, `documentKind` `credit-note`): the credited lines negated, their totals
 * (negative), and the reason given. It has no due date and no payment terms: spec 2.1 says both are absent on a
 * credit note. The caller adds the invoice date, `creditedInvoiceId` and the copied invoice fields.
 *
 * @since 0.1.0
 */
export interface DraftCreditNote {
  readonly documentKind: "credit-note"
  readonly reason: string
  readonly lines: ReadonlyArray<DraftLine>
  readonly totals: LineTotals
}

/**
 * Drafts a credit note for some or all lines of an invoice: each line's net amount negated, VAT recomputed by
 * `Money.lineTotals` (halves away from zero, so each credit line is the exact negative of its invoice line:
 * net, VAT and gross), positions renumbered from 1 in the given order.
 *
 * @param lines the invoice lines to credit (minor units; an invoice's discount line, negative, becomes positive).
 * @param reason why the invoice is credited, 1 to 1000 characters (code points).
 * @returns `CreditNoteInvalid` when there are no lines, the reason's length is out of bounds, or the credited
 *   total is not negative; `AmountOutOfRange` / `VatRateInvalid` for a line outside `Money`'s bounds.
 * @since 0.1.0
 */
export const draftCreditNote = (
  lines: ReadonlyArray<CreditableLine>,
  reason: string
): Either.Either<DraftCreditNote, CreditNoteInvalid | AmountOutOfRange | VatRateInvalid> =>
  Either.gen(function* () {
    if (lines.length === 0) return yield* Either.left(new CreditNoteInvalid({ problem: "no-lines" }))
    if (!isReasonText(reason)) return yield* Either.left(new CreditNoteInvalid({ problem: "reason-length" }))
    const drafted = yield* draftLines(
      lines.map((line) => ({
        description: line.description,
        // 0 - x, never -x: a zero line must stay 0, not -0.
        netMinorUnits: 0 - line.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints
      }))
    )
    if (drafted.totals.gross >= 0) {
      return yield* Either.left(new CreditNoteInvalid({ problem: "total-not-negative" }))
    }
    return { documentKind: "credit-note" as const, reason, lines: drafted.lines, totals: drafted.totals }
  })
