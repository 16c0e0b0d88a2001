import { describe, expect, it } from "@effect/vitest"
import type { RateLimitVerdict } from "../src/RateLimitWindow.js"
import { judgeRequestRate, TOKEN_RATE_LIMIT, TOKEN_RATE_WINDOW_SECONDS, windowEdge } from "../src/RateLimitWindow.js"

const T0 = new Date("2025-03-01T10:00:00.000Z").getTime()
const at = (ms: number) => new Date(T0 + ms)
const seconds = (s: number) => s * 1000

/**
 * One client as the database keeps it: the arrivals of its admitted requests. A request is judged on them and, when
 * admitted, recorded; a refused one is recorded nowhere, as the database statement does.
 */
class Client {
  readonly admitted: Array<number> = []

  send(now: Date): RateLimitVerdict {
    const verdict = judgeRequestRate({
      limit: TOKEN_RATE_LIMIT,
      windowSeconds: TOKEN_RATE_WINDOW_SECONDS,
      now,
      admittedAt: this.admitted.map((ms) => new Date(ms))
    })
    if (verdict.allowed) this.admitted.push(now.getTime())
    return verdict
  }

  sendMany(now: Date, times: number): ReadonlyArray<RateLimitVerdict> {
    return Array.from({ length: times }, () => this.send(now))
  }

  copy(): Client {
    const copy = new Client()
    copy.admitted.push(...this.admitted)
    return copy
  }
}

const allowed = { allowed: true } as const
const refused = (retryAfterSeconds: number) => ({ allowed: false, retryAfterSeconds }) as const
const allAllowed = (n: number) => Array.from({ length: n }, () => allowed)

// Independent of judgeRequestRate: would a request at `time` fit among these admissions (epoch ms)? The window at
// `time` is (time − 60 s, time].
const wouldAllow = (admitted: ReadonlyArray<number>, time: number): boolean =>
  admitted.filter((ms) => ms > time - seconds(60)).length < 60

// The most admissions any 60-second span (t − 60 s, t] holds; a span's count is highest when it ends on one.
const busiestSpan = (admitted: ReadonlyArray<number>): number =>
  Math.max(0, ...admitted.map((end) => admitted.filter((ms) => ms > end - seconds(60) && ms <= end).length))

describe("limits of the token endpoint (spec 8)", () => {
  it("are 60 requests per 60 seconds", () => {
    expect(TOKEN_RATE_LIMIT).toBe(60)
    expect(TOKEN_RATE_WINDOW_SECONDS).toBe(60)
  })
})

describe("windowEdge", () => {
  it("is exactly 60 s before now, to the millisecond", () => {
    expect(windowEdge(new Date("2025-03-01T10:01:39.567Z"), 60).toISOString()).toBe("2025-03-01T10:00:39.567Z")
    expect(windowEdge(new Date("2025-03-01T10:01:00.000Z"), 60).toISOString()).toBe("2025-03-01T10:00:00.000Z")
  })
})

describe("judgeRequestRate: more than 60 in any 60 seconds is refused (spec 7.2)", () => {
  it("allows requests 1 to 60 in one instant and refuses the 61st with the whole window to wait", () => {
    for (const offset of [0, 1, 500, 999]) {
      const verdicts = new Client().sendMany(at(offset), 61)
      expect(verdicts.slice(0, 60)).toStrictEqual(allAllowed(60))
      expect(verdicts[60]).toStrictEqual(refused(60))
    }
  })

  it("the review's case: 60 at x.990 s admit nothing more until 60 s later to the millisecond", () => {
    const full = new Client()
    expect(full.sendMany(at(990), 60)).toStrictEqual(allAllowed(60))
    // 59.1 s later, in another whole second, all 60 are still within 60 s.
    expect(full.copy().send(at(990 + 59_100))).toStrictEqual(refused(1))
    expect(full.copy().send(at(990 + seconds(60) - 1))).toStrictEqual(refused(1))
    expect(full.copy().sendMany(at(990 + seconds(60)), 60)).toStrictEqual(allAllowed(60))
  })

  it("an earlier review's case: a burst of 60 in 0.5 s, then 60 more 99.5 s later, all allowed", () => {
    const client = new Client()
    for (let i = 0; i < 60; i++) expect(client.send(at(i * 8)), `burst request ${i + 1}`).toStrictEqual(allowed)
    for (let i = 0; i < 60; i++) {
      expect(client.send(at(99_500 + i * 8)), `later request ${i + 1}`).toStrictEqual(allowed)
    }
    // The window holds the second burst, whose first request is 0.48 s old: 59.52 s to wait, so 60.
    expect(client.send(at(99_500 + 60 * 8))).toStrictEqual(refused(60))
  })

  it("spread out, one request a second: every one is allowed, for minutes", () => {
    const client = new Client()
    for (let s = 0; s < 300; s++) expect(client.send(at(seconds(s) + 400)), `second ${s}`).toStrictEqual(allowed)
  })

  it("one a second, then one more within the same second: refused until the oldest is 60 s old", () => {
    const client = new Client()
    for (let s = 0; s < 60; s++) expect(client.send(at(seconds(s))), `second ${s}`).toStrictEqual(allowed)
    // Admissions at 0..59 s; at 59.3 s the oldest (0 s) leaves at 60 s: 0.7 s, so 1.
    expect(client.send(at(seconds(59) + 300))).toStrictEqual(refused(1))
    expect(client.send(at(seconds(60)))).toStrictEqual(allowed)
  })

  it("two a second: the 61st (at 30 s) waits until the first is 60 s old", () => {
    const client = new Client()
    for (let i = 0; i < 60; i++) expect(client.send(at(i * 500)), `request ${i + 1}`).toStrictEqual(allowed)
    expect(client.send(at(30_000))).toStrictEqual(refused(30))
    expect(client.copy().send(at(seconds(60) - 1))).toStrictEqual(refused(1))
    expect(client.send(at(seconds(60)))).toStrictEqual(allowed)
    // The next place frees up when the second admission (at 0.5 s) is 60 s old.
    expect(client.send(at(seconds(60) + 1))).toStrictEqual(refused(1))
    expect(client.send(at(seconds(60) + 500))).toStrictEqual(allowed)
  })

  it("refused requests are not recorded: a client that keeps sending is admitted when Retry-After said", () => {
    const client = new Client()
    const verdict = client.sendMany(at(700), 61)[60]
    expect(verdict).toStrictEqual(refused(60))
    for (let ms = 700; ms < 700 + seconds(60); ms += 250) expect(client.send(at(ms)).allowed, `at ${ms}`).toBe(false)
    expect(client.send(at(700 + seconds(60)))).toStrictEqual(allowed)
  })

  it("ignores admissions at or before the window's edge, and counts those just after it", () => {
    const now = at(seconds(100))
    const input = { limit: 60, windowSeconds: 60, now }
    const old = Array.from({ length: 1_000 }, () => at(seconds(40)))
    const recent = Array.from({ length: 59 }, () => at(seconds(40) + 1))
    expect(judgeRequestRate({ ...input, admittedAt: [...old, ...recent] })).toStrictEqual(allowed)
    expect(judgeRequestRate({ ...input, admittedAt: [...old, ...recent, at(seconds(99))] })).toStrictEqual(refused(1))
  })

  it("counts an admission after now (an instance's clock ahead) until 60 s after itself", () => {
    const ahead = Array.from({ length: 60 }, () => at(seconds(2)))
    expect(judgeRequestRate({ limit: 60, windowSeconds: 60, now: at(0), admittedAt: ahead })).toStrictEqual(refused(62))
  })

  it("reads admissions in any order", () => {
    const admittedAt = Array.from({ length: 60 }, (_, i) => at(seconds(59 - i)))
    expect(judgeRequestRate({ limit: 60, windowSeconds: 60, now: at(seconds(59) + 1), admittedAt })).toStrictEqual(
      refused(1)
    )
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
  const check = (now: Date, admitted: ReadonlyArray<number>): boolean => {
    const verdict = judgeRequestRate({
      limit: 60,
      windowSeconds: 60,
      now,
      admittedAt: admitted.map((ms) => new Date(ms))
    })
    expect(verdict.allowed).toBe(wouldAllow(admitted, now.getTime()))
    if (verdict.allowed) return false
    const s = verdict.retryAfterSeconds
    expect(Number.isInteger(s)).toBe(true)
    expect(s).toBeGreaterThanOrEqual(1)
    // Allowed after s seconds and later; refused one second earlier (when that is still ≥ 1).
    for (const later of [s, s + 1, s + 7, s + 60]) expect(wouldAllow(admitted, now.getTime() + seconds(later))).toBe(true)
    if (s > 1) expect(wouldAllow(admitted, now.getTime() + seconds(s - 1))).toBe(false)
    return true
  }

  it("holds for many pseudo-random layouts of admissions, some after now", () => {
    const next = random(20_250_301)
    let refusals = 0
    for (let layout = 0; layout < 3_000; layout++) {
      const now = seconds(1_000) + next(1_000)
      const size = 40 + next(40)
      // Mostly inside the window, some just outside it, a few after now.
      const admitted = Array.from({ length: size }, () =>
        next(10) === 0 ? now + 1 + next(3_000) : now - next(seconds(64))
      )
      if (check(new Date(now), admitted)) refusals++
    }
    expect(refusals).toBeGreaterThan(500)
  })

  it("never lets any 60-second span hold more than 60 admissions, whatever the arrivals", () => {
    const next = random(7_919)
    for (let run = 0; run < 40; run++) {
      const client = new Client()
      let now = T0
      for (let i = 0; i < 400; i++) {
        // Bursts in the same millisecond, small steps, and the odd long pause.
        now += next(5) === 0 ? 0 : next(20) === 0 ? next(seconds(70)) : next(600)
        client.send(new Date(now))
      }
      expect(busiestSpan(client.admitted), `run ${run}`).toBeLessThanOrEqual(60)
    }
  })
})
