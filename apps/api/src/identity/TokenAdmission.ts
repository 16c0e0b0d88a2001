/**
 * The verdict on a token request's admission by the rate limit (spec 7.2 and 8; decisions 3): over 60 admitted
 * requests of one client in 60 s is `slow_down` (429) with the exact `Retry-After`.
 */
import { judgeRequestRate, TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS } from "@propline/identity/RateLimitWindow"
import { SlowDown } from "@propline/identity/TokenError"
import { Effect } from "effect"
import type { Admission } from "./TokenRateLimitRepository.js"

/**
 * Through when the rate-limit statement admitted the request; otherwise `SlowDown` with `retryAfterSeconds` (whole
 * seconds) from `RateLimitWindow.judgeRequestRate` over the window the statement returned. A window the statement
 * refused but the rule would allow is a defect: the SQL and the rule disagree.
 */
export const judgeAdmission = (admission: Admission, now: Date): Effect.Effect<void, SlowDown> => {
  if (admission.admitted) return Effect.void
  const verdict = judgeRequestRate({
    limit: TOKEN_RATE_LIMIT,
    windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
    now,
    admittedAt: admission.admittedAt
  })
  return verdict.allowed
    ? Effect.die(new Error("the rate-limit statement and judgeRequestRate disagree"))
    : Effect.fail(new SlowDown({ retryAfterSeconds: verdict.retryAfterSeconds }))
}
