/**
 * One HTTP attempt of a delivery (issue 22, items 3 and 4), with undici: a POST of the JSON body with the Standard
 * Webhooks headers; 2xx is delivered. Redirects are not followed (a 3xx is a failure); the whole attempt is limited to
 * the timeout (10 s by default); of the response only the first 1 KB is read, then the connection is dropped.
 *
 * Safe destinations are checked when connecting, on the address connected to: a host that is an IP literal before
 * the socket opens, a name on every address it resolves to (DNS rebinding can't slip a private address in after
 * the endpoint was saved). Unless private destinations are allowed, loopback, private, link-local (the cloud
 * metadata address 169.254.169.254 among them), unique-local and other non-public ranges are refused.
 */
import { refusedRange } from "@propline/webhooks/Destination"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { isIP } from "node:net"
import { Agent, buildConnector, request } from "undici"

/** The most of a response body an attempt keeps (and reads), in bytes. */
export const RESPONSE_CAP = 1024

export interface AttemptOutcome {
  readonly startedAt: Date
  readonly latencyMs: number
  readonly statusCode: number | null
  /** Null on a 2xx; otherwise why not. */
  readonly error: string | null
  readonly responseBody: string
}

class DestinationRefused extends Error {
  readonly code = "EDESTINATIONREFUSED"
}

const refusal = (address: string): DestinationRefused | undefined => {
  const range = refusedRange(address)
  return range === undefined ? undefined : new DestinationRefused(`destination_refused: ${address} is ${range}`)
}

/** `dns.lookup` that fails when any address the name resolves to is not public. */
const safeLookup = (
  hostname: string,
  options: { readonly family?: number; readonly all?: boolean },
  callback: (error: Error | null, address: string | ReadonlyArray<LookupAddress>, family?: number) => void
): void => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    const refused = addresses.map((entry) => refusal(entry.address)).find((problem) => problem !== undefined)
    if (refused !== undefined) return callback(refused, [])
    if (options.all === true) return callback(null, addresses)
    const first = addresses[0]
    return first === undefined ? callback(new Error(`no address for ${hostname}`), []) : callback(null, first.address, first.family)
  })
}

/** An undici agent for webhook attempts: safe destinations unless `allowPrivate`, no keep-alive between endpoints' bursts beyond 4 s. */
export const makeAgent = (allowPrivate: boolean, timeoutMs: number): Agent => {
  if (allowPrivate) return new Agent({ connect: { timeout: timeoutMs }, keepAliveTimeout: 4000 })
  const connector = buildConnector({ timeout: timeoutMs, lookup: safeLookup as never })
  return new Agent({
    keepAliveTimeout: 4000,
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[(.*)\]$/, "$1")
      const refused = isIP(host) === 0 ? undefined : refusal(host)
      if (refused !== undefined) return callback(refused, null)
      return connector(options, callback)
    }
  })
}

const describe = (error: unknown, timedOut: boolean): string => {
  if (timedOut) return "timeout"
  const found = (candidate: unknown): string | undefined => {
    if (candidate instanceof DestinationRefused) return candidate.message
    if (candidate instanceof Error && "cause" in candidate && candidate.cause !== undefined) return found(candidate.cause)
    return undefined
  }
  const refused = found(error)
  if (refused !== undefined) return refused
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  const message = error instanceof Error ? error.message : String(error)
  return `connection_error: ${code ?? message}`.slice(0, 500)
}

/** Sends one attempt; never fails (a failure is an outcome with `error`). */
export const attempt = async (
  agent: Agent,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number
): Promise<AttemptOutcome> => {
  const startedAt = new Date()
  const started = performance.now()
  const signal = AbortSignal.timeout(timeoutMs)
  const elapsed = () => Math.round(performance.now() - started)
  try {
    const response = await request(url, {
      method: "POST",
      dispatcher: agent,
      headers: { ...headers, "content-type": "application/json", "user-agent": "propline-webhooks/1" },
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs
    })
    const chunks: Array<Buffer> = []
    let read = 0
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        chunks.push(chunk)
        read += chunk.length
        if (read >= RESPONSE_CAP) break
      }
    } catch {
      // A body cut off (or too slow) still leaves the status; what was read is kept.
    } finally {
      response.body.destroy()
    }
    const responseBody = Buffer.concat(chunks).subarray(0, RESPONSE_CAP).toString("utf8")
    const status = response.statusCode
    const error =
      status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `redirect not followed (status ${status})` : `status ${status}`
    return { startedAt, latencyMs: elapsed(), statusCode: status, error, responseBody }
  } catch (error) {
    return { startedAt, latencyMs: elapsed(), statusCode: null, error: describe(error, signal.aborted), responseBody: "" }
  }
}
