/**
 * The checked body (`platform/RequestBody.ts`): read once whatever asks for it, concurrently or after, its failure
 * included (the HTTP tests cover the answers: 413, invalid UTF-8, invalid JSON); and the bounded read of a node:http
 * message leaving no listener behind, its client hung up or its fiber interrupted.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Fiber } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { describe, expect, it } from "vitest"
import { BodyRejected, type BoundedBody, checkBody, readBoundedBody } from "../../src/platform/RequestBody.js"

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

/**
 * `readBoundedBody` on node:http's message (how both hosts are served): the message handed over as the request's
 * source, as `@effect/platform-node` does. `onRequest` runs for the one request the returned server receives.
 */
const serving = (onRequest: (message: IncomingMessage) => void) =>
  new Promise<{ server: Server; port: number }>((resolve) => {
    const server = createServer((message, response) => {
      onRequest(message)
      message.on("close", () => response.destroy())
    })
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port }))
  })

const boundedBodyOf = (message: IncomingMessage) =>
  readBoundedBody({ headers: message.headers, source: message } as unknown as HttpServerRequest.HttpServerRequest, 1024)

/** Sends a request declaring `length` bytes of body, `sent` of them, and then hangs up. */
const hangUpAfter = (port: number, length: number, sent: string) => {
  const socket = connect(port, "127.0.0.1", () => {
    socket.write(`POST /oauth/token HTTP/1.1\r\nhost: x\r\ncontent-length: ${length}\r\n\r\n${sent}`)
    setTimeout(() => socket.destroy(), 50)
  })
  socket.on("error", () => {})
}

describe("the bounded body of a node:http message", () => {
  it("a client that hangs up mid-body: unreadable, and no listener of the read is left on the message", async () => {
    let message: IncomingMessage | undefined
    const read = new Promise<BoundedBody>((resolve) => {
      void serving((incoming) => {
        message = incoming
        void Effect.runPromise(boundedBodyOf(incoming)).then(resolve)
      }).then(({ server, port }) => {
        hangUpAfter(port, 100, "grant_type=")
        void read.finally(() => server.close())
      })
    })
    expect(await read).toEqual({ _tag: "Unreadable" })
    expect(message?.listenerCount("data")).toBe(0)
    expect(message?.listenerCount("end")).toBe(0)
  })

  it("a read interrupted while it waits (its client hung up): its listeners leave with the message's close", async () => {
    let message: IncomingMessage | undefined
    const { server, port } = await serving((incoming) => {
      message = incoming
      const fiber = Effect.runFork(boundedBodyOf(incoming))
      setTimeout(() => void Effect.runPromise(Fiber.interrupt(fiber)), 10)
    })
    const closed = new Promise<void>((resolve) => {
      server.on("request", (incoming: IncomingMessage) => incoming.on("close", () => setImmediate(resolve)))
    })
    hangUpAfter(port, 100, "grant_type=")
    await closed
    server.close()
    expect(message?.listenerCount("data")).toBe(0)
    expect(message?.listenerCount("end")).toBe(0)
    expect(message?.listenerCount("error")).toBe(0)
  })
})
