/**
 * Signing in the console: a contract's signing attempts, preparing one, asking for a withdrawal, and an attempt's
 * outcome — each one call of the signing operator service (it validates the input, renders and stores the PDF,
 * persists, writes events and the audit entry in one transaction) with the operator as actor — and an attempt's
 * PDFs read from the document storage (disk or S3) through the same service, streamed as `application/pdf`
 * attachments named as stored.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AdminApi } from "@propline/contract/AdminApi"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import { PartyView, SignedDocumentView, SignerView, SigningAttemptView, SigningOutcome } from "@propline/contract/SigningAdmin"
import type { SigningAttemptRecord } from "@propline/signing/SigningAttempt"
import { Effect } from "effect"
import { toProblem } from "../platform/Problems.js"
import { SigningOperatorService } from "./SigningOperatorService.js"

const operatorOf = (operator: OperatorShape) => ({ organizationId: operator.organizationId, operatorId: operator.operatorId })

const toAttempt = (attempt: SigningAttemptRecord) =>
  new SigningAttemptView({
    id: attempt.id,
    contractId: attempt.contractId,
    status: attempt.status,
    title: attempt.title,
    parties: attempt.parties.map(
      (party) =>
        new PartyView({
          kind: party.kind,
          name: party.name,
          signers: party.signers.map(
            (signer) => new SignerView({ name: signer.name, email: signer.email, role: signer.role, signingOrder: signer.signingOrder })
          )
        })
    ),
    withdrawalRequestedAt: attempt.withdrawalRequestedAt ?? null,
    declineReason: attempt.declineReason ?? null,
    failureReason: attempt.failureReason ?? null,
    queuedAt: attempt.queuedAt,
    updatedAt: attempt.updatedAt
  })

/** RFC 6266: an attachment with an ASCII fallback name and the UTF-8 name (RFC 8187). */
const attachment = (fileName: string) => {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}

export const SigningAdminHandlers = HttpApiBuilder.group(AdminApi, "signing", (handlers) =>
  Effect.gen(function* () {
    const signing = yield* SigningOperatorService
    /** The attempt's PDF of `kind` as a download; 404 for another organization's attempt or a PDF not there yet. */
    const download = (attemptId: string, kind: "contract" | "signed") =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const { bytes, document } = yield* signing.pdf(operatorOf(operator), attemptId, kind).pipe(Effect.mapError(toProblem))
        return HttpServerResponse.uint8Array(bytes, {
          contentType: "application/pdf",
          headers: { "content-disposition": attachment(document.fileName) }
        })
      })
    return handlers
      .handle("attemptsOfContract", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const attempts = yield* signing.attemptsOfContract(operatorOf(operator), path.contractId)
          return { items: attempts.map(toAttempt) }
        })
      )
      .handle("prepare", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const attempt = yield* signing.prepare(operatorOf(operator), path.contractId, payload).pipe(Effect.mapError(toProblem))
          return toAttempt(attempt)
        })
      )
      .handle("outcome", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const found = yield* signing.outcome(operatorOf(operator), path.attemptId).pipe(Effect.mapError(toProblem))
          return new SigningOutcome({
            attempt: toAttempt(found.attempt),
            signedDocument:
              found.signedDocument === undefined
                ? null
                : new SignedDocumentView({ id: found.signedDocument.id, sizeBytes: found.signedDocument.sizeBytes, sha256: found.signedDocument.sha256 })
          })
        })
      )
      .handleRaw("contractPdf", ({ path }) => download(path.attemptId, "contract"))
      .handleRaw("signedPdf", ({ path }) => download(path.attemptId, "signed"))
      .handle("requestWithdrawal", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          const attempt = yield* signing.requestWithdrawal(operatorOf(operator), path.attemptId).pipe(Effect.mapError(toProblem))
          return toAttempt(attempt)
        })
      )
  })
)
