/**
 * The checked body (`platform/RequestBody.ts`): read once whatever asks for it, concurrently or after, its failure
 * included (the HTTP tests cover the answers: 413, invalid UTF-8, invalid JSON).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { BodyRejected, checkBody } from "../../src/platform/RequestBody.js"

/** A request whose body is `bytes`, counting the reads of its body stream. */
const requestWith = (bytes: Uint8Array) => {
  let reads = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      reads++
      controller.enqueue(bytes)
      controller.close()
    }
  })
  const request = HttpServerRequest.fromWeb(
    new Request("http://localhost/v1/x", { method: "POST", body, duplex: "half" } as RequestInit)
  )
  return { request: checkBody(request), reads: () => reads }
}

describe("the checked request body", () => {
  it("reads the body once for concurrent and later readers, text and JSON alike", async () => {
    const { request, reads } = requestWith(new TextEncoder().encode(`{"externalReference":"ERP-1"}`))
    const [first, second] = await Effect.runPromise(Effect.all([request.text, request.text], { concurrency: 2 }))
    const json = await Effect.runPromise(request.json)
    expect([first, second]).toEqual([`{"externalReference":"ERP-1"}`, `{"externalReference":"ERP-1"}`])
    expect(json).toEqual({ externalReference: "ERP-1" })
    expect(reads()).toBe(1)
  })

  it("gives every reader the same refusal of a body that is not UTF-8", async () => {
    const { request, reads } = requestWith(new Uint8Array([0x7b, 0xff, 0x7d]))
    const first = await Effect.runPromise(Effect.flip(request.text))
    const second = await Effect.runPromise(Effect.flip(request.json))
    expect(first).toBeInstanceOf(BodyRejected)
    expect(first.reason).toBe("invalid_utf8")
    expect(second).toBe(first)
    expect(reads()).toBe(1)
  })
})
