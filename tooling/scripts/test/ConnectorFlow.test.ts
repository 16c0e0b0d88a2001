/**
 * The whole product as a user starts it, black box: the built `apps/api/dist/main.js` on a fresh database seeds the
 * demo organization and writes demo-credentials.json; the example connector's flow then runs against it with the
 * published client. Runs on PGlite and, when a server is configured, on PostgreSQL.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DemoCredentials, runConnectorFlow } from "../src/ConnectorFlow.js"

const main = fileURLToPath(new URL("../../../apps/api/dist/main.js", import.meta.url))

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const waitFor = async (check: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.each(TestDatabase.kinds())("the example connector against the started product on %s", (kind) => {
  let child: ChildProcess
  let root: string
  let dataDir: string
  let database: TestDatabase.TestDatabase
  let output = ""

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    root = mkdtempSync(path.join(tmpdir(), "propline-e2e-"))
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
      `the product to start:\n${output}`
    )
  }, 300_000)

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    rmSync(root, { recursive: true, force: true })
    await database?.drop()
  })

  it("writes the credentials file with exactly the documented keys", () => {
    const credentials = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as Record<string, string>
    expect(Object.keys(credentials).sort()).toEqual(["auth_url", "base_url", "client_id", "client_secret"])
    expect(credentials["client_secret"]).toMatch(/^service_sk_[0-9A-Za-z]{43}$/)
  })

  it("runs the ERP flow: token, contexts, verification queue, pass, reject, send queue, report-failed", async () => {
    const credentials = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials
    const steps = await Effect.runPromise(runConnectorFlow(credentials, "e2e"))
    const outcome = (prefix: string) => steps.filter((s) => s.step.startsWith(prefix)).map((s) => s.outcome)
    expect(outcome("POST {auth_url}/oauth/token")[0]).toContain("expires in 600 s")
    expect(outcome("GET /v1/operational-contexts")[0]).toMatch(/^7 contexts/)
    expect(outcome("GET /v1/billing/verification-queue")[0]).toMatch(/^10 proposals/)
    expect(steps.some((s) => s.step.endsWith("/pass") && s.outcome.startsWith("201: proposal passed"))).toBe(true)
    expect(steps.some((s) => s.step.endsWith("/reject") && s.outcome === "201: proposal rejected")).toBe(true)
    expect(steps.some((s) => s.step.endsWith("/report-failed") && s.outcome.endsWith("failed"))).toBe(true)
    expect(steps.find((s) => s.step.endsWith("(repeated)"))?.outcome).toBe("refused: 400 BILLING_INVOICE_STATUS_INVALID")
  })
})
