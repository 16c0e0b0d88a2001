/**
 * Scenarios of an installed connector setting itself up (spec 4.2 "Integrations", 7.3; decisions 2, 4 and 8):
 * the `integrations` role is for installation tokens only, the connection reference the deployment issued at its
 * start works once (of 20 concurrent redeems one succeeds), every refused reference gets one body, the
 * installation lists its configurations, and `ready` and `failed` with their refusals.
 *
 * They need the installed connector's file (`demo-connector.json`, with `connection_reference`) and skip without
 * it, or when its reference was used or has expired (it works 10 minutes after the start; start again for a fresh
 * one). The Application's token is only used to show it is refused.
 */
import { IntegrationConfiguration } from "@propline/contract/Integrations"
import { randomUUID } from "node:crypto"
import {
  api,
  check,
  type ConnectorFile,
  type Context,
  decode,
  equal,
  expectProblem,
  expectStatus,
  expectValidationFailed,
  field,
  installed,
  join,
  type Reply,
  type Scenario,
  send,
  show,
  Skip,
  tokenOf
} from "../Harness.js"

const CONFIGURATIONS = "/v1/integrations/configurations"
const REDEEM = "/v1/integrations/connection-references/redeem"

/** What a ready report of each kind sends: the gates it declares and settings that fit the kind. */
const READY = {
  billing: { declaredGates: ["verification"], settings: { invoiceSeries: "H" } },
  signing: { declaredGates: [], settings: { signatureMethods: ["bankid-no"] } },
  booking: { declaredGates: [], settings: { websiteUrl: "https://harness.example/book" } }
} as const

const connectorOf = (context: Context): ConnectorFile => {
  if (context.connector === undefined) {
    throw new Skip("no installed connector's file (demo-connector.json beside the credentials, or DEMO_CONNECTOR)")
  }
  return context.connector
}

/**
 * The connector's installation token (spec 5.3: a client assertion signed ES256 with its key), from the published
 * client's installation grant ({@link installed}): cached for the run.
 */
const installationToken = (context: Context): Promise<string> =>
  tokenOf(installed(context, connectorOf(context)), "installation")

/** A request to the API host with the connector's installation token; raw `fetch` for the reasons `api` gives. */
const asConnector = async (context: Context, method: "GET" | "POST", path: string, body?: unknown): Promise<Reply> => {
  const token = await installationToken(context)
  return send(join(context.credentials.base_url, path), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
}

const redeemed = (context: Context) => {
  const configuration = context.state.redeemed
  if (configuration === undefined) throw new Skip("no configuration was redeemed in this run (see the redeem scenario)")
  return configuration
}

const applicationRefused: Scenario = {
  name: "integrations: an Application's token is 403 on every operation",
  run: async (context) => {
    const id = randomUUID()
    const replies = [
      await api(context, "GET", CONFIGURATIONS),
      await api(context, "POST", REDEEM, { connectionReference: "icr_x" }),
      await api(context, "POST", `${CONFIGURATIONS}/${id}/ready`, { externalAccount: { id: "1", name: "x" } }),
      await api(context, "POST", `${CONFIGURATIONS}/${id}/failed`, { reason: "x" })
    ]
    for (const reply of replies) expectProblem(reply, 403, undefined, "an integrations operation with an Application's token")
    return "list, redeem, ready and failed: 403 (the integrations role is for installation tokens)"
  }
}

const concurrentRedeem: Scenario = {
  name: "integrations: 20 concurrent redeems of the connection reference, exactly one succeeds",
  run: async (context) => {
    const connector = connectorOf(context)
    if (connector.connection_reference === undefined) throw new Skip("the connector's file holds no connection_reference")
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => asConnector(context, "POST", REDEEM, { connectionReference: connector.connection_reference }))
    )
    const accepted = replies.filter((reply) => reply.status === 201)
    const refused = replies.filter((reply) => reply.status !== 201)
    for (const reply of refused) expectProblem(reply, 400, "INTEGRATIONS_CONNECTION_REFERENCE_INVALID", "a losing redeem")
    if (accepted.length === 0) {
      throw new Skip("the file's connection reference was used or has expired (10 minutes, once): start the deployment again")
    }
    equal(accepted.length, 1, "successful redeems of one reference")
    const configuration = decode(IntegrationConfiguration, accepted[0]?.body, "the redeemed configuration")
    equal(configuration.status, "connecting", "the redeemed configuration's status")
    equal([configuration.installationId, configuration.appId], [connector.installation_id, connector.app_id], "its installation and app")
    context.state.redeemed = { id: configuration.id, kind: configuration.kind }
    return `${configuration.kind} configuration ${configuration.id} connecting; 19 redeems refused`
  }
}

const listOwn: Scenario = {
  name: "integrations: the installation lists its own configurations, in pages",
  run: async (context) => {
    const connector = connectorOf(context)
    const items: Array<IntegrationConfiguration> = []
    let cursor: string | null = null
    do {
      const query: string = cursor === null ? "?limit=1" : `?limit=1&cursor=${encodeURIComponent(cursor)}`
      const reply = await asConnector(context, "GET", `${CONFIGURATIONS}${query}`)
      expectStatus(reply, 200, `GET ${CONFIGURATIONS}${query}`)
      const page = field(reply.body, "items")
      check(Array.isArray(page) && page.length <= 1, `a page of limit 1: ${show(page)}`)
      items.push(...page.map((item, i) => decode(IntegrationConfiguration, item, `configuration ${items.length + i}`)))
      cursor = field(reply.body, "nextCursor") as string | null
      check(items.length <= 500, "more than 500 configurations")
    } while (cursor !== null)
    check(items.length > 0, "the installation has no configuration")
    for (const item of items) equal(item.installationId, connector.installation_id, `configuration ${item.id}'s installation`)
    equal(new Set(items.map((item) => item.id)).size, items.length, "distinct configurations")
    const own = context.state.redeemed
    if (own !== undefined) {
      equal(items.find((item) => item.id === own.id)?.status, "connecting", "the redeemed configuration, listed")
    }
    return `${items.length} configurations, one per page: ${items.map((item) => `${item.kind} ${item.status}`).join(", ")}`
  }
}

const invalidReferences: Scenario = {
  name: "integrations: unknown, malformed and used references get one refusal, one body",
  run: async (context) => {
    const connector = connectorOf(context)
    const references = [`icr_${"Q".repeat(43)}`, "not-a-reference", ...(connector.connection_reference === undefined ? [] : [connector.connection_reference])]
    const bodies = new Set<string>()
    for (const reference of references) {
      const reply = await asConnector(context, "POST", REDEEM, { connectionReference: reference })
      expectProblem(reply, 400, "INTEGRATIONS_CONNECTION_REFERENCE_INVALID", `redeem ${reference.slice(0, 12)}…`)
      bodies.add(reply.text)
    }
    equal(bodies.size, 1, "distinct refusal bodies")
    expectValidationFailed(await asConnector(context, "POST", REDEEM, {}), "/connectionReference", "redeem without a reference")
    return `${references.length} references refused with one body; an empty body is VALIDATION_FAILED`
  }
}

const ready: Scenario = {
  name: "integrations: ready — settings refused with issues, then ready, then a repeat refused",
  run: async (context) => {
    const { id, kind } = redeemed(context)
    const path = `${CONFIGURATIONS}/${id}/ready`
    const account = { id: `harness-${context.runId}`, name: "Harness account" }
    const invalid = await asConnector(context, "POST", path, {
      externalAccount: account,
      declaredGates: ["no-such-gate"],
      settings: { ...READY[kind].settings, colour: "blue" }
    })
    expectProblem(invalid, 400, "INTEGRATIONS_CONFIGURATION_INVALID", "ready with a wrong gate and setting")
    const paths = (field(invalid.body, "issues") as Array<unknown>).map((issue) => field(issue, "path"))
    equal(paths, ["/declaredGates/0", "/settings/colour"], "the issues' paths")
    const accepted = await asConnector(context, "POST", path, { externalAccount: account, ...READY[kind] })
    expectStatus(accepted, 201, "ready")
    const configuration = decode(IntegrationConfiguration, accepted.body, "the ready configuration")
    equal([configuration.status, configuration.externalAccount?.id], ["ready", account.id], "status and account")
    equal(configuration.declaredGates, [...READY[kind].declaredGates], "the declared gates")
    const again = await asConnector(context, "POST", path, { externalAccount: account, ...READY[kind] })
    expectProblem(again, 400, "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", "ready again")
    return `${kind} configuration ${id} ready with ${show(READY[kind].settings)}; a repeat is 400 INTEGRATIONS_CONNECTION_NOT_SUPPORTED`
  }
}

const failed: Scenario = {
  name: "integrations: failed — refused on a ready configuration, validated, 404 for another",
  run: async (context) => {
    const { id } = redeemed(context)
    const onReady = await asConnector(context, "POST", `${CONFIGURATIONS}/${id}/failed`, { reason: "The ERP refused the key" })
    expectProblem(onReady, 400, "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", "failed on a ready configuration")
    expectValidationFailed(
      await asConnector(context, "POST", `${CONFIGURATIONS}/${id}/failed`, { reason: "x".repeat(1001) }),
      "/reason",
      "a reason of 1001 characters"
    )
    const unknown = await asConnector(context, "POST", `${CONFIGURATIONS}/${randomUUID()}/failed`, { reason: "x" })
    expectProblem(unknown, 404, "INTEGRATIONS_CONFIGURATION_NOT_FOUND", "failed on an unknown configuration")
    return "400 INTEGRATIONS_CONNECTION_NOT_SUPPORTED, 400 VALIDATION_FAILED, 404 INTEGRATIONS_CONFIGURATION_NOT_FOUND"
  }
}

/** The integrations scenarios, in the order they run. */
export const integrationsScenarios: ReadonlyArray<Scenario> = [
  applicationRefused,
  concurrentRedeem,
  listOwn,
  invalidReferences,
  ready,
  failed
]
