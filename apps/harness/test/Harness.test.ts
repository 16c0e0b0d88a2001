/**
 * The harness against the built product, black box: `apps/api/dist/main.js` started once on a fresh database
 * (PostgreSQL when a server is configured, PGlite otherwise) seeds the demo organization and writes
 * demo-credentials.json; every scenario then runs against it, in order, and must pass.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Context, makeContext, runScenario } from "../src/Harness.js"
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
    context = makeContext(product.credentials)
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

  it("stays far below the token rate limit (60 a minute)", () => {
    expect(context.tokenRequests).toBeLessThanOrEqual(20)
  })
})
