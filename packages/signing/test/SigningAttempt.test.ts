import { describe, expect, it } from "@effect/vitest"
import {
  ENDED_STATUSES,
  isEnded,
  isLive,
  isOnSigningQueue,
  isOnWithdrawalQueue,
  LIVE_STATUSES,
  SIGNING_ATTEMPT_STATUSES
} from "../src/SigningAttempt.js"
import { SIGNING_EVENT_TYPES } from "../src/SigningEvent.js"
import { EARLIER } from "./fixtures.js"

describe("live and ended statuses (decisions 6)", () => {
  it("queued and started are live; every other status is ended", () => {
    expect(LIVE_STATUSES).toStrictEqual(["queued", "started"])
    expect([...LIVE_STATUSES, ...ENDED_STATUSES].sort()).toStrictEqual([...SIGNING_ATTEMPT_STATUSES].sort())
    for (const status of SIGNING_ATTEMPT_STATUSES) expect(isLive(status)).toBe(!isEnded(status))
    for (const status of ENDED_STATUSES) expect(isEnded(status)).toBe(true)
  })
})

describe("the queues an attempt is on", () => {
  it("signing queue: queued, no withdrawal asked for", () => {
    expect(isOnSigningQueue({ status: "queued" })).toBe(true)
    expect(isOnSigningQueue({ status: "queued", withdrawalRequestedAt: EARLIER })).toBe(false)
    expect(isOnSigningQueue({ status: "started" })).toBe(false)
    for (const status of ENDED_STATUSES) expect(isOnSigningQueue({ status })).toBe(false)
  })
  it("withdrawal queue: live, withdrawal asked for", () => {
    expect(isOnWithdrawalQueue({ status: "queued", withdrawalRequestedAt: EARLIER })).toBe(true)
    expect(isOnWithdrawalQueue({ status: "started", withdrawalRequestedAt: EARLIER })).toBe(true)
    expect(isOnWithdrawalQueue({ status: "started" })).toBe(false)
    for (const status of ENDED_STATUSES) {
      expect(isOnWithdrawalQueue({ status, withdrawalRequestedAt: EARLIER })).toBe(false)
    }
  })
})

describe("event types (decisions 9)", () => {
  it("one per change, named crm.signing_attempt.*", () => {
    expect(SIGNING_EVENT_TYPES).toStrictEqual([
      "crm.signing_attempt.queued",
      "crm.signing_attempt.started",
      "crm.signing_attempt.signed_document_uploaded",
      "crm.signing_attempt.signed",
      "crm.signing_attempt.declined",
      "crm.signing_attempt.expired",
      "crm.signing_attempt.failed",
      "crm.signing_attempt.withdrawal_requested",
      "crm.signing_attempt.withdrawn"
    ])
  })
})
