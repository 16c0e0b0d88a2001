/**
 * Scenarios every connector kind relies on: the operational contexts and their pagination (spec 3, 4.1), and the
 * published client (`@propline/client`) decoding the API's answers.
 */
import { FetchHttpClient } from "@effect/platform"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import { OperationalContext } from "@propline/contract/OperationalContext"
import { Effect } from "effect"
import {
  accessToken,
  api,
  AssertionFailed,
  check,
  decode,
  equal,
  expectStatus,
  field,
  type Scenario,
  show,
  walk
} from "../Harness.js"

const operationalContexts: Scenario = {
  name: "operational contexts",
  run: async (context) => {
    const first = await api(context, "GET", "/v1/operational-contexts")
    expectStatus(first, 200, "GET /v1/operational-contexts")
    const { items: all, pages } = await walk(context, "/v1/operational-contexts", 100)
    check(all.length > 0, "no operational contexts")
    const contexts = all.map((item, i) => decode(OperationalContext, item, `operational context ${i}`))
    for (const c of contexts) {
      check(c.id !== "" && c.organizationId !== "" && c.name !== "", `operational context ${show(c)}`)
    }
    const ids = contexts.map((c) => c.id)
    equal(new Set(ids).size, ids.length, "distinct context ids")
    const { items: single, pages: singlePages } = await walk(context, "/v1/operational-contexts", 1)
    const walked = single.map((item) => String(field(item, "id")))
    equal(walked.length, ids.length, "contexts walked one per page")
    equal([...walked].sort(), [...ids].sort(), "contexts walked one per page")
    return `${ids.length} contexts (${contexts.map((c) => c.kind).join(", ")}) in ${pages} page(s); limit=1 walks ${singlePages} pages to the same set`
  }
}

const publishedClient: Scenario = {
  name: "published client (@propline/client)",
  run: async (context) => {
    const token = await accessToken(context)
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* IntegrationClient.make({ baseUrl: context.credentials.base_url, accessToken: token })
        const contexts = yield* client.operationalContexts.list({ urlParams: {} })
        const verification = yield* client.billing.getVerificationQueue({ urlParams: { limit: 5 } })
        const send = yield* client.billing.getSendQueue({ urlParams: { limit: 5 } })
        return { contexts: contexts.items.length, verification: verification.items.length, send: send.items.length }
      }).pipe(
        Effect.mapError((error) => new AssertionFailed(`the published client failed: ${show(error)}`)),
        Effect.provide(FetchHttpClient.layer)
      )
    )
    check(result.contexts > 0, "the published client listed no contexts")
    return `decoded ${result.contexts} contexts, ${result.verification} proposals and ${result.send} invoices (first pages)`
  }
}


/** The scenarios every connector kind relies on, in the order they run. */
export const commonScenarios: ReadonlyArray<Scenario> = [operationalContexts, publishedClient]
