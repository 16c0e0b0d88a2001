/**
 * The Promise API's cost in an application's bundle: bundles a minimal use of it (`new Propline(...)`, one call,
 * one `instanceof` check; effect, @effect/platform, jose and the contract included, as an app bundler would) with
 * esbuild, minified, for the browser and for Node, and prints the minified and gzip sizes in kB (1000 bytes).
 *
 *   pnpm --filter @propline/client build && node packages/client/scripts/bundle-size.mjs
 */
import { build } from "esbuild"
import { gzipSync } from "node:zlib"
import { fileURLToPath } from "node:url"

const dist = fileURLToPath(new URL("../dist/", import.meta.url))
const entry = `
import { Propline } from "./Propline.js"
import { NotFoundError } from "./Errors.js"
const propline = new Propline({ baseUrl: "https://api.example.com", clientId: "app", clientSecret: "secret" })
propline.billing.getSendQueue({ urlParams: { limit: 10 } }).then(
  (page) => console.log(page.items.length),
  (error) => console.log(error instanceof NotFoundError, error.requestId)
)
`

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`
for (const platform of ["browser", "node"]) {
  const result = await build({
    stdin: { contents: entry, resolveDir: dist, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    write: false,
    logLevel: "error"
  })
  const code = result.outputFiles[0].contents
  console.log(`${platform}: ${kB(code.length)} minified, ${kB(gzipSync(code).length)} minified + gzip`)
}
