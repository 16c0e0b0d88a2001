/**
 * The token endpoint's rate limit: more than 60 token requests for one client in 60 seconds is `slow_down` (429)
 * with `Retry-After` (spec 7.2 and 8; decisions 3).
 *
 * An exact sliding window, to the millisecond: the HTTP layer keeps, per client in the shared database, the arrival
 * times of the client's admitted requests of the last {@link TOKEN_RATE_WINDOW_SECONDS} seconds (a sliding log).
 * A request arriving at `now` is admitted when fewer than {@link TOKEN_RATE_LIMIT} admitted requests arrived after
 * {@link windowEdge} (`now − 60 s`, exclusive), and its arrival is then recorded; otherwise it is refused and
 * recorded nowhere. So no 60-second span, wherever it starts, ever holds more than 60 admitted requests of one
 * client, and a refused request does not push the client's wait further: the `Retry-After` a refusal gives is
 * exact whatever the client sends meanwhile.
 *
 * {@link judgeRequestRate} is the rule; the database statement applies the same rule atomically (one row per
 * client, locked by the upsert, so concurrent requests of one client on any instance are judged one after the
 * other) and this function gives the refusal its `Retry-After`.
 *
 * @since 0.1.0
 */

/**
 * Token requests allowed per client per window (spec 8): the 61st within {@link TOKEN_RATE_WINDOW_SECONDS} is
 * refused.
 *
 * @since 0.1.0
 */
export const TOKEN_RATE_LIMIT = 60

/**
 * The length of the rate-limit window, in seconds (spec 8).
 *
 * @since 0.1.0
 */
export const TOKEN_RATE_WINDOW_SECONDS = 60

const SECOND_MS = 1000

/**
 * The exclusive lower bound of the window ending at `now`: `now` minus `windowSeconds` seconds, to the millisecond.
 * An admission at or before it has left the window and may be forgotten.
 *
 * @since 0.2.0
 */
export const windowEdge = (now: Date, windowSeconds: number): Date =>
  new Date(now.getTime() - windowSeconds * SECOND_MS)

/**
 * What one request is judged on.
 *
 * - `limit`: admitted requests allowed per window, a positive integer ({@link TOKEN_RATE_LIMIT}).
 * - `windowSeconds`: the window's length in seconds, a positive integer ({@link TOKEN_RATE_WINDOW_SECONDS}).
 * - `now`: the request's arrival.
 * - `admittedAt`: the arrivals of the client's earlier admitted requests, in any order. Those at or before
 *   `windowEdge(now, windowSeconds)` are ignored, so a caller may pass more than the window. An arrival after
 *   `now` (recorded by an instance whose clock is ahead) counts, and leaves the window `windowSeconds` after
 *   itself.
 *
 * @since 0.2.0
 */
export interface RateLimitInput {
  readonly limit: number
  readonly windowSeconds: number
  readonly now: Date
  readonly admittedAt: ReadonlyArray<Date>
}

/**
 * Admitted, or refused with the whole number of seconds (at least 1) to send as `Retry-After`.
 *
 * @since 0.1.0
 */
export type RateLimitVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number }

/**
 * The verdict on one request (spec 7.2 and 8): admitted when fewer than `limit` of `admittedAt` are after
 * `windowEdge(now, windowSeconds)`; refused otherwise.
 *
 * When refused, `retryAfterSeconds` is the smallest whole number of seconds s ≥ 1 such that a request sent s
 * seconds after `now` (or later) is admitted, whatever the client sent in between (refused requests are not
 * recorded): with the window's admissions in order, the one that must leave for a place to free up is the
 * `limit`-th newest, at `t`; a request at `now + s` no longer counts it once `t ≤ now + s − windowSeconds`, so
 * s = ⌈(t + windowSeconds − now) / 1 s⌉, at least 1. With 60 admissions in one millisecond, the 61st request waits
 * the whole 60 s; 1 ms before the oldest admission is 60 s old, it waits 1 s.
 *
 * @since 0.1.0
 */
export const judgeRequestRate = (input: RateLimitInput): RateLimitVerdict => {
  const edgeMs = windowEdge(input.now, input.windowSeconds).getTime()
  const inWindow = input.admittedAt
    .map((at) => at.getTime())
    .filter((ms) => ms > edgeMs)
    .sort((a, b) => b - a)
  if (inWindow.length < input.limit) return { allowed: true }
  // Newest first: index limit − 1 is the admission whose leaving brings the window below the limit.
  const mustLeave = inWindow[input.limit - 1] as number
  const waitMs = mustLeave + input.windowSeconds * SECOND_MS - input.now.getTime()
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / SECOND_MS)) }
}
