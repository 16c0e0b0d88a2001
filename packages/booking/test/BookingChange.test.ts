import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { type BookingChange, checkBooking, checkCancellation } from "../src/BookingCheck.js"
import { cancel, requestBooking, reschedule } from "../src/BookingRequest.js"
import type { BookableResource } from "../src/Resource.js"
import { at, getLeft, getRight, NOW, period, room, roomState } from "./fixtures.js"

// An approved booking on Wednesday 25 March 2026, 10:00–12:00 in Stockholm; NOW is Monday 09:00.
const terms: BookableResource = { ...room, cancellationNoticeMinutes: 24 * 60, lateCancellationChargeBasisPoints: 5000 }
const made = getRight(
  requestBooking(
    { ...roomState(), resource: terms },
    { ...period("2026-03-25T10:00:00+01:00", "2026-03-25T12:00:00+01:00"), id: "b", requestId: "r", fingerprint: "f", requestedBy: "a", guest: { name: "G", email: "g@example.se" } },
    NOW
  )
).record
const approved = { ...made, status: "approved" as const }
const change = (fields: Partial<BookingChange> = {}): BookingChange => ({
  _tag: "Cancel",
  booking: { status: approved.status, start: approved.start, price: approved.price },
  by: "application",
  ...fields
})
const codeOf = (result: Either.Either<unknown, { readonly code: string }>) => (Either.isLeft(result) ? result.left.code : "OK")
const lateNow = at("2026-03-24T12:00:00+01:00") // after the deadline (Tuesday 10:00)

describe("checkCancellation (issue 26): the change's checks in CHECK_ORDER", () => {
  it("cancels free before the deadline, and refuses a decision then (BOOKING_NOT_PAST_CANCELLATION_DEADLINE)", () => {
    expect(getRight(checkCancellation(terms, change(), NOW))).toEqual({})
    expect(codeOf(checkCancellation(terms, change({ lateCancellation: { decision: "charge" } }), NOW))).toBe("BOOKING_NOT_PAST_CANCELLATION_DEADLINE")
  })

  it("a pending request is withdrawn free even past the deadline", () => {
    expect(getRight(checkCancellation(terms, change({ booking: { ...change().booking, status: "pending" } }), lateNow))).toEqual({})
  })

  it("BOOKING_NOT_RESCHEDULABLE for a request that is not live, before BOOKING_ALREADY_STARTED", () => {
    for (const status of ["declined", "expired", "cancelled"] as const) {
      expect(codeOf(checkCancellation(terms, change({ booking: { ...change().booking, status } }), at("2026-03-26T00:00:00+01:00")))).toBe("BOOKING_NOT_RESCHEDULABLE")
    }
    expect(codeOf(checkCancellation(terms, change(), at("2026-03-25T10:00:00+01:00")))).toBe("BOOKING_ALREADY_STARTED")
  })

  it("past the deadline: decision required (with the charge), a stale charge is 409, the right one charges half", () => {
    const required = getLeft(checkCancellation(terms, change(), lateNow))
    expect(required.code).toBe("BOOKING_LATE_CANCELLATION_DECISION_REQUIRED")
    const gross = approved.price.totalGrossMinorUnits / 2
    expect(required).toMatchObject({ chargeGrossMinorUnits: gross })
    const stale = getLeft(checkCancellation(terms, change({ lateCancellation: { decision: "charge", chargeGrossMinorUnits: gross + 1 } }), lateNow))
    expect([stale.code, stale.status]).toEqual(["BOOKING_LATE_CANCELLATION_ITEMS_CHANGED", 409])
    expect(getRight(checkCancellation(terms, change({ lateCancellation: { decision: "charge", chargeGrossMinorUnits: gross } }), lateNow)).lateCancellation).toEqual({
      decision: "charged",
      chargeBasisPoints: 5000,
      currency: "SEK",
      netMinorUnits: approved.price.totalNetMinorUnits / 2,
      vatMinorUnits: approved.price.totalVatMinorUnits / 2,
      grossMinorUnits: gross
    })
  })

  it("without late terms: BOOKING_CANCELLATION_NOTICE_EXPIRED, unless an operator waives", () => {
    const strict: BookableResource = { ...room, cancellationNoticeMinutes: 24 * 60 }
    expect(codeOf(checkCancellation(strict, change({ lateCancellation: { decision: "charge" } }), lateNow))).toBe("BOOKING_CANCELLATION_NOTICE_EXPIRED")
    expect(codeOf(checkCancellation(strict, change({ lateCancellation: { decision: "waive" } }), lateNow))).toBe("BOOKING_CANCELLATION_NOTICE_EXPIRED")
    const waived = getRight(checkCancellation(strict, change({ by: "operator", lateCancellation: { decision: "waive" } }), lateNow))
    expect(waived.lateCancellation).toMatchObject({ decision: "waived", grossMinorUnits: 0 })
  })
})

describe("reschedule and cancel (issue 26)", () => {
  it("moves through the very check of a new request, the change's checks first", () => {
    const state = { ...roomState(), resource: terms }
    const moved = getRight(reschedule(state, approved, { ...period("2026-03-26T13:00:00+01:00", "2026-03-26T14:00:00+01:00"), by: "application" }, NOW))
    const fresh = getRight(checkBooking(state, period("2026-03-26T13:00:00+01:00", "2026-03-26T14:00:00+01:00"), NOW))
    expect(moved.record).toMatchObject({ id: "b", status: "approved", start: fresh.start, end: fresh.end, price: fresh.price, rescheduledAt: NOW })
    expect(moved.events.map((e) => e._tag)).toEqual(["booking.booking_request.rescheduled"])
    expect(codeOf(reschedule(state, approved, { ...period("2026-03-26T13:00:00+01:00", "2026-03-26T14:00:00+01:00"), by: "application" }, lateNow))).toBe("BOOKING_CANCELLATION_NOTICE_EXPIRED")
    expect(codeOf(reschedule(state, approved, { ...period("2026-03-26T13:05:00+01:00", "2026-03-26T14:05:00+01:00"), by: "application" }, NOW))).toBe("BOOKING_START_NOT_ON_INCREMENT")
  })

  it("cancel writes the record cancelled with who and why, and the event", () => {
    const done = getRight(cancel({ resource: terms }, approved, { by: "operator", reason: "Closed" }, NOW))
    expect(done.record).toMatchObject({ status: "cancelled", cancelledBy: "operator", cancellationReason: "Closed", cancelledAt: NOW })
    expect(done.events.map((e) => e._tag)).toEqual(["booking.booking_request.cancelled"])
  })
})
