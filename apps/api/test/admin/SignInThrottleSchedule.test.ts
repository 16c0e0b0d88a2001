/** The sign-in throttle's schedule: free failures, then a doubling wait up to the maximum. */
import { describe, expect, it } from "vitest"
import { delaySchedule, delaySeconds, FIRST_DELAY_SECONDS, FREE_FAILURES, MAX_DELAY_SECONDS } from "../../src/admin/SignInThrottle.js"

describe("delaySeconds", () => {
  it("is 0 for the free failures, then 30, 60, 120 … seconds, at most an hour", () => {
    expect(Array.from({ length: 14 }, (_, index) => delaySeconds(index + 1))).toEqual([
      0, 0, 0, 0, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600
    ])
    expect(delaySeconds(FREE_FAILURES + 1)).toBe(FIRST_DELAY_SECONDS)
  })

  it("stays at the maximum for any count, however large", () => {
    for (const failures of [50, 1_000, 1_000_000, Number.MAX_SAFE_INTEGER]) expect(delaySeconds(failures)).toBe(MAX_DELAY_SECONDS)
  })
})

describe("delaySchedule", () => {
  it("lists delaySeconds(n) from n = 1 to the first maximum", () => {
    expect(delaySchedule).toEqual([0, 0, 0, 0, 30, 60, 120, 240, 480, 960, 1920, 3600])
  })
})
