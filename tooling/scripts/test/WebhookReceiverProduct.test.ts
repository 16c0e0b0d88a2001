/**
 * `pnpm connector:webhooks` as a user meets it, black box (issue 22, item 8): the built product on a fresh database
 * with demo data, and the built script as its own process. It subscribes itself as the demo operator, prints the
 * test event it asked for as verified, then the events of the example ERP connector's changes as they commit; run
 * again it keeps its endpoint and secret; with its file gone it rotates the secret and verifies again. Runs on PGlite
 * and, when a server is configured, on PostgreSQL (which needs WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS=true for a local
 * receiver).
 */
import { freePort } from "@propline/db/FreePort"
import * as TestDatabase from "@propline/db/TestDatabase"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, rmSync, statSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runConnectorFlow } from "../src/ConnectorFlow.js"
import { RECEIVER_FILE } from "../src/WebhookSubscription.js"

const script = fileURLToPath(new URL("../dist/connector-webhooks.js", import.meta.url))

interface Running {
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const startReceiver = (dataDir: string, port: number): Running => {
  const child: ChildProcess = spawn(process.execPath, ["--enable-source-maps", script], {
    env: { PATH: process.env["PATH"] ?? "", DATA_DIR: dataDir, WEBHOOK_RECEIVER_PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
  }
}

/** Waits until the receiver's output matches `pattern` (60 s at most); the output otherwise, in the failure. */
const printed = async (receiver: Running, pattern: RegExp) => {
  const deadline = Date.now() + 60_000
  while (!pattern.test(receiver.output())) {
    if (Date.now() > deadline) throw new Error(`the receiver never printed ${pattern}:\n${receiver.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return receiver.output()
}

describe.each(TestDatabase.kinds())("pnpm connector:webhooks against the started product on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let product: StartedProduct
  let port: number
  const running: Array<Running> = []
  const receiver = () => {
    const started = startReceiver(product.dataDir, port)
    running.push(started)
    return started
  }

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    product = await startProduct(
      database.config._tag === "postgres"
        ? { databaseUrl: database.config.connectionString, env: { WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "true" } }
        : {}
    )
    port = await freePort()
  }, 300_000)

  afterAll(async () => {
    for (const started of running) await started.stop()
    await product?.stop()
    await database?.drop()
  }, 60_000)

  it("subscribes itself, verifies its test event, then the ERP connector's events as they commit", async () => {
    const first = receiver()
    const banner = await printed(first, /verified webhook\.test/)
    expect(banner).toMatch(new RegExp(`Webhook receiver listening at http://127\\.0\\.0\\.1:${port}/webhooks`))
    expect(banner).toMatch(/endpoint [0-9a-f-]{36} \(created; every event type\)/)
    const file = path.join(product.dataDir, RECEIVER_FILE)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ url: `http://127.0.0.1:${port}/webhooks`, secret: expect.stringMatching(/^whsec_/) })

    await runConnectorFlow(product.credentials, "webhooks")
    const after = await printed(first, /verified billing\.invoice\.paid/)
    expect(after).toMatch(/verified billing\.invoice\.sent\n {2}webhook-id [0-9a-f-]{36}, organization [0-9a-f-]{36} context [0-9a-f-]{36}/)
    expect(after).not.toMatch(/refused/)
    await first.stop()
  }, 120_000)

  it("keeps its endpoint and secret when run again, and rotates the secret when its file is gone", async () => {
    const again = receiver()
    await printed(again, /verified webhook\.test/)
    expect(again.output()).toMatch(/\(kept; every event type\)/)
    await again.stop()

    rmSync(path.join(product.dataDir, RECEIVER_FILE))
    const rotated = receiver()
    await printed(rotated, /verified webhook\.test/)
    expect(rotated.output()).toMatch(/\(rotated; every event type\)/)
    expect(rotated.output()).not.toMatch(/refused/)
    await rotated.stop()
  }, 120_000)
})
