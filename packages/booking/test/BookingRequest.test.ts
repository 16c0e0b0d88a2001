import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import {
  approve,
  type BookingRequestCommand,
  decline,
  expire,
  replayBookingRequest,
  requestBooking,
  requestFingerprint,
  statusAt
} from "../src/BookingRequest.js"
import { at, getLeft, getRight, NOW, period, room, roomState } from "./fixtures.js"

const command: BookingRequestCommand = {
  ...period("2026-03-25T10:00:00+01:00", "2026-03-25T12:00:00+01:00"),
  id: "00000000-0000-4000-8000-00000000b001",
  requestId: "web-4711",
  fingerprint: "fp-1",
  requestedBy: "app_demo",
  guest: { name: "Astrid Lindqvist", email: "astrid@example.se" },
  company: { country: "SE", organisationNumber: "556012-5790", name: "AB Volvo" }
}

const pending = () => getRight(requestBooking(roomState(), command, NOW))

describe("requestBooking", () => {
  it("creates a pending request holding its slot for the resource's hold time", () => {
    const { record, events } = pending()
    expect(record).toMatchObject({
      id: command.id,
      requestId: "web-4711",
      fingerprint: "fp-1",
      organizationId: room.organizationId,
      operationalContextId: room.operationalContextId,
      resourceId: room.id,
      requestedBy: "app_demo",
      status: "pending",
      start: at("2026-03-25T10:00:00+01:00"),
      end: at("2026-03-25T12:00:00+01:00"),
      blockedStart: at("2026-03-25T10:00:00+01:00"),
      blockedEnd: at("2026-03-25T12:15:00+01:00"),
      holdExpiresAt: at("2026-03-24T09:00:00+01:00"),
      createdAt: NOW,
      updatedAt: NOW
    })
    expect(record.price.totalGrossMinorUnits).toBe(125_000)
    expect(events).toStrictEqual([
      {
        _tag: "booking.booking_request.created",
        bookingId: command.id,
        organizationId: room.organizationId,
        operationalContextId: room.operationalContextId,
        resourceId: room.id,
        at: NOW
      }
    ])
  })
  it("ends the hold at the booking's start when that comes first", () => {
    const soon = { ...command, ...period("2026-03-23T11:00:00+01:00", "2026-03-23T12:00:00+01:00") }
    expect(getRight(requestBooking(roomState(), soon, NOW)).record.holdExpiresAt).toStrictEqual(at("2026-03-23T11:00:00+01:00"))
  })
  it("refuses with the check's first refusal, the same a preview gives", () => {
    const taken = roomState([{ start: at("2026-03-25T11:00:00+01:00"), end: at("2026-03-25T13:00:00+01:00") }])
    expect(getLeft(requestBooking(taken, command, NOW))).toMatchObject({ code: "BOOKING_SLOT_TAKEN", status: 409 })
  })
})

describe("replayBookingRequest (idempotency by requestId)", () => {
  it("gives the existing record for the same body", () => {
    const { record } = pending()
    expect(getRight(replayBookingRequest(record, "fp-1"))).toBe(record)
  })
  it("refuses another body with BOOKING_REQUEST_ID_ALREADY_USED (409)", () => {
    expect(getLeft(replayBookingRequest(pending().record, "fp-2"))).toMatchObject({
      code: "BOOKING_REQUEST_ID_ALREADY_USED",
      status: 409
    })
  })
})

describe("requestFingerprint", () => {
  it("ignores key order, absent members and how an instant was written", () => {
    const a = { b: 1, a: { start: new Date("2026-03-25T10:00:00+01:00"), note: undefined } }
    const b = { a: { start: new Date("2026-03-25T09:00:00.000Z") }, b: 1 }
    expect(requestFingerprint(a)).toBe(requestFingerprint(b))
  })
  it("tells different bodies apart, including array order", () => {
    expect(requestFingerprint({ lines: [1, 2] })).not.toBe(requestFingerprint({ lines: [2, 1] }))
    expect(requestFingerprint({ a: "1" })).not.toBe(requestFingerprint({ a: 1 }))
  })
})

describe("statusAt", () => {
  it("reads a pending request as expired from its hold's end", () => {
    const { record } = pending()
    expect(statusAt(record, at("2026-03-24T08:59:59+01:00"))).toBe("pending")
    expect(statusAt(record, at("2026-03-24T09:00:00+01:00"))).toBe("expired")
  })
  it("keeps a decided request's status", () => {
    const approved = getRight(approve(pending().record, NOW)).record
    expect(statusAt(approved, at("2027-01-01T00:00:00Z"))).toBe("approved")
  })
})

describe("approve", () => {
  const later = at("2026-03-23T12:00:00+01:00")
  it("approves a pending request within its hold", () => {
    const { record, events } = getRight(approve(pending().record, later))
    expect(record).toMatchObject({ status: "approved", approvedAt: later, updatedAt: later })
    expect(events.map((e) => e._tag)).toStrictEqual(["booking.booking_request.approved"])
  })
  it("refuses an approved request with BOOKING_NOT_PENDING_APPROVAL", () => {
    const approved = getRight(approve(pending().record, later)).record
    expect(getLeft(approve(approved, later))).toMatchObject({
      code: "BOOKING_NOT_PENDING_APPROVAL",
      status: 400,
      bookingStatus: "approved"
    })
  })
  it("refuses a declined request with BOOKING_NOT_PENDING_APPROVAL", () => {
    const declined = getRight(decline(pending().record, { reason: "Room closed" }, later)).record
    expect(getLeft(approve(declined, later)).code).toBe("BOOKING_NOT_PENDING_APPROVAL")
  })
  it("refuses a request whose hold expired with BOOKING_APPROVAL_WINDOW_PASSED", () => {
    expect(getLeft(approve(pending().record, at("2026-03-24T09:00:00+01:00")))).toMatchObject({
      code: "BOOKING_APPROVAL_WINDOW_PASSED",
      holdExpiresAt: at("2026-03-24T09:00:00+01:00")
    })
  })
  it("refuses a request written down as expired with BOOKING_NOT_PENDING_APPROVAL", () => {
    const expired = Option.getOrThrow(expire(pending().record, at("2026-03-24T10:00:00+01:00"))).record
    expect(getLeft(approve(expired, at("2026-03-24T10:00:00+01:00"))).code).toBe("BOOKING_NOT_PENDING_APPROVAL")
  })
})

describe("decline", () => {
  const later = at("2026-03-23T12:00:00+01:00")
  it("declines a pending request with the operator's reason", () => {
    const { record, events } = getRight(decline(pending().record, { reason: "Room closed" }, later))
    expect(record).toMatchObject({ status: "declined", declinedAt: later, declineReason: "Room closed", updatedAt: later })
    expect(events.map((e) => e._tag)).toStrictEqual(["booking.booking_request.declined"])
  })
  it("refuses a request that is not pending", () => {
    const declined = getRight(decline(pending().record, { reason: "x" }, later)).record
    expect(getLeft(decline(declined, { reason: "again" }, later)).code).toBe("BOOKING_NOT_PENDING_APPROVAL")
  })
  it("refuses after the hold expired", () => {
    expect(getLeft(decline(pending().record, { reason: "late" }, at("2026-03-25T00:00:00+01:00"))).code).toBe(
      "BOOKING_APPROVAL_WINDOW_PASSED"
    )
  })
})

describe("expire", () => {
  it("writes down a pending request whose hold has run out", () => {
    const now = at("2026-03-24T10:00:00+01:00")
    const { record, events } = Option.getOrThrow(expire(pending().record, now))
    expect(record).toMatchObject({ status: "expired", expiredAt: at("2026-03-24T09:00:00+01:00"), updatedAt: now })
    expect(events.map((e) => e._tag)).toStrictEqual(["booking.booking_request.expired"])
  })
  it("leaves a request still within its hold", () => {
    expect(Option.isNone(expire(pending().record, at("2026-03-24T08:00:00+01:00")))).toBe(true)
  })
  it("leaves a decided request", () => {
    const approved = getRight(approve(pending().record, NOW)).record
    expect(Option.isNone(expire(approved, at("2027-01-01T00:00:00Z")))).toBe(true)
  })
})
