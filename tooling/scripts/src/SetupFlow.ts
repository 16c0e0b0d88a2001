/**
 * What an installed connector does when an operator presses Connect (spec 4.2 "Integrations"; decisions 8): its
 * setup address receives a connection reference; it gets an installation token (spec 5.3), redeems the reference
 * (the configuration becomes `connecting`), reads the configuration among its installation's, sets itself up at
 * its own system, and reports the configuration `ready` with its external account, the gates it declares and the
 * kind's settings. The reference works once: redeeming it again is refused. Through the published client's Promise API (it gets the installation token); returns
 * a log of what it did, refusals by their codes.
 */
import { type FlowStep, left, right } from "./ConnectorFlow.js"
import type { ConnectorCredentials } from "./InstallationAssertion.js"
import { connectorClient } from "./InstallationFlow.js"

/** What the example connector reports for each kind: the gates it declares and settings that fit the kind. */
export const EXAMPLE_READY = {
  billing: { declaredGates: ["verification"], settings: { invoiceSeries: "A", bookkeepingCurrency: "SEK" } },
  signing: { declaredGates: [], settings: { signatureMethods: ["bankid-se", "email-link"], documentExpiryDays: 30 } },
  booking: { declaredGates: [], settings: { websiteUrl: "https://book.example.com" } }
} as const

const refusal = (error: unknown): string => {
  const problem = error as { readonly status?: number; readonly code?: string; readonly _tag?: string }
  return `refused: ${problem.status ?? problem._tag ?? "?"} ${problem.code ?? ""}`.trim()
}

/** Runs the set-up once with `connectionReference` (default: the file's). */
export const runSetupFlow = async (
  connector: ConnectorCredentials,
  connectionReference = connector.connection_reference ?? ""
) => {
  const steps: Array<FlowStep> = []
  const log = (step: string, outcome: string) => void steps.push({ step, outcome })
  const client = connectorClient(connector)

  const redeem = () => client.integrations.redeemConnectionReference({ payload: { connectionReference } })
  const redeemed = await redeem().then(right, left)
  if (redeemed._tag === "Left") {
    log(
      "POST /v1/integrations/connection-references/redeem",
      `${refusal(redeemed.left)} (a reference works once, for 10 minutes: start the product again for a fresh one)`
    )
    return steps
  }
  const configuration = redeemed.right
  log(
    "POST /v1/integrations/connection-references/redeem",
    `${configuration.kind} configuration ${configuration.id} is ${configuration.status}`
  )

  const page = await client.integrations.listConfigurations({ urlParams: { limit: 100 } })
  const listed = page.items.find((item) => item.id === configuration.id)
  log(
    "GET /v1/integrations/configurations",
    `${page.items.length} configurations of the installation (${page.items.map((item) => `${item.kind} ${item.status}`).join(", ")})`
  )

  const report = EXAMPLE_READY[listed?.kind ?? configuration.kind]
  const ready = await client.integrations
    .reportReady({
      path: { configurationId: configuration.id },
      payload: {
        externalAccount: { id: `example-${configuration.kind}-account`, name: "Example account at the connector's system" },
        declaredGates: [...report.declaredGates],
        settings: report.settings
      }
    })
    .then(right, left)
  log(
    `POST /v1/integrations/configurations/${configuration.id}/ready`,
    ready._tag === "Left"
      ? refusal(ready.left)
      : `${ready.right.status}: account ${ready.right.externalAccount?.name ?? "-"}, gates [${ready.right.declaredGates.join(", ")}], ` +
          `settings ${JSON.stringify(ready.right.settings ?? {})}`
  )

  const again = await redeem().then(right, left)
  log(
    "POST /v1/integrations/connection-references/redeem (the same reference again)",
    again._tag === "Left" ? refusal(again.left) : "accepted (unexpected: a reference works once)"
  )
  return steps
}
