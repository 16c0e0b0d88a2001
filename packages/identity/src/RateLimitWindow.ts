/**
 * The token endpoint's rate limit: more than 60 token requests for one client in 60 seconds is `slow_down` (429)
 * with `Retry-After` (spec 7.2 and 8; decisions 3).
 *
 * The HTTP layer counts a client's authenticated requests in the shared database in one-second buckets: one row per
 * client and second, keyed by the second's start ({@link bucketStart}, aligned to the Unix epoch so every instance
 * keys a second alike) and holding the number of requests in that second. The window is the
 * {@link TOKEN_RATE_WINDOW_SECONDS} whole seconds ending with the current one: the buckets that start after
 * {@link windowEdge}. {@link judgeRequestRate} sums them and, when the sum is over {@link TOKEN_RATE_LIMIT}, works
 * out from the buckets how long the client must wait.
 *
 * Accuracy: to the second. The limit is exact on the per-second counts (no estimate, no weighting), and a request
 * counts against its client from its arrival until the start of the 60th second after the second it arrived in,
 * that is for between 59 and 60 seconds.
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
 * The start of the one-second bucket holding `now`: `now` rounded down to the whole second of the Unix epoch, so
 * every instance keys the same second alike.
 *
 * @since 0.1.0
 */
export const bucketStart = (now: Date): Date => new Date(Math.floor(now.getTime() / SECOND_MS) * SECOND_MS)

/**
 * The exclusive lower bound of the window holding `now`: `bucketStart(now)` minus `windowSeconds` seconds. The
 * buckets that start strictly after it, the current second's included, are the `windowSeconds` whole seconds ending
 * with the current one; a bucket starting at or before it has left the window and may be deleted.
 *
 * @since 0.1.0
 */
export const windowEdge = (now: Date, windowSeconds: number): Date =>
  new Date(bucketStart(now).getTime() - windowSeconds * SECOND_MS)

/**
 * One second's count of a client's requests: `start` is the bucket's {@link bucketStart}, `count` the requests in
 * that second.
 *
 * @since 0.1.0
 */
export interface RateBucket {
  readonly start: Date
  readonly count: number
}

/**
 * The counts behind one verdict.
 *
 * - `limit`: requests allowed per window, a positive integer ({@link TOKEN_RATE_LIMIT}).
 * - `windowSeconds`: the window's length in seconds, a positive integer ({@link TOKEN_RATE_WINDOW_SECONDS}).
 * - `now`: the request's arrival.
 * - `currentCount`: the client's requests in the bucket of `now` (`bucketStart(now)`) including this one, as the
 *   atomic increment of that bucket returned it.
 * - `otherBuckets`: the client's other buckets. Those at or before `windowEdge(now, windowSeconds)` are ignored,
 *   so a caller may pass more than the window; the current second's must not be among them (it is
 *   `currentCount`). A bucket after the current second (written by an instance whose clock is ahead) counts, and
 *   leaves the window `windowSeconds` after its own start.
 *
 * @since 0.1.0
 */
export interface RateLimitInput {
  readonly limit: number
  readonly windowSeconds: number
  readonly now: Date
  readonly currentCount: number
  readonly otherBuckets: ReadonlyArray<RateBucket>
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
 * The verdict on one request (spec 7.2 and 8): allowed when the client's requests in the window, this one included
 * (`currentCount` plus the `otherBuckets` after `windowEdge(now, windowSeconds)`), are at most `limit`; refused
 * when they are more.
 *
 * When refused, `retryAfterSeconds` is the smallest whole number of seconds s ≥ 1 such that the client's next
 * request, sent s seconds after `now` (or later) with no other request of the client in between, is allowed. It is
 * exact, computed from the buckets: a request s whole seconds after `now` falls in the bucket s seconds after the
 * current one, where each bucket that started at or before s seconds after `windowEdge(now, windowSeconds)` has
 * left the window; s is the first second at which enough requests have left for the window to hold the retry.
 *
 * The refused request itself counts: the HTTP layer increments the current bucket and then judges, in one atomic
 * statement, and does not take the increment back. So a client that keeps sending while refused stays refused
 * (every refused request pushes its own Retry-After further), and when all of the client's 61 requests fall in
 * one second the 61st waits the whole window, {@link TOKEN_RATE_WINDOW_SECONDS} seconds. Were refused requests not
 * recorded, the value would still be enough, never too short.
 *
 * @since 0.1.0
 */
export const judgeRequestRate = (input: RateLimitInput): RateLimitVerdict => {
  const currentMs = bucketStart(input.now).getTime()
  const windowMs = input.windowSeconds * SECOND_MS
  // Each bucket in the window as [whole seconds after now from which it is out of the window, its count]. A retry
  // s seconds after now falls in the second currentMs + s × 1000, whose window holds the buckets starting after
  // currentMs + s × 1000 − windowMs: a bucket starting at startMs is out once s ≥ (startMs − currentMs + windowMs)
  // / 1000. For the current second that is exactly windowSeconds.
  const buckets: Array<readonly [number, number]> = [[input.windowSeconds, input.currentCount]]
  for (const bucket of input.otherBuckets) {
    const startMs = bucket.start.getTime()
    if (startMs > currentMs - windowMs) {
      buckets.push([Math.ceil((startMs - currentMs + windowMs) / SECOND_MS), bucket.count])
    }
  }
  const total = buckets.reduce((sum, [, count]) => sum + count, 0)
  if (total <= input.limit) return { allowed: true }

  // The retry is allowed once 1 + total − (counts that left) ≤ limit. Counts leave in order of their second.
  const mustLeave = total + 1 - input.limit
  buckets.sort(([a], [b]) => a - b)
  let left = 0
  let seconds = input.windowSeconds
  for (const [outAfter, count] of buckets) {
    left += count
    seconds = outAfter
    if (left >= mustLeave) break
  }
  // With limit ≥ 1 the loop always breaks (every count leaving is at least mustLeave); outAfter is at least 1
  // because only buckets after the window's edge are kept.
  return { allowed: false, retryAfterSeconds: Math.max(1, seconds) }
}
