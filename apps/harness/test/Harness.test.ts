/**
 * The harness against the built product, black box: `apps/api/dist/main.js` started once on a fresh database
 * (PostgreSQL when a server is configured, PGlite otherwise) seeds the demo organization and writes
 * demo-credentials.json; every scenario then runs against it, in order, and must pass.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Context, makeContext, parseConnector, runScenario } from "../src/Harness.js"
import { scenarios } from "../src/Scenarios.js"
import { type StartedProduct, startProduct } from "../src/StartedProduct.js"

// Once, on the database a deployment would use: PostgreSQL when configured (CI time matters).
const kind = TestDatabase.kinds().includes("postgres") ? "postgres" : "pglite"

describe(`the harness against the started product on ${kind}`, () => {
  let database: TestDatabase.TestDatabase
  let product: StartedProduct
  let context: Context

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    product = await startProduct(
      database.config._tag === "postgres" ? { databaseUrl: database.config.connectionString } : {}
    )
    const connector = parseConnector(JSON.parse(readFileSync(join(product.dataDir, "demo-connector.json"), "utf8")))
    context = makeContext(product.credentials, connector)
  }, 300_000)

  afterAll(async () => {
    await product?.stop()
    await database?.drop()
  }, 60_000)

  // On freshly seeded demo data every scenario has records to work on: none may skip.
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const outcome = await runScenario(scenario, context)
      expect({ verdict: outcome.verdict, message: outcome.message }).toEqual({ verdict: "PASS", message: outcome.message })
    }, 120_000)
  }

  it("serves the admin console, where the demo operator of demo-operator.json signs in", async () => {
    const operator = JSON.parse(readFileSync(join(product.dataDir, "demo-operator.json"), "utf8")) as Record<string, string>
    expect(Object.keys(operator)).toEqual(["email", "password", "admin_url"])
    const signIn = await fetch(`${operator["admin_url"]}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: operator["email"], password: operator["password"] })
    })
    expect(signIn.status).toBe(201)
    const cookie = /propline_admin_session=[^;]*/.exec(signIn.headers.get("set-cookie") ?? "")?.[0] ?? ""
    const organization = await fetch(`${operator["admin_url"]}/api/organization`, { headers: { cookie } })
    expect(((await organization.json()) as { organization: { name: string } }).organization.name).toBe("Nordhavn Workspaces AB")
    const page = await fetch(`${operator["admin_url"]}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="root">')
  })

  it("stays far below the token rate limit (60 a minute)", () => {
    expect(context.tokenRequests).toBeLessThanOrEqual(20)
  })
})
