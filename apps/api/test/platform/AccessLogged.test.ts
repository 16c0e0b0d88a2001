/**
 * `platform/RequestLog.accessLogged`: the request's line is written whatever the app's exit, an interruption (the
 * client hung up: 499) included, whether the request's fiber runs uninterruptible around the app (as every request
 * does under the HTTP platform, the app's handler made interruptible inside) or interruptible (then the app is run
 * as `Effect.onExit` runs it); its `answer` is given the app's response or failure after the line is written.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Exit, Fiber, LogLevel } from "effect"
import { describe, expect, it } from "vitest"
import * as Logging from "../../src/platform/Logging.js"
import { accessLogged } from "../../src/platform/RequestLog.js"

const request = () => HttpServerRequest.fromWeb(new Request("http://identity.test/oauth/token", { method: "POST" }))

/** The lines `effect` logs (JSON, parsed), and its exit. */
const logged = async <A, E>(effect: Effect.Effect<A, E, HttpServerRequest.HttpServerRequest>) => {
  const lines: Array<string> = []
  const exit = await Effect.runPromiseExit(
    effect.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request()),
      Effect.provide(Logging.layer("json", LogLevel.Info, (line) => lines.push(line)))
    )
  )
  return { exit, lines: lines.map((line) => JSON.parse(line) as Record<string, unknown>) }
}

/** `app` as the request `id`, forked, then interrupted once it has started. */
const hungUp = (id: string, app: HttpApp.Default, uninterruptible: boolean) =>
  Effect.gen(function* () {
    const logging = accessLogged(id, request(), app)
    const fiber = yield* Effect.fork(uninterruptible ? Effect.uninterruptible(logging) : logging)
    yield* Effect.yieldNow()
    yield* Fiber.interrupt(fiber)
  })

describe("accessLogged", () => {
  it("a client that hangs up while the app runs interruptible inside an uninterruptible request: one line, 499", async () => {
    const { lines } = await logged(hungUp("hung-1", Effect.interruptible(Effect.never), true))
    expect(lines.map(({ requestId, status, route }) => ({ requestId, status, route }))).toEqual([
      { requestId: "hung-1", status: 499, route: null }
    ])
  })

  it("a client that hangs up while the whole request runs interruptible: one line, 499", async () => {
    const { lines } = await logged(hungUp("hung-2", Effect.never, false))
    expect(lines.map(({ requestId, status }) => ({ requestId, status }))).toEqual([{ requestId: "hung-2", status: 499 }])
  })

  it("the answer is given the app's response, the line the app's status; a failure is answered after its line", async () => {
    for (const uninterruptible of [true, false]) {
      const answer = {
        onSuccess: (response: HttpServerResponse.HttpServerResponse) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "x-answered", "yes")),
        onFailure: () => Effect.succeed(HttpServerResponse.empty({ status: 503 }))
      }
      const run = <E>(app: HttpApp.Default<E>) => {
        const logging = accessLogged("answered", request(), app, answer)
        return uninterruptible ? Effect.uninterruptible(logging) : logging
      }
      const ok = await logged(run(Effect.succeed(HttpServerResponse.empty({ status: 201 }))))
      expect(Exit.isSuccess(ok.exit) && ok.exit.value.headers["x-answered"]).toBe("yes")
      expect(ok.lines.map((line) => line["status"])).toEqual([201])
      // A response carried as the failure's defect is the status the platform answers, and the line's.
      const refused = await logged(run(Effect.die(HttpServerResponse.empty({ status: 404 }))))
      expect(Exit.isSuccess(refused.exit) && refused.exit.value.status).toBe(503)
      expect(refused.lines.map((line) => line["status"])).toEqual([404])
      const broken = await logged(run(Effect.die("broken")))
      expect(Exit.isSuccess(broken.exit) && broken.exit.value.status).toBe(503)
      expect(broken.lines.map((line) => [line["level"], line["status"]])).toEqual([["error", 500]])
    }
  })

  it("without an answer, the app's exit is the answer", async () => {
    const { exit, lines } = await logged(Effect.uninterruptible(accessLogged("plain", request(), Effect.die("broken"))))
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    expect(lines.map((line) => line["status"])).toEqual([500])
  })
})
