/**
 * `useOwnSourceMaps` (what `start.ts` calls before importing the product): a stack trace through one of our built
 * files names its TypeScript source and line, as `--enable-source-maps` made it; a library's map (`node_modules`) is
 * not loaded, and its frames keep the published JavaScript's positions. Each case runs in a child Node process of
 * its own (the setting is process-wide and applies to modules loaded after it) on the built `dist` files, as the
 * product runs them.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const apiRoot = fileURLToPath(new URL("../..", import.meta.url))

interface Observed {
  /** The stack of an error thrown inside `@propline/identity/ClientSecret` (a file of ours). */
  readonly ours: string
  /** The stack of an error thrown by a callback that effect's `pipe` calls (a library's file). */
  readonly library: string
  /** Whether Node holds a source map for each of the two files. */
  readonly oursMapped: boolean
  readonly libraryMapped: boolean
}

/** Runs the probe in a child process, with `useOwnSourceMaps()` called first when `setting` is true. */
const observe = (setting: boolean, nodeFlags: ReadonlyArray<string> = []): Observed => {
  const script = `
${setting ? 'const { useOwnSourceMaps } = await import("./dist/platform/SourceMaps.js"); useOwnSourceMaps()' : ""}
const { findSourceMap } = await import("node:module")
const { formatSecret } = await import("@propline/identity/ClientSecret")
const { pipe } = await import("effect/Function")
const stackOf = (f) => { try { f() } catch (error) { return error.stack } }
console.log(JSON.stringify({
  ours: stackOf(() => formatSecret(new Uint8Array(1))),
  library: stackOf(() => pipe(1, () => { throw new Error("inside a library") })),
  oursMapped: findSourceMap(import.meta.resolve("@propline/identity/ClientSecret")) !== undefined,
  libraryMapped: findSourceMap(import.meta.resolve("effect/Function")) !== undefined
}))
`
  const child = spawnSync(process.execPath, [...nodeFlags, "--input-type=module", "--eval", script], {
    cwd: apiRoot,
    encoding: "utf8",
    timeout: 30_000
  })
  if (child.status !== 0) throw new Error(`the probe failed (${child.status}):\n${child.stderr}`)
  return JSON.parse(child.stdout) as Observed
}

describe("useOwnSourceMaps", () => {
  it("maps our files' frames to their TypeScript sources and leaves the libraries' maps unread", () => {
    const observed = observe(true)
    expect(observed.ours).toMatch(/at formatSecret \(\S*packages\/identity\/src\/ClientSecret\.ts:\d+:\d+\)/)
    expect(observed.oursMapped).toBe(true)
    expect(observed.library).toMatch(/at pipe \(\S*node_modules\/\S*effect\/dist\/esm\/Function\.js:\d+:\d+\)/)
    expect(observed.libraryMapped).toBe(false)
  })

  it("is what changes the frames: without it they name the built JavaScript", () => {
    const observed = observe(false)
    expect(observed.ours).toMatch(/at formatSecret \(\S*packages\/identity\/dist\/ClientSecret\.js:\d+:\d+\)/)
    expect(observed.oursMapped).toBe(false)
  })

  it("maps our frames to the same places as --enable-source-maps", () => {
    const frame = (stack: string) => /at formatSecret \((\S+)\)/.exec(stack)?.[1]
    expect(frame(observe(true).ours)).toBe(frame(observe(false, ["--enable-source-maps"]).ours))
  })
})
