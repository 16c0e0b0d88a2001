/**
 * The signing operations of the API (spec 4.2 "Signing", decisions 4 and 6), for an e-signing system holding the
 * `signing` role: the signing and withdrawal queues, the six outcome reports, the upload address for the signed
 * PDF, receiving the PDF sent to it, and serving a document from a signed local-disk address.
 *
 * Each write is one transaction: lock the attempt among the principal's visible contexts (404 when missing or
 * invisible), ask the pure domain (`@propline/signing`), persist the attempt and the contract's signing status,
 * the events and the audit entry. The attempt's row lock makes concurrent reports run one after another, so of 20
 * concurrent `signed` reports one records the outcome and the others find it ended.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import * as SignedDocument from "@propline/signing/SignedDocument"
import type { SignedDocumentUpload } from "@propline/signing/SignedDocumentUpload"
import type { SigningAttemptRecord } from "@propline/signing/SigningAttempt"
import * as Lifecycle from "@propline/signing/SigningAttemptLifecycle"
import { SignedDocumentRejected, type SigningRefusal } from "@propline/signing/SigningRefusal"
import { Clock, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type * as Db from "@propline/db/Db"
import { AppConfig } from "../platform/AppConfig.js"
import * as Audit from "../platform/Audit.js"
import * as CursorPage from "../platform/CursorPage.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { DocumentStorage } from "../storage/DocumentStorage.js"
import * as FileAddresses from "../storage/FileAddresses.js"
import { UrlSigner } from "../storage/UrlSigner.js"
import { ContractRepository } from "../tenancy/ContractRepository.js"
import { SigningAttemptRepository } from "./SigningAttemptRepository.js"
import { PdfInspector } from "./PdfInspector.js"
import { storePdf } from "./PdfStore.js"
import { SigningDocumentRepository } from "./SigningDocumentRepository.js"

const span = (name: string) => Effect.withSpan(`SigningService.${name}`, { captureStackTrace: false })

/** How long a download address in a queue item works: 15 minutes, like an upload address. */
export const DOWNLOAD_ADDRESS_LIFETIME_SECONDS = 900

/** The storage key of an upload's signed PDF. */
const signedKey = (upload: SignedDocumentUpload) => `${upload.organizationId}/signed/${upload.id}.pdf`

/** A signed address that is forged, names nothing, or is past its time: refused without saying which. */
export type AddressRefusal = { readonly _tag: "AddressInvalid" } | { readonly _tag: "AddressExpired" }

/** A report that changes an attempt: the domain transition to run on the locked attempt. */
type Report = (attempt: SigningAttemptRecord, at: Date) => Effect.Effect<Lifecycle.Transition, SigningRefusal, Db.Db>

export class SigningService extends Effect.Service<SigningService>()("@propline/api/signing/SigningService", {
  effect: Effect.gen(function* () {
    const attempts = yield* SigningAttemptRepository
    const contracts = yield* ContractRepository
    const documents = yield* SigningDocumentRepository
    const storage = yield* DocumentStorage
    const signer = yield* UrlSigner
    const config = yield* AppConfig
    const inspector = yield* PdfInspector

    const lockVisible = (principal: PrincipalShape, attemptId: string) =>
      Effect.flatMap(attempts.lockVisible(principal.organizationId, principal.contexts, attemptId), (attempt) =>
        attempt === undefined ? new RecordNotFound({ kind: "signing attempt" }) : Effect.succeed(attempt)
      )

    /** The transaction of `receiveUpload`, once the body is inspected: lock → rule → store → record. */
    const receiveInspected = (uploadId: string, bytes: Uint8Array, inspection: SignedDocument.DocumentInspection) =>
      Effect.gen(function* () {
        const upload = yield* documents.findUpload(uploadId, true)
        if (upload === undefined) return yield* new RecordNotFound({ kind: "upload" })
        const attempt = yield* attempts.find(upload.organizationId, upload.attemptId, true)
        if (attempt === undefined) return yield* new RecordNotFound({ kind: "signing attempt" })
        const at = yield* Sql.now
        const received = yield* SignedDocument.receiveUpload({ attempt, upload }, inspection, at)
        const documentId = yield* storePdf(storage, documents, {
          organizationId: upload.organizationId,
          kind: "signed",
          key: signedKey(upload),
          fileName: `${attempt.title} (signed).pdf`,
          bytes,
          // The rule accepted the body, so its inspection has the digest: the declared one.
          sha256: upload.declaredSha256,
          at
        })
        yield* documents.markStored(received.upload, documentId)
        yield* Outbox.append(received.events)
        yield* Audit.byActor(upload.organizationId, { type: "system", id: "signed-document-upload" }, {
          action: "crm.signing_attempt.signed_document_uploaded",
          targetType: "signing_attempt",
          targetId: attempt.id,
          details: { uploadId, documentId, sizeBytes: bytes.length },
          at
        })
        return received.upload
      })

    /** One outcome report: lock → 404 → rule → persist → events → audit, in one transaction. */
    const transition = (
      principal: PrincipalShape,
      attemptId: string,
      action: string,
      details: Record<string, unknown>,
      run: Report
    ) =>
      Sql.transaction(
        Effect.gen(function* () {
          const attempt = yield* lockVisible(principal, attemptId)
          const at = yield* Sql.now
          const result = yield* run(attempt, at)
          yield* attempts.update(result.attempt)
          yield* contracts.setSigningStatus(result.attempt.contractId, result.attempt.status, result.attempt.updatedAt)
          yield* Outbox.append(result.events)
          yield* Audit.byPrincipal(principal, {
            action: `crm.signing_attempt.${action}`,
            targetType: "signing_attempt",
            targetId: attempt.id,
            details,
            at
          })
          return result.attempt
        })
      ).pipe(span(action))

    return {
      /**
       * Signing queue (spec 4.2): attempts `queued` without a withdrawal asked for, oldest first, each with a
       * download address of its PDF valid {@link DOWNLOAD_ADDRESS_LIFETIME_SECONDS} seconds.
       */
      signingQueue: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        Effect.gen(function* () {
          const rows = yield* attempts.signingQueue(principal.organizationId, principal.contexts, after, limit)
          const page = CursorPage.page("signing-queue", rows, limit)
          const expiresAt = new Date((yield* Clock.currentTimeMillis) + DOWNLOAD_ADDRESS_LIFETIME_SECONDS * 1000)
          const items = yield* Effect.forEach(page.items, (row) =>
            Effect.map(
              storage.downloadAddress(
                {
                  key: row.document.storageKey,
                  documentId: row.document.id,
                  fileName: row.document.fileName,
                  contentType: row.document.contentType
                },
                expiresAt
              ),
              (url) => ({ ...row, download: { url, expiresAt } })
            )
          )
          return { items, nextCursor: page.nextCursor }
        }).pipe(span("signingQueue")),

      /** Withdrawal queue (spec 4.2): live attempts whose withdrawal was asked for, oldest request first. */
      withdrawalQueue: (principal: PrincipalShape, after: CursorPage.Position | undefined, limit: number) =>
        attempts
          .withdrawalQueue(principal.organizationId, principal.contexts, after, limit)
          .pipe(Effect.map((rows) => CursorPage.page("withdrawal-queue", rows, limit)), span("withdrawalQueue")),

      /** `queued` → `started` (decisions 6). */
      started: (principal: PrincipalShape, attemptId: string, providerDocumentId: string) =>
        transition(principal, attemptId, "started", { providerDocumentId }, (attempt, at) =>
          Lifecycle.reportStarted(attempt, { providerDocumentId }, at)
        ),

      /** `started` → `signed` with the PDF stored through `uploadId` (CRM_SIGNED_DOCUMENT_REJECTED otherwise). */
      signed: (principal: PrincipalShape, attemptId: string, uploadId: string) =>
        transition(principal, attemptId, "signed", { uploadId }, (attempt, at) =>
          Effect.flatMap(documents.findUploadOf(principal.organizationId, uploadId), (upload) =>
            Lifecycle.reportSigned(attempt, { upload }, at)
          )
        ),

      /** `started` → `declined` by a party of the attempt, with an optional reason. */
      declined: (principal: PrincipalShape, attemptId: string, partyId: string, reason: string | undefined) =>
        Effect.suspend(() => {
          const command = { partyId, ...(reason === undefined ? {} : { reason }) }
          return transition(principal, attemptId, "declined", command, (attempt, at) =>
            Lifecycle.reportDeclined(attempt, command, at)
          )
        }),

      /** `started` → `expired`. */
      expired: (principal: PrincipalShape, attemptId: string) =>
        transition(principal, attemptId, "expired", {}, (attempt, at) => Lifecycle.reportExpired(attempt, at)),

      /** A withdrawal asked for → `withdrawn`. */
      withdrawn: (principal: PrincipalShape, attemptId: string) =>
        transition(principal, attemptId, "withdrawn", {}, (attempt, at) => Lifecycle.reportWithdrawn(attempt, at)),

      /** `queued`/`started` → `failed` with the reason. */
      failed: (principal: PrincipalShape, attemptId: string, reason: string) =>
        transition(principal, attemptId, "failed", { reason }, (attempt, at) =>
          Lifecycle.reportFailed(attempt, { reason }, at)
        ),

      /**
       * An upload address for the signed PDF of a `started` attempt: valid 15 minutes, bound to the declared size
       * (bytes) and SHA-256 (decisions 6).
       */
      signedDocumentUpload: (principal: PrincipalShape, attemptId: string, sizeBytes: number, sha256: string) =>
        Sql.transaction(
          Effect.gen(function* () {
            const attempt = yield* lockVisible(principal, attemptId)
            const at = yield* Sql.now
            const command = { uploadId: randomUUID(), sizeBytes, sha256 }
            const upload = yield* SignedDocument.requestUpload(attempt, command, at)
            yield* documents.insertUpload(upload)
            yield* Audit.byPrincipal(principal, {
              action: "crm.signing_attempt.signed_document_upload",
              targetType: "signing_attempt",
              targetId: attempt.id,
              details: { uploadId: upload.id, sizeBytes, sha256: upload.declaredSha256 },
              at
            })
            const url = yield* FileAddresses.uploadAddress(
              config.baseUrl,
              { uploadId: upload.id, sizeBytes: upload.declaredSizeBytes, sha256: upload.declaredSha256 },
              upload.expiresAt
            ).pipe(Effect.provideService(UrlSigner, signer))
            return { upload, url }
          })
        ).pipe(span("signedDocumentUpload")),

      /**
       * The upload named by a signed address, if the address is genuine (AddressInvalid otherwise, whether the
       * upload is unknown or the signature wrong) and unexpired (CRM_SIGNED_DOCUMENT_REJECTED, `address-expired`):
       * for the host to know how many bytes to read (the declared size) before reading the body.
       */
      uploadFor: (uploadId: string, received: FileAddresses.ReceivedParams) =>
        Effect.gen(function* () {
          const upload = yield* documents.findUpload(uploadId, false)
          if (upload === undefined) return yield* Effect.fail<AddressRefusal>({ _tag: "AddressInvalid" })
          const binding = { uploadId, sizeBytes: upload.declaredSizeBytes, sha256: upload.declaredSha256 }
          const check = yield* FileAddresses.verifyUpload(binding, received, yield* Sql.now).pipe(
            Effect.provideService(UrlSigner, signer)
          )
          if (check === "invalid") return yield* Effect.fail<AddressRefusal>({ _tag: "AddressInvalid" })
          if (check === "expired") {
            return yield* new SignedDocumentRejected({
              reason: "address-expired",
              detail: "The upload address has expired; ask for a new one with signed-document-upload."
            })
          }
          return upload
        }).pipe(span("uploadFor")),

      /**
       * Receives the PDF sent to an upload address: inspected off the event loop within a budget (`PdfInspector`),
       * before any transaction, then checked by the domain (the attempt still `started`, the address unexpired and
       * unused, the declared size and SHA-256, `%PDF-`, a file trailer, not encrypted) and only then stored and
       * recorded. A refused PDF leaves nothing behind.
       */
      receiveUpload: (upload: SignedDocumentUpload, bytes: Uint8Array) =>
        Effect.gen(function* () {
          // A body of another length is refused for that alone: nothing to inspect.
          const inspection = bytes.length === upload.declaredSizeBytes
            ? yield* inspector.inspect(bytes)
            : { sizeBytes: bytes.length }
          return yield* Sql.transaction(receiveInspected(upload.id, bytes, inspection))
        }).pipe(span("receiveUpload")),

      /** The bytes behind a signed local-disk download address, with the document's name and type. */
      download: (documentId: string, received: FileAddresses.ReceivedParams) =>
        Effect.gen(function* () {
          const check = yield* FileAddresses.verifyDownload(documentId, received, yield* Sql.now).pipe(
            Effect.provideService(UrlSigner, signer)
          )
          if (check === "invalid") return yield* Effect.fail<AddressRefusal>({ _tag: "AddressInvalid" })
          if (check === "expired") return yield* Effect.fail<AddressRefusal>({ _tag: "AddressExpired" })
          const document = yield* documents.findDocument(documentId)
          if (document === undefined) return yield* new RecordNotFound({ kind: "document" })
          const bytes = yield* storage.get(document.storageKey)
          if (Option.isNone(bytes)) return yield* new RecordNotFound({ kind: "document" })
          return { document, bytes: bytes.value }
        }).pipe(span("download"))
    }
  }),
  dependencies: [
    SigningAttemptRepository.Default,
    SigningDocumentRepository.Default,
    ContractRepository.Default,
    PdfInspector.Default
  ]
}) {}
