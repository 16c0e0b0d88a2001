/**
 * What an installed connector does against the Integration API v1, end to end: get an installation token with a
 * fresh client assertion (spec 5.3), show that the assertion works once, then call the API with the token through
 * the published client (operational contexts, the send queue). Returns a log of what it did; refusals are reported
 * by their codes, not thrown.
 */
import { FetchHttpClient } from "@effect/platform"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import { Effect } from "effect"
import { type ConnectorCredentials, createAssertionMinter } from "./InstallationAssertion.js"
import type { FlowStep } from "./ConnectorFlow.js"

/** POSTs a form to `url` and reads the JSON answer (the token endpoint's). */
export const postForm = (url: string, body: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  })

/** Runs the flow once against the deployment `connector` names. */
export const runInstallationFlow = (connector: ConnectorCredentials) =>
  Effect.gen(function* () {
    const steps: Array<FlowStep> = []
    const log = (step: string, outcome: string) => Effect.sync(() => void steps.push({ step, outcome }))
    const minter = createAssertionMinter(connector)

    const body = minter.requestBody()
    const token = yield* postForm(minter.tokenEndpoint, body)
    if (token.status !== 200) {
      yield* log("POST {auth_url}/oauth/token (installation-token grant)", `refused: ${token.status} ${String(token.body["error"])}`)
      return steps
    }
    yield* log(
      "POST {auth_url}/oauth/token (installation-token grant)",
      `${String(token.body["token_type"])} token for installation ${connector.installation_id}, expires in ${String(token.body["expires_in"])} s`
    )
    const replay = yield* postForm(minter.tokenEndpoint, body)
    yield* log("POST {auth_url}/oauth/token (the same assertion again)", `refused: ${replay.status} ${String(replay.body["error"])}`)

    const client = yield* IntegrationClient.make({
      baseUrl: connector.base_url,
      accessToken: token.body["access_token"] as string
    })
    const contexts = yield* client.operationalContexts.list({ urlParams: {} })
    yield* log("GET /v1/operational-contexts", `${contexts.items.length} contexts: ${contexts.items.map((c) => c.name).join(", ")}`)
    const queue = yield* client.billing.getSendQueue({ urlParams: { limit: 3 } }).pipe(
      Effect.map((page) => `${page.items.length} invoices, first #${page.items[0]?.invoiceNumber ?? "-"}`),
      Effect.catchAll((error) => Effect.succeed(`refused: ${JSON.stringify(error)}`))
    )
    yield* log("GET /v1/billing/send-queue?limit=3", queue)
    return steps
  }).pipe(Effect.provide(FetchHttpClient.layer))
