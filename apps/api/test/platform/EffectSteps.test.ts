/**
 * How many Effect instructions one token request runs (issue 27): each is a step of the fiber's run loop, most with an
 * object or a closure of their own, so the token path's CPU and allocation grow with them. Counted on the fiber
 * runtime itself, through the real identity host (`TestApp`) with telemetry off as `main.ts` runs it: every
 * instruction handler of the runtime (one per op code) is wrapped while the request runs, and only the instructions of
 * fibers serving the request (their Context holds the request, marked by its X-Request-Id) are counted.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { basicToken, start, type TestApp } from "../support/TestApp.js"

/**
 * At most this many instructions per client_credentials token request (HTTP Basic). 145 before the sixth round
 * (docs/performance.md): about 60 of them the HTTP platform's, the rest the identity host's route, the grant, the
 * statement, the signature and the access log. The round's own code took it to 106, and the platform patches
 * (`patches/@effect__platform-node@0.108.2.patch`, `patches/@effect__platform@0.97.2.patch`: the answer from memory
 * without suspending, the request in the fork's Context, `toHandled`'s Scope in one FiberRef set) to 69.
 */
const TOKEN_REQUEST_INSTRUCTIONS = 69

/** The fiber runtime's instruction handlers, by op code (`effect/src/internal/opCodes/effect.ts`). */
const OP_CODES = [
  "Async",
  "Commit",
  "Failure",
  "OnFailure",
  "OnSuccess",
  "OnSuccessAndFailure",
  "Success",
  "Sync",
  "Tag",
  "UpdateRuntimeFlags",
  "While",
  "Iterator",
  "WithRuntime",
  "Yield"
] as const

type Handler = (this: Probed, op: unknown) => unknown

interface Probed {
  readonly currentContext: Context.Context<never>
}

/** The instructions of the fibers serving the request whose X-Request-Id is `marker`, while `run` runs. */
const countInstructions = async (marker: string, run: () => Promise<unknown>): Promise<number> => {
  const prototype = Effect.runSync(
    Effect.withFiberRuntime<Record<string, Handler | undefined>>((fiber) =>
      Effect.succeed(Object.getPrototypeOf(fiber) as Record<string, Handler | undefined>)
    )
  )
  const originals = new Map<string, Handler>()
  let count = 0
  for (const code of OP_CODES) {
    const original = prototype[code]
    if (original === undefined) throw new Error(`the fiber runtime has no ${code} handler`)
    originals.set(code, original)
    prototype[code] = function (this: Probed, op: unknown) {
      const request = Context.getOption(this.currentContext, HttpServerRequest.HttpServerRequest)
      if (request._tag === "Some" && request.value.headers["x-request-id"] === marker) count++
      return original.call(this, op)
    }
  }
  try {
    await run()
  } finally {
    for (const [code, original] of originals) prototype[code] = original
  }
  return count
}

describe.each(TestDatabase.kinds())("Effect instructions per token request with telemetry off on %s", (kind) => {
  let app: TestApp
  let client: { readonly clientId: string; readonly secret: string }

  beforeAll(async () => {
    app = await start(kind, {
      // What `Telemetry.fromEnv` and `main.ts` do without OTEL_EXPORTER_OTLP_ENDPOINT.
      logger: Layer.mergeAll(
        Layer.setTracerEnabled(false),
        Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)
      )
    })
    const org = await app.run(Fixtures.organization({ name: "Counted" }))
    client = await app.run(Fixtures.application(org, { roles: ["billing"] }))
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it(`a client_credentials request runs at most ${TOKEN_REQUEST_INSTRUCTIONS}`, async () => {
    await basicToken(app.authUrl, client.clientId, client.secret)
    const counts: Array<number> = []
    for (const marker of ["count-1", "count-2", "count-3"]) {
      counts.push(
        await countInstructions(marker, async () => {
          const issued = await fetch(`${app.authUrl}/oauth/token`, {
            method: "POST",
            headers: {
              authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString("base64")}`,
              "content-type": "application/x-www-form-urlencoded",
              "x-request-id": marker
            },
            body: "grant_type=client_credentials"
          })
          expect(issued.status).toBe(200)
          await issued.text()
        })
      )
    }
    console.log(`token request: ${counts.join(", ")} Effect instructions`)
    for (const count of counts) {
      expect(count).toBeGreaterThan(0)
      expect(count).toBeLessThanOrEqual(TOKEN_REQUEST_INSTRUCTIONS)
    }
  })
})
