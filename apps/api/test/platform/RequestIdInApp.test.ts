/**
 * `platform/RequestId.requestIdInApp`: the id's header on the answer an app gives, and on the answer the HTTP platform
 * makes of an app's failure (`RouteNotFound` as 404, a defect as 500), a well-formed incoming id kept.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { describe, expect, it } from "vitest"
import { requestIdInApp } from "../../src/platform/RequestId.js"

/** `/ok` answers 200 with a header of its own, `/missing` fails with RouteNotFound, anything else dies. */
const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  request.url === "/ok"
    ? Effect.succeed(HttpServerResponse.text("fine", { headers: { "x-own": "kept" } }))
    : request.url === "/missing"
      ? Effect.fail(new HttpServerError.RouteNotFound({ request }))
      : Effect.die("broken")
)

const call = (paths: ReadonlyArray<readonly [path: string, id: string | undefined]>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { address } = yield* HttpServer.HttpServer
      if (address._tag !== "TcpAddress") return yield* Effect.die("not TCP")
      const answers: Array<{ status: number; id: string | null; own: string | null }> = []
      for (const [path, id] of paths) {
        const response = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${address.port}${path}`, id === undefined ? {} : { headers: { "x-request-id": id } })
        )
        yield* Effect.promise(() => response.text())
        answers.push({ status: response.status, id: response.headers.get("x-request-id"), own: response.headers.get("x-own") })
      }
      return answers
    }).pipe(
      Effect.provide(
        HttpServer.serve(requestIdInApp(app)).pipe(
          Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
        )
      ),
      Effect.scoped
    )
  )

describe("requestIdInApp", () => {
  it("sets the id on the app's answer and on the platform's answer to a failure", async () => {
    const [ok, missing, broken, fresh] = await call([
      ["/ok", "erp-1"],
      ["/missing", "erp-2"],
      ["/broken", "erp-3"],
      ["/ok", "not ok"]
    ])
    expect(ok).toEqual({ status: 200, id: "erp-1", own: "kept" })
    expect(missing).toEqual({ status: 404, id: "erp-2", own: null })
    expect(broken).toEqual({ status: 500, id: "erp-3", own: null })
    expect(fresh?.status).toBe(200)
    expect(fresh?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })
})
