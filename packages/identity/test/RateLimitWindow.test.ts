import { describe, expect, it } from "@effect/vitest"
import type { RateBucket, RateLimitInput, RateLimitVerdict } from "../src/RateLimitWindow.js"
import {
  bucketStart,
  judgeRequestRate,
  TOKEN_RATE_LIMIT,
  TOKEN_RATE_WINDOW_SECONDS,
  windowEdge
} from "../src/RateLimitWindow.js"

// A whole minute of the epoch, so "the first 0.5 s of a window" of the old fixed windows is easy to read.
const T0 = new Date("2025-03-01T10:00:00.000Z").getTime()
const at = (ms: number) => new Date(T0 + ms)
const seconds = (s: number) => s * 1000

/**
 * One client as the HTTP layer keeps it: one-second buckets, each request incrementing its own second's bucket
 * (refused or not) and then judged on the bucket's new count and the other buckets, as the database statement does.
 */
class Client {
  readonly buckets = new Map<number, number>()

  send(now: Date): RateLimitVerdict {
    const key = bucketStart(now).getTime()
    const currentCount = (this.buckets.get(key) ?? 0) + 1
    this.buckets.set(key, currentCount)
    return judgeRequestRate({
      limit: TOKEN_RATE_LIMIT,
      windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
      now,
      currentCount,
      otherBuckets: [...this.buckets]
        .filter(([start]) => start !== key)
        .map(([start, count]) => ({ start: new Date(start), count }))
    })
  }

  sendMany(now: Date, times: number): ReadonlyArray<RateLimitVerdict> {
    return Array.from({ length: times }, () => this.send(now))
  }

  copy(): Client {
    const copy = new Client()
    for (const [start, count] of this.buckets) copy.buckets.set(start, count)
    return copy
  }
}

const allowed = { allowed: true } as const
const refused = (retryAfterSeconds: number) => ({ allowed: false, retryAfterSeconds }) as const

// Independent of judgeRequestRate: would one more request at `time` fit, given these buckets (start → count)? The
// window at `time` is the 60 whole seconds ending with the second of `time`.
const wouldAllow = (buckets: ReadonlyMap<number, number>, time: number): boolean => {
  const second = Math.floor(time / 1000) * 1000
  let inWindow = 1
  for (const [start, count] of buckets) if (start > second - seconds(60)) inWindow += count
  return inWindow <= 60
}

describe("limits of the token endpoint (spec 8)", () => {
  it("are 60 requests per 60 seconds", () => {
    expect(TOKEN_RATE_LIMIT).toBe(60)
    expect(TOKEN_RATE_WINDOW_SECONDS).toBe(60)
  })
})

describe("bucketStart and windowEdge", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["2025-03-01T10:00:00.000Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:00:00.001Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:00:00.999Z", "2025-03-01T10:00:00.000Z"],
    ["2025-03-01T10:00:59.999Z", "2025-03-01T10:00:59.000Z"],
    ["2025-03-01T10:01:00.000Z", "2025-03-01T10:01:00.000Z"],
    ["1970-01-01T00:00:00.500Z", "1970-01-01T00:00:00.000Z"]
  ]
  for (const [now, start] of cases) {
    it(`puts ${now} in the second starting ${start}`, () => {
      expect(bucketStart(new Date(now)).toISOString()).toBe(start)
    })
  }

  it("puts the window's exclusive lower bound 60 seconds before the current second", () => {
    expect(windowEdge(new Date("2025-03-01T10:01:39.500Z"), 60).toISOString()).toBe("2025-03-01T10:00:39.000Z")
    expect(windowEdge(new Date("2025-03-01T10:01:00.000Z"), 60).toISOString()).toBe("2025-03-01T10:00:00.000Z")
  })
})

describe("judgeRequestRate: counts in the window", () => {
  it("allows requests 1 to 60 in one second and refuses the 61st, wherever in the second", () => {
    for (const offset of [0, 1, 500, 999]) {
      const verdicts = new Client().sendMany(at(offset), 61)
      expect(verdicts.slice(0, 60)).toStrictEqual(Array.from({ length: 60 }, () => allowed))
      // All 61 are in the current second, which leaves the window 60 seconds from now.
      expect(verdicts[60]).toStrictEqual(refused(60))
    }
  })

  it("the reviewer's case: a burst of 60 in the first 0.5 s of a minute, then 60 more 99.5 s later, all allowed", () => {
    const client = new Client()
    for (let i = 0; i < 60; i++) expect(client.send(at(i * 8)), `burst request ${i + 1}`).toStrictEqual(allowed)
    for (let i = 0; i < 60; i++) {
      expect(client.send(at(99_500 + i * 8)), `later request ${i + 1}`).toStrictEqual(allowed)
    }
    // The window now holds the second burst only: the 61st of it is refused, and waits the full window.
    expect(client.send(at(99_500 + 60 * 8))).toStrictEqual(refused(60))
  })

  it("allows 60 more exactly 60 seconds after a burst of 60, in the same instant of the second", () => {
    const client = new Client()
    expect(client.sendMany(at(250), 60)).toStrictEqual(Array.from({ length: 60 }, () => allowed))
    expect(client.sendMany(at(seconds(60) + 250), 60)).toStrictEqual(Array.from({ length: 60 }, () => allowed))
  })

  it("spread out, one request a second: 60 seconds' worth are allowed, and so is every later one", () => {
    const client = new Client()
    for (let s = 0; s < 300; s++) expect(client.send(at(seconds(s) + 400)), `second ${s}`).toStrictEqual(allowed)
  })

  it("spread out, one request a second, then a second one in the 60th second: refused, 2 s to wait", () => {
    const client = new Client()
    for (let s = 0; s < 60; s++) expect(client.send(at(seconds(s))), `second ${s}`).toStrictEqual(allowed)
    // At 60 s the window is seconds 1 to 60: 59 earlier requests and this one.
    expect(client.send(at(seconds(60)))).toStrictEqual(allowed)
    // 61 now; the retry needs two to leave: second 1 leaves after 1 s, second 2 after 2 s.
    expect(client.send(at(seconds(60) + 300))).toStrictEqual(refused(2))
  })

  it("spread out, two requests a second: the 61st (at 30 s) waits until the first second's two have left", () => {
    const client = new Client()
    for (let i = 0; i < 60; i++) expect(client.send(at(i * 500)), `request ${i + 1}`).toStrictEqual(allowed)
    // Seconds 0 to 29 hold 2 each; second 30 the 61st. Second 0 leaves the window 30 s from now.
    expect(client.send(at(30_000))).toStrictEqual(refused(30))
  })

  it("is exact at the 60-second boundary: a second's requests leave the window when the 60th second after it begins", () => {
    const full = new Client()
    full.sendMany(at(0), 60)
    expect(full.copy().send(at(seconds(60) - 1))).toStrictEqual(refused(1))
    expect(full.copy().send(at(seconds(60)))).toStrictEqual(allowed)
    expect(full.copy().sendMany(at(seconds(60)), 60)).toStrictEqual(Array.from({ length: 60 }, () => allowed))
  })

  it("is accurate to the second: requests late in a second leave with the whole second", () => {
    // 60 at 0.999 s leave at 60.000 s, 59.001 s later: the window is whole seconds, never a fraction of one.
    const client = new Client()
    client.sendMany(at(999), 60)
    expect(client.copy().send(at(seconds(60) - 1))).toStrictEqual(refused(1))
    expect(client.send(at(seconds(60)))).toStrictEqual(allowed)
  })

  it("counts refused requests: a client that keeps sending faster than the limit stays refused", () => {
    const client = new Client()
    client.sendMany(at(0), 61)
    for (let s = 1; s < 300; s++) {
      const verdicts = client.sendMany(at(seconds(s)), 2)
      expect(verdicts.every((verdict) => !verdict.allowed), `second ${s}`).toBe(true)
    }
  })

  it("counts refused requests: waiting Retry-After instead is enough", () => {
    const client = new Client()
    const verdict = client.sendMany(at(700), 61)[60]
    expect(verdict).toStrictEqual(refused(60))
    expect(client.send(at(700 + seconds(60)))).toStrictEqual(allowed)
  })

  it("ignores buckets at or before the window's edge", () => {
    const input: RateLimitInput = {
      limit: 60,
      windowSeconds: 60,
      now: at(seconds(100) + 500),
      currentCount: 1,
      otherBuckets: [
        { start: at(seconds(40)), count: 1_000 },
        { start: at(seconds(10)), count: 1_000 },
        { start: at(seconds(41)), count: 59 }
      ]
    }
    expect(judgeRequestRate(input)).toStrictEqual(allowed)
    expect(judgeRequestRate({ ...input, currentCount: 2 })).toStrictEqual(refused(1))
  })

  it("counts a bucket after the current second (an instance's clock ahead) until 60 s after its own start", () => {
    const verdict = judgeRequestRate({
      limit: 60,
      windowSeconds: 60,
      now: at(0),
      currentCount: 1,
      otherBuckets: [{ start: at(seconds(2)), count: 60 }]
    })
    // The current second leaves after 60 s but the retry then still meets the 60 of second 2: 62 s.
    expect(verdict).toStrictEqual(refused(62))
  })
})

// A deterministic pseudo-random sequence (Park and Miller's minimal standard generator; every product stays below
// 2^53), so the layouts are the same every run.
const random = (seed: number) => {
  let state = seed
  return (below: number) => {
    state = (state * 48_271) % 2_147_483_647
    return state % below
  }
}

describe("judgeRequestRate: Retry-After is the first whole second that works", () => {
  const check = (now: Date, currentCount: number, otherBuckets: ReadonlyArray<RateBucket>): boolean => {
    const buckets = new Map<number, number>([[bucketStart(now).getTime(), currentCount]])
    for (const bucket of otherBuckets) buckets.set(bucket.start.getTime(), bucket.count)
    const verdict = judgeRequestRate({ limit: 60, windowSeconds: 60, now, currentCount, otherBuckets })
    // The verdict itself: this request is already in `buckets`, so it fits when "one more" would fit without it.
    const withoutThis = new Map(buckets).set(bucketStart(now).getTime(), currentCount - 1)
    expect(verdict.allowed).toBe(wouldAllow(withoutThis, now.getTime()))
    if (verdict.allowed) return false
    const s = verdict.retryAfterSeconds
    expect(Number.isInteger(s)).toBe(true)
    expect(s).toBeGreaterThanOrEqual(1)
    // Allowed after s seconds and at every later second; refused one second earlier (when that is still ≥ 1).
    for (const later of [s, s + 1, s + 7, s + 60]) expect(wouldAllow(buckets, now.getTime() + seconds(later))).toBe(true)
    if (s > 1) expect(wouldAllow(buckets, now.getTime() + seconds(s - 1))).toBe(false)
    return true
  }

  it("holds for the current second alone, for every count and instant in the second", () => {
    for (const offset of [0, 1, 499, 999]) {
      for (let count = 1; count <= 200; count++) check(at(offset), count, [])
    }
  })

  it("holds for one earlier bucket at every distance, inside and outside the window", () => {
    let refusals = 0
    for (const offset of [0, 999]) {
      for (let distance = 1; distance <= 62; distance++) {
        for (const [current, earlier] of [[1, 60], [2, 59], [30, 31], [31, 30], [1, 200], [61, 1], [60, 60]] as const) {
          const now = at(seconds(100) + offset)
          const start = new Date(bucketStart(now).getTime() - seconds(distance))
          if (check(now, current, [{ start, count: earlier }])) refusals++
        }
      }
    }
    expect(refusals).toBeGreaterThan(500)
  })

  it("holds for many pseudo-random layouts of buckets, some after the current second", () => {
    const next = random(20_250_301)
    let refusals = 0
    for (let layout = 0; layout < 3_000; layout++) {
      const now = at(seconds(1_000) + next(1_000))
      const current = bucketStart(now).getTime()
      const buckets = new Map<number, number>()
      const size = next(40)
      for (let i = 0; i < size; i++) {
        // Mostly inside the window, some just outside it, a few after the current second.
        const distance = next(10) === 0 ? -1 - next(3) : 1 + next(64)
        buckets.set(current - seconds(distance), 1 + next(next(4) === 0 ? 30 : 5))
      }
      const otherBuckets = [...buckets].map(([start, count]) => ({ start: new Date(start), count }))
      if (check(now, 1 + next(70), otherBuckets)) refusals++
    }
    expect(refusals).toBeGreaterThan(1_000)
  })
})
