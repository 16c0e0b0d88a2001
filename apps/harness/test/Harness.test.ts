/**
 * The harness against the built product, black box: `apps/api/dist/main.js` started once on a fresh database
 * (PostgreSQL when a server is configured, PGlite otherwise) seeds the demo organization and writes
 * demo-credentials.json; every scenario then runs against it, in order, and must pass.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Context, makeContext, parseCredentials, runScenario, scenarios } from "../src/Scenarios.js"

const main = fileURLToPath(new URL("../../../apps/api/dist/main.js", import.meta.url))

// Once, on the database a deployment would use: PostgreSQL when configured (CI time matters).
const kind = TestDatabase.kinds().includes("postgres") ? "postgres" : "pglite"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const waitFor = async (check: () => boolean, timeoutMs: number, what: () => string) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe(`the harness against the started product on ${kind}`, () => {
  let child: ChildProcess
  let root: string
  let dataDir: string
  let database: TestDatabase.TestDatabase
  let context: Context
  let output = ""

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    root = mkdtempSync(path.join(tmpdir(), "propline-harness-"))
    // Like a first start on a fresh machine: the data directory does not exist yet.
    dataDir = path.join(root, ".data")
    const apiPort = await freePort()
    const authPort = await freePort()
    const env: Record<string, string> = {
      PATH: process.env["PATH"] ?? "",
      API_PORT: String(apiPort),
      AUTH_PORT: String(authPort),
      BASE_URL: `http://127.0.0.1:${apiPort}`,
      AUTH_URL: `http://127.0.0.1:${authPort}`,
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DEMO_DATA: "true"
    }
    if (database.config._tag === "postgres") env["DATABASE_URL"] = database.config.connectionString
    child = spawn(process.execPath, ["--enable-source-maps", main], { env, stdio: ["ignore", "pipe", "pipe"] })
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
    await waitFor(
      () => existsSync(path.join(dataDir, "demo-credentials.json")) && output.includes("Demo environment ready"),
      240_000,
      () => `the product to start:\n${output}`
    )
    context = makeContext(parseCredentials(JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8"))))
  }, 300_000)

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
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
