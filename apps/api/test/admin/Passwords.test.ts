/**
 * Operator passwords (argon2id, 19 MiB, 2 passes): hashing and verifying run in libuv's thread pool through the
 * async @node-rs/argon2 API, so sign-ins under attack never hold the event loop that serves the API (issue 19).
 */
import { Effect } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { describe, expect, it } from "vitest"
import { hashPassword, verifyPassword } from "../../src/admin/Passwords.js"

describe("Passwords", () => {
  it("verifies a right and a wrong password; a malformed hash is a mismatch", async () => {
    const phc = await Effect.runPromise(hashPassword("correct horse"))
    expect(phc.startsWith("$argon2id$v=19$m=19456,t=2,p=1$")).toBe(true)
    expect(await Effect.runPromise(verifyPassword(phc, "correct horse"))).toBe(true)
    expect(await Effect.runPromise(verifyPassword(phc, "wrong"))).toBe(false)
    expect(await Effect.runPromise(verifyPassword("not a phc", "wrong"))).toBe(false)
  })

  it("8 verifications at once leave the event loop free (each alone takes tens of milliseconds of CPU)", async () => {
    const phc = await Effect.runPromise(hashPassword("correct horse"))
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const started = performance.now()
    await Effect.runPromise(Effect.all(Array.from({ length: 8 }, () => verifyPassword(phc, "wrong")), { concurrency: 8 }))
    const elapsed = performance.now() - started
    delay.disable()
    // On the event loop (the *Sync API) the loop would stall for all 8 in a row; in the pool it stalls for none.
    expect(delay.max / 1e6).toBeLessThan(Math.max(60, elapsed / 2))
  })
})
