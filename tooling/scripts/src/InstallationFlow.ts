/**
 * What an installed connector does against the Integration API v1, end to end: get an installation token with a
 * fresh client assertion (spec 5.3), show that the assertion works once, then call the API with the token through
 * the published client's Promise API, which gets its own installation tokens (operational contexts, the send queue). Returns a log of what it did; refusals are reported
 * by their codes, not thrown.
 */
import { Propline } from "@propline/client/Propline"
import { type FlowStep, problemCode } from "./ConnectorFlow.js"
import { type ConnectorCredentials, createAssertionMinter } from "./InstallationAssertion.js"

/** POSTs a form to `url` and reads the JSON answer (the token endpoint's). */
export const postForm = async (url: string, body: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The published client's Promise API as the installed connector: it signs its own assertions and renews tokens. */
export const connectorClient = (connector: ConnectorCredentials) =>
  new Propline({
    baseUrl: connector.base_url,
    tokenUrl: `${connector.auth_url}/oauth/token`,
    appId: connector.app_id,
    installationId: connector.installation_id,
    privateKey: connector.private_jwk
  })

/** Runs the flow once against the deployment `connector` names. */
export const runInstallationFlow = async (connector: ConnectorCredentials) => {
  const steps: Array<FlowStep> = []
  const log = (step: string, outcome: string) => void steps.push({ step, outcome })
  const minter = createAssertionMinter(connector)

  const body = minter.requestBody()
  const token = await postForm(minter.tokenEndpoint, body)
  if (token.status !== 200) {
    log("POST {auth_url}/oauth/token (installation-token grant)", `refused: ${token.status} ${String(token.body["error"])}`)
    return steps
  }
  log(
    "POST {auth_url}/oauth/token (installation-token grant)",
    `${String(token.body["token_type"])} token for installation ${connector.installation_id}, expires in ${String(token.body["expires_in"])} s`
  )
  const replay = await postForm(minter.tokenEndpoint, body)
  log("POST {auth_url}/oauth/token (the same assertion again)", `refused: ${replay.status} ${String(replay.body["error"])}`)

  const client = connectorClient(connector)
  const contexts = await client.operationalContexts.list({ urlParams: {} })
  log("GET /v1/operational-contexts", `${contexts.items.length} contexts: ${contexts.items.map((c) => c.name).join(", ")}`)
  const queue = await client.billing.getSendQueue({ urlParams: { limit: 3 } }).then(
    (page) => `${page.items.length} invoices, first #${page.items[0]?.invoiceNumber ?? "-"}`,
    (error: unknown) => `refused: ${problemCode(error)}`
  )
  log("GET /v1/billing/send-queue?limit=3", queue)
  return steps
}
