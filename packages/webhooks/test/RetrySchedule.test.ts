import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { baseDelay, disablesEndpoint, nextAttemptAt, SCHEDULE } from "../src/RetrySchedule.js"

const at = new Date("2026-11-27T00:00:00Z")
const production = { scale: 1 }
const minutes = (n: number) => n * 60_000

describe("RetrySchedule.baseDelay", () => {
  it("is 30 s × 4^(n−1), at most 12 h", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => baseDelay(n, production))).toEqual([
      30_000,
      minutes(2),
      minutes(8),
      minutes(32),
      minutes(128),
      minutes(512),
      minutes(720),
      minutes(720)
    ])
  })

  it("scales every duration", () => {
    expect(baseDelay(2, { scale: 0.001 })).toBe(120)
  })
})

describe("RetrySchedule.nextAttemptAt", () => {
  it("waits the delay times a jitter factor in [0.8, 1.2)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (failed, random) => {
        const next = nextAttemptAt(failed, at, at, random, production)!
        const wait = next.getTime() - at.getTime()
        expect(wait).toBeGreaterThanOrEqual(Math.floor(baseDelay(failed, production) * 0.8))
        expect(wait).toBeLessThanOrEqual(Math.ceil(baseDelay(failed, production) * 1.2))
      })
    )
  })

  it("gives up past 3 days after the delivery was made; a whole run of failures makes about a dozen attempts", () => {
    let now = at
    let attempts = 1
    for (;;) {
      const next = nextAttemptAt(attempts, at, now, 0.5, production)
      if (next === undefined) break
      expect(next.getTime() - at.getTime()).toBeLessThanOrEqual(SCHEDULE.retryFor)
      now = next
      attempts++
    }
    expect(attempts).toBe(12)
    expect(now.getTime() - at.getTime()).toBeGreaterThan(2.5 * 24 * 3600_000)
  })
})

describe("RetrySchedule.disablesEndpoint", () => {
  it("after 5 days of failure, not before", () => {
    expect(disablesEndpoint(at, new Date(at.getTime() + SCHEDULE.disableAfter - 1), production)).toBe(false)
    expect(disablesEndpoint(at, new Date(at.getTime() + SCHEDULE.disableAfter), production)).toBe(true)
  })
})
