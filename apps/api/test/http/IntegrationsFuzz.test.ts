/**
 * Fuzzing the integrations operations black box (decisions 4: never a 500 for anything a client sent): hostile
 * bodies, content types and ids sent to redeem, ready and failed with a valid installation token — settings that
 * are nearly valid included, so the storing path (jsonb) is reached — and hostile queries to the list. Every answer
 * must be below 500 and every error problem details (spec 2.3).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { checkedSender, hostileBody as hostileBodyOf, hostileId, hostileText, hostileValue, nonObjectBody, withUnknownMembers } from "../support/Hostile.js"
import {
  configuration,
  connect,
  installationToken,
  installConnector,
  type InstalledConnector
} from "../support/IntegrationFixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

const account = fc.oneof(
  fc.constant({ id: "fuzz-1", name: "Fuzz AB" }),
  fc.record({ id: hostileValue, name: hostileValue }, { requiredKeys: [] }),
  hostileValue
)

/** Settings close to each kind's schema, with hostile values and keys: what reaches the kind's check and jsonb. */
const nearlyValidSettings = fc.oneof(
  fc.record({ invoiceSeries: hostileText, bookkeepingCurrency: fc.constantFrom("SEK", "NOK", "XXX") }, { requiredKeys: [] }),
  fc.record({ signatureMethods: fc.array(fc.constantFrom("bankid-se", "mitid", "fax", "\u0000")), documentExpiryDays: hostileValue }, { requiredKeys: [] }),
  fc.record({ websiteUrl: hostileText.map((text) => `https://book.example/${text}`), brandName: hostileText }, { requiredKeys: [] }),
  fc.dictionary(hostileText, hostileValue, { maxKeys: 4 }),
  hostileValue
)

const hostileBody = hostileBodyOf(
  fc.record(
    {
      connectionReference: fc.oneof(hostileValue, fc.constant("icr_")),
      reason: hostileValue,
      externalAccount: account,
      declaredGates: fc.oneof(fc.array(hostileText, { maxLength: 3 }), fc.constant(["verification"]), hostileValue),
      settings: nearlyValidSettings
    },
    { requiredKeys: [] }
  )
)

const contentType = fc.constantFrom("application/json", "text/plain", undefined)

describe.each(TestDatabase.kinds())("fuzzing the integrations operations on %s", (kind) => {
  let app: TestApp
  let connector: InstalledConnector
  let connectorToken: string
  /** One configuration of each kind, kept `connecting` (set up again after a report that moved it). */
  let connecting: ReadonlyArray<string>
  const statuses = new Map<number, number>()

  const send = checkedSender(() => app.apiUrl, () => connectorToken, statuses)

  /** Sets a configuration up again: Connect, then redeem, so the next report finds it `connecting`. */
  const reconnect = async (configurationId: string) => {
    const { connectionReference } = await app.run(connect(connector, configurationId))
    await send("POST", "/v1/integrations/connection-references/redeem", {
      body: JSON.stringify({ connectionReference }),
      type: "application/json"
    })
  }

  beforeAll(async () => {
    app = await start(kind)
    const org = await app.run(Fixtures.organization({ name: "Fuzz", integration: "none" }))
    connector = await app.run(installConnector(org))
    connectorToken = await installationToken(app.authUrl, connector)
    connecting = await Promise.all(
      (["billing", "signing", "booking"] as const).map(async (configurationKind) => {
        const created = await app.run(configuration(connector, configurationKind, [org.rootId]))
        return created.id
      })
    )
    for (const id of connecting) await reconnect(id)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("answers every hostile redeem, ready and failed with less than 500 and problem details", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("redeem", "ready", "failed"),
        fc.oneof(hostileId, fc.constantFrom(...connecting)),
        hostileBody,
        contentType,
        async (operation, id, body, type) => {
          const path =
            operation === "redeem"
              ? "/v1/integrations/connection-references/redeem"
              : `/v1/integrations/configurations/${id}/${operation}`
          const status = await send("POST", path, { body, ...(type === undefined ? {} : { type }) })
          if (status === 201 && operation !== "redeem") await reconnect(id)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("refuses unknown members and non-object bodies with 400 problem details, leaving the configurations connecting (issue 19)", async () => {
    const valid = {
      "connection-references/redeem": { connectionReference: "icr_unknown" },
      ready: { externalAccount: { id: "fuzz-1", name: "Fuzz AB" } },
      failed: { reason: "setup failed" }
    } as const
    const operation = fc.constantFrom(...(Object.keys(valid) as Array<keyof typeof valid>))
    await fc.assert(
      fc.asyncProperty(
        operation.chain((op) => fc.tuple(fc.constant(op), fc.oneof(withUnknownMembers(fc.constant({ ...valid[op] })), nonObjectBody))),
        fc.constantFrom(...connecting),
        async ([op, body], configurationId) => {
          const path = op === "connection-references/redeem" ? `/v1/integrations/${op}` : `/v1/integrations/configurations/${configurationId}/${op}`
          const status = await send("POST", path, { body, type: "application/json" })
          expect(status, `${op} ${body.slice(0, 100)}`).toBe(400)
        }
      ),
      { numRuns: 150 }
    )
    const listed = await fetch(`${app.apiUrl}/v1/integrations/configurations?limit=100`, { headers: { authorization: `Bearer ${connectorToken}` } })
    const items = ((await listed.json()) as { items: Array<{ id: string; status: string }> }).items
    for (const id of connecting) expect(items.find((item) => item.id === id)?.status).toBe("connecting")
  })

  it("answers every hostile list query with less than 500 and problem details", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(hostileText, { nil: undefined }),
        fc.option(fc.oneof(hostileText, fc.base64String({ maxLength: 80 })), { nil: undefined }),
        async (limit, cursor) => {
          const search = new URLSearchParams()
          if (limit !== undefined) search.set("limit", limit)
          if (cursor !== undefined) search.set("cursor", cursor)
          await send("GET", `/v1/integrations/configurations?${search.toString()}`)
        }
      ),
      { numRuns: 100 }
    )
  })

  it("refused something and accepted something (the fuzzer reached both sides)", () => {
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true)
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true)
  })
})
