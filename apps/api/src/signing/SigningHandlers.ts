/**
 * HTTP handlers of the signing group (`crm`): decoding is the contract's schemas (role and body checks its
 * middleware); each handler calls {@link SigningService} and encodes domain records as the contract's classes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { IntegrationApi } from "@propline/contract/Api"
import { Principal } from "@propline/contract/Authentication"
import type { OperationalContextId, OrganizationId } from "@propline/contract/Ids"
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import {
  SignedDocumentUpload,
  SigningAttempt,
  type SigningAttemptId,
  SigningDocument,
  SigningParty,
  SigningQueueContract,
  SigningQueueItem,
  WithdrawalQueueItem
} from "@propline/contract/Signing"
import type { SigningAttemptRecord } from "@propline/signing/SigningAttempt"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { SigningService } from "./SigningService.js"

const toParties = (record: SigningAttemptRecord) =>
  record.parties.map(
    (party) => new SigningParty({ ...party, signers: party.signers.map((signer) => ({ ...signer })) }, true)
  )

/** Domain record → contract class (our own data, already valid: constructed without re-validation). */
export const toSigningAttempt = (record: SigningAttemptRecord): SigningAttempt =>
  new SigningAttempt(
    {
      id: record.id as SigningAttemptId,
      organizationId: record.organizationId as OrganizationId,
      operationalContextId: record.operationalContextId as OperationalContextId,
      contractId: record.contractId,
      status: record.status,
      title: record.title,
      parties: toParties(record),
      ...(record.providerDocumentId === undefined ? {} : { providerDocumentId: record.providerDocumentId }),
      ...(record.withdrawalRequestedAt === undefined ? {} : { withdrawalRequestedAt: record.withdrawalRequestedAt }),
      ...(record.declinedByPartyId === undefined ? {} : { declinedByPartyId: record.declinedByPartyId }),
      ...(record.declineReason === undefined ? {} : { declineReason: record.declineReason }),
      ...(record.failureReason === undefined ? {} : { failureReason: record.failureReason }),
      queuedAt: record.queuedAt,
      ...(record.startedAt === undefined ? {} : { startedAt: record.startedAt }),
      ...(record.signedAt === undefined ? {} : { signedAt: record.signedAt }),
      ...(record.declinedAt === undefined ? {} : { declinedAt: record.declinedAt }),
      ...(record.expiredAt === undefined ? {} : { expiredAt: record.expiredAt }),
      ...(record.failedAt === undefined ? {} : { failedAt: record.failedAt }),
      ...(record.withdrawnAt === undefined ? {} : { withdrawnAt: record.withdrawnAt }),
      updatedAt: record.updatedAt
    },
    true
  )

export const SigningHandlers = HttpApiBuilder.group(IntegrationApi, "crm", (handlers) =>
  Effect.gen(function* () {
    const signing = yield* SigningService
    return handlers
      .handle("getSigningQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("signing-queue", urlParams.cursor)
          const page = yield* signing.signingQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
          return {
            items: page.items.map(
              (row) =>
                new SigningQueueItem(
                  {
                    attemptId: row.attempt.id as SigningAttemptId,
                    contract: new SigningQueueContract(
                      {
                        id: row.attempt.contractId,
                        title: row.attempt.title,
                        contractNumber: row.contractNumber,
                        organizationId: row.attempt.organizationId as OrganizationId,
                        operationalContextId: row.attempt.operationalContextId as OperationalContextId
                      },
                      true
                    ),
                    parties: toParties(row.attempt),
                    document: new SigningDocument(
                      {
                        url: row.download.url,
                        expiresAt: row.download.expiresAt,
                        fileName: row.document.fileName,
                        contentType: "application/pdf",
                        sizeBytes: row.document.sizeBytes,
                        sha256: row.document.sha256
                      },
                      true
                    ),
                    queuedAt: row.attempt.queuedAt
                  },
                  true
                )
            ),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("getWithdrawalQueue", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const after = yield* CursorPage.decode("withdrawal-queue", urlParams.cursor)
          const page = yield* signing.withdrawalQueue(principal, after, urlParams.limit ?? DEFAULT_LIMIT)
          return {
            items: page.items.map(
              (attempt) =>
                new WithdrawalQueueItem(
                  {
                    attemptId: attempt.id as SigningAttemptId,
                    contractId: attempt.contractId,
                    status: attempt.status === "started" ? "started" : "queued",
                    ...(attempt.providerDocumentId === undefined
                      ? {}
                      : { providerDocumentId: attempt.providerDocumentId }),
                    withdrawalRequestedAt: attempt.withdrawalRequestedAt ?? attempt.updatedAt
                  },
                  true
                )
            ),
            nextCursor: page.nextCursor
          }
        })
      )
      .handle("started", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) =>
          signing.started(principal, path.attemptId, payload.providerDocumentId)
        ).pipe(Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt }))
      )
      .handle("signedDocumentUpload", ({ path, payload }) =>
        Effect.gen(function* () {
          const principal = yield* Principal
          const { upload, url } = yield* signing
            .signedDocumentUpload(principal, path.attemptId, payload.sizeBytes, payload.sha256)
            .pipe(Effect.mapError(toProblem))
          return new SignedDocumentUpload(
            {
              id: upload.id,
              method: "PUT",
              url,
              headers: { "Content-Type": "application/pdf" },
              expiresAt: upload.expiresAt,
              sizeBytes: upload.declaredSizeBytes,
              sha256: upload.declaredSha256
            },
            true
          )
        })
      )
      .handle("signed", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) => signing.signed(principal, path.attemptId, payload.uploadId)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt })
        )
      )
      .handle("declined", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) =>
          signing.declined(principal, path.attemptId, payload.partyId, payload.reason)
        ).pipe(Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt }))
      )
      .handle("expired", ({ path }) =>
        Effect.flatMap(Principal, (principal) => signing.expired(principal, path.attemptId)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt })
        )
      )
      .handle("withdrawn", ({ path }) =>
        Effect.flatMap(Principal, (principal) => signing.withdrawn(principal, path.attemptId)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt })
        )
      )
      .handle("failed", ({ path, payload }) =>
        Effect.flatMap(Principal, (principal) => signing.failed(principal, path.attemptId, payload.reason)).pipe(
          Effect.mapBoth({ onFailure: toProblem, onSuccess: toSigningAttempt })
        )
      )
  })
)
