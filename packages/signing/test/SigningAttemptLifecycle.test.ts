import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import type { SigningAttemptRecord, SigningAttemptStatus } from "../src/SigningAttempt.js"
import { SIGNING_ATTEMPT_STATUSES } from "../src/SigningAttempt.js"
import * as Lifecycle from "../src/SigningAttemptLifecycle.js"
import type { AttemptAction, SigningRefusal } from "../src/SigningRefusal.js"
import { anAttempt, anUpload, CUSTOMER_PARTY_ID, EARLIER, getLeft, getRight, NOW } from "./fixtures.js"
import { ORGANIZATION_PARTY_ID } from "./fixtures.js"

type Report = "started" | "signed" | "declined" | "expired" | "withdrawn" | "failed" | "request-withdrawal"

/** Runs one report with a command that satisfies its own rule, so only the state machine can refuse it. */
const run = (attempt: SigningAttemptRecord, report: Report): Either.Either<Lifecycle.Transition, SigningRefusal> => {
  switch (report) {
    case "started":
      return Lifecycle.reportStarted(attempt, { providerDocumentId: "scrive-4711" }, NOW)
    case "signed":
      return Lifecycle.reportSigned(attempt, { upload: anUpload({ attemptId: attempt.id, status: "stored" }) }, NOW)
    case "declined":
      return Lifecycle.reportDeclined(attempt, { partyId: CUSTOMER_PARTY_ID }, NOW)
    case "expired":
      return Lifecycle.reportExpired(attempt, NOW)
    case "withdrawn":
      return Lifecycle.reportWithdrawn(attempt, NOW)
    case "failed":
      return Lifecycle.reportFailed(attempt, { reason: "The provider refused the document" }, NOW)
    case "request-withdrawal":
      return Lifecycle.requestWithdrawal(attempt, NOW)
  }
}

const REPORTS: ReadonlyArray<Report> = [
  "started",
  "signed",
  "declined",
  "expired",
  "withdrawn",
  "failed",
  "request-withdrawal"
]

/**
 * Decisions 6 as a table: the live states (status, and whether a withdrawal was asked for) each report is allowed
 * from, and the status it leads to. Everything not listed is forbidden.
 */
interface Rule {
  readonly from: ReadonlyArray<string>
  readonly to: SigningAttemptStatus | "same"
}
const ALLOWED: { readonly [R in Report]: Rule } = {
  started: { from: ["queued", "queued+withdrawal"], to: "started" },
  signed: { from: ["started", "started+withdrawal"], to: "signed" },
  declined: { from: ["started", "started+withdrawal"], to: "declined" },
  expired: { from: ["started", "started+withdrawal"], to: "expired" },
  failed: { from: ["queued", "started", "queued+withdrawal", "started+withdrawal"], to: "failed" },
  withdrawn: { from: ["queued+withdrawal", "started+withdrawal"], to: "withdrawn" },
  "request-withdrawal": { from: ["queued", "started"], to: "same" }
}

const ENDED: ReadonlyArray<SigningAttemptStatus> = ["signed", "declined", "expired", "failed", "withdrawn"]

describe("the signing-attempt state machine (decisions 6): every report from every state", () => {
  for (const status of SIGNING_ATTEMPT_STATUSES) {
    for (const withdrawal of [false, true]) {
      const state = `${status}${withdrawal ? "+withdrawal" : ""}`
      const attempt = anAttempt({
        status,
        ...(status === "queued" ? {} : { startedAt: EARLIER, providerDocumentId: "scrive-4711" }),
        ...(withdrawal ? { withdrawalRequestedAt: EARLIER } : {})
      })
      for (const report of REPORTS) {
        const rule = ALLOWED[report]
        if (ENDED.includes(status)) {
          it(`${report} on a ${state} attempt → CRM_SIGNING_ATTEMPT_ENDED (400)`, () => {
            const refusal = getLeft(run(attempt, report))
            expect(refusal._tag).toBe("SigningAttemptEnded")
            expect(refusal.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
            expect(refusal.status).toBe(400)
            expect(refusal).toMatchObject({ attemptStatus: status, action: report })
          })
        } else if (rule.from.includes(state)) {
          const to = rule.to === "same" ? status : rule.to
          it(`${report} on a ${state} attempt → ${to}`, () => {
            const { attempt: after, events } = getRight(run(attempt, report))
            expect(after.status).toBe(to)
            expect(after.updatedAt).toBe(NOW)
            expect(events).toHaveLength(1)
          })
        } else {
          it(`${report} on a ${state} attempt → CRM_AGREEMENT_TRANSITION_INVALID (400)`, () => {
            const refusal = getLeft(run(attempt, report))
            expect(refusal._tag).toBe("SigningTransitionInvalid")
            expect(refusal.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
            expect(refusal.status).toBe(400)
            expect(refusal).toMatchObject({ attemptStatus: status, action: report, withdrawalRequested: withdrawal })
          })
        }
      }
    }
  }

  it("never changes the attempt it is given", () => {
    for (const status of SIGNING_ATTEMPT_STATUSES) {
      for (const report of REPORTS) {
        const attempt = anAttempt({ status })
        const before = structuredClone(attempt)
        run(attempt, report)
        expect(attempt).toStrictEqual(before)
      }
    }
  })
})

describe("guard (the table of allowed actions)", () => {
  const uploadActions: ReadonlyArray<AttemptAction> = ["signed-document-upload", "upload"]
  for (const action of uploadActions) {
    it(`${action} is allowed on a started attempt only`, () => {
      expect(Either.isRight(Lifecycle.guard({ status: "started" }, action))).toBe(true)
      expect(Either.isRight(Lifecycle.guard({ status: "started", withdrawalRequestedAt: EARLIER }, action))).toBe(true)
      expect(getLeft(Lifecycle.guard({ status: "queued" }, action)).code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
      for (const status of ENDED) {
        expect(getLeft(Lifecycle.guard({ status }, action)).code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
      }
    })
  }

  it("refusal details never name the caller's input", () => {
    const refusal = getLeft(Lifecycle.guard({ status: "queued" }, "signed"))
    expect(refusal.detail).toBe("The signing attempt is queued; signed is only allowed once it is started.")
  })
})

const event = (tag: string, attempt: SigningAttemptRecord) => ({
  _tag: tag,
  attemptId: attempt.id,
  contractId: attempt.contractId,
  organizationId: attempt.organizationId,
  operationalContextId: attempt.operationalContextId,
  at: NOW
})

describe("reportStarted (queued → started)", () => {
  it("records the provider's document id and startedAt, nothing else", () => {
    const attempt = anAttempt({ status: "queued" })
    const { attempt: after, events } = getRight(
      Lifecycle.reportStarted(attempt, { providerDocumentId: "scrive-4711" }, NOW)
    )
    expect(after).toStrictEqual({
      ...attempt,
      status: "started",
      providerDocumentId: "scrive-4711",
      startedAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([event("crm.signing_attempt.started", attempt)])
  })

  it("is accepted while a withdrawal is asked for, and the attempt stays on the withdrawal queue", () => {
    const attempt = anAttempt({ status: "queued", withdrawalRequestedAt: EARLIER })
    const { attempt: after } = getRight(Lifecycle.reportStarted(attempt, { providerDocumentId: "d-1" }, NOW))
    expect(after.withdrawalRequestedAt).toBe(EARLIER)
  })

  it("a second started is CRM_AGREEMENT_TRANSITION_INVALID", () => {
    const refusal = getLeft(
      Lifecycle.reportStarted(anAttempt({ status: "started" }), { providerDocumentId: "d-2" }, NOW)
    )
    expect(refusal.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    expect(refusal.detail).toBe("The signing attempt is already started; started is reported once.")
  })
})

describe("reportSigned (started → signed, with a stored PDF)", () => {
  const attempt = anAttempt({ status: "started", startedAt: EARLIER, providerDocumentId: "d-1" })

  it("records the upload and signedAt", () => {
    const upload = anUpload({ attemptId: attempt.id, status: "stored", storedAt: EARLIER })
    const { attempt: after, events } = getRight(Lifecycle.reportSigned(attempt, { upload }, NOW))
    expect(after).toStrictEqual({
      ...attempt,
      status: "signed",
      signedDocumentUploadId: upload.id,
      signedAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([event("crm.signing_attempt.signed", attempt)])
  })

  it("without an upload of that id → CRM_SIGNED_DOCUMENT_REJECTED (not-uploaded)", () => {
    const refusal = getLeft(Lifecycle.reportSigned(attempt, { upload: undefined }, NOW))
    expect(refusal).toMatchObject({ code: "CRM_SIGNED_DOCUMENT_REJECTED", status: 400, reason: "not-uploaded" })
  })

  it("with an upload whose PDF was never stored → CRM_SIGNED_DOCUMENT_REJECTED (not-uploaded)", () => {
    const upload = anUpload({ attemptId: attempt.id, status: "pending" })
    const refusal = getLeft(Lifecycle.reportSigned(attempt, { upload }, NOW))
    expect(refusal).toMatchObject({ code: "CRM_SIGNED_DOCUMENT_REJECTED", reason: "not-uploaded" })
  })

  it("with another attempt's upload → CRM_SIGNED_DOCUMENT_REJECTED (other-attempt)", () => {
    const upload = anUpload({ attemptId: "00000000-0000-4000-8000-000000000000", status: "stored" })
    const refusal = getLeft(Lifecycle.reportSigned(attempt, { upload }, NOW))
    expect(refusal).toMatchObject({ code: "CRM_SIGNED_DOCUMENT_REJECTED", reason: "other-attempt" })
  })

  it("the state machine answers before the document: signed on a queued attempt without upload", () => {
    const refusal = getLeft(Lifecycle.reportSigned(anAttempt({ status: "queued" }), { upload: undefined }, NOW))
    expect(refusal.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
  })

  it("a repeated signed is CRM_SIGNING_ATTEMPT_ENDED", () => {
    const upload = anUpload({ attemptId: attempt.id, status: "stored" })
    const { attempt: signed } = getRight(Lifecycle.reportSigned(attempt, { upload }, NOW))
    expect(getLeft(Lifecycle.reportSigned(signed, { upload }, NOW)).code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
  })
})

describe("reportDeclined (started → declined, by a party)", () => {
  const attempt = anAttempt({ status: "started", startedAt: EARLIER })

  it("records the party, the reason and declinedAt", () => {
    const { attempt: after, events } = getRight(
      Lifecycle.reportDeclined(attempt, { partyId: ORGANIZATION_PARTY_ID, reason: "Rent too high" }, NOW)
    )
    expect(after).toStrictEqual({
      ...attempt,
      status: "declined",
      declinedByPartyId: ORGANIZATION_PARTY_ID,
      declineReason: "Rent too high",
      declinedAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([event("crm.signing_attempt.declined", attempt)])
  })

  it("without a reason leaves declineReason absent", () => {
    const { attempt: after } = getRight(Lifecycle.reportDeclined(attempt, { partyId: CUSTOMER_PARTY_ID }, NOW))
    expect("declineReason" in after).toBe(false)
  })

  it("a party not of this attempt → VALIDATION_FAILED at /partyId", () => {
    const refusal = getLeft(
      Lifecycle.reportDeclined(attempt, { partyId: "00000000-0000-4000-8000-000000000000" }, NOW)
    )
    expect(refusal).toMatchObject({
      _tag: "DecliningPartyUnknown",
      code: "VALIDATION_FAILED",
      status: 400,
      path: "/partyId"
    })
  })
})

describe("reportExpired (started → expired)", () => {
  it("records expiredAt", () => {
    const attempt = anAttempt({ status: "started", startedAt: EARLIER })
    const { attempt: after, events } = getRight(Lifecycle.reportExpired(attempt, NOW))
    expect(after).toStrictEqual({ ...attempt, status: "expired", expiredAt: NOW, updatedAt: NOW })
    expect(events).toStrictEqual([event("crm.signing_attempt.expired", attempt)])
  })
})

describe("reportFailed (queued/started → failed)", () => {
  for (const status of ["queued", "started"] as const) {
    it(`records the reason and failedAt on a ${status} attempt`, () => {
      const attempt = anAttempt({ status })
      const reason = "  Dokumentet kunde inte skapas 😀 \n"
      const { attempt: after, events } = getRight(Lifecycle.reportFailed(attempt, { reason }, NOW))
      expect(after).toStrictEqual({
        ...attempt,
        status: "failed",
        failureReason: reason,
        failedAt: NOW,
        updatedAt: NOW
      })
      expect(events).toStrictEqual([event("crm.signing_attempt.failed", attempt)])
    })
  }
})

describe("reportWithdrawn (withdrawal asked → withdrawn)", () => {
  it("records withdrawnAt", () => {
    const attempt = anAttempt({ status: "started", withdrawalRequestedAt: EARLIER })
    const { attempt: after, events } = getRight(Lifecycle.reportWithdrawn(attempt, NOW))
    expect(after).toStrictEqual({ ...attempt, status: "withdrawn", withdrawnAt: NOW, updatedAt: NOW })
    expect(events).toStrictEqual([event("crm.signing_attempt.withdrawn", attempt)])
  })

  it("without a withdrawal asked for → CRM_AGREEMENT_TRANSITION_INVALID", () => {
    const refusal = getLeft(Lifecycle.reportWithdrawn(anAttempt({ status: "started" }), NOW))
    expect(refusal.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    expect(refusal.detail).toBe(
      "No withdrawal of this signing attempt was asked for; withdrawn answers the withdrawal queue."
    )
  })
})

describe("requestWithdrawal (an operator's ask)", () => {
  it("sets withdrawalRequestedAt and keeps the status", () => {
    const attempt = anAttempt({ status: "queued" })
    const { attempt: after, events } = getRight(Lifecycle.requestWithdrawal(attempt, NOW))
    expect(after).toStrictEqual({ ...attempt, withdrawalRequestedAt: NOW, updatedAt: NOW })
    expect(events).toStrictEqual([event("crm.signing_attempt.withdrawal_requested", attempt)])
  })

  it("asked twice → CRM_AGREEMENT_TRANSITION_INVALID", () => {
    const refusal = getLeft(Lifecycle.requestWithdrawal(anAttempt({ withdrawalRequestedAt: EARLIER }), NOW))
    expect(refusal.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
  })
})

describe("any sequence of reports (property)", () => {
  it("ends at most once, and after that refuses everything with CRM_SIGNING_ATTEMPT_ENDED", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...REPORTS), { maxLength: 12 }), (reports) => {
        let attempt = anAttempt({ status: "queued" })
        let endings = 0
        for (const report of reports) {
          const wasEnded = ENDED.includes(attempt.status)
          const result = run(attempt, report)
          if (wasEnded) {
            expect(Either.isLeft(result) && result.left.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
            continue
          }
          if (Either.isRight(result)) {
            attempt = result.right.attempt
            if (ENDED.includes(attempt.status)) endings++
          }
        }
        expect(endings).toBeLessThanOrEqual(1)
      })
    )
  })
})
