/**
 * The built front end (`@propline/admin/WebAssets`): hashed files under `/assets/` cached for a year (their names
 * change with their content), and `index.html` for every other GET, so the console's own routes load on reload.
 * A missing build is a 503 that says how to build it, never a crash.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { webAssetsDir } from "@propline/admin/WebAssets"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import * as path from "node:path"

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".html": "text/html; charset=utf-8"
}

const assetName = /^\/assets\/([A-Za-z0-9_.-]+)$/

const read = (file: string) =>
  Effect.tryPromise(() => readFile(file)).pipe(Effect.option)

/** Answers a request for the front end. */
export const staticAssets = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method !== "GET" && request.method !== "HEAD") {
    return HttpServerResponse.text("Method Not Allowed", { status: 405, headers: { allow: "GET, HEAD" } })
  }
  const pathname = new URL(request.url, "http://admin.invalid").pathname
  const asset = assetName.exec(pathname)
  if (asset !== null) {
    const name = asset[1]!
    const bytes = yield* read(path.join(webAssetsDir, "assets", name))
    if (bytes._tag === "None") return HttpServerResponse.text("Not Found", { status: 404 })
    return HttpServerResponse.uint8Array(bytes.value, {
      contentType: contentTypes[path.extname(name)] ?? "application/octet-stream",
      headers: { "cache-control": "public, max-age=31536000, immutable" }
    })
  }
  const index = yield* read(path.join(webAssetsDir, "index.html"))
  if (index._tag === "None") {
    return HttpServerResponse.text("The admin console's front end is not built: run `pnpm build`.", { status: 503 })
  }
  return HttpServerResponse.uint8Array(index.value, {
    contentType: contentTypes[".html"]!,
    headers: { "cache-control": "no-cache" }
  })
})
