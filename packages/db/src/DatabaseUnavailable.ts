/**
 * Whether a failed statement failed because the database could not be had at all — the pool gave no connection in
 * time, or PostgreSQL (or PgBouncer in front of it) could not be reached or refused the session — rather than
 * because of the statement. Such a failure is the service being temporarily unavailable (the API answers 503 with
 * `Retry-After`, issue 23), not a bug (500).
 *
 * Only what happens before a statement reaches the server counts as `exhausted`: the request that meets it changed
 * nothing. A connection lost while a statement ran (`unreachable` with "Connection terminated") may leave the
 * transaction's outcome unknown to the client, as any dropped connection does; it rolled back unless it was the
 * commit itself.
 */

/** Why the database could not be had: no pooled connection in time, or no connection at all. */
export type UnavailableKind = "exhausted" | "unreachable"

export interface Unavailable {
  readonly kind: UnavailableKind
  /** A short reason for the log (a code or pg's sentence; never a connection string or a statement). */
  readonly reason: string
}

/**
 * SQLSTATEs of a server that can't take the session: class 08 (connection exception; PgBouncer reports its own
 * refusals — `no more connections allowed`, `query_wait_timeout`, `server login retry` — as 08P01), 53300
 * (too_many_connections), 57P01–57P03 (admin or crash shutdown, cannot connect now: starting up or recovering).
 */
const unavailableState = (code: string): boolean => code.startsWith("08") || code === "53300" || /^57P0[123]$/.test(code)

/** Node's socket errors when no connection can be made or it broke. */
const SOCKET_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"])

/** pg-pool's error when `connectionTimeoutMillis` passed with every connection busy (or a new one not yet made). */
const POOL_TIMEOUT = "timeout exceeded when trying to connect"

const recordOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined

/**
 * `error` as an {@link Unavailable} when it says the database could not be had, else `undefined`. Takes a pg or
 * node error, or anything wrapping one in `cause` (a {@link import("./Db.js").SqlError}, an `AggregateError` of
 * pg's connection attempts), looked into at most 4 levels deep.
 */
export const databaseUnavailable = (error: unknown, depth = 0): Unavailable | undefined => {
  const record = recordOf(error)
  if (record === undefined || depth > 4) return undefined
  const code = typeof record["code"] === "string" ? record["code"] : undefined
  const message = typeof record["message"] === "string" ? record["message"] : ""
  if (message === POOL_TIMEOUT) return { kind: "exhausted", reason: "no pooled connection within the connection timeout" }
  if (message === "Connection terminated due to connection timeout") {
    return { kind: "unreachable", reason: "connecting timed out" }
  }
  if (code !== undefined && SOCKET_ERRORS.has(code)) return { kind: "unreachable", reason: code }
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code) && unavailableState(code)) {
    return { kind: code === "53300" || code === "08P01" ? "exhausted" : "unreachable", reason: `SQLSTATE ${code}: ${message}` }
  }
  if (message === "Connection terminated unexpectedly" || message === "Client has encountered a connection error and is not queryable") {
    return { kind: "unreachable", reason: message }
  }
  const errors = record["errors"]
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = databaseUnavailable(inner, depth + 1)
      if (found !== undefined) return found
    }
  }
  return databaseUnavailable(record["cause"], depth + 1)
}
