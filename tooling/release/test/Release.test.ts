/**
 * What a release publishes (issue 24; CONTRIBUTING.md, "Releasing"): exactly the client, the contract and what they
 * need at run time are public, every other workspace package is private; each is packed once (`pnpm pack`, the
 * tarball `pnpm release` would publish) and its tarball holds the built modules, their declarations and maps, the
 * sources the maps point to, the package.json with real version ranges, and nothing else (no `.tsbuildinfo`, no
 * tests, no configuration); publint and are-the-types-wrong find nothing in it; and `pnpm release`'s publishing step
 * dry-runs (`pnpm publish -r --dry-run`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execFile } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, "..", "..", "..")
const bin = (name: string) => path.join(import.meta.dirname, "..", "node_modules", ".bin", name)

/** The packages a release publishes, by folder: the client, the contract, and their run-time dependencies. */
const PUBLISHED = ["packages/refusal", "packages/billing", "packages/contract", "packages/client"] as const

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
}

const manifest = (folder: string): Manifest =>
  JSON.parse(readFileSync(path.join(root, folder, "package.json"), "utf8")) as Manifest

const workspaceFolders = ["packages", "apps", "tooling"].flatMap((group) =>
  readdirSync(path.join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`)
)

interface Packed {
  readonly folder: string
  readonly tarball: string
  readonly files: ReadonlyArray<string>
  readonly manifest: Manifest
}

const packed: Array<Packed> = []
let destination = ""

beforeAll(async () => {
  destination = mkdtempSync(path.join(tmpdir(), "propline-release-"))
  for (const folder of PUBLISHED) {
    const { stdout } = await run("pnpm", ["pack", "--json", "--pack-destination", destination], { cwd: path.join(root, folder) })
    const report = JSON.parse(stdout) as { filename: string; files: ReadonlyArray<{ path: string }> }
    const { stdout: packedManifest } = await run("tar", ["-xOzf", report.filename, "package/package.json"])
    packed.push({
      folder,
      tarball: report.filename,
      files: report.files.map((file) => file.path).sort(),
      manifest: JSON.parse(packedManifest) as Manifest
    })
  }
}, 180_000)

afterAll(() => rmSync(destination, { recursive: true, force: true }))

describe("a release", () => {
  it("publishes the client, the contract and their run-time dependencies; every other package is private", () => {
    const publicFolders = workspaceFolders.filter((folder) => manifest(folder).private !== true).sort()
    expect(publicFolders).toEqual([...PUBLISHED].sort())
    for (const folder of PUBLISHED) {
      for (const dependency of Object.keys(manifest(folder).dependencies ?? {})) {
        if (!dependency.startsWith("@propline/")) continue
        const owner = PUBLISHED.find((candidate) => manifest(candidate).name === dependency)
        expect(owner, `${folder} needs ${dependency} at run time`).toBeDefined()
      }
    }
    // The published packages version together (.changeset/config.json's `fixed`).
    expect(new Set(PUBLISHED.map((folder) => manifest(folder).version)).size).toBe(1)
  })

  it("packs what each package needs and nothing else", () => {
    for (const { folder, files, manifest: published } of packed) {
      expect(files, folder).toContain("package.json")
      expect(files, folder).toContain("CHANGELOG.md")
      expect(files, folder).toContain("README.md")
      const built = files.filter((file) => file.startsWith("dist/"))
      expect(built.some((file) => file.endsWith(".js")), folder).toBe(true)
      for (const file of built.filter((name) => name.endsWith(".js"))) {
        expect(files, folder).toContain(file.replace(/\.js$/, ".d.ts"))
      }
      const unexpected = files.filter(
        (file) =>
          !["package.json", "README.md", "CHANGELOG.md", "LICENSE"].includes(file) &&
          !/^dist\/.+\.(js|d\.ts|js\.map|d\.ts\.map)$/.test(file) &&
          !/^src\/.+\.ts$/.test(file)
      )
      expect(unexpected, folder).toEqual([])
      expect(files.filter((file) => /tsbuildinfo|\.test\.|^test\//.test(file)), folder).toEqual([])
      const ranges = JSON.stringify({ ...published.dependencies, ...published.peerDependencies })
      expect(ranges, folder).not.toMatch(/workspace:|catalog:/)
    }
  })

  it("passes publint with no error, warning or suggestion", async () => {
    const { publint } = await import("publint")
    for (const { folder, tarball } of packed) {
      const buffer = readFileSync(tarball)
      const { messages } = await publint({
        pack: { tarball: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) },
        level: "suggestion",
        strict: true
      })
      expect(messages.map((message) => `${message.type} ${message.code} ${JSON.stringify(message.args)}`), folder).toEqual([])
    }
  })

  it("passes are-the-types-wrong for Node 16+ resolution (ESM only)", async () => {
    for (const { folder, tarball } of packed) {
      let output: string
      try {
        output = (await run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "json"], { maxBuffer: 32 * 1024 * 1024 })).stdout
      } catch (error) {
        output = (error as { stdout?: string }).stdout ?? ""
      }
      const report = JSON.parse(output) as { analysis?: { problems?: ReadonlyArray<{ readonly resolutionKind?: string }> } }
      // The JSON report lists every resolution; the esm-only profile leaves out node10 and node16 from CommonJS,
      // which an ES-module-only package does not serve (its CLI exit code ignores them too).
      const problems = (report.analysis?.problems ?? [{ resolutionKind: "no analysis" }]).filter(
        (problem) => problem.resolutionKind !== "node10" && problem.resolutionKind !== "node16-cjs"
      )
      expect(problems, folder).toEqual([])
    }
  }, 180_000)

  it("dry-runs `pnpm release`'s publishing step", async () => {
    // A registry that knows no package (every read 404), on loopback: the dry run asks which versions are published
    // without leaving the machine, and a dry run uploads nothing (an upload would be answered 405 and fail the run).
    const asked: Array<string> = []
    const registry = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`)
      response.writeHead(request.method === "GET" ? 404 : 405, { "content-type": "application/json" }).end("{}")
    })
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = registry.address() as AddressInfo
      const { stdout, stderr } = await run(
        "pnpm",
        ["publish", "-r", "--dry-run", "--no-git-checks", `--registry=http://127.0.0.1:${port}/`],
        { cwd: root, env: { ...process.env, npm_config_loglevel: "notice" } }
      )
      const output = `${stdout}\n${stderr}`
      for (const folder of PUBLISHED) expect(output).toContain(manifest(folder).name)
      expect(asked.filter((line) => !line.startsWith("GET "))).toEqual([])
    } finally {
      await new Promise((resolve) => registry.close(resolve))
    }
  }, 180_000)
})
