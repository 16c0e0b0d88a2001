/**
 * The harness's client is the packed tarball's, not the workspace's: installed in its own directory with the
 * published package.json (versions, not `workspace:`), imported by its package root.
 */
import { Propline as WorkspacePropline } from "@propline/client"
import { readFileSync, realpathSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadPackedClient } from "../src/PackedClient.js"

describe("the harness's published client", () => {
  it("comes from the packed tarball, with the published manifest and the Promise API at its root", async () => {
    const packed = await loadPackedClient()
    const installed = path.join(packed.dir, "node_modules", "@propline", "client")
    expect(realpathSync(installed).startsWith(realpathSync(packed.dir))).toBe(true)
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as {
      readonly version: string
      readonly dependencies: Record<string, string>
    }
    expect(manifest.version).toBe(packed.version)
    expect(manifest.dependencies["@propline/contract"]).toMatch(/^\d+\.\d+\.\d+/)
    expect(packed.module.Propline).not.toBe(WorkspacePropline)
    const propline = new packed.module.Propline({ baseUrl: "http://127.0.0.1:9", accessToken: "t", maxRetries: 0 })
    const error = await propline.billing.getSendQueue({ urlParams: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(packed.module.ConnectionError)
    expect(error).not.toBeInstanceOf((await import("@propline/client")).ConnectionError)
  }, 120_000)
})
