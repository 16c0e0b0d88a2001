/**
 * Two processes of the product on one PostgreSQL, black box (decisions 3): an assertion's `jti` consumed at one
 * instance is refused at the other, and the token rate limit counts the requests made at both. Each process is the
 * built `apps/api/dist/main.js`, started as a user starts it, with its own ports, behind one public address
 * (AUTH_URL, BASE_URL: an assertion's `aud` names the service, not an instance); the second shares the first's
 * DATA_DIR, since only the start that seeds the database writes the demo files. PostgreSQL only: PGlite is one
 * process's database.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ConnectorCredentials, createAssertionMinter } from "../src/InstallationAssertion.js"

const onPostgres = TestDatabase.kinds().includes("postgres")

describe.runIf(onPostgres)("two instances of the product on one PostgreSQL", () => {
  let database: TestDatabase.TestDatabase
  let first: StartedProduct
  let second: StartedProduct

  beforeAll(async () => {
    database = await TestDatabase.create("postgres")
    if (database.config._tag !== "postgres") throw new Error("expected PostgreSQL")
    // One after the other: the second finds the demo data seeded, writes no demo files, and serves the first's.
    first = await startProduct({ databaseUrl: database.config.connectionString })
    second = await startProduct({
      databaseUrl: database.config.connectionString,
      env: { AUTH_URL: first.credentials.auth_url, BASE_URL: first.credentials.base_url },
      dataDir: first.dataDir
    })
  }, 600_000)

  afterAll(async () => {
    await second?.stop()
    await first?.stop()
    await database?.drop()
  }, 60_000)

  const connectorOf = (product: StartedProduct) =>
    JSON.parse(readFileSync(path.join(product.dataDir, "demo-connector.json"), "utf8")) as ConnectorCredentials

  /** POSTs to one instance's own listener. */
  const post = async (product: StartedProduct, body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${product.listening.authUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body
    })
    return { status: response.status, error: ((await response.json()) as { error?: string }).error, retryAfter: response.headers.get("retry-after") }
  }

  it("the seeding start's demo connector file works at both instances", async () => {
    for (const product of [first, second]) {
      const minter = createAssertionMinter(connectorOf(product))
      expect(product.credentials.auth_url).toBe(first.listening.authUrl)
      expect((await post(product, minter.requestBody())).status).toBe(200)
    }
  })

  it("an assertion used at one instance is refused at the other", async () => {
    const minter = createAssertionMinter(connectorOf(first))
    const body = minter.requestBody()
    expect((await post(first, body)).status).toBe(200)
    expect(await post(second, body)).toMatchObject({ status: 401, error: "invalid_client" })
    expect(await post(first, body)).toMatchObject({ status: 401, error: "invalid_client" })
    // A fresh assertion works at the second: the refusal was the replay.
    expect((await post(second, minter.requestBody())).status).toBe(200)
  })

  it("the rate limit counts an app's requests at both instances (60 in 60 s, then 429 at either)", async () => {
    // The connector already made 4 admitted requests above (one per file key, one exchange, one fresh): 56 more fit.
    const minter = createAssertionMinter(connectorOf(second))
    const hosts = [first, second]
    const statuses: Array<number> = []
    for (let i = 0; i < 56; i++) statuses.push((await post(hosts[i % 2]!, minter.requestBody())).status)
    expect(statuses.filter((status) => status !== 200), JSON.stringify(statuses)).toEqual([])
    for (const host of hosts) {
      const refused = await post(host, minter.requestBody())
      expect(refused).toMatchObject({ status: 429, error: "slow_down" })
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
    }
  })

  it("and an Application's client_credentials requests at both instances", async () => {
    const { client_id, client_secret } = first.credentials
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret)}`).toString("base64")}`
    const hosts = [first, second]
    const statuses: Array<number> = []
    for (let i = 0; i < 60; i++) {
      statuses.push((await post(hosts[i % 2]!, "grant_type=client_credentials", { authorization: basic })).status)
    }
    expect(statuses.every((status) => status === 200)).toBe(true)
    for (const host of hosts) {
      expect(await post(host, "grant_type=client_credentials", { authorization: basic })).toMatchObject({ status: 429, error: "slow_down" })
    }
  })
})
