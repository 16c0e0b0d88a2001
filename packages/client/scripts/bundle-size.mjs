/**
 * The client's cost in an application's bundle: bundles a minimal use of each API with esbuild, minified, ESM, for
 * the browser (dependencies included, as an app bundler would), and gives the minified and gzip sizes in bytes.
 *
 * - `promise`: the Promise API from the package root: `new Propline({ clientId, clientSecret })`, one call, one
 *   `instanceof`. The figure a Promise-API user pays.
 * - `effect`: the Effect API (`Client.make`, one call, `catchTag`), with effect, @effect/platform's HttpApiClient
 *   and the contract's schemas. An Effect application already carries most of it.
 * - `effectFloor`: `Effect.runPromise(Effect.succeed(1))` alone: what any use of Effect's runtime costs.
 *
 * `test/BundleSize.test.ts` fails when a figure grows past its budget. Run by hand (prints kB, 1000 bytes):
 *
 *   node packages/client/scripts/bundle-size.mjs
 */
import { build } from "esbuild"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const src = fileURLToPath(new URL("../src/", import.meta.url))

export const ENTRIES = {
  promise: `
import { NotFoundError, Propline } from "./index.js"
const propline = new Propline({ baseUrl: "https://api.example.com", clientId: "app", clientSecret: "secret" })
propline.billing.getSendQueue({ urlParams: { limit: 10 } }).then(
  (page) => console.log(page.items.length),
  (error) => console.log(error instanceof NotFoundError, error.requestId)
)`,
  effect: `
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Client from "./Client.js"
const program = Effect.flatMap(Client.make({ baseUrl: "https://api.example.com", clientId: "app", clientSecret: "secret" }),
  (api) => api.billing.getSendQueue({ urlParams: { limit: 10 } }).pipe(
    Effect.catchTag("NotFoundError", (error) => Effect.succeed(error.requestId))))
Effect.runPromise(Effect.provide(program, FetchHttpClient.layer)).then(console.log)`,
  effectFloor: `
import * as Effect from "effect/Effect"
Effect.runPromise(Effect.succeed(1)).then(console.log)`
}

/** One entry's bundle: `{ minified, gzip }` in bytes, and esbuild's metafile (what is in it). */
export const measure = async (name) => {
  const result = await build({
    stdin: { contents: ENTRIES[name], resolveDir: src, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "error"
  })
  const code = result.outputFiles[0].contents
  return { minified: code.length, gzip: gzipSync(code).length, metafile: result.metafile }
}

/** The bundle's bytes by package (`effect`, `jose`, …; the client's own files as `@propline/client`). */
export const byPackage = (metafile) => {
  const sizes = {}
  for (const output of Object.values(metafile.outputs))
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(file)
      const sibling = /^\.\.\/([^/]+)\//.exec(file)?.[1]
      const name = match?.[1] ?? (sibling !== undefined ? `@propline/${sibling}` : file.startsWith("src/") ? "@propline/client" : "entry")
      sizes[name] = (sizes[name] ?? 0) + bytesInOutput
    }
  return Object.fromEntries(Object.entries(sizes).sort((a, b) => b[1] - a[1]))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`
  for (const name of Object.keys(ENTRIES)) {
    const { minified, gzip, metafile } = await measure(name)
    const parts = Object.entries(byPackage(metafile)).map(([pkg, bytes]) => `${pkg} ${kB(bytes)}`)
    console.log(`${name}: ${kB(minified)} minified, ${kB(gzip)} minified + gzip (${parts.join(", ")})`)
  }
}
