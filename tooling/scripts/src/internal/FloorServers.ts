/**
 * The servers `bench-floor.ts` compares, started as `node FloorServers.js <node|fastify|effect|router|httpapi> <port>` on
 * 127.0.0.1. All answer the same request with the same bytes and do no other work, so what separates their CPU per
 * request is the HTTP stack alone:
 *
 * - `GET /v1/queue?limit=N` with `Authorization: Bearer <token>`: 401 without a bearer token, 400 for a `limit`
 *   that is not a whole number from 1 to 100, else 200 with {@link BODY} (a constant JSON page).
 * - `node`: plain `node:http`, the header and the parameter checked by hand.
 * - `fastify`: Fastify 5 as the conventional peer (`bench-peer/`) is built: an `onRequest` hook checking the bearer
 *   header, `limit` validated by the route's querystring JSON schema (Ajv, with type coercion), the page sent as
 *   text with its content type, logger off. The framework a user would otherwise pick, at its own floor.
 * - `effect`: plain `node:http` whose listener runs the same checks as one Effect per request, on a runtime made once
 *   (`Runtime.runCallback`): what the Effect runtime costs without `@effect/platform`'s server, router and HttpApi.
 * - `router`: the stack the identity host uses (`IdentityRouter`, where `POST /oauth/token` is served): an
 *   `@effect/platform` `HttpRouter` route served by `HttpServer.serve` on `NodeHttpServer`, no HttpApi; the handler
 *   checks the bearer header by hand and decodes `limit` with the same Schema; spans off and the platform's tracer
 *   middleware skipped (as `main.ts`).
 * - `httpapi`: the stack the API host uses: an `@effect/platform` HttpApi group with a bearer security middleware
 *   that provides a principal (as `Authentication` does), the `limit` decoded by a Schema, the body handed to
 *   node:http as text (as `JsonResponse.encodedJson` does), `NodeHttpServer`, spans off and the platform's tracer
 *   middleware skipped (as `main.ts`).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Context, Effect, Layer, Redacted, Runtime, Schema } from "effect"
import Fastify from "fastify"
import { createServer, type IncomingMessage } from "node:http"

/** The page every server answers: 50 items of about 40 bytes, as JSON. */
const BODY = JSON.stringify({
  items: Array.from({ length: 50 }, (_, index) => ({ id: index, status: "approved", currency: "SEK" })),
  nextCursor: null
})

const BODY_BYTES = Buffer.byteLength(BODY)

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

const serveNode = (port: number) => {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost")
    if (request.method !== "GET" || url.pathname !== "/v1/queue") {
      response.writeHead(404).end()
      return
    }
    if (!BEARER.test(request.headers.authorization ?? "")) {
      response.writeHead(401, { "content-type": "application/problem+json" }).end('{"status":401}')
      return
    }
    const limit = url.searchParams.get("limit")
    if (limit !== null && !(/^[1-9][0-9]*$/.test(limit) && Number(limit) <= 100)) {
      response.writeHead(400, { "content-type": "application/problem+json" }).end('{"status":400}')
      return
    }
    response.writeHead(200, { "content-type": "application/json", "content-length": BODY_BYTES }).end(BODY)
  })
  server.listen(port, "127.0.0.1")
}

const serveFastify = async (port: number) => {
  const app = Fastify({ logger: false })
  app.addHook("onRequest", async (request, reply) => {
    if (!BEARER.test(request.headers.authorization ?? "")) {
      await reply.code(401).type("application/problem+json").send('{"status":401}')
    }
  })
  app.get(
    "/v1/queue",
    { schema: { querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 100 } } } } },
    async (_request, reply) => reply.type("application/json").send(BODY)
  )
  app.setErrorHandler(async (error: { readonly validation?: unknown }, _request, reply) => {
    const status = error.validation === undefined ? 500 : 400
    return reply.code(status).type("application/problem+json").send(`{"status":${status}}`)
  })
  await app.listen({ port, host: "127.0.0.1" })
}

const serveEffect = (port: number) => {
  const decodeLimit = Schema.decodeUnknown(Limit)
  const runtime = Runtime.defaultRuntime
  const answer = (
    request: IncomingMessage
  ): Effect.Effect<readonly [status: number, body: string, contentType: string]> =>
    Effect.gen(function* () {
      const url = new URL(request.url ?? "/", "http://localhost")
      if (request.method !== "GET" || url.pathname !== "/v1/queue") return [404, "", "text/plain"] as const
      if (!BEARER.test(request.headers.authorization ?? "")) return [401, '{"status":401}', "application/problem+json"] as const
      const limit = url.searchParams.get("limit")
      if (limit !== null && (yield* Effect.either(decodeLimit(limit)))._tag === "Left") {
        return [400, '{"status":400}', "application/problem+json"] as const
      }
      return [200, BODY, "application/json"] as const
    })
  const server = createServer((request, response) => {
    Runtime.runCallback(runtime)(answer(request), {
      onExit: (exit) => {
        if (exit._tag === "Failure") {
          response.writeHead(500).end()
          return
        }
        const [status, body, contentType] = exit.value
        response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) }).end(body)
      }
    })
  })
  server.listen(port, "127.0.0.1")
}

class Caller extends Context.Tag("bench-floor/Caller")<Caller, { readonly token: string }>() {}

class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {}, HttpApiSchema.annotations({ status: 401 })) {}

class Bearer extends HttpApiMiddleware.Tag<Bearer>()("bench-floor/Bearer", {
  failure: Unauthorized,
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const Limit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))

const FloorApi = HttpApi.make("floor").add(
  HttpApiGroup.make("queue")
    .add(
      HttpApiEndpoint.get("page", "/v1/queue")
        .setUrlParams(Schema.Struct({ limit: Schema.optional(Limit) }))
        .addSuccess(Schema.Unknown)
    )
    .middleware(Bearer)
)

const serveHttpApi = (port: number) => {
  const BearerLive = Layer.succeed(Bearer, {
    bearer: (token) =>
      Redacted.value(token).length === 0 ? Effect.fail(new Unauthorized()) : Effect.succeed({ token: Redacted.value(token) })
  })
  const QueueLive = HttpApiBuilder.group(FloorApi, "queue", (handlers) =>
    handlers.handle("page", () =>
      Effect.as(
        Caller,
        HttpServerResponse.raw(BODY, { status: 200, contentType: "application/json", contentLength: BODY_BYTES })
      )
    )
  )
  const ApiLive = HttpApiBuilder.api(FloorApi).pipe(Layer.provide(QueueLive), Layer.provide(BearerLive))
  launchWithoutSpans(HttpApiBuilder.serve().pipe(Layer.provide(ApiLive)), port)
}

const problem = (status: number) =>
  HttpServerResponse.text(`{"status":${status}}`, { status, contentType: "application/problem+json" })

const serveRouter = (port: number) => {
  const decodeLimit = Schema.decodeUnknown(Limit)
  const page = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!BEARER.test(request.headers["authorization"] ?? "")) return problem(401)
    const { limit } = yield* HttpServerRequest.ParsedSearchParams
    if (limit !== undefined && (yield* Effect.either(decodeLimit(limit)))._tag === "Left") return problem(400)
    return HttpServerResponse.raw(BODY, { status: 200, contentType: "application/json", contentLength: BODY_BYTES })
  })
  const app = HttpRouter.empty.pipe(
    HttpRouter.get("/v1/queue", page),
    Effect.catchTag("RouteNotFound", () => Effect.succeed(HttpServerResponse.empty({ status: 404 })))
  )
  launchWithoutSpans(HttpServer.serve(app), port)
}

const listen = (port: number) => NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })

/** Serves `layer` on 127.0.0.1:`port` with spans off and the platform's tracer middleware skipped, as `main.ts` runs the hosts while telemetry is off. */
const launchWithoutSpans = (layer: Layer.Layer<never, never, Layer.Layer.Success<ReturnType<typeof listen>>>, port: number) =>
  HttpMiddleware.withTracerDisabledWhen(layer, () => true).pipe(
    Layer.provide(listen(port)),
    Layer.launch,
    Effect.provide(Layer.setTracerEnabled(false)),
    NodeRuntime.runMain
  )

const [kind, portText] = process.argv.slice(2)
const port = Number(portText)
if (!Number.isInteger(port) || port <= 0) throw new Error("usage: FloorServers.js <node|fastify|effect|router|httpapi> <port>")
if (kind === "node") serveNode(port)
else if (kind === "fastify") await serveFastify(port)
else if (kind === "effect") serveEffect(port)
else if (kind === "router") serveRouter(port)
else if (kind === "httpapi") serveHttpApi(port)
else throw new Error(`unknown server ${String(kind)}: node, fastify, effect, router or httpapi`)
