/**
 * What an ERP connector does against the Integration API v1, end to end, with the published client: get a token
 * (client_credentials, spec 5.2), list operational contexts, read the verification queue, pass one proposal with
 * the ERP's own invoice id and reject another (spec 4.1, 4.2), read the send queue and report one invoice failed
 * (spec 3). Returns a log of what it did; refusals are reported by their spec code, not thrown.
 */
import { FetchHttpClient } from "@effect/platform"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import * as TokenClient from "@propline/client/TokenClient"
import { Effect } from "effect"

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
 * A flow's start, shared by the connectors: an empty log, a client_credentials token (spec 5.2, logged) and the
 * published client with it.
 */
export const connect = (credentials: DemoCredentials) =>
  Effect.gen(function* () {
    const steps: Array<FlowStep> = []
    const log = (step: string, outcome: string) => Effect.sync(() => void steps.push({ step, outcome }))
    const token = yield* TokenClient.requestToken({
      authUrl: credentials.auth_url,
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret
    })
    yield* log("POST {auth_url}/oauth/token", `${token.token_type} token, expires in ${token.expires_in} s`)
    const client = yield* IntegrationClient.make({ baseUrl: credentials.base_url, accessToken: token.access_token })
    return { steps, log, client }
  })

/** Runs the flow once. `reference` makes the externalReference unique per run (it must be unique per organization). */
export const runConnectorFlow = (credentials: DemoCredentials, reference: string) =>
  Effect.gen(function* () {
    const { client, log, steps } = yield* connect(credentials)

    const contexts = yield* client.operationalContexts.list({ urlParams: {} })
    yield* log(
      "GET /v1/operational-contexts",
      `${contexts.items.length} contexts: ${contexts.items.map((c) => `${c.name} (${c.kind})`).join(", ")}`
    )

    const queue = yield* client.billing.getVerificationQueue({ urlParams: { limit: 10 } })
    yield* log(
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
      const outcome = yield* client.billing
        .passProposal({ path: { proposalId: proposal.id }, payload: { externalReference } })
        .pipe(Effect.either)
      if (outcome._tag === "Right") {
        passedInvoiceId = outcome.right.invoice.id
        yield* log(
          `POST /v1/billing/invoice-proposals/${proposal.id}/pass`,
          `201: proposal ${outcome.right.proposal.status}, invoice #${outcome.right.invoice.invoiceNumber} ${outcome.right.invoice.status} as ${externalReference}`
        )
      } else {
        yield* log(`POST /v1/billing/invoice-proposals/${proposal.id}/pass`, `refused: ${problemCode(outcome.left)}`)
      }
    }

    const toReject = rest.shift()
    if (toReject !== undefined) {
      const outcome = yield* client.billing
        .rejectProposal({
          path: { proposalId: toReject.id },
          payload: { reason: "Parking line billed twice this month; please correct the contract." }
        })
        .pipe(Effect.either)
      yield* log(
        `POST /v1/billing/invoice-proposals/${toReject.id}/reject`,
        outcome._tag === "Right" ? `201: proposal ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
      )
    }

    const sendQueue = yield* client.billing.getSendQueue({ urlParams: { limit: 50 } })
    yield* log(
      "GET /v1/billing/send-queue",
      `${sendQueue.items.length} invoices (${sendQueue.items.filter((i) => i.documentKind === "credit-note").length} credit notes), more: ${sendQueue.nextCursor !== null}`
    )

    const toFail = sendQueue.items.find((invoice) => invoice.id !== passedInvoiceId) ?? sendQueue.items[0]
    if (toFail !== undefined) {
      const outcome = yield* client.billing
        .reportFailed({
          path: { invoiceId: toFail.id },
          payload: { reason: `Customer ${toFail.recipientAgentName} is not registered in the ERP.` }
        })
        .pipe(Effect.either)
      yield* log(
        `POST /v1/billing/invoices/${toFail.id}/report-failed`,
        outcome._tag === "Right" ? `201: invoice #${outcome.right.invoiceNumber} ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
      )
      const again = yield* client.billing
        .reportFailed({ path: { invoiceId: toFail.id }, payload: { reason: "again" } })
        .pipe(Effect.either)
      yield* log(
        `POST /v1/billing/invoices/${toFail.id}/report-failed (repeated)`,
        again._tag === "Right" ? "201 (unexpected)" : `refused: ${problemCode(again.left)}`
      )
    }
    return steps
  }).pipe(Effect.provide(FetchHttpClient.layer))
