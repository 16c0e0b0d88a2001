/**
 * The signed PDF's way in (decisions.md section 6; spec 4.2 `signed-document-upload`): the e-signing system
 * declares the file's size and SHA-256 and gets an upload address valid 15 minutes for that one PDF; what it then
 * sends is stored only if it passes the checks here, which are pure functions over the bytes.
 *
 * @since 0.1.0
 */
import { sha256 } from "@noble/hashes/sha2"
import { bytesToHex } from "@noble/hashes/utils"
import { Either } from "effect"
import { guard } from "./SigningAttemptLifecycle.js"
import type { SigningAttemptRecord } from "./SigningAttempt.js"
import type { SignedDocumentUploaded } from "./SigningEvent.js"
import {
  type DocumentRejectionReason,
  SignedDocumentRejected,
  type SigningAttemptEnded,
  type SigningTransitionInvalid
} from "./SigningRefusal.js"
import { attemptEvent } from "./internal/events.js"
import { type SignedDocumentUpload, UPLOAD_ADDRESS_LIFETIME_SECONDS } from "./SignedDocumentUpload.js"
import { type PdfStructure, readPdfStructure } from "./PdfStructure.js"

/**
 * Body of `signed-document-upload`: the PDF's `sizeBytes` and `sha256` (hex; compared without regard to case),
 * and the new upload's id, drawn by the caller.
 *
 * @since 0.1.0
 */
export interface UploadRequestCommand {
  readonly uploadId: string
  readonly sizeBytes: number
  readonly sha256: string
}

/**
 * Give an upload address for the signed PDF of a `started` attempt: a `pending` upload of the declared size and
 * digest, expiring {@link UPLOAD_ADDRESS_LIFETIME_SECONDS} after `now`. Several may be given (a retry after a
 * network failure); `signed` names the one that stored the PDF.
 *
 * Refuses per the state machine (`SigningAttemptLifecycle.guard`): ended → `CRM_SIGNING_ATTEMPT_ENDED`;
 * `queued` → `CRM_AGREEMENT_TRANSITION_INVALID`.
 *
 * @since 0.1.0
 */
export const requestUpload = (
  attempt: SigningAttemptRecord,
  command: UploadRequestCommand,
  now: Date
): Either.Either<SignedDocumentUpload, SigningAttemptEnded | SigningTransitionInvalid> =>
  Either.map(guard(attempt, "signed-document-upload"), () => ({
    id: command.uploadId,
    attemptId: attempt.id,
    organizationId: attempt.organizationId,
    declaredSizeBytes: command.sizeBytes,
    declaredSha256: command.sha256.toLowerCase(),
    status: "pending" as const,
    expiresAt: new Date(now.getTime() + UPLOAD_ADDRESS_LIFETIME_SECONDS * 1000),
    createdAt: now
  }))

/**
 * The lower-case hex SHA-256 (FIPS 180-4) of `bytes`.
 *
 * @since 0.1.0
 */
export const sha256Hex = (bytes: Uint8Array): string => bytesToHex(sha256(bytes))

/**
 * What an inspection of an uploaded body found: its length in bytes, its lower-case hex SHA-256, and its
 * {@link PdfStructure}. The API host inspects off its event loop within a time and memory budget; `sha256` or
 * `structure` is absent when the inspection could not finish it within that budget.
 *
 * @since 0.2.0
 */
export interface DocumentInspection {
  readonly sizeBytes: number
  readonly sha256?: string
  readonly structure?: PdfStructure
}

/**
 * The whole {@link DocumentInspection} of `bytes`, here and now (the digest with {@link sha256Hex}): for callers
 * with no budget to keep, such as tests and PDFs the product rendered itself.
 *
 * @since 0.2.0
 */
export const inspectDocument = (bytes: Uint8Array): DocumentInspection => ({
  sizeBytes: bytes.length,
  sha256: sha256Hex(bytes),
  structure: readPdfStructure(bytes)
})

/**
 * What the e-signing system declared of the file.
 *
 * @since 0.1.0
 */
export interface DeclaredDocument {
  readonly sizeBytes: number
  readonly sha256: string
}

const rejected = (reason: DocumentRejectionReason, detail: string) =>
  Either.left(new SignedDocumentRejected({ reason, detail }))

/**
 * Check an inspected signed document against what was declared, in this order: the size (`size-mismatch`), the
 * SHA-256 (`digest-mismatch`, hex compared without regard to case), the `%PDF-` header (`not-pdf`), a trailer
 * (`unreadable`: no closed trailer dictionary, ISO 32000-1 section 7.5.5), not encrypted
 * (`encrypted`). An inspection that could not finish the digest or the structure within its budget is refused
 * `too-complex` at that step. Refuses with `SignedDocumentRejected` (`CRM_SIGNED_DOCUMENT_REJECTED`, 400) and its
 * `reason`.
 *
 * @since 0.1.0
 */
export const checkDocument = (
  inspection: DocumentInspection,
  declared: DeclaredDocument
): Either.Either<void, SignedDocumentRejected> => {
  if (inspection.sizeBytes !== declared.sizeBytes) {
    return rejected("size-mismatch", "The file's size is not the declared size.")
  }
  if (inspection.sha256 === undefined || inspection.structure === undefined) {
    return rejected(
      "too-complex",
      "The file could not be checked within the time and memory a check may take; nothing was stored."
    )
  }
  if (inspection.sha256 !== declared.sha256.toLowerCase()) {
    return rejected("digest-mismatch", "The file's SHA-256 is not the declared one.")
  }
  const { structure } = inspection
  if (!structure.pdfHeader) return rejected("not-pdf", "The file is not a PDF: it does not begin with %PDF-.")
  if (!structure.hasTrailer) {
    return rejected("unreadable", "The PDF has no trailer dictionary, so it can't be read.")
  }
  if (structure.encrypted) {
    return rejected("encrypted", "The PDF is encrypted; upload the signed document without encryption.")
  }
  return Either.void
}

/**
 * The result of a PDF accepted through an upload address: the upload, now `stored`, and its event.
 *
 * @since 0.1.0
 */
export interface Received {
  readonly upload: SignedDocumentUpload
  readonly events: ReadonlyArray<SignedDocumentUploaded>
}

/**
 * Receive the PDF sent to an upload address (`inspection`: what inspecting the whole body found) for its
 * attempt: the upload becomes `stored` with `storedAt` now; emits `crm.signing_attempt.signed_document_uploaded`. The caller stores the bytes
 * only on `Right`, so a refused PDF leaves nothing behind.
 *
 * Refuses, in this order:
 * 1. per the state machine: the attempt ended → `CRM_SIGNING_ATTEMPT_ENDED`; not `started` →
 *    `CRM_AGREEMENT_TRANSITION_INVALID`;
 * 2. `SignedDocumentRejected` (`CRM_SIGNED_DOCUMENT_REJECTED`, 400): the address expired (`now` ≥ `expiresAt`:
 *    `address-expired`), a PDF was stored through it already (`already-uploaded`), or {@link checkDocument} refuses.
 *
 * @since 0.1.0
 */
export const receiveUpload = (
  state: { readonly attempt: SigningAttemptRecord; readonly upload: SignedDocumentUpload },
  inspection: DocumentInspection,
  now: Date
): Either.Either<Received, SigningAttemptEnded | SigningTransitionInvalid | SignedDocumentRejected> =>
  Either.flatMap(guard(state.attempt, "upload"), () => {
    const { upload } = state
    if (now.getTime() >= upload.expiresAt.getTime()) {
      return Either.left(
        new SignedDocumentRejected({
          reason: "address-expired",
          detail: "The upload address has expired; ask for a new one with signed-document-upload."
        })
      )
    }
    if (upload.status === "stored") {
      return Either.left(
        new SignedDocumentRejected({
          reason: "already-uploaded",
          detail: "A PDF was already stored through this upload address; an address takes one PDF."
        })
      )
    }
    const declared = { sizeBytes: upload.declaredSizeBytes, sha256: upload.declaredSha256 }
    return Either.map(checkDocument(inspection, declared), () => {
      const stored: SignedDocumentUpload = { ...upload, status: "stored", storedAt: now }
      const event = {
        ...attemptEvent("crm.signing_attempt.signed_document_uploaded", state.attempt, now),
        uploadId: upload.id
      }
      return { upload: stored, events: [event] }
    })
  })
