/**
 * What an installed connector does when an operator presses Connect (spec 4.2 "Integrations"; decisions 8): its
 * setup address receives a connection reference; it gets an installation token (spec 5.3), redeems the reference
 * (the configuration becomes `connecting`), reads the configuration among its installation's, sets itself up at
 * its own system, and reports the configuration `ready` with its external account, the gates it declares and the
 * kind's settings. The reference works once: redeeming it again is refused. Through the published client; returns
 * a log of what it did, refusals by their codes.
 */
import { FetchHttpClient } from "@effect/platform"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import { Effect } from "effect"
import type { FlowStep } from "./ConnectorFlow.js"
import { type ConnectorCredentials, createAssertionMinter } from "./InstallationAssertion.js"
import { postForm } from "./InstallationFlow.js"

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
export const runSetupFlow = (connector: ConnectorCredentials, connectionReference = connector.connection_reference ?? "") =>
  Effect.gen(function* () {
    const steps: Array<FlowStep> = []
    const log = (step: string, outcome: string) => Effect.sync(() => void steps.push({ step, outcome }))
    const minter = createAssertionMinter(connector)
    const token = yield* postForm(minter.tokenEndpoint, minter.requestBody())
    if (token.status !== 200) {
      yield* log("POST {auth_url}/oauth/token (installation-token grant)", `refused: ${token.status} ${String(token.body["error"])}`)
      return steps
    }
    yield* log("POST {auth_url}/oauth/token (installation-token grant)", `token for installation ${connector.installation_id}`)
    const client = yield* IntegrationClient.make({ baseUrl: connector.base_url, accessToken: token.body["access_token"] as string })

    const redeem = client.integrations.redeemConnectionReference({ payload: { connectionReference } })
    const redeemed = yield* Effect.either(redeem)
    if (redeemed._tag === "Left") {
      yield* log(
        "POST /v1/integrations/connection-references/redeem",
        `${refusal(redeemed.left)} (a reference works once, for 10 minutes: start the product again for a fresh one)`
      )
      return steps
    }
    const configuration = redeemed.right
    yield* log(
      "POST /v1/integrations/connection-references/redeem",
      `${configuration.kind} configuration ${configuration.id} is ${configuration.status}`
    )

    const page = yield* client.integrations.listConfigurations({ urlParams: { limit: 100 } })
    const listed = page.items.find((item) => item.id === configuration.id)
    yield* log(
      "GET /v1/integrations/configurations",
      `${page.items.length} configurations of the installation (${page.items.map((item) => `${item.kind} ${item.status}`).join(", ")})`
    )

    const report = EXAMPLE_READY[listed?.kind ?? configuration.kind]
    const ready = yield* Effect.either(
      client.integrations.reportReady({
        path: { configurationId: configuration.id },
        payload: {
          externalAccount: { id: `example-${configuration.kind}-account`, name: "Example account at the connector's system" },
          declaredGates: [...report.declaredGates],
          settings: report.settings
        }
      })
    )
    yield* log(
      `POST /v1/integrations/configurations/${configuration.id}/ready`,
      ready._tag === "Left"
        ? refusal(ready.left)
        : `${ready.right.status}: account ${ready.right.externalAccount?.name ?? "-"}, gates [${ready.right.declaredGates.join(", ")}], ` +
            `settings ${JSON.stringify(ready.right.settings ?? {})}`
    )

    const again = yield* Effect.either(redeem)
    yield* log(
      "POST /v1/integrations/connection-references/redeem (the same reference again)",
      again._tag === "Left" ? refusal(again.left) : "accepted (unexpected: a reference works once)"
    )
    return steps
  }).pipe(Effect.provide(FetchHttpClient.layer))
