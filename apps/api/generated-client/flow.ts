/**
 * The billing flow as an outside integrator writes it with a client generated from the served OpenAPI document
 * (openapi-typescript into `schema.d.ts`, openapi-fetch): a client_credentials token from the identity host (the
 * document's `identity.token`, at its own server), the verification queue, pass, the send queue, report-sent, a
 * payment by the caller's own invoice id, and a refused repeat whose `code` is typed as the operation's codes only.
 * Type-checked strictly by `tsc -p generated-client` and run by test/openapi/GeneratedClient.test.ts.
 */
import createClient from "openapi-fetch"
import type { components, paths } from "./schema.js"

type Invoice = components["schemas"]["Invoice"]
/** The codes a repeated pass can be refused with: the narrowed 400 of `billing.passProposal`, not all ~330. */
type PassBadRequestCode = components["schemas"]["billing.passProposal.BadRequest"]["code"]

export interface FlowResult {
  readonly passedProposalId: string
  readonly invoice: Invoice
  readonly repeatedPass: { readonly status: number; readonly code: PassBadRequestCode; readonly requestId: string | null }
}

export const billingFlow = async (options: {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly externalReference: string
}): Promise<FlowResult> => {
  const identity = createClient<paths>({ baseUrl: options.authUrl })
  const issued = await identity.POST("/oauth/token", {
    body: { grant_type: "client_credentials", client_id: options.clientId, client_secret: options.clientSecret },
    bodySerializer: (body) => new URLSearchParams(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string")),
    headers: { "content-type": "application/x-www-form-urlencoded" }
  })
  if (issued.data === undefined) throw new Error(`token refused: ${issued.error.error}`)
  const api = createClient<paths>({
    baseUrl: options.apiUrl,
    headers: { authorization: `Bearer ${issued.data.access_token}` }
  })

  const queue = await api.GET("/v1/billing/verification-queue", { params: { query: { limit: 10 } } })
  if (queue.data === undefined) throw new Error(`verification queue: ${queue.error.code ?? queue.response.status}`)
  const proposal = queue.data.items[0]
  if (proposal === undefined) throw new Error("no proposal to verify")

  const passed = await api.POST("/v1/billing/invoice-proposals/{proposalId}/pass", {
    params: { path: { proposalId: proposal.id } },
    body: { externalReference: options.externalReference }
  })
  if (passed.data === undefined) throw new Error(`pass: ${passed.response.status}`)

  const sendQueue = await api.GET("/v1/billing/send-queue", {})
  if (sendQueue.data === undefined) throw new Error(`send queue: ${sendQueue.error.code ?? sendQueue.response.status}`)
  const toSend = sendQueue.data.items.find((invoice) => invoice.id === passed.data.invoice.id)
  if (toSend === undefined) throw new Error("the passed invoice is not in the send queue")

  const total = toSend.totalGrossMinorUnits
  const sent = await api.POST("/v1/billing/invoices/{invoiceId}/report-sent", {
    params: { path: { invoiceId: toSend.id } },
    body: { issuedInvoiceNumber: "10042", issuedInvoiceDate: "2026-11-20", dueDate: "2026-12-20", issuedTotalGrossMinorUnits: total }
  })
  if (sent.data === undefined) throw new Error(`report-sent: ${sent.response.status}`)

  const paid = await api.POST("/v1/billing/invoices/by-external-reference/{externalReference}/report-payment", {
    params: { path: { externalReference: options.externalReference } },
    body: { paymentId: "BANK-0001", amountMinorUnits: total, paidOn: "2026-11-25" }
  })
  if (paid.data === undefined) throw new Error(`report-payment: ${paid.response.status}`)

  const repeated = await api.POST("/v1/billing/invoice-proposals/{proposalId}/pass", {
    params: { path: { proposalId: proposal.id }, header: { "X-Request-Id": "generated-client-repeat" } },
    body: { externalReference: options.externalReference }
  })
  if (repeated.error === undefined || repeated.response.status !== 400) throw new Error("a repeated pass was not refused with 400")
  const refusal = repeated.error as components["schemas"]["billing.passProposal.BadRequest"]
  return {
    passedProposalId: proposal.id,
    invoice: paid.data,
    repeatedPass: { status: repeated.response.status, code: refusal.code, requestId: repeated.response.headers.get("x-request-id") }
  }
}
