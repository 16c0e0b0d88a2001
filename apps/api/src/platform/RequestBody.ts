/**
 * How the API host reads a request body: at most {@link MAX_BODY_BYTES} (a larger body is refused with 413 before
 * it is buffered), strictly UTF-8 (RFC 8259 section 8.1: invalid bytes are a 400, never silently replaced), then
 * JSON nested at most {@link MAX_BODY_DEPTH} deep; an empty body is `undefined` (no JSON value). The body is read only when an operation first asks for it — after authentication and the role check — and
 * once. Refusals travel as {@link BodyRejected} defects out of the platform's decoder, and `Problems` turns them
 * into problem details.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Data, Deferred, Effect, FiberId, Stream } from "effect"
import { IncomingMessage } from "node:http"

/** The largest body the API host reads, in bytes: 64 KiB (the largest valid body of spec 4.1 is far below). */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * The deepest nesting of arrays and objects a body may have. No operation's body is nested more than a few
 * levels; the bound keeps a hostile body (thousands of `[`) from overflowing the stack of anything that walks the
 * parsed value recursively — the schema decoder and its error formatter among them.
 */
export const MAX_BODY_DEPTH = 32

/**
 * Why a body was not read: too large (413), not UTF-8, not JSON, nested deeper than {@link MAX_BODY_DEPTH}, or the
 * connection failed mid-body (400).
 */
export class BodyRejected extends Data.TaggedError("BodyRejected")<{
  readonly reason: "too_large" | "invalid_utf8" | "invalid_json" | "too_deep" | "unreadable"
}> {}

/**
 * The deepest nesting of `[` and `{` in a JSON text, brackets inside strings not counted; stops counting once past
 * `limit`. One pass, no recursion, so it is safe on any input of the bounded size.
 */
export const nestingDepth = (text: string, limit: number = MAX_BODY_DEPTH): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (inString) {
      if (char === 0x5c /* \ */) index++
      else if (char === 0x22 /* " */) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) depth--
  }
  return deepest
}

/** Whether a request carries a body: a Content-Length other than 0, or a Transfer-Encoding. */
export const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false })

/** A body read with a bound: its bytes, or why not. */
export type BoundedBody =
  | { readonly _tag: "Read"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Unreadable" }

/**
 * Reads at most `maxBytes` of a request's body: a larger declared Content-Length is refused before reading; a
 * larger streamed body is read to its end with the excess dropped, so memory stays bounded whatever the client
 * sends. Shared by both hosts.
 */
export const readBoundedBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<BoundedBody> => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > maxBytes) return Effect.succeed({ _tag: "TooLarge" })
  // Served by node:http (both hosts are): read the message's events directly, far cheaper than a Stream per body.
  if (request.source instanceof IncomingMessage) return readIncoming(request.source, maxBytes)
  return Stream.runFold(request.stream, { size: 0, chunks: [] as Array<Uint8Array> }, (state, chunk) => {
    state.size += chunk.length
    if (state.size <= maxBytes) state.chunks.push(chunk)
    return state
  }).pipe(
    Effect.map(
      (state): BoundedBody =>
        state.size > maxBytes ? { _tag: "TooLarge" } : { _tag: "Read", bytes: Buffer.concat(state.chunks) }
    ),
    Effect.orElseSucceed((): BoundedBody => ({ _tag: "Unreadable" }))
  )
}

/** {@link readBoundedBody} on a node:http message: the same bound, the same answers. */
const readIncoming = (message: IncomingMessage, maxBytes: number) =>
  Effect.async<BoundedBody>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(
        Effect.succeed(
          size > maxBytes
            ? { _tag: "TooLarge" }
            : { _tag: "Read", bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }
        )
      )
    }
    const onFailure = () => {
      cleanup()
      resume(Effect.succeed({ _tag: "Unreadable" }))
    }
    const cleanup = () => {
      message.off("data", onData)
      message.off("end", onEnd)
      message.off("error", onFailure)
      message.off("aborted", onFailure)
    }
    if (message.readableEnded) return onFailure()
    message.on("data", onData)
    message.once("end", onEnd)
    message.once("error", onFailure)
    message.once("aborted", onFailure)
    return Effect.sync(cleanup)
  })

const readText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, BodyRejected> =>
  Effect.flatMap(readBoundedBody(request, MAX_BODY_BYTES), (body) => {
    switch (body._tag) {
      case "TooLarge":
        return Effect.fail(new BodyRejected({ reason: "too_large" }))
      case "Unreadable":
        return Effect.fail(new BodyRejected({ reason: "unreadable" }))
      case "Read":
        return Effect.try({
          try: () => utf8.decode(body.bytes),
          catch: () => new BodyRejected({ reason: "invalid_utf8" })
        })
    }
  })

/**
 * `effect` run at most once, by the first run of the returned effect; that run and every other, concurrent ones
 * included, get its outcome (an interruption of the first run included), as `Effect.cached` gives, without
 * running a fiber to build it (`Effect.runSync`) for every request.
 */
const once = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  let outcome: Deferred.Deferred<A, E> | undefined
  return Effect.suspend(() => {
    if (outcome !== undefined) return Deferred.await(outcome)
    const deferred = (outcome = Deferred.unsafeMake<A, E>(FiberId.none))
    return Effect.zipRight(Effect.intoDeferred(effect, deferred), Deferred.await(deferred))
  })
}

/**
 * Gives `request` itself `text`, `json`, `urlParamsBody` and `arrayBuffer` reading the body as described above (own
 * properties, shadowing the platform's readers); every other member stays as it is. Returns `request`. The request
 * object is the one the HTTP platform made for this request and holds in its Context, so the checked readers reach
 * every reader of it without a copy of the request, of the Context (`provideService`) and of the fiber's FiberRefs
 * (set and restore) per request.
 */
export const checkBody = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  let text: Effect.Effect<string, BodyRejected> | undefined
  const cachedText = () => (text ??= once(readText(request)))
  return Object.defineProperties(request, {
    text: { get: cachedText },
    json: {
      get: () =>
        Effect.flatMap(cachedText(), (body) =>
          nestingDepth(body) > MAX_BODY_DEPTH
            ? Effect.fail(new BodyRejected({ reason: "too_deep" }))
            : Effect.try({
                // No body at all is read as `undefined`: `{}` or nothing is what an operation without fields accepts.
                try: (): unknown => (body === "" ? undefined : JSON.parse(body)),
                catch: () => new BodyRejected({ reason: "invalid_json" })
              })
        )
    },
    urlParamsBody: { get: () => Effect.fail(new BodyRejected({ reason: "invalid_json" })) },
    arrayBuffer: { get: () => Effect.map(cachedText(), (body) => new TextEncoder().encode(body).buffer) }
  })
}
