/**
 * `platform/ServeOnly.serveOnly`: a request runs with only the services its app names (plus the request, the serving
 * layer's Scope and the Layer memo map), not the whole Context the server was built in, and is answered as
 * `HttpServer.serve` answers it.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { describe, expect, it } from "vitest"
import { buildOnly, serveOnly } from "../../src/platform/ServeOnly.js"

class Named extends Context.Tag("test/ServeOnly/Named")<Named, { readonly greeting: string }>() {}
class Unnamed extends Context.Tag("test/ServeOnly/Unnamed")<Unnamed, { readonly secret: string }>() {}

/** Answers the keys of the request fiber's Context and the named service's greeting. */
const app = Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, Named | HttpServerRequest.HttpServerRequest>(
  (fiber) => {
    const context = fiber.currentContext as Context.Context<Named | HttpServerRequest.HttpServerRequest>
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    return Effect.succeed(
      HttpServerResponse.unsafeJson({
        url: request.url,
        greeting: Context.get(context, Named).greeting,
        keys: [...context.unsafeMap.keys()].sort()
      })
    )
  }
)

const serveAndCall = <E>(server: Layer.Layer<never, E, HttpServer.HttpServer | Named | Unnamed>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { address } = yield* HttpServer.HttpServer
      if (address._tag !== "TcpAddress") return yield* Effect.die("not TCP")
      const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}/hello`))
      return (yield* Effect.promise(() => response.json())) as { url: string; greeting: string; keys: Array<string> }
    }).pipe(
      Effect.provide(
        server.pipe(
          Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
          Layer.provideMerge(Layer.succeed(Named, { greeting: "hello" })),
          Layer.provideMerge(Layer.succeed(Unnamed, { secret: "not for requests" }))
        )
      ),
      Effect.scoped
    )
  )

describe("serveOnly", () => {
  it("runs a request with the named services only, and answers it", async () => {
    const answer = await serveAndCall(serveOnly(app, [Named]))
    expect(answer.url).toBe("/hello")
    expect(answer.greeting).toBe("hello")
    // The request's own additions (the request, the platform's server span as the parent span) and the named service.
    expect(answer.keys).toEqual(
      [
        "@effect/platform/HttpServerRequest",
        "effect/Layer/CurrentMemoMap",
        "effect/ParentSpan",
        "effect/Scope",
        "test/ServeOnly/Named"
      ].sort()
    )
  })

  it("runs a server middleware, given, with the named services only too", async () => {
    let middlewareKeys: Array<string> = []
    const answer = await serveAndCall(
      serveOnly(app, [Named], (served) =>
        Effect.withFiberRuntime((fiber) => {
          middlewareKeys = [...fiber.currentContext.unsafeMap.keys()].sort()
          return Effect.map(served, HttpServerResponse.setHeader("x-middleware", "ran"))
        })
      )
    )
    expect(answer.greeting).toBe("hello")
    expect(answer.keys).not.toContain("test/ServeOnly/Unnamed")
    expect(middlewareKeys).toContain("test/ServeOnly/Named")
    expect(middlewareKeys).toContain("@effect/platform/HttpServerRequest")
    expect(middlewareKeys).not.toContain("test/ServeOnly/Unnamed")
    expect(middlewareKeys).not.toContain("@effect/platform/HttpServer")
  })

  it("where HttpServer.serve runs it with every service the server was built with", async () => {
    const answer = await serveAndCall(HttpServer.serve(app))
    expect(answer.greeting).toBe("hello")
    expect(answer.keys).toContain("test/ServeOnly/Unnamed")
    expect(answer.keys).toContain("@effect/platform/HttpServer")
  })
})

/** A service whose layer keeps the Context it was built in, as an HttpApi handler group does. */
class Captured extends Context.Tag("test/ServeOnly/Captured")<Captured, { readonly keys: ReadonlyArray<string> }>() {}
const capturing = Layer.effect(
  Captured,
  Effect.map(Effect.context<Named>(), (context) => ({ keys: [...context.unsafeMap.keys()].sort() }))
)

/** A layer with a side effect, to see whether it is built once when two layers use it. */
let shareBuilt = 0
class Shared extends Context.Tag("test/ServeOnly/Shared")<Shared, { readonly n: number }>() {}
const SharedLive = Layer.sync(Shared, () => ({ n: ++shareBuilt }))

describe("buildOnly", () => {
  const outer = Layer.mergeAll(Layer.succeed(Named, { greeting: "hello" }), Layer.succeed(Unnamed, { secret: "not for it" }))
  const keysOf = (layer: Layer.Layer<Captured, never, Named | Unnamed>) =>
    Effect.runPromise(Effect.map(Captured, (captured) => captured.keys).pipe(Effect.provide(layer.pipe(Layer.provide(outer)))))

  it("builds a layer in a Context of the named services only", async () => {
    const keys = await keysOf(buildOnly(capturing, [Named]))
    expect(keys).toContain("test/ServeOnly/Named")
    expect(keys).not.toContain("test/ServeOnly/Unnamed")
  })

  it("where a layer otherwise captures every service it is given", async () => {
    const keys = await keysOf(capturing)
    expect(keys).toContain("test/ServeOnly/Unnamed")
  })

  it("shares the memo map: a layer used inside and outside is built once", async () => {
    shareBuilt = 0
    const inside = Layer.effectDiscard(Shared).pipe(Layer.provide(SharedLive))
    const result = await Effect.runPromise(
      Effect.map(Shared, (shared) => shared.n).pipe(
        Effect.provide(Layer.merge(buildOnly(inside, []), SharedLive).pipe(Layer.provide(outer)))
      )
    )
    expect(result).toBe(1)
    expect(shareBuilt).toBe(1)
  })
})
