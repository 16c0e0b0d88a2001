/**
 * The billing life the demo shows after start-up (issue "Billing, complete", item 6): besides the send queue and
 * the proposals of the catalog, invoices the demo ERP connector already reported — sent, partly paid, paid,
 * overdue, written-off, failed, the credited one — and one the operator deleted, waiting in the withdrawal queue.
 *
 * It is played through the same services the API and the admin console use (so every row, event and audit
 * entry is what the real operations write), as the demo Application for the connector's reports and as the
 * system for the operator's deletion, at the seeding time `now`.
 */
import type { InvoiceRecord } from "@propline/billing/Invoice"
import { luhnCheckDigit } from "@propline/billing/PaymentReference"
import { addDays } from "@propline/billing/InvoiceRun"
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Clock, type Duration, Effect, Either } from "effect"
import { BillingOperatorService } from "../../billing/BillingOperatorService.js"
import { BillingService, type ReportSentBody } from "../../billing/BillingService.js"
import { DEMO_IDS, demoId } from "../DemoIds.js"

/** The invoices of last month's run the demo moves on, by customer key, and what happens to each. */
export const DEMO_LIFE = {
  sent: "SE-01",
  partlyPaid: "SE-02",
  paid: "SE-03",
  overdue: "NO-01",
  writtenOff: "NO-03",
  failed: "SE-05",
  deleted: "NO-04"
} as const

/** The demo invoice of last month's run for a customer key. */
export const lastMonthInvoiceId = (customerKey: string): string => demoId(`invoice:nordhavn:last-month:${customerKey}`)

/** A clock standing still at `at`: the demo's reports are all made at the seeding time. */
const clockAt = (at: Date): Clock.Clock => {
  const millis = at.getTime()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeMillis: Effect.succeed(millis),
    currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
    sleep: (duration: Duration.DurationInput) => Effect.sleep(duration)
  }
}

const isoDate = (at: Date): string => at.toISOString().slice(0, 10)
const orDie = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) throw new Error(`demo life: ${String(either.left)}`)
  return either.right
}

/** A Swedish OCR (for SEK) or Norwegian KID (for NOK) reference for an invoice number, with its Luhn digit. */
const paymentReferenceFor = (invoice: InvoiceRecord) => {
  const payload = `${invoice.invoiceNumber}0`
  const value = `${payload}${luhnCheckDigit(payload)}`
  return { paymentReference: value, paymentReferenceType: invoice.currency === "NOK" ? ("kid" as const) : ("ocr" as const) }
}

/**
 * Plays the demo's billing life on freshly seeded data, in the caller's transaction. `tenant` is the demo
 * Application of the demo organization (the connector that reports).
 */
export const playDemoLife = (
  tenant: { readonly organizationId: string; readonly applicationId: string; readonly clientId: string },
  now: Date
) =>
  Effect.gen(function* () {
    const billing = yield* BillingService
    const operator = yield* BillingOperatorService
    const principal: PrincipalShape = {
      clientId: tenant.clientId,
      subject: tenant.applicationId,
      organizationId: tenant.organizationId,
      roles: ["billing"],
      contexts: [DEMO_IDS.rootContext],
      expiresAt: Math.floor(now.getTime() / 1000) + 600
    }
    const today = isoDate(now)
    const sendInvoice = (invoiceId: string, options: { readonly dueDate?: string; readonly issuedInvoiceDate?: string } = {}) =>
      Effect.gen(function* () {
        const issuedInvoiceDate = options.issuedInvoiceDate ?? today
        const send = (invoice: InvoiceRecord): ReportSentBody => ({
          issuedInvoiceNumber: `FNX-${invoice.invoiceNumber}`,
          issuedInvoiceDate,
          dueDate: options.dueDate ?? orDie(addDays(issuedInvoiceDate, invoice.paymentTermsDays ?? 30)),
          issuedTotalGrossMinorUnits: invoice.totalGrossMinorUnits,
          externalReference: `FNX-${invoice.invoiceNumber}`,
          ...paymentReferenceFor(invoice),
          documentUrl: `https://erp.example/fortnox/invoices/FNX-${invoice.invoiceNumber}.pdf`
        })
        // report-sent needs the invoice's own number and total: read them from the send queue's record
        const invoice = yield* findApproved(invoiceId)
        return yield* billing.reportSent(principal, invoiceId, send(invoice))
      })
    const findApproved = (invoiceId: string) =>
      Effect.flatMap(billing.sendQueue(principal, undefined, 100), (page) => {
        const invoice = page.items.find((candidate) => candidate.id === invoiceId)
        return invoice === undefined ? Effect.dieMessage(`demo life: ${invoiceId} is not approved`) : Effect.succeed(invoice)
      })
    const pay = (invoice: InvoiceRecord, paymentId: string, amountMinorUnits: number) =>
      billing.reportPayment(
        principal,
        { externalReference: invoice.externalReference ?? "" },
        { paymentId, amountMinorUnits, paidOn: today }
      )

    // The credited invoice was sent before the operator credited its cleaning.
    yield* sendInvoice(DEMO_IDS.creditedInvoice)
    yield* sendInvoice(lastMonthInvoiceId(DEMO_LIFE.sent))

    const partly = yield* sendInvoice(lastMonthInvoiceId(DEMO_LIFE.partlyPaid))
    yield* pay(partly, `BG-${partly.invoiceNumber}-1`, Math.floor(partly.totalGrossMinorUnits / 2))

    const paid = yield* sendInvoice(lastMonthInvoiceId(DEMO_LIFE.paid))
    yield* pay(paid, `BG-${paid.invoiceNumber}-1`, paid.totalGrossMinorUnits)

    // Issued on the first of last month, due ten days later: overdue ever since.
    const lastMonthStart = `${orDie(addDays(`${today.slice(0, 7)}-01`, -1)).slice(0, 7)}-01`
    yield* sendInvoice(lastMonthInvoiceId(DEMO_LIFE.overdue), {
      issuedInvoiceDate: lastMonthStart,
      dueDate: orDie(addDays(lastMonthStart, 10))
    })

    const lost = yield* sendInvoice(lastMonthInvoiceId(DEMO_LIFE.writtenOff))
    const recovered = Math.floor((lost.totalGrossMinorUnits * 8) / 10)
    yield* pay(lost, `BG-${lost.invoiceNumber}-1`, recovered)
    yield* billing.reportWriteOff(principal, lost.id, {
      writeOffId: `WO-${lost.invoiceNumber}`,
      amountMinorUnits: lost.totalGrossMinorUnits - recovered,
      writtenOffOn: today,
      reason: "Kunden i konkurs; resterande belopp avskrivet."
    })

    yield* billing.reportFailed(
      principal,
      lastMonthInvoiceId(DEMO_LIFE.failed),
      "The ERP refused the invoice: the customer's VAT number is missing in the customer register."
    )

    yield* operator.deleteInvoice(DEMO_IDS.organization, { type: "system", id: "demo-seed" }, lastMonthInvoiceId(DEMO_LIFE.deleted))
  }).pipe(
    Effect.mapError((error) => new Error(`demo life refused: ${JSON.stringify(error)}`)),
    Effect.orDie,
    Effect.withClock(clockAt(now)),
    Effect.withSpan("DemoLife.playDemoLife")
  )
