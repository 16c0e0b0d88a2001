/**
 * The published client as an integrator installs it: `pnpm pack` of `@propline/client` and the workspace packages it
 * needs at run time (`@propline/contract`, `@propline/billing`, `@propline/refusal`), unpacked into a directory's
 * `node_modules` beside its peers (effect, @effect/platform) and jose, linked from the store as a registry install
 * would put them. The harness's client scenarios run on {@link loadPackedClient}'s Promise API; the example
 * connectors' test (tooling/scripts PackedClient.test.ts) installs the same way.
 *
 * Needs the packages built (`pnpm harness` builds them first) and `pnpm` on the PATH.
 */
import type * as PublishedClientModule from "@propline/client"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The repository's root (this file is `apps/harness/{src,dist}/PackedClient.*`). */
const root = fileURLToPath(new URL("../../..", import.meta.url))

/** Published workspace packages the client needs at run time, packed and unpacked. */
export const PACKED = ["client", "contract", "billing", "refusal"] as const
/** Third-party packages the client needs (peers and jose), linked from the workspace's store. */
export const LINKED = ["effect", "@effect/platform", "jose"] as const

/**
 * Packs {@link PACKED} and unpacks each into `dir/node_modules/@propline/<name>` (its own files: no link to the
 * workspace), links {@link LINKED}, and writes `dir/package.json`; returns `dir/node_modules`.
 */
export const installPacked = (dir: string): string => {
  const modules = path.join(dir, "node_modules")
  for (const name of PACKED) {
    const packDir = path.join(dir, "packs", name)
    mkdirSync(packDir, { recursive: true })
    execFileSync("pnpm", ["pack", "--pack-destination", packDir], { cwd: path.join(root, "packages", name), stdio: "pipe" })
    const tarball = path.join(packDir, readdirSync(packDir)[0] ?? "")
    const target = path.join(modules, "@propline", name)
    mkdirSync(target, { recursive: true })
    execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"])
  }
  const fromClient = createRequire(path.join(root, "packages", "client", "package.json"))
  for (const name of LINKED) {
    const packageDir = path.dirname(realpathSync(fromClient.resolve(`${name}/package.json`)))
    mkdirSync(path.dirname(path.join(modules, name)), { recursive: true })
    symlinkSync(packageDir, path.join(modules, name), "dir")
  }
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
  return modules
}

/** The packed client's root module: the Promise API (`Propline`) and its error classes. */
export type PublishedClient = typeof PublishedClientModule

/** Where the packed client was installed, and its module. */
export interface PackedClient {
  readonly dir: string
  /** The tarball's `package.json` version. */
  readonly version: string
  readonly module: PublishedClient
}

let loaded: Promise<PackedClient> | undefined

/**
 * The client from its tarball, installed once per process in a fresh temporary directory (removed when the process
 * exits) and imported from there by its package root, as `import { Propline } from "@propline/client"` would.
 */
export const loadPackedClient = (): Promise<PackedClient> => {
  loaded ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "propline-harness-client-"))
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
    const modules = installPacked(dir)
    const installed = path.join(modules, "@propline", "client")
    const { version } = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as { version: string }
    const entry = path.join(installed, "dist", "index.js")
    return { dir, version, module: (await import(pathToFileURL(entry).href)) as PublishedClient }
  })()
  return loaded
}

/** A `new Propline(…)` of the packed client. */
export type PublishedPropline = InstanceType<PublishedClient["Propline"]>
