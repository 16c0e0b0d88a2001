/**
 * The scale-out claim proven on the production layout (issue 23, item 6), black box, through the load balancer:
 * `ScaleLayout` (what `pnpm scale:demo` starts) with 3 API, 2 identity, 1 console and 2 worker processes behind
 * haproxy on one PostgreSQL, once directly and once through PgBouncer in transaction pooling mode. Every request goes
 * to haproxy's public addresses; `X-Served-By` shows which instance answered, and the test checks its requests were
 * spread. It holds:
 *
 * - an installation-grant assertion (private_key_jwt) used at one identity instance is refused at the other;
 * - the token rate limit is exact across identity instances: 60 admitted in 60 s, the 61st refused (429) whichever
 *   instance answers;
 * - a signing-key rotation is listed by every identity instance's JWKS within 5 s, before any token is signed with
 *   it, and no token fails verification at any API instance, before or after the switch;
 * - 30 concurrent booking requests for one slot hold it once, and 30 copies of one payment plus 30 distinct payments
 *   leave the exact balance, spread over the 3 API instances;
 * - webhooks are delivered once each with 2 workers.
 *
 * Needs PostgreSQL (PGlite is one process's database) and Debian's haproxy and pgbouncer; skipped without them unless
 * REQUIRE_POSTGRES=1 / REQUIRE_LOAD_BALANCER=1 (CI sets both), which turn their absence into a failure.
 */
import { api, type Context, makeContext, parseConnector, parseCredentials, send } from "@propline/harness/Harness"
import { sendQueue } from "@propline/harness/scenarios/erp"
import * as TestDatabase from "@propline/db/TestDatabase"
import { freePort } from "@propline/db/FreePort"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAssertionMinter } from "../src/InstallationAssertion.js"
import { HAPROXY, PGBOUNCER, type ScaleLayout, startScaleLayout } from "../src/ScaleLayout.js"
import { startWebhookReceiver, type VerifiedDelivery, type WebhookReceiver } from "../src/WebhookReceiver.js"
import { type DemoOperator, ensureSubscription } from "../src/WebhookSubscription.js"

const onPostgres = TestDatabase.kinds().includes("postgres")
const binaries = existsSync(HAPROXY) && existsSync(PGBOUNCER)
if (!binaries && process.env["REQUIRE_LOAD_BALANCER"] === "1") {
  throw new Error(`REQUIRE_LOAD_BALANCER=1 but ${HAPROXY} or ${PGBOUNCER} is missing (apt-get install -y haproxy pgbouncer)`)
}

const RACE = 30
const DAY = 86_400_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(onPostgres && binaries).each([
  { variant: "directly", pgbouncer: false },
  { variant: "through PgBouncer (transaction pooling)", pgbouncer: true }
])("the production layout behind haproxy, on one PostgreSQL $variant", ({ pgbouncer }) => {
  let database: TestDatabase.TestDatabase
  let layout: ScaleLayout
  let context: Context
  let receiver: WebhookReceiver
  const deliveries: Array<VerifiedDelivery> = []

  beforeAll(async () => {
    database = await TestDatabase.create("postgres")
    if (database.config._tag !== "postgres") throw new Error("expected PostgreSQL")
    layout = await startScaleLayout({
      databaseUrl: database.config.connectionString,
      pgbouncer,
      // Quick retries, so a failed attempt would show as a second delivery within the test.
      env: { LOG_LEVEL: "warn", WEBHOOK_RETRY_SCALE: "0.01", SHUTDOWN_GRACE_SECONDS: "5" }
    })
    const credentials = parseCredentials(JSON.parse(readFileSync(path.join(layout.dataDir, "demo-credentials.json"), "utf8")))
    const connector = parseConnector(JSON.parse(readFileSync(path.join(layout.dataDir, "demo-connector.json"), "utf8")))
    context = makeContext(credentials, connector)
  }, 300_000)

  afterAll(async () => {
    await receiver?.close()
    await layout?.stop()
    await database?.drop()
  }, 120_000)

  const byRole = (role: "api" | "auth") => layout.instances.filter((instance) => instance.role === role)
  const servedBy = (replies: ReadonlyArray<{ readonly headers: Headers }>) =>
    new Set(replies.map((reply) => reply.headers.get("x-served-by")))

  const connectorToken = (body: string, url = layout.urls.auth) =>
    send(`${url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body })

  it("every public address is the load balancer's, and the demo files name it", () => {
    expect(context.credentials.auth_url).toBe(layout.urls.auth)
    expect(context.credentials.base_url).toBe(layout.urls.api)
    expect(layout.instances.map((instance) => instance.role).sort()).toEqual(
      ["admin", "api", "api", "api", "auth", "auth", "worker", "worker"]
    )
  })

  let admitted = 0
  it("an assertion used at one identity instance is refused at the other", async () => {
    const minter = createAssertionMinter(JSON.parse(readFileSync(path.join(layout.dataDir, "demo-connector.json"), "utf8")))
    const [first, second] = byRole("auth").map((instance) => instance.url!)
    const body = minter.requestBody()
    expect((await connectorToken(body, first)).status).toBe(200)
    admitted++
    const replayed = await connectorToken(body, second)
    expect([replayed.status, (replayed.body as { error?: string }).error]).toEqual([401, "invalid_client"])
    // And through the load balancer, whichever instance answers.
    for (let i = 0; i < 2; i++) expect((await connectorToken(body)).status).toBe(401)
    expect((await connectorToken(minter.requestBody())).status).toBe(200)
    admitted++
  })

  it("the token rate limit is exact across identity instances: 60 in 60 s, the 61st refused at either", async () => {
    const minter = createAssertionMinter(JSON.parse(readFileSync(path.join(layout.dataDir, "demo-connector.json"), "utf8")))
    const replies = await Promise.all(Array.from({ length: 60 - admitted }, () => connectorToken(minter.requestBody())))
    expect(replies.map((reply) => reply.status).filter((status) => status !== 200)).toEqual([])
    expect(servedBy(replies).size).toBe(2)
    const refused = await Promise.all([
      connectorToken(minter.requestBody()),
      connectorToken(minter.requestBody()),
      ...byRole("auth").map((instance) => connectorToken(minter.requestBody(), instance.url!))
    ])
    for (const reply of refused) {
      expect([reply.status, (reply.body as { error?: string }).error]).toEqual([429, "slow_down"])
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }
  })

  it("webhooks: the demo operator subscribes a receiver through the console's load balancer", async () => {
    const operator = JSON.parse(readFileSync(path.join(layout.dataDir, "demo-operator.json"), "utf8")) as DemoOperator
    expect(operator.admin_url).toBe(layout.urls.admin)
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/webhooks`
    const subscription = await Effect.runPromise(ensureSubscription({ operator, url, dataDir: layout.directory }))
    receiver = await startWebhookReceiver({ secret: subscription.secret, port, onDelivery: (delivery) => deliveries.push(delivery) })
    for (let i = 0; i < 10; i++) await Effect.runPromise(subscription.sendTestEvent)
  })

  it(`${RACE} concurrent booking requests for one slot over 3 API instances hold it once`, async () => {
    const resources = await api(context, "GET", "/v1/booking/resources?limit=100")
    expect(resources.status).toBe(200)
    const rooms = (resources.body as { items: Array<{ id: string; kind: string; pricing: string }> }).items.filter(
      (resource) => resource.kind === "room" && resource.pricing === "time"
    )
    const from = new Date(Math.ceil((Date.now() + 2 * DAY) / 3_600_000) * 3_600_000)
    const to = new Date(from.getTime() + 7 * DAY)
    let slot: { resourceId: string; period: { start: string; end: string } } | undefined
    for (const room of rooms) {
      const reply = await api(context, "GET", `/v1/booking/resources/${room.id}/availability?from=${from.toISOString()}&to=${to.toISOString()}&durationMinutes=60`)
      const start = (reply.body as { startTimes?: Array<string> }).startTimes?.[0]
      if (start !== undefined) {
        slot = { resourceId: room.id, period: { start, end: new Date(new Date(start).getTime() + 3_600_000).toISOString() } }
        break
      }
    }
    if (slot === undefined) throw new Error("the demo has no free room in the coming week")
    const replies = await Promise.all(
      Array.from({ length: RACE }, (_, i) =>
        api(context, "POST", "/v1/booking/booking-requests", {
          requestId: `scale-${context.runId}-${i}`,
          guest: { name: "Scale Guest", email: "scale@example.com" },
          ...slot
        })
      )
    )
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1)
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expect([reply.status, (reply.body as { code?: string }).code]).toEqual([409, "BOOKING_SLOT_TAKEN"])
    }
    expect(servedBy(replies)).toEqual(new Set(byRole("api").map((instance) => instance.name)))
  })

  it(`${RACE} copies of one payment apply once, ${RACE} distinct payments exactly, over 3 API instances`, async () => {
    const target = (await sendQueue(context)).find((invoice) => invoice.documentKind === "invoice")
    if (target === undefined) throw new Error("the demo's send queue has no invoice")
    const today = new Date().toISOString().slice(0, 10)
    const sent = await api(context, "POST", `/v1/billing/invoices/${target.id}/report-sent`, {
      issuedInvoiceNumber: `S-${target.invoiceNumber}`,
      issuedInvoiceDate: today,
      dueDate: new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10),
      issuedTotalGrossMinorUnits: target.totalGrossMinorUnits,
      externalReference: `SCALE-${context.runId}`
    })
    expect(sent.status).toBe(201)
    const total = target.totalGrossMinorUnits
    const pay = (paymentId: string, amountMinorUnits: number) =>
      api(context, "POST", `/v1/billing/invoices/${target.id}/report-payment`, { paymentId, amountMinorUnits, paidOn: today })
    const copies = await Promise.all(Array.from({ length: RACE }, () => pay(`C-${context.runId}`, 1)))
    expect(copies.map((reply) => reply.status)).toEqual(Array.from({ length: RACE }, () => 200))
    expect(new Set(copies.map((reply) => (reply.body as { balanceMinorUnits: number }).balanceMinorUnits))).toEqual(new Set([total - 1]))
    const share = Math.floor((total - 1) / RACE)
    const distinct = await Promise.all(Array.from({ length: RACE }, (_, i) => pay(`D-${context.runId}-${i}`, share)))
    expect(distinct.map((reply) => reply.status)).toEqual(Array.from({ length: RACE }, () => 200))
    expect(servedBy([...copies, ...distinct])).toEqual(new Set(byRole("api").map((instance) => instance.name)))
    const final = await pay(`C-${context.runId}`, 1)
    expect((final.body as { balanceMinorUnits: number }).balanceMinorUnits).toBe(total - 1 - share * RACE)
  })

  it("a key rotation is in every identity instance's JWKS within 5 s, before it signs; no token fails at any API instance", async () => {
    const kids = async (url: string) =>
      ((await send(`${url}/.well-known/jwks.json`)).body as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid)
    const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { kid: string }).kid
    const { client_id, client_secret } = context.credentials
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret)}`).toString("base64")}`
    const mint = async () => {
      const reply = await send(`${layout.urls.auth}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
        body: "grant_type=client_credentials"
      })
      expect(reply.status).toBe(200)
      return (reply.body as { access_token: string }).access_token
    }

    const rotation = await layout.rotateSigningKey()
    const rotatedAt = Date.now()
    const activatesAt = rotation.activatesAt === undefined ? rotatedAt : Date.parse(rotation.activatesAt)
    const listedAt = new Map<string, number>()
    const failures: Array<string> = []
    const signers = new Set<string>()
    const until = activatesAt + 3_000
    // Every 250 ms each identity instance's JWKS, timed when asked (a slow answer doesn't make the key look late).
    const watching = (async () => {
      while (Date.now() < until && listedAt.size < byRole("auth").length) {
        await Promise.all(
          byRole("auth").map(async (instance) => {
            const asked = Date.now()
            if (!listedAt.has(instance.name) && (await kids(instance.url!)).includes(rotation.kid)) listedAt.set(instance.name, asked)
          })
        )
        await sleep(250)
      }
    })()
    // Meanwhile, until 3 s after the switch, every second a token through the load balancer, used at each API instance.
    while (Date.now() < until) {
      const token = await mint()
      const kid = kidOf(token)
      signers.add(kid)
      if (kid === rotation.kid && listedAt.size < byRole("auth").length) failures.push("a token was signed with the new key before every JWKS listed it")
      // The JWKS a third party reads through the load balancer lists the key the token names.
      if (!(await kids(layout.urls.auth)).includes(kid)) failures.push(`the load balancer's JWKS lacks ${kid}`)
      for (const instance of byRole("api")) {
        const reply = await send(`${instance.url!}/v1/operational-contexts?limit=1`, { headers: { authorization: `Bearer ${token}` } })
        if (reply.status !== 200) failures.push(`${instance.name} answered ${reply.status} for a token of ${kid}`)
      }
      await sleep(1_000)
    }
    await watching
    expect(failures).toEqual([])
    expect(listedAt.size).toBe(2)
    // Within 5 s of the rotation (the instances re-read the keys every 5 s), give or take this test's 250 ms polling.
    for (const at of listedAt.values()) expect(at - rotatedAt).toBeLessThanOrEqual(5_250)
    // Tokens were signed with the previous key before the switch and with the new one after it.
    expect(signers.has(rotation.kid)).toBe(true)
    expect(signers.size).toBe(2)
  }, 60_000)

  it("webhooks are delivered once each with 2 workers", async () => {
    const deadline = Date.now() + 30_000
    const tests = () => deliveries.filter((delivery) => delivery.event.type === "webhook.test")
    while (tests().length < 10 && Date.now() < deadline) await sleep(200)
    // The races' events too, then a quiet second in which no redelivery comes.
    await sleep(3_000)
    expect(tests()).toHaveLength(10)
    expect(deliveries.filter((delivery) => delivery.duplicate).map((delivery) => delivery.webhookId)).toEqual([])
    const ids = deliveries.map((delivery) => delivery.event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(deliveries.length).toBeGreaterThan(10)
  }, 60_000)

  it("no instance logged an error", () => {
    expect(layout.errors()).toEqual([])
  })
})
