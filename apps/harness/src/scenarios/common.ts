/**
 * Scenarios every connector kind relies on: the operational contexts and their pagination (spec 3, 4.1), and the
 * published client (`@propline/client`) decoding the API's answers.
 */
import { OperationalContext } from "@propline/contract/OperationalContext"
import {
  api,
  check,
  decode,
  equal,
  expectStatus,
  field,
  installed,
  published,
  type Scenario,
  show,
  walk
} from "../Harness.js"
import { loadPackedClient } from "../PackedClient.js"

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

/**
 * The published client's Promise API as an integrator uses it, from its packed tarball ({@link loadPackedClient};
 * the run's clients {@link published} and {@link installed}): client_credentials and (when the connector file is
 * there) the installation grant with its own assertions; `for await` over a list one item per page; a real 404 and
 * 400 as `instanceof` classes with their code, issues and the response's X-Request-Id.
 */
const publishedClient: Scenario = {
  name: "published client (@propline/client)",
  run: async (context) => {
    const { connector } = context
    const packed = await loadPackedClient()
    const { BadRequestError, NotFoundError } = packed.module
    const propline = await published(context)
    const first = await propline.operationalContexts.list({ urlParams: {} })
    check(first.items.length > 0, "the published client listed no contexts")
    const walked: Array<string> = []
    for await (const item of propline.paginate(propline.operationalContexts.list, { urlParams: { limit: 1 } }))
      walked.push(item.id)
    equal([...walked].sort(), first.items.map((c) => c.id).sort(), "contexts walked one per page by for await")

    const missing = await propline.booking
      .getBookingRequest({ path: { bookingId: "00000000-0000-4000-8000-000000000000" as never } })
      .then(() => undefined, (error: unknown) => error)
    check(missing instanceof NotFoundError, `an unknown booking request: ${show(missing)}`)
    check(/^\S+$/.test(String((missing as InstanceType<typeof NotFoundError>).requestId)), "the 404 carries the X-Request-Id")
    const invalid = await propline.billing
      .getSendQueue({ urlParams: { cursor: "not-a-cursor-of-this-list" } })
      .then(() => undefined, (error: unknown) => error)
    check(invalid instanceof BadRequestError, `a foreign cursor: ${show(invalid)}`)
    const refusal = invalid as InstanceType<typeof BadRequestError>
    equal(refusal.code, "VALIDATION_FAILED", "a foreign cursor's code")
    check((refusal.issues ?? []).length > 0, `a VALIDATION_FAILED with issues: ${show(refusal.issues)}`)
    check(refusal.requestId !== undefined && refusal.requestId !== missing.requestId, "each error has its own request id")

    let installation = "no connector file"
    if (connector !== undefined) {
      const connectorClient = await installed(context, connector)
      const configurations = await connectorClient.integrations.listConfigurations({ urlParams: {} })
      installation = `installed connector sees ${configurations.items.length} configuration(s)`
    }
    return `@propline/client ${packed.version} from its tarball: ${walked.length} contexts walked one per page; 404 and 400 VALIDATION_FAILED as classes with request ids ${refusal.requestId}; ${installation}`
  }
}

/** The scenarios every connector kind relies on, in the order they run. */
export const commonScenarios: ReadonlyArray<Scenario> = [operationalContexts, publishedClient]
