/**
 * The example connectors on the client as published: `pnpm pack` of `@propline/client` and the workspace packages
 * it needs at run time (`@propline/contract`, `@propline/billing`, `@propline/refusal`), unpacked into a fresh
 * directory's node_modules beside its peers (effect, @effect/platform) and jose, linked from the store as a
 * registry install would put them. The example flows' sources are copied there, so their `@propline/client`
 * imports resolve to the tarball's files, and run against the started product (PGlite).
 */
import { installPacked } from "@propline/harness/PackedClient"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as ConnectorFlowModule from "../src/ConnectorFlow.js"
import type * as InstallationFlowModule from "../src/InstallationFlow.js"
import type { ConnectorCredentials } from "../src/InstallationAssertion.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const FLOWS = ["ConnectorFlow.ts", "InstallationFlow.ts", "InstallationAssertion.ts"]

/** Installs the packed client (as the harness does) and copies the example flows beside it; the app's folder. */
const installApp = (dir: string): string => {
  installPacked(dir)
  const app = path.join(dir, "app")
  mkdirSync(app)
  for (const file of FLOWS) copyFileSync(path.join(root, "tooling", "scripts", "src", file), path.join(app, file))
  return app
}

describe("the example connectors on the packed client", () => {
  let dir: string
  let app: string
  let product: StartedProduct

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "propline-packed-client-"))
    app = installApp(dir)
    product = await startProduct()
  }, 300_000)

  afterAll(async () => {
    await product?.stop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it("installs the client from its tarball: the published package.json, dist and README, no link to the workspace", () => {
    const installed = path.join(dir, "node_modules", "@propline", "client")
    expect(realpathSync(installed)).toBe(installed)
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as Record<string, Record<string, string>>
    expect(manifest["dependencies"]?.["@propline/contract"]).toMatch(/^\d+\.\d+\.\d+/)
    expect(Object.keys(manifest["peerDependencies"] ?? {}).sort()).toEqual(["@effect/platform", "effect"])
    expect(readdirSync(path.join(installed, "dist"))).toContain("Propline.js")
    expect(readdirSync(installed)).toContain("README.md")
  })

  it("runs the ERP flow on the packed client's Promise API against the started product", async () => {
    const flow = (await import(path.join(app, "ConnectorFlow.ts"))) as typeof ConnectorFlowModule
    // The flow's client is the tarball's class, not the workspace's.
    const packed = (await import(path.join(dir, "node_modules", "@propline", "client", "dist", "Propline.js"))) as {
      readonly Propline: new (...args: never) => unknown
    }
    const workspace = await import("@propline/client/Propline")
    expect(flow.connect(product.credentials).client).toBeInstanceOf(packed.Propline)
    expect(flow.connect(product.credentials).client).not.toBeInstanceOf(workspace.Propline)
    const steps = await flow.runConnectorFlow(product.credentials, "packed")
    expect(steps.find((s) => s.step === "GET /v1/operational-contexts")?.outcome).toMatch(/^7 contexts/)
    expect(steps.some((s) => s.step.endsWith("/pass") && s.outcome.startsWith("201: proposal passed"))).toBe(true)
    expect(steps.find((s) => s.step.endsWith("(repeated)"))?.outcome).toBe("refused: 400 BILLING_INVOICE_STATUS_INVALID")
  }, 120_000)

  it("runs the installed connector's flow (installation grant signed by the packed client)", async () => {
    const flow = (await import(path.join(app, "InstallationFlow.ts"))) as typeof InstallationFlowModule
    const connector = JSON.parse(
      readFileSync(path.join(product.dataDir, "demo-connector.json"), "utf8")
    ) as ConnectorCredentials
    const steps = await flow.runInstallationFlow(connector)
    expect(steps.map((step) => step.outcome).slice(2)).toEqual([
      expect.stringMatching(/^7 contexts: /),
      expect.stringMatching(/^3 invoices, first #\d+$/)
    ])
  }, 120_000)
})
