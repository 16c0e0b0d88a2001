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
import { serveOnly } from "../../src/platform/ServeOnly.js"

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

  it("where HttpServer.serve runs it with every service the server was built with", async () => {
    const answer = await serveAndCall(HttpServer.serve(app))
    expect(answer.greeting).toBe("hello")
    expect(answer.keys).toContain("test/ServeOnly/Unnamed")
    expect(answer.keys).toContain("@effect/platform/HttpServer")
  })
})
