/**
 * The request lifecycle of the patched `@effect/platform-node` server and `@effect/platform`'s `HttpApp.toHandled`
 * (`patches/@effect__platform-node@0.108.2.patch`, `patches/@effect__platform@0.97.2.patch`, issue 27):
 *
 * 1. A body already in memory (a string, bytes, HEAD's none, an empty one) is handed to node whole and the request's
 *    fiber ends there: it runs once, start to end, without suspending until node's write callback (counted with a
 *    supervisor: every run of a fiber is one `onResume`). Without the patch each such request ran twice (the second
 *    time resumed through the scheduler only to close its scope and exit). The answer still arrives whole, a 4 MiB
 *    one too (more than a socket takes at once: node buffers the rest).
 * 2. A stream is still awaited (its fiber suspends while it writes) and arrives whole.
 * 3. A client that hangs up mid-stream still interrupts the handler's stream, and the request scope's finalizers run.
 * 4. The request scope's finalizers run after an answer from memory, with its success; `toHandled` gives the app a
 *    Scope and leaves the caller's Context without it.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Cause, Chunk, Deferred, Effect, Exit, Layer, Option, Schedule, Scope, Stream, Supervisor } from "effect"
import type { Fiber } from "effect"
import { createServer, get } from "node:http"
import { describe, expect, it } from "vitest"

/** Counts the runs (`onResume`) of every fiber it supervises; {@link answered} names the request fibers. */
class RunCounter extends Supervisor.AbstractSupervisor<void> {
  private readonly runs = new WeakMap<Fiber.RuntimeFiber<unknown, unknown>, number>()
  private readonly requests = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
  get value() {
    return Effect.void
  }
  override onResume<A, E>(fiber: Fiber.RuntimeFiber<A, E>) {
    this.runs.set(fiber, (this.runs.get(fiber) ?? 0) + 1)
  }
  /** Answers `response`, the current fiber named as the request's (`METHOD /path`). */
  answered(response: HttpServerResponse.HttpServerResponse) {
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse>((fiber) => {
        this.requests.set(`${request.method} ${request.url}`, fiber)
        return Effect.succeed(response)
      }))
  }
  /** The runs of each request fiber, by `METHOD /path`; `ended` false for one still running. */
  get byRequest() {
    return Object.fromEntries(
      [...this.requests].map(([name, fiber]) => [name, { runs: this.runs.get(fiber) ?? 0, ended: fiber.unsafePoll() !== null }])
    )
  }
}

const LARGE = "x".repeat(4 * 1024 * 1024)
const BYTES = new Uint8Array(Array.from({ length: 300 }, (_, index) => index % 256))
const encoder = new TextEncoder()

/** Serves `app` on 127.0.0.1 (a free port) under `supervisor` and runs `use` with the server's base URL. */
const served = <A, E>(
  app: HttpApp.Default<unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>,
  supervisor: Supervisor.Supervisor<unknown> | undefined,
  use: (base: string) => Effect.Effect<A, E>
): Promise<A> => {
  const program = Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    if (address._tag !== "TcpAddress") return yield* Effect.die("not a TCP address")
    return yield* use(`http://127.0.0.1:${address.port}`)
  }).pipe(
    Effect.provide(
      Layer.provideMerge(HttpServer.serve(app), NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    ),
    Effect.scoped,
    Effect.timeout("20 seconds")
  )
  return Effect.runPromise(supervisor === undefined ? program : Effect.supervised(program, supervisor))
}

const fetched = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) }
  })

describe("the HTTP server's request lifecycle, patched", () => {
  it("a string, bytes, HEAD or an empty body: the answer arrives whole and the request's fiber runs once", async () => {
    const counter = new RunCounter()
    const app = HttpRouter.empty.pipe(
      HttpRouter.get("/raw", counter.answered(HttpServerResponse.raw("a raw string", { contentType: "text/plain" }))),
      HttpRouter.get("/large", counter.answered(HttpServerResponse.raw(LARGE, { contentType: "text/plain" }))),
      HttpRouter.get("/text", counter.answered(HttpServerResponse.text("some text"))),
      HttpRouter.get("/bytes", counter.answered(HttpServerResponse.uint8Array(BYTES))),
      HttpRouter.get("/empty", counter.answered(HttpServerResponse.empty({ status: 204 })))
    )
    const answers = await served(app, counter, (base) =>
      Effect.gen(function* () {
        const raw = yield* fetched(`${base}/raw`)
        const large = yield* fetched(`${base}/large`)
        const text = yield* fetched(`${base}/text`)
        const bytes = yield* fetched(`${base}/bytes`)
        const empty = yield* fetched(`${base}/empty`)
        const head = yield* fetched(`${base}/raw`, { method: "HEAD" })
        // The request fibers have ended once their answers arrived; a moment for the old code's write callbacks.
        yield* Effect.sleep("50 millis")
        return { raw, large, text, bytes, empty, head }
      })
    )
    expect(answers.raw).toEqual({ status: 200, body: encoder.encode("a raw string") })
    expect(answers.large.status).toBe(200)
    expect(answers.large.body.length).toBe(LARGE.length)
    expect(answers.large.body.every((byte) => byte === 0x78)).toBe(true)
    expect(answers.text).toEqual({ status: 200, body: encoder.encode("some text") })
    expect(answers.bytes).toEqual({ status: 200, body: BYTES })
    expect(answers.empty).toEqual({ status: 204, body: new Uint8Array() })
    expect(answers.head).toEqual({ status: 200, body: new Uint8Array() })
    const once = { runs: 1, ended: true }
    expect(counter.byRequest).toEqual({
      "GET /raw": once,
      "GET /large": once,
      "GET /text": once,
      "GET /bytes": once,
      "GET /empty": once,
      "HEAD /raw": once
    })
  })

  it("a stream is still awaited: its fiber suspends while it writes, and the stream arrives whole", async () => {
    const chunks = ["one ", "two ", "three"]
    const counter = new RunCounter()
    const app = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/stream",
        counter.answered(
          HttpServerResponse.stream(
            Stream.fromIterable(chunks).pipe(
              Stream.tap(() => Effect.sleep("10 millis")),
              Stream.map((text) => encoder.encode(text))
            ),
            { contentType: "text/plain" }
          )
        )
      )
    )
    const answer = await served(app, counter, (base) => Effect.tap(fetched(`${base}/stream`), () => Effect.sleep("50 millis")))
    expect(new TextDecoder().decode(answer.body)).toBe("one two three")
    const { runs, ended } = counter.byRequest["GET /stream"] ?? { runs: 0, ended: false }
    expect(ended).toBe(true)
    expect(runs).toBeGreaterThan(1)
  })

  it("a client that hangs up mid-stream interrupts its stream; the request scope's finalizers run", async () => {
    const closed = Effect.runSync(Deferred.make<Exit.Exit<unknown, unknown>>())
    const streamEnded = Effect.runSync(Deferred.make<Exit.Exit<unknown, unknown>>())
    const app = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/endless",
        Effect.gen(function* () {
          yield* Effect.addFinalizer((exit) => Deferred.succeed(closed, exit))
          const endless = Stream.repeatEffectChunk(Effect.succeed(Chunk.of(encoder.encode("tick\n")))).pipe(
            Stream.schedule(Schedule.spaced("10 millis")),
            Stream.ensuringWith((exit) => Deferred.succeed(streamEnded, exit))
          )
          return HttpServerResponse.stream(endless, { contentType: "text/plain" })
        })
      )
    )
    const [scopeExit, streamExit] = await served(app, undefined, (base) =>
      Effect.gen(function* () {
        // Node's client: take the first chunk, then destroy the socket.
        yield* Effect.async<void>((resume) => {
          const request = get(`${base}/endless`, (response) => {
            response.once("data", () => {
              request.destroy()
              resume(Effect.void)
            })
          })
          request.on("error", () => undefined)
        })
        return yield* Effect.all([Deferred.await(closed), Deferred.await(streamEnded)])
      })
    )
    // The stream was interrupted as the client went away (by the server's client-abort fiber id), and the request's
    // scope was closed after it (with the error-handled response, as the platform always closed it).
    expect(Exit.isFailure(streamExit) && Cause.isInterruptedOnly(streamExit.cause)).toBe(true)
    if (Exit.isFailure(streamExit)) {
      expect([...Cause.interruptors(streamExit.cause)]).toEqual([HttpServerError.clientAbortFiberId])
    }
    expect(Exit.isExit(scopeExit)).toBe(true)
  })

  it("the request scope's finalizers run after an answer from memory, with its success", async () => {
    const closed = Effect.runSync(Deferred.make<Exit.Exit<unknown, unknown>>())
    const app = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/ok",
        Effect.as(
          Effect.addFinalizer((exit) => Deferred.succeed(closed, exit)),
          HttpServerResponse.raw("ok")
        )
      )
    )
    const [answer, exit] = await served(app, undefined, (base) =>
      Effect.all([fetched(`${base}/ok`), Deferred.await(closed)])
    )
    expect(answer).toEqual({ status: 200, body: encoder.encode("ok") })
    expect(Exit.isSuccess(exit)).toBe(true)
  })

  it("toHandled gives the app its own Scope and leaves the caller's Context without it", async () => {
    const request = HttpServerRequest.fromWeb(new Request("http://localhost/handled"))
    const seen: Array<string> = []
    const app = Effect.gen(function* () {
      const scope = yield* Scope.Scope
      yield* Scope.addFinalizer(scope, Effect.sync(() => seen.push("finalized")))
      seen.push("app")
      return HttpServerResponse.text("handled")
    })
    const handled = HttpApp.toHandled(
      app,
      (_request, response) => Effect.sync(() => seen.push(`responded ${response.status}`)),
      undefined
    )
    const after = await Effect.zipRight(handled, Effect.serviceOption(Scope.Scope)).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.runPromise
    )
    expect(seen).toEqual(["app", "responded 200", "finalized"])
    expect(Option.isNone(after)).toBe(true)
  })
})
