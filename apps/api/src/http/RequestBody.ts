/**
 * How the API host reads a request body: at most {@link MAX_BODY_BYTES} (a larger body is refused with 413 before
 * it is buffered), strictly UTF-8 (RFC 8259 section 8.1: invalid bytes are a 400, never silently replaced), then
 * JSON. The body is read only when an operation first asks for it — after authentication and the role check — and
 * once. Refusals travel as {@link BodyRejected} defects out of the platform's decoder, and `Problems` turns them
 * into problem details.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Data, Effect, Stream } from "effect"

/** The largest body the API host reads, in bytes: 64 KiB (the largest valid body of spec 4.1 is far below). */
export const MAX_BODY_BYTES = 64 * 1024

/** Why a body was not read: too large (413), not UTF-8, not JSON, or the connection failed mid-body (400). */
export class BodyRejected extends Data.TaggedError("BodyRejected")<{
  readonly reason: "too_large" | "invalid_utf8" | "invalid_json" | "unreadable"
}> {}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false })

const readText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, BodyRejected> => {
  const declared = Number(request.headers["content-length"] ?? "0")
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Effect.fail(new BodyRejected({ reason: "too_large" }))
  return request.stream.pipe(
    // Past the limit the rest is drained, not kept, so memory stays bounded whatever the client sends.
    Stream.runFold({ size: 0, chunks: [] as Array<Uint8Array> }, (state, chunk) => {
      const size = state.size + chunk.length
      if (size <= MAX_BODY_BYTES) state.chunks.push(chunk)
      return { size, chunks: state.chunks }
    }),
    Effect.mapError(() => new BodyRejected({ reason: "unreadable" })),
    Effect.flatMap(({ size, chunks }) => {
      if (size > MAX_BODY_BYTES) return Effect.fail(new BodyRejected({ reason: "too_large" }))
      return Effect.try({
        try: () => utf8.decode(Buffer.concat(chunks)),
        catch: () => new BodyRejected({ reason: "invalid_utf8" })
      })
    })
  )
}

/**
 * The request, with `text`, `json`, `urlParamsBody` and `arrayBuffer` reading the body as described above. Every
 * other member is the original request's.
 */
export const withCheckedBody = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  let text: Effect.Effect<string, BodyRejected> | undefined
  const cachedText = () => (text ??= Effect.runSync(Effect.cached(readText(request))))
  return Object.create(request, {
    text: { get: cachedText },
    json: {
      get: () =>
        Effect.flatMap(cachedText(), (body) =>
          Effect.try({
            try: (): unknown => (body === "" ? null : JSON.parse(body)),
            catch: () => new BodyRejected({ reason: "invalid_json" })
          })
        )
    },
    urlParamsBody: { get: () => Effect.fail(new BodyRejected({ reason: "invalid_json" })) },
    arrayBuffer: { get: () => Effect.map(cachedText(), (body) => new TextEncoder().encode(body).buffer) }
  }) as HttpServerRequest.HttpServerRequest
}
