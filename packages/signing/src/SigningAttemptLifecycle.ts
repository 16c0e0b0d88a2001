/**
 * The signing-attempt state machine (decisions.md section 6; spec section 4.2 "Signing"): the six outcome reports
 * of an e-signing system (`POST /v1/crm/signing-attempts/{attemptId}/started|signed|declined|expired|withdrawn|
 * failed`) and the operator's request for withdrawal, as pure functions. Each takes the current attempt, the
 * command and the time, and returns the new attempt with the events of the change, or a refusal. The caller loads
 * (under a row lock) and persists; nothing here does I/O.
 *
 * ```
 * queued ──started──▶ started ──signed──▶ signed
 *   │                   ├──────declined──▶ declined
 *   │                   ├──────expired───▶ expired
 *   ├──────failed───────┴──────failed────▶ failed
 *   └─ (withdrawal requested) ─withdrawn─▶ withdrawn   (from queued or started)
 * ```
 *
 * Every refusal follows one order: an ended attempt refuses anything with `CRM_SIGNING_ATTEMPT_ENDED`; a live one
 * refuses what the table forbids with `CRM_AGREEMENT_TRANSITION_INVALID`; then the report's own rule applies.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { SignedDocumentUpload } from "./SignedDocumentUpload.js"
import type { SigningAttemptRecord } from "./SigningAttempt.js"
import { isEnded } from "./SigningAttempt.js"
import type { SigningEvent } from "./SigningEvent.js"
import {
  type AttemptAction,
  DecliningPartyUnknown,
  SignedDocumentRejected,
  SigningAttemptEnded,
  SigningTransitionInvalid
} from "./SigningRefusal.js"
import { attemptEvent } from "./internal/events.js"

/**
 * The result of an accepted transition: the attempt as it now is, and the events to write with it (outbox,
 * decisions.md section 9). The contract's signing status becomes the attempt's `status`.
 *
 * @since 0.1.0
 */
export interface Transition {
  readonly attempt: SigningAttemptRecord
  readonly events: ReadonlyArray<SigningEvent>
}

type Live = Pick<SigningAttemptRecord, "status" | "withdrawalRequestedAt">

// What each action needs of a live attempt. A table, so the state machine reads in one place.
const allowedWhen: { readonly [Action in AttemptAction]: (attempt: Live) => boolean } = {
  started: (attempt) => attempt.status === "queued",
  signed: (attempt) => attempt.status === "started",
  declined: (attempt) => attempt.status === "started",
  expired: (attempt) => attempt.status === "started",
  failed: () => true,
  withdrawn: (attempt) => attempt.withdrawalRequestedAt !== undefined,
  "signed-document-upload": (attempt) => attempt.status === "started",
  upload: (attempt) => attempt.status === "started",
  "request-withdrawal": (attempt) => attempt.withdrawalRequestedAt === undefined
}

const invalidDetail = (attempt: Live, action: AttemptAction): string => {
  switch (action) {
    case "started":
      return "The signing attempt is already started; started is reported once."
    case "signed":
    case "declined":
    case "expired":
    case "signed-document-upload":
    case "upload":
      return `The signing attempt is ${attempt.status}; ${action} is only allowed once it is started.`
    case "withdrawn":
      return "No withdrawal of this signing attempt was asked for; withdrawn answers the withdrawal queue."
    case "request-withdrawal":
      return "The withdrawal of this signing attempt is already asked for."
    case "failed":
      return `The signing attempt is ${attempt.status}; failed is not allowed.`
  }
}

/**
 * Whether the state machine lets `action` happen to `attempt` now: `Right` when it does; otherwise
 * `SigningAttemptEnded` (`CRM_SIGNING_ATTEMPT_ENDED`, 400) for an ended attempt, or `SigningTransitionInvalid`
 * (`CRM_AGREEMENT_TRANSITION_INVALID`, 400) for a live attempt whose status does not allow it:
 *
 * | action | allowed from |
 * | --- | --- |
 * | `started` | `queued` |
 * | `signed`, `declined`, `expired`, `signed-document-upload`, `upload` | `started` |
 * | `failed` | `queued`, `started` |
 * | `withdrawn` | `queued`, `started`, once a withdrawal was asked for |
 * | `request-withdrawal` | `queued`, `started`, unless one was asked for already |
 *
 * A withdrawal asked for does not stop the e-signing system's own outcomes: a document signed, declined or
 * expired before the cancellation reached it is reported as such, and ends the attempt.
 *
 * @since 0.1.0
 */
export const guard = (
  attempt: Live,
  action: AttemptAction
): Either.Either<void, SigningAttemptEnded | SigningTransitionInvalid> => {
  if (isEnded(attempt.status)) {
    return Either.left(
      new SigningAttemptEnded({
        attemptStatus: attempt.status,
        action,
        detail: `The signing attempt is ${attempt.status}; it has ended and nothing more can be reported on it.`
      })
    )
  }
  if (!allowedWhen[action](attempt)) {
    return Either.left(
      new SigningTransitionInvalid({
        attemptStatus: attempt.status,
        action,
        withdrawalRequested: attempt.withdrawalRequestedAt !== undefined,
        detail: invalidDetail(attempt, action)
      })
    )
  }
  return Either.void
}

/**
 * Body of `started`: `providerDocumentId`, the e-signing system's own id of the document (1 to 200 characters,
 * checked by the contract).
 *
 * @since 0.1.0
 */
export interface StartedCommand {
  readonly providerDocumentId: string
}

/**
 * Report the document out for signature: `queued` → `started`. Sets `providerDocumentId`, `startedAt` and
 * `updatedAt`; emits `crm.signing_attempt.started`. Allowed while a withdrawal is asked for (the e-signing system
 * may have created the document before it read the withdrawal queue; its id helps it cancel).
 *
 * Refuses per {@link guard}: ended → `CRM_SIGNING_ATTEMPT_ENDED`; `started` already →
 * `CRM_AGREEMENT_TRANSITION_INVALID`.
 *
 * @since 0.1.0
 */
export const reportStarted = (
  attempt: SigningAttemptRecord,
  command: StartedCommand,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "started"), () => {
    const started: SigningAttemptRecord = {
      ...attempt,
      status: "started",
      providerDocumentId: command.providerDocumentId,
      startedAt: now,
      updatedAt: now
    }
    return { attempt: started, events: [attemptEvent("crm.signing_attempt.started", started, now)] }
  })

/**
 * Body of `signed`, with what the caller loaded: `upload`, the upload the body names (`uploadId`), or
 * `undefined` when no upload has that id.
 *
 * @since 0.1.0
 */
export interface SignedCommand {
  readonly upload: SignedDocumentUpload | undefined
}

/**
 * Report that every party signed: `started` → `signed`, with the signed PDF stored through the named upload.
 * Sets `signedDocumentUploadId`, `signedAt` and `updatedAt`; emits `crm.signing_attempt.signed`.
 *
 * Refuses per {@link guard} (ended → `CRM_SIGNING_ATTEMPT_ENDED`; `queued` → `CRM_AGREEMENT_TRANSITION_INVALID`),
 * then with `SignedDocumentRejected` (`CRM_SIGNED_DOCUMENT_REJECTED`, 400) unless the upload exists, was made for
 * this attempt and stored a PDF that passed its checks (`reason` `not-uploaded` or `other-attempt`).
 *
 * @since 0.1.0
 */
export const reportSigned = (
  attempt: SigningAttemptRecord,
  command: SignedCommand,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid | SignedDocumentRejected> =>
  Either.flatMap(guard(attempt, "signed"), () => {
    const { upload } = command
    if (upload !== undefined && upload.attemptId !== attempt.id) {
      return Either.left(
        new SignedDocumentRejected({
          reason: "other-attempt",
          detail: "The upload was made for another signing attempt; upload the signed PDF for this one."
        })
      )
    }
    if (upload === undefined || upload.status !== "stored") {
      return Either.left(
        new SignedDocumentRejected({
          reason: "not-uploaded",
          detail: "No signed PDF that passed its checks was stored through this upload; upload it, then report signed."
        })
      )
    }
    const signed: SigningAttemptRecord = {
      ...attempt,
      status: "signed",
      signedDocumentUploadId: upload.id,
      signedAt: now,
      updatedAt: now
    }
    return Either.right({ attempt: signed, events: [attemptEvent("crm.signing_attempt.signed", signed, now)] })
  })

/**
 * Body of `declined`: `partyId`, the party that declined (one of the attempt's parties), and an optional
 * `reason` (1 to 1000 characters, checked by the contract).
 *
 * @since 0.1.0
 */
export interface DeclinedCommand {
  readonly partyId: string
  readonly reason?: string
}

/**
 * Report that a party declined: `started` → `declined`. Sets `declinedByPartyId`, `declineReason` (when given),
 * `declinedAt` and `updatedAt`; emits `crm.signing_attempt.declined`.
 *
 * Refuses per {@link guard} (ended → `CRM_SIGNING_ATTEMPT_ENDED`; `queued` → `CRM_AGREEMENT_TRANSITION_INVALID`),
 * then with `DecliningPartyUnknown` (`VALIDATION_FAILED`, 400, at `/partyId`) when the party is not one of the
 * attempt's.
 *
 * @since 0.1.0
 */
export const reportDeclined = (
  attempt: SigningAttemptRecord,
  command: DeclinedCommand,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid | DecliningPartyUnknown> =>
  Either.flatMap(guard(attempt, "declined"), () => {
    if (!attempt.parties.some((party) => party.id === command.partyId)) {
      return Either.left(
        new DecliningPartyUnknown({
          partyId: command.partyId,
          path: "/partyId",
          detail: "is not a party of this signing attempt"
        })
      )
    }
    const declined: SigningAttemptRecord = {
      ...attempt,
      status: "declined",
      declinedByPartyId: command.partyId,
      ...(command.reason === undefined ? {} : { declineReason: command.reason }),
      declinedAt: now,
      updatedAt: now
    }
    return Either.right({ attempt: declined, events: [attemptEvent("crm.signing_attempt.declined", declined, now)] })
  })

/**
 * Report that the document expired unsigned: `started` → `expired`. Sets `expiredAt` and `updatedAt`; emits
 * `crm.signing_attempt.expired`.
 *
 * Refuses per {@link guard}: ended → `CRM_SIGNING_ATTEMPT_ENDED`; `queued` → `CRM_AGREEMENT_TRANSITION_INVALID`.
 *
 * @since 0.1.0
 */
export const reportExpired = (
  attempt: SigningAttemptRecord,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "expired"), () => {
    const expired: SigningAttemptRecord = { ...attempt, status: "expired", expiredAt: now, updatedAt: now }
    return { attempt: expired, events: [attemptEvent("crm.signing_attempt.expired", expired, now)] }
  })

/**
 * Report that the document was cancelled as the withdrawal queue asked: `queued` or `started` → `withdrawn`.
 * Sets `withdrawnAt` and `updatedAt`; emits `crm.signing_attempt.withdrawn`.
 *
 * Refuses per {@link guard}: ended → `CRM_SIGNING_ATTEMPT_ENDED`; no withdrawal asked for (the attempt is not on
 * the withdrawal queue) → `CRM_AGREEMENT_TRANSITION_INVALID`.
 *
 * @since 0.1.0
 */
export const reportWithdrawn = (
  attempt: SigningAttemptRecord,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "withdrawn"), () => {
    const withdrawn: SigningAttemptRecord = { ...attempt, status: "withdrawn", withdrawnAt: now, updatedAt: now }
    return { attempt: withdrawn, events: [attemptEvent("crm.signing_attempt.withdrawn", withdrawn, now)] }
  })

/**
 * Body of `failed`: `reason` (1 to 1000 characters, checked by the contract), shown to an operator.
 *
 * @since 0.1.0
 */
export interface FailedCommand {
  readonly reason: string
}

/**
 * Report that the document could not be created: `queued` or `started` → `failed`. Sets `failureReason`,
 * `failedAt` and `updatedAt`; emits `crm.signing_attempt.failed`.
 *
 * Refuses per {@link guard}: ended → `CRM_SIGNING_ATTEMPT_ENDED` (every live status allows it).
 *
 * @since 0.1.0
 */
export const reportFailed = (
  attempt: SigningAttemptRecord,
  command: FailedCommand,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "failed"), () => {
    const failed: SigningAttemptRecord = {
      ...attempt,
      status: "failed",
      failureReason: command.reason,
      failedAt: now,
      updatedAt: now
    }
    return { attempt: failed, events: [attemptEvent("crm.signing_attempt.failed", failed, now)] }
  })

/**
 * An operator asks for the withdrawal of a live attempt: sets `withdrawalRequestedAt` and `updatedAt`, so the
 * attempt leaves the signing queue and joins the withdrawal queue; the status stays. Emits
 * `crm.signing_attempt.withdrawal_requested`.
 *
 * Refuses per {@link guard}: ended → `CRM_SIGNING_ATTEMPT_ENDED`; asked already →
 * `CRM_AGREEMENT_TRANSITION_INVALID`.
 *
 * @since 0.1.0
 */
export const requestWithdrawal = (
  attempt: SigningAttemptRecord,
  now: Date
): Either.Either<Transition, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "request-withdrawal"), () => {
    const asked: SigningAttemptRecord = { ...attempt, withdrawalRequestedAt: now, updatedAt: now }
    return { attempt: asked, events: [attemptEvent("crm.signing_attempt.withdrawal_requested", asked, now)] }
  })
