/**
 * The token endpoint's rate limit: 60 requests per 60 seconds per client, beyond that `slow_down` (429) with
 * `Retry-After` (spec 7.2 and 8; decisions 3).
 *
 * The HTTP layer counts a client's authenticated requests in the shared database, one row per fixed window keyed by
 * the window's start ({@link windowStart}), so the limit holds across instances. {@link judgeRequestRate} turns the
 * current and previous windows' counts into a verdict with the sliding-window-counter estimate, which smooths the
 * burst a fixed window would allow at its edges.
 *
 * @since 0.1.0
 */

/**
 * Token requests allowed per client per window (spec 8).
 *
 * @since 0.1.0
 */
export const TOKEN_RATE_LIMIT = 60

/**
 * The length of a rate-limit window, in seconds (spec 8).
 *
 * @since 0.1.0
 */
export const TOKEN_RATE_WINDOW_SECONDS = 60

/**
 * The start of the window holding `now`: windows are `windowSeconds` long and aligned to the Unix epoch, so every
 * instance keys the same window alike. Exact to the millisecond.
 *
 * @since 0.1.0
 */
export const windowStart = (now: Date, windowSeconds: number): Date => {
  const windowMs = windowSeconds * 1000
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs)
}

/**
 * The counts behind one verdict. `currentWindowStart` is `windowStart(now, windowSeconds)`; `currentCount` is the
 * client's requests in that window including this one; `previousCount` those of the window just before it (0 when
 * there is no row). `limit` is a request count, `windowSeconds` seconds; both positive integers.
 *
 * @since 0.1.0
 */
export interface RateLimitInput {
  readonly limit: number
  readonly windowSeconds: number
  readonly now: Date
  readonly currentWindowStart: Date
  readonly currentCount: number
  readonly previousCount: number
}

/**
 * Allowed, or refused with the whole number of seconds (at least 1) to send as `Retry-After`.
 *
 * @since 0.1.0
 */
export type RateLimitVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number }

/**
 * The sliding-window-counter verdict. With `elapsedFraction` = (now − currentWindowStart) / window, the estimate of
 * requests in the last window is `previousCount × (1 − elapsedFraction) + currentCount`; the request is allowed
 * when the estimate is at most `limit`. The comparison is done in integer milliseconds, without rounding.
 *
 * When refused, `retryAfterSeconds` is the smallest whole number of seconds t ≥ 1 such that the client's next
 * request, sent t seconds after `now` with no other request of the client in between, is allowed. It is computed
 * with the refused request still counted (the HTTP layer increments the window's row and then judges, as one
 * atomic upsert); a retry then adds one to the current window, or, once the window has turned, the current count
 * becomes the previous one. If the HTTP layer does not record refused requests the value is still enough, never too
 * short. An `elapsed` outside the current window (a caller's clock or key out of step) is clamped into it.
 *
 * @since 0.1.0
 */
export const judgeRequestRate = (input: RateLimitInput): RateLimitVerdict => {
  const windowMs = input.windowSeconds * 1000
  const elapsedMs = Math.min(Math.max(input.now.getTime() - input.currentWindowStart.getTime(), 0), windowMs - 1)
  if (withinLimit(input.limit, windowMs, elapsedMs, input.currentCount, input.previousCount)) return { allowed: true }

  // Whether one more request `seconds` after now is allowed. The estimate never grows while no request comes in,
  // so this turns from false to true once and stays true: a binary search finds the first second exactly.
  const retryAllowed = (seconds: number): boolean => {
    const at = elapsedMs + seconds * 1000
    if (at < windowMs) return withinLimit(input.limit, windowMs, at, input.currentCount + 1, input.previousCount)
    if (at < 2 * windowMs) return withinLimit(input.limit, windowMs, at - windowMs, 1, input.currentCount)
    return withinLimit(input.limit, windowMs, 0, 1, 0)
  }
  let low = 1
  let high = Math.max(1, Math.ceil((2 * windowMs - elapsedMs) / 1000))
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (retryAllowed(middle)) high = middle
    else low = middle + 1
  }
  return { allowed: false, retryAfterSeconds: low }
}

// previous × (W − elapsed) / W + current ≤ limit, multiplied through by W to stay in integers.
const withinLimit = (limit: number, windowMs: number, elapsedMs: number, current: number, previous: number) =>
  previous * (windowMs - elapsedMs) + current * windowMs <= limit * windowMs
