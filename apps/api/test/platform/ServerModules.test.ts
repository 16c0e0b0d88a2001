/**
 * What the patched `@effect/platform-node` (`patches/@effect__platform-node@0.108.2.patch`) changes: its HTTP server
 * no longer imports `ws` and the undici HTTP client when its module loads. `ws` is loaded on the first WebSocket
 * upgrade, the undici client when `NodeHttpServer.layerTest` is built. Without the patch the API process carried both
 * (142 modules, about 1.4 MiB of source and 3 MiB of heap) for features it never uses.
 *
 * 1. The modules the API and identity hosts import (`Hosts.js`, as `main.ts` composes them) resolve neither package:
 *    a child Node process records every module URL it resolves (`module.registerHooks`).
 * 2. `layerTest` still serves an app and its client still calls it.
 * 3. A WebSocket upgrade still works: the server loads `ws` then and echoes a message to Node's WebSocket client.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const apiRoot = fileURLToPath(new URL("../..", import.meta.url))

/** The URLs of every module a child process resolves while it imports the hosts' composition. */
const resolvedByHosts = (): ReadonlyArray<string> => {
  const script = `
const { registerHooks } = await import("node:module")
const urls = []
registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); urls.push(resolved.url); return resolved } })
await import("./dist/Hosts.js")
await import("@effect/platform-node/NodeRuntime")
console.log(JSON.stringify(urls))
`
  const child = spawnSync(process.execPath, ["--input-type=module", "--eval", script], {
    cwd: apiRoot,
    encoding: "utf8",
    timeout: 60_000
  })
  expect(child.stderr).toBe("")
  expect(child.status).toBe(0)
  return JSON.parse(child.stdout) as ReadonlyArray<string>
}

describe("@effect/platform-node's HTTP server, patched", () => {
  it("the API and identity hosts' modules load neither ws nor undici", () => {
    const urls = resolvedByHosts()
    // The composition itself was resolved: the platform's server and our hosts are in the list.
    expect(urls.some((url) => url.includes("/@effect/platform-node/dist/esm/internal/httpServer.js"))).toBe(true)
    expect(urls.some((url) => url.endsWith("/apps/api/dist/ApiHost.js"))).toBe(true)
    expect(urls.filter((url) => /\/node_modules\/(ws|undici)\//.test(url))).toEqual([])
  })

  it("layerTest still serves an app and its HttpClient calls it", async () => {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/ping", HttpServerResponse.text("pong")))
    const body = await Effect.gen(function* () {
      const response = yield* HttpClient.get("/ping")
      return yield* response.text
    }).pipe(
      Effect.provide(Layer.provideMerge(HttpServer.serve(app), NodeHttpServer.layerTest)),
      Effect.scoped,
      Effect.runPromise
    )
    expect(body).toBe("pong")
  })

  it("a WebSocket upgrade still works: ws is loaded on the first one", async () => {
    const app = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/echo",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const socket = yield* request.upgrade
          const write = yield* socket.writer
          yield* socket.runRaw((message) => write(typeof message === "string" ? `echo ${message}` : message))
          return HttpServerResponse.empty()
        }).pipe(Effect.scoped, Effect.orDie)
      )
    )
    const echoed = await Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      if (address._tag !== "TcpAddress") return yield* Effect.die("not a TCP address")
      return yield* Effect.async<string>((resume) => {
        const client = new WebSocket(`ws://127.0.0.1:${address.port}/echo`)
        client.onopen = () => client.send("hello")
        client.onmessage = (event) => {
          resume(Effect.succeed(String(event.data)))
          client.close()
        }
        client.onerror = () => resume(Effect.die("the WebSocket failed"))
      })
    }).pipe(
      Effect.provide(Layer.provideMerge(HttpServer.serve(app), NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))),
      Effect.scoped,
      Effect.timeout("20 seconds"),
      Effect.runPromise
    )
    expect(echoed).toBe("echo hello")
  })
})
