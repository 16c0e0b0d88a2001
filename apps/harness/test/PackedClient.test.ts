/**
 * The harness's client is the packed tarball's, not the workspace's: installed in its own directory with the
 * published package.json (versions, not `workspace:`), imported by its package root; no harness source imports
 * `@propline/client` (or any of its modules) from the workspace, except its types.
 */
import { Propline as WorkspacePropline } from "@propline/client"
import { readdirSync, readFileSync, realpathSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
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

  it("is the only client the harness's sources use: none imports @propline/client from the workspace but for types", () => {
    const src = fileURLToPath(new URL("../src", import.meta.url))
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
    expect(files).toContain(path.join("scenarios", "events.ts"))
    const workspaceImports = files.flatMap((file) =>
      workspaceClientImports(readFileSync(path.join(src, file), "utf8")).map((line) => `${file}: ${line}`)
    )
    expect(workspaceImports).toEqual([])
    expect(workspaceClientImports('import * as Events from "@propline/client/Events"')).toHaveLength(1)
    expect(workspaceClientImports('import { type Propline, Errors } from "@propline/client"')).toHaveLength(1)
    expect(workspaceClientImports('export { Propline } from "@propline/client/Propline.js"')).toHaveLength(1)
    expect(workspaceClientImports('const c = await import("@propline/client")')).toHaveLength(1)
    expect(workspaceClientImports('import type * as M from "@propline/client"')).toEqual([])
    expect(workspaceClientImports('import type { J } from "effect"\nimport {\n  Propline\n} from "@propline/client"')).toHaveLength(1)
  })
})

/**
 * The statements of `source` that load `@propline/client` or one of its modules at run time: static imports and
 * re-exports (multi-line ones included) that are not `import type` / `export type`, and dynamic `import()`.
 */
const workspaceClientImports = (source: string): Array<string> => {
  const statics = [...source.matchAll(/^\s*(import|export)\b(?:(?!;|\n\s*\n|\n\s*(?:import|export)\b)[\s\S])*?\bfrom\s*["']@propline\/client(?:\/[^"']*)?["']/gm)]
    .map((match) => match[0].trim())
    .filter((statement) => !/^(import|export)\s+type\b/.test(statement))
  const dynamic = [...source.matchAll(/\bimport\s*\(\s*["']@propline\/client(?:\/[^"']*)?["']\s*\)/g)].map((match) => match[0])
  return [...statics, ...dynamic].map((statement) => statement.replace(/\s+/g, " "))
}
