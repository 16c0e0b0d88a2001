/**
 * When a failed delivery is tried again (issue 22, item 3): exponential back-off with jitter for 3 days, and when
 * an endpoint that keeps failing is disabled.
 *
 * The schedule (documented in docs/reference.md, "Webhooks"): attempt 1 at once; after the n-th failed attempt the
 * next waits `min(30 s × 4^(n−1), 12 h)`, multiplied by a jitter factor in [0.8, 1.2): about 30 s, 2 min, 8 min,
 * 32 min, 2 h 8 min, 8 h 32 min, then every 12 h. No attempt is scheduled later than 3 days after the delivery was
 * made; past that it is `failed`. An endpoint whose every attempt has failed for 5 days (since its last success) is
 * disabled by the first failure after that.
 *
 * `scale` multiplies every duration (1 in production; tests run the same schedule in milliseconds).
 */

/** Milliseconds in one second, minute, hour and day. */
const SECOND = 1000
const HOUR = 3600 * SECOND
const DAY = 24 * HOUR

/** The durations of the schedule at scale 1, in milliseconds. */
export const SCHEDULE = {
  firstDelay: 30 * SECOND,
  factor: 4,
  maxDelay: 12 * HOUR,
  retryFor: 3 * DAY,
  disableAfter: 5 * DAY,
  jitter: 0.2
} as const

export interface ScheduleSettings {
  /** Multiplies every duration; 1 in production. */
  readonly scale: number
}

/**
 * The wait after the `failedAttempts`-th failed attempt (1 or more), before jitter, in milliseconds.
 */
export const baseDelay = (failedAttempts: number, settings: ScheduleSettings): number =>
  Math.min(SCHEDULE.firstDelay * SCHEDULE.factor ** (failedAttempts - 1), SCHEDULE.maxDelay) * settings.scale

/**
 * When to try again after the `failedAttempts`-th failed attempt at `now`, for a delivery made at `createdAt`, with
 * `random` in [0, 1) choosing the jitter; `undefined` when that would be past `createdAt` + 3 days (give up).
 */
export const nextAttemptAt = (
  failedAttempts: number,
  createdAt: Date,
  now: Date,
  random: number,
  settings: ScheduleSettings
): Date | undefined => {
  const jitter = 1 - SCHEDULE.jitter + 2 * SCHEDULE.jitter * random
  const at = now.getTime() + Math.round(baseDelay(failedAttempts, settings) * jitter)
  return at > createdAt.getTime() + SCHEDULE.retryFor * settings.scale ? undefined : new Date(at)
}

/** Whether an endpoint failing since `failingSince` is disabled by a failure at `now`. */
export const disablesEndpoint = (failingSince: Date, now: Date, settings: ScheduleSettings): boolean =>
  now.getTime() - failingSince.getTime() >= SCHEDULE.disableAfter * settings.scale
