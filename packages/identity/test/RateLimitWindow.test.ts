import { describe, expect, it } from "@effect/vitest"
import type { RateLimitInput } from "../src/RateLimitWindow.js"
import { judgeRequestRate, TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS, windowStart } from "../src/RateLimitWindow.js"

const START = new Date("2025-03-01T10:00:00.000Z")
const at = (elapsedMs: number) => new Date(START.getTime() + elapsedMs)

const judge = (elapsedMs: number, currentCount: number, previousCount: number) =>
  judgeRequestRate({
    limit: TOKEN_RATE_LIMIT,
    windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
    now: at(elapsedMs),
    currentWindowStart: START,
    currentCount,
    previousCount
  })

// What the database would hold for one more request `seconds` after a refused one, with nothing in between and
// the refused request still counted: judged afresh, independently of how judgeRequestRate finds Retry-After.
const retryAfter = (input: RateLimitInput, seconds: number) => {
  const now = new Date(input.now.getTime() + seconds * 1000)
  const currentWindowStart = windowStart(now, input.windowSeconds)
  const windowsLater = (currentWindowStart.getTime() - input.currentWindowStart.getTime()) / (input.windowSeconds * 1000)
  const [currentCount, previousCount] = windowsLater === 0
    ? [input.currentCount + 1, input.previousCount]
    : windowsLater === 1
    ? [1, input.currentCount]
    : [1, 0]
  return judgeRequestRate({ ...input, now, currentWindowStart, currentCount, previousCount })
}

describe("limits of the token endpoint (spec 8)", () => {
  it("are 60 requests per 60 seconds", () => {
    expect(TOKEN_RATE_LIMIT).toBe(60)
    expect(TOKEN_RATE_WINDOW_SECONDS).toBe(60)
  })
})

describe("windowStart", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["2025-03-01T10:00:00.000Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:00:00.001Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:00:59.999Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:01:00.000Z", "2025-03-01T10:01:00.000Z"],
    ["1970-01-01T00:00:30.000Z", "1970-01-01T00:00:00.000Z"]
  ]
  for (const [now, start] of cases) {
    it(`puts ${now} in the window starting ${start}`, () => {
      expect(windowStart(new Date(now), 60).toISOString()).toBe(start)
    })
  }

  it("aligns windows of other lengths to the epoch", () => {
    expect(windowStart(new Date("2025-03-01T10:00:07.500Z"), 5).toISOString()).toBe("2025-03-01T10:00:05.000Z")
  })
})

describe("judgeRequestRate: a fresh window", () => {
  it("allows requests 1 to 60", () => {
    for (let count = 1; count <= 60; count++) {
      for (const elapsed of [0, 30_000, 59_999]) expect(judge(elapsed, count, 0)).toStrictEqual({ allowed: true })
    }
  })

  it("refuses the 61st", () => {
    for (const elapsed of [0, 30_000, 59_999]) expect(judge(elapsed, 61, 0).allowed).toBe(false)
  })

  // 61 requests at the window's start: in the next window the estimate is 61 × (1 − f) + 1 ≤ 60 once f ≥ 2/61,
  // that is 1967.2 ms into it: 61.97 s from now, so 62 s.
  it("sends the 61st request at the window's start to wait 62 seconds", () => {
    expect(judge(0, 61, 0)).toStrictEqual({ allowed: false, retryAfterSeconds: 62 })
  })

  it("sends the 61st request 1 ms before the window ends to wait 2 seconds", () => {
    expect(judge(59_999, 61, 0)).toStrictEqual({ allowed: false, retryAfterSeconds: 2 })
  })
})

describe("judgeRequestRate: the sliding-window estimate", () => {
  // previous × (1 − elapsed / 60 s) + current ≤ 60, compared exactly.
  const cases: ReadonlyArray<readonly [string, number, number, number, boolean]> = [
    ["60 before, 1 now, at the window's start: 61", 0, 1, 60, false],
    ["60 before, 1 now, 999 ms in: 60.001", 999, 1, 60, false],
    ["60 before, 1 now, 1 s in: exactly 60", 1_000, 1, 60, true],
    ["60 before, 30 now, half way: exactly 60", 30_000, 30, 60, true],
    ["60 before, 31 now, half way: 61", 30_000, 31, 60, false],
    ["60 before, 31 now, 31 s in: 60.0", 31_000, 31, 60, true],
    ["120 before, 1 now, half way: 61", 30_000, 1, 120, false],
    ["3 before, 59 now, 20 s in: 2 + 59 = 61", 20_000, 59, 3, false],
    ["3 before, 58 now, 20 s in: 2 + 58 = 60", 20_000, 58, 3, true],
    ["100 before, 1 now, 24.6 s in: exactly 60, where floating point gives 60.00000000000001", 24_600, 1, 100, true],
    ["1000 before, 1 now, 59.999 s in: 2", 59_999, 1, 1000, true]
  ]
  for (const [name, elapsed, current, previous, allowed] of cases) {
    it(`${allowed ? "allows" : "refuses"} ${name}`, () => {
      expect(judge(elapsed, current, previous).allowed).toBe(allowed)
    })
  }

  const retries: ReadonlyArray<readonly [string, number, number, number, number]> = [
    // 60 × (60 − e′) / 60 + 2 ≤ 60 once e′ ≥ 2 s.
    ["60 before, 1 now, at the start", 0, 1, 60, 2],
    ["60 before, 1 now, 999 ms in", 999, 1, 60, 2],
    // 120 × (60 − e′) / 60 + 2 ≤ 60 once e′ ≥ 31 s: one second on.
    ["120 before, 1 now, half way", 30_000, 1, 120, 1],
    // 60 × (60 − e′) / 60 + 32 ≤ 60 once e′ ≥ 32 s.
    ["60 before, 31 now, half way", 30_000, 31, 60, 2]
  ]
  for (const [name, elapsed, current, previous, seconds] of retries) {
    it(`sets Retry-After to ${seconds} s for ${name}`, () => {
      expect(judge(elapsed, current, previous)).toStrictEqual({ allowed: false, retryAfterSeconds: seconds })
    })
  }
})

describe("judgeRequestRate: Retry-After is the first whole second that works", () => {
  it("is allowed after Retry-After seconds and refused a second earlier, for every refused case of a grid", () => {
    let refused = 0
    for (const elapsed of [0, 1, 999, 1_000, 17_321, 30_000, 45_500, 59_000, 59_999]) {
      for (const current of [1, 2, 30, 59, 60, 61, 62, 90, 120, 500]) {
        for (const previous of [0, 1, 30, 59, 60, 61, 100, 1_000]) {
          const input: RateLimitInput = {
            limit: 60,
            windowSeconds: 60,
            now: at(elapsed),
            currentWindowStart: START,
            currentCount: current,
            previousCount: previous
          }
          const verdict = judgeRequestRate(input)
          if (verdict.allowed) continue
          refused++
          expect(Number.isInteger(verdict.retryAfterSeconds)).toBe(true)
          expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1)
          expect(retryAfter(input, verdict.retryAfterSeconds).allowed).toBe(true)
          if (verdict.retryAfterSeconds > 1) expect(retryAfter(input, verdict.retryAfterSeconds - 1).allowed).toBe(false)
        }
      }
    }
    expect(refused).toBeGreaterThan(300)
  })

  // 120000 × 30 / 60000 + 1 = 61 now; one millisecond later a retry gives 120000 × 29 / 60000 + 2 = 60.
  it("is at least 1 even when a millisecond would do", () => {
    expect(judge(59_970, 1, 120_000)).toStrictEqual({ allowed: false, retryAfterSeconds: 1 })
    expect(judge(59_971, 2, 120_000)).toStrictEqual({ allowed: true })
  })
})

describe("judgeRequestRate: a window key out of step", () => {
  it("clamps a now before the window's start to its start", () => {
    const verdict = judgeRequestRate({
      limit: 60,
      windowSeconds: 60,
      now: at(-5_000),
      currentWindowStart: START,
      currentCount: 1,
      previousCount: 60
    })
    expect(verdict).toStrictEqual(judge(0, 1, 60))
  })
})
