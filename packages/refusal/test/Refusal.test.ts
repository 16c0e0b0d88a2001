import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { ERROR_CODES, isErrorCode } from "../src/ErrorCode.js"
import { isRefusal, Refusal } from "../src/Refusal.js"

class SlotTaken extends Refusal("SlotTaken", "BOOKING_SLOT_TAKEN", 409)<{ readonly resourceId: string }> {}
class NoFacts extends Refusal("NoFacts", "BILLING_INTEGRATION_NOT_CONFIGURED", 400) {}

describe("ErrorCode", () => {
  it("lists every code of spec 7.3 once", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length)
    expect(ERROR_CODES).toContain("VALIDATION_FAILED")
    expect(ERROR_CODES).toContain("BILLING_PAYMENT_REPLAY_MISMATCH")
    expect(ERROR_CODES).toContain("CRM_SIGNING_ATTEMPT_LIVE")
    expect(ERROR_CODES).toContain("INTEGRATIONS_CONNECTION_REFERENCE_INVALID")
  })
  it("tells codes from other strings", () => {
    expect(isErrorCode("BOOKING_SLOT_TAKEN")).toBe(true)
    expect(isErrorCode("BOOKING_SLOT_FREE")).toBe(false)
  })
})

describe("Refusal", () => {
  it("carries its tag, code, status, detail and facts", () => {
    const refusal = new SlotTaken({ resourceId: "r1", detail: "The slot is taken." })
    expect(refusal._tag).toBe("SlotTaken")
    expect(refusal.code).toBe("BOOKING_SLOT_TAKEN")
    expect(refusal.status).toBe(409)
    expect(refusal.detail).toBe("The slot is taken.")
    expect(refusal.message).toBe("The slot is taken.")
    expect(refusal.resourceId).toBe("r1")
    expect(isRefusal(refusal)).toBe(true)
  })
  it("works without facts", () => {
    const refusal = new NoFacts({ detail: "No integration." })
    expect(refusal.status).toBe(400)
    expect(isRefusal(refusal)).toBe(true)
    expect(isRefusal(new Error("x"))).toBe(false)
  })
  it("carries the failing fields when it is about fields, and none otherwise", () => {
    const refusal = new NoFacts({ detail: "Not valid.", issues: [{ path: "/name", message: "is too long" }] })
    expect(refusal.issues).toEqual([{ path: "/name", message: "is too long" }])
    expect(isRefusal(refusal)).toBe(true)
    expect("issues" in new NoFacts({ detail: "d" })).toBe(false)
  })
  it.effect("fails an Effect and an Either", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(new SlotTaken({ resourceId: "r", detail: "taken" }))
      expect(error.code).toBe("BOOKING_SLOT_TAKEN")
      const either = Either.left(new NoFacts({ detail: "d" }))
      expect(Either.isLeft(either) && either.left.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
    })
  )
})
