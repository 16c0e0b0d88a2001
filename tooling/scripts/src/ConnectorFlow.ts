/**
 * What an ERP connector does against the Integration API v1, end to end, with the published client: get a token
 * (client_credentials, spec 5.2), list operational contexts, read the verification queue, pass one proposal with
 * the ERP's own invoice id and reject another (spec 4.1, 4.2), read the send queue and report one invoice failed
 * (spec 3) — then the rest of an invoice's life (decisions 4, 5): report invoices sent with an OCR or KID
 * reference, report payments by invoice id and by the ERP's own id (a replay included), reverse one, write off
 * what is lost, send and refund a credit note, and discard the invoices the operator deleted. Returns a log of
 * what it did; refusals are reported by their spec code, not thrown.
 */
import { luhnCheckDigit } from "@propline/billing/PaymentReference"
import { Propline } from "@propline/client/Propline"

/** DATA_DIR/demo-credentials.json. */
export interface DemoCredentials {
  readonly client_id: string
  readonly client_secret: string
  readonly auth_url: string
  readonly base_url: string
}

export interface FlowStep {
  readonly step: string
  readonly outcome: string
}

/** An operation's outcome as a value: its result, or the error it rejected with (`.then(right, left)`). */
export type Outcome<A> = { readonly _tag: "Right"; readonly right: A } | { readonly _tag: "Left"; readonly left: unknown }
export const right = <A>(value: A): Outcome<A> => ({ _tag: "Right", right: value })
export const left = (error: unknown): Outcome<never> => ({ _tag: "Left", left: error })

/** A refusal as `<status> <code>` (spec 7.3), or what the failure was. */
export const problemCode = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>
    if (typeof record["code"] === "string") return `${String(record["status"] ?? "")} ${record["code"]}`.trim()
    if (typeof record["status"] === "number") return `${record["status"]} ${String(record["title"] ?? "")}`.trim()
    if (typeof record["_tag"] === "string") return record["_tag"]
  }
  return String(error)
}

/**
 * A flow's start, shared by the connectors: an empty log and the published client's Promise API with the
 * Application's credentials (it gets the client_credentials token, spec 5.2, on the first call and renews it).
 */
export const connect = (credentials: DemoCredentials) => {
  const steps: Array<FlowStep> = []
  const log = (step: string, outcome: string) => void steps.push({ step, outcome })
  const client = new Propline({
    baseUrl: credentials.base_url,
    tokenUrl: `${credentials.auth_url}/oauth/token`,
    clientId: credentials.client_id,
    clientSecret: credentials.client_secret
  })
  return { steps, log, client }
}

/** Runs the flow once. `reference` makes the externalReference unique per run (it must be unique per organization). */
export const runConnectorFlow = async (credentials: DemoCredentials, reference: string) => {
  const { client, log, steps } = connect(credentials)

  const contexts = await client.operationalContexts.list({ urlParams: {} })
  log(
    "GET /v1/operational-contexts",
    `${contexts.items.length} contexts: ${contexts.items.map((c) => `${c.name} (${c.kind})`).join(", ")}`
  )

  const queue = await client.billing.getVerificationQueue({ urlParams: { limit: 10 } })
  log(
    "GET /v1/billing/verification-queue",
    `${queue.items.length} proposals: ${queue.items
      .map((p) => `#${p.invoiceNumber ?? "?"} ${p.recipientAgentName} ${p.totalGrossMinorUnits / 100} ${p.currency}`)
      .join("; ")}`
  )

  // Pass proposals until one succeeds: a proposal whose charges were already invoiced answers 409.
  let passedInvoiceId: string | undefined
  const rest = [...queue.items]
  while (rest.length > 1 && passedInvoiceId === undefined) {
    const proposal = rest.shift()!
    const externalReference = `ERP-${reference}-${proposal.invoiceNumber ?? proposal.id.slice(0, 8)}`
    const outcome = await client.billing
      .passProposal({ path: { proposalId: proposal.id }, payload: { externalReference } })
      .then(right, left)
    if (outcome._tag === "Right") {
      passedInvoiceId = outcome.right.invoice.id
      log(
        `POST /v1/billing/invoice-proposals/${proposal.id}/pass`,
        `201: proposal ${outcome.right.proposal.status}, invoice #${outcome.right.invoice.invoiceNumber} ${outcome.right.invoice.status} as ${externalReference}`
      )
    } else {
      log(`POST /v1/billing/invoice-proposals/${proposal.id}/pass`, `refused: ${problemCode(outcome.left)}`)
    }
  }

  const toReject = rest.shift()
  if (toReject !== undefined) {
    const outcome = await client.billing
      .rejectProposal({
        path: { proposalId: toReject.id },
        payload: { reason: "Parking line billed twice this month; please correct the contract." }
      })
      .then(right, left)
    log(
      `POST /v1/billing/invoice-proposals/${toReject.id}/reject`,
      outcome._tag === "Right" ? `201: proposal ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
    )
  }

  const sendQueue = await client.billing.getSendQueue({ urlParams: { limit: 50 } })
  log(
    "GET /v1/billing/send-queue",
    `${sendQueue.items.length} invoices (${sendQueue.items.filter((i) => i.documentKind === "credit-note").length} credit notes), more: ${sendQueue.nextCursor !== null}`
  )

  const toFail = sendQueue.items.find((invoice) => invoice.id !== passedInvoiceId) ?? sendQueue.items[0]
  if (toFail !== undefined) {
    const outcome = await client.billing
      .reportFailed({
        path: { invoiceId: toFail.id },
        payload: { reason: `Customer ${toFail.recipientAgentName} is not registered in the ERP.` }
      })
      .then(right, left)
    log(
      `POST /v1/billing/invoices/${toFail.id}/report-failed`,
      outcome._tag === "Right" ? `201: invoice #${outcome.right.invoiceNumber} ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
    )
    const again = await client.billing
      .reportFailed({ path: { invoiceId: toFail.id }, payload: { reason: "again" } })
      .then(right, left)
    log(
      `POST /v1/billing/invoices/${toFail.id}/report-failed (repeated)`,
      again._tag === "Right" ? "201 (unexpected)" : `refused: ${problemCode(again.left)}`
    )
  }

  // -- the rest of an invoice's life -----------------------------------------------------------------------
  const today = new Date().toISOString().slice(0, 10)
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
  const money = (minorUnits: number | undefined, currency: string) => `${((minorUnits ?? 0) / 100).toFixed(2)} ${currency}`
  const payerReference = (invoiceNumber: number, currency: string) => {
    const payload = `${invoiceNumber}0`
    return { paymentReference: `${payload}${luhnCheckDigit(payload)}`, paymentReferenceType: currency === "NOK" ? ("kid" as const) : ("ocr" as const) }
  }
  type Sendable = (typeof sendQueue.items)[number]
  const send = async (invoice: Sendable, externalReference: string | undefined) => {
    const outcome = await client.billing
      .reportSent({
        path: { invoiceId: invoice.id },
        payload: {
          issuedInvoiceNumber: `ERP-${reference}-${invoice.invoiceNumber}`,
          issuedInvoiceDate: today,
          ...(invoice.documentKind === "invoice" ? { dueDate: inDays(invoice.paymentTermsDays ?? 30) } : {}),
          issuedTotalGrossMinorUnits: invoice.totalGrossMinorUnits,
          ...(externalReference !== undefined && invoice.externalReference === undefined ? { externalReference } : {}),
          ...payerReference(invoice.invoiceNumber, invoice.currency),
          documentUrl: `https://erp.example/invoices/${invoice.invoiceNumber}.pdf`
        }
      })
      .then(right, left)
    log(
      `POST /v1/billing/invoices/${invoice.id}/report-sent`,
      outcome._tag === "Right"
        ? `201: ${outcome.right.documentKind} #${outcome.right.invoiceNumber} ${outcome.right.status}, ${outcome.right.paymentReferenceType} ${outcome.right.paymentReference}, balance ${money(outcome.right.balanceMinorUnits, outcome.right.currency)}`
        : `refused: ${problemCode(outcome.left)}`
    )
    return outcome._tag === "Right" ? outcome.right : undefined
  }
  const pay = async (
    target: { readonly invoiceId: Sendable["id"] } | { readonly externalReference: string },
    paymentId: string,
    amountMinorUnits: number,
    label = ""
  ) => {
    const payload = { paymentId, amountMinorUnits, paidOn: today }
    const outcome =
      "invoiceId" in target
        ? await client.billing.reportPayment({ path: target, payload }).then(right, left)
        : await client.billing
            .reportPaymentByExternalReference({
              // the client puts path parameters into the URL as given: encode the ERP's own id
              path: { externalReference: encodeURIComponent(target.externalReference) },
              payload
            })
            .then(right, left)
    const path =
      "invoiceId" in target
        ? `/v1/billing/invoices/${target.invoiceId}/report-payment`
        : `/v1/billing/invoices/by-external-reference/${target.externalReference}/report-payment`
    log(
      `POST ${path}${label}`,
      outcome._tag === "Right"
        ? `200: ${paymentId} ${money(amountMinorUnits, outcome.right.currency)} → ${outcome.right.status}, balance ${money(outcome.right.balanceMinorUnits, outcome.right.currency)}`
        : `refused: ${problemCode(outcome.left)}`
    )
    return outcome._tag === "Right" ? outcome.right : undefined
  }

  const candidates = sendQueue.items.filter(
    (invoice) => invoice.id !== toFail?.id && invoice.id !== passedInvoiceId && invoice.documentKind === "invoice"
  )
  // 1. paid in two parts, the second by the ERP's own invoice id, the first reported twice (a replay)
  const first = candidates[0]
  if (first !== undefined) {
    const externalReference = `ERP-${reference}-${first.invoiceNumber}`
    const sent = await send(first, externalReference)
    if (sent !== undefined) {
      const half = Math.floor(sent.totalGrossMinorUnits / 2)
      await pay({ invoiceId: sent.id }, `BG-${reference}-1`, half)
      await pay({ invoiceId: sent.id }, `BG-${reference}-1`, half, " (replayed)")
      await pay({ invoiceId: sent.id }, `BG-${reference}-1`, half + 1, " (same id, other amount)")
      const paid = await pay({ externalReference: sent.externalReference ?? externalReference }, `BG-${reference}-2`, sent.totalGrossMinorUnits - half)
      // 2. the bank takes the second payment back: the invoice is due again
      if (paid !== undefined) {
        const reversed = await client.billing
          .reportPaymentReversed({
            path: { invoiceId: sent.id },
            payload: { paymentId: `BG-${reference}-2`, reversedOn: today, reason: "Returned by the payer's bank" }
          })
          .then(right, left)
        log(
          `POST /v1/billing/invoices/${sent.id}/report-payment-reversed`,
          reversed._tag === "Right"
            ? `200: ${reversed.right.status}, balance ${money(reversed.right.balanceMinorUnits, reversed.right.currency)}`
            : `refused: ${problemCode(reversed.left)}`
        )
        // 3. the rest is lost: written off
        if (reversed._tag === "Right") {
          const writtenOff = await client.billing
            .reportWriteOff({
              path: { invoiceId: sent.id },
              payload: {
                writeOffId: `WO-${reference}-1`,
                amountMinorUnits: reversed.right.balanceMinorUnits ?? 0,
                writtenOffOn: today,
                reason: "Customer in bankruptcy"
              }
            })
            .then(right, left)
          log(
            `POST /v1/billing/invoices/${sent.id}/report-write-off`,
            writtenOff._tag === "Right"
              ? `200: ${writtenOff.right.status}, balance ${money(writtenOff.right.balanceMinorUnits, writtenOff.right.currency)}`
              : `refused: ${problemCode(writtenOff.left)}`
          )
        }
      }
    }
  }
  // 4. the passed proposal's invoice is sent and paid by the reference the pass attached
  const passed = sendQueue.items.find((invoice) => invoice.id === passedInvoiceId)
  if (passed !== undefined && passed.externalReference !== undefined) {
    const sent = await send(passed, undefined)
    if (sent !== undefined) await pay({ externalReference: passed.externalReference }, `BG-${reference}-3`, sent.totalGrossMinorUnits)
  }
  // 5. a credit note: sent without a due date, refunded (a negative payment)
  const creditNote = sendQueue.items.find((invoice) => invoice.documentKind === "credit-note")
  if (creditNote !== undefined) {
    const sent = await send(creditNote, undefined)
    if (sent !== undefined) await pay({ invoiceId: sent.id }, `REFUND-${reference}-1`, sent.totalGrossMinorUnits, " (refund)")
  }
  // 6. invoices the operator deleted: discard our copies
  const withdrawals = await client.billing.getWithdrawalQueue({ urlParams: { limit: 10 } })
  log(
    "GET /v1/billing/withdrawal-queue",
    `${withdrawals.items.length} deleted invoices: ${withdrawals.items.map((w) => `#${w.invoiceNumber} (${w.invoiceStatus})`).join(", ")}`
  )
  for (const withdrawal of withdrawals.items) {
    const outcome = await client.billing
      .reportDiscarded({ path: { invoiceId: withdrawal.invoiceId }, payload: {} })
      .then(right, left)
    log(
      `POST /v1/billing/invoice-withdrawals/${withdrawal.invoiceId}/report-discarded`,
      outcome._tag === "Right" ? `201: withdrawal ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
    )
  }
  return steps
}
