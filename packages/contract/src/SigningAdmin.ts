/**
 * Signing as operators see it (decisions 6): a contract's signing attempts, preparing one (its parties and
 * signers; the contract is rendered as the PDF to sign), asking for the withdrawal of a live one, and an attempt's
 * outcome with the signed PDF's facts. The preparation's input is the signing service's to validate (its issues
 * come back as VALIDATION_FAILED); refusals: CRM_SIGNING_NOT_AVAILABLE, CRM_SIGNING_PARTY_REPEATED,
 * CRM_SIGNER_ALREADY_ADDED, CRM_SIGNER_NOT_ELIGIBLE, CRM_SIGNING_ATTEMPT_ENDED, CRM_AGREEMENT_TRANSITION_INVALID
 * (400) and CRM_SIGNING_ATTEMPT_LIVE (409). An attempt's PDFs download as `application/pdf` (an attachment): the
 * contract as sent for signature, and the signed PDF once the attempt is `signed` (404 before, and for another
 * organization's attempt).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Conflict, NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class SignerView extends Schema.Class<SignerView>("SignerView")({
  name: Schema.String,
  email: Schema.String,
  role: Schema.String,
  signingOrder: Schema.Int
}) {}

export class PartyView extends Schema.Class<PartyView>("PartyView")({
  kind: Schema.String,
  name: Schema.String,
  signers: Schema.Array(SignerView)
}) {}

export class SigningAttemptView extends Schema.Class<SigningAttemptView>("SigningAttemptView")({
  id: Schema.UUID,
  contractId: Schema.UUID,
  status: Schema.String,
  title: Schema.String,
  parties: Schema.Array(PartyView),
  /** On the signing queue: queued, no withdrawal asked for. */
  withdrawalRequestedAt: Schema.NullOr(Schema.Date),
  declineReason: Schema.NullOr(Schema.String),
  failureReason: Schema.NullOr(Schema.String),
  queuedAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

export class SignedDocumentView extends Schema.Class<SignedDocumentView>("SignedDocumentView")({
  id: Schema.UUID,
  sizeBytes: Schema.Int,
  sha256: Schema.String
}) {}

export class SigningOutcome extends Schema.Class<SigningOutcome>("SigningOutcome")({
  attempt: SigningAttemptView,
  signedDocument: Schema.NullOr(SignedDocumentView)
}) {}

/** Which of an attempt's PDFs: the contract as sent for signature, or the signed PDF that came back. */
export const PdfKind = Schema.Literal("contract", "signed")
export type PdfKind = typeof PdfKind.Type

/** The address of an attempt's PDF download (a GET with the session cookie; the console links to it). */
export const pdfPath = (attemptId: string, kind: PdfKind) => `/api/signing-attempts/${attemptId}/${kind}-pdf`

/** A PDF's bytes, `application/pdf`. */
export const PdfBytes = HttpApiSchema.Uint8Array({ contentType: "application/pdf" })

const ContractPath = Schema.Struct({ contractId: Schema.UUID })
const AttemptPath = Schema.Struct({ attemptId: Schema.UUID })

export class SigningGroup extends HttpApiGroup.make("signing")
  .add(
    HttpApiEndpoint.get("attemptsOfContract", "/api/contracts/:contractId/signing-attempts")
      .setPath(ContractPath)
      .addSuccess(Schema.Struct({ items: Schema.Array(SigningAttemptView) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("prepare", "/api/contracts/:contractId/signing-attempts")
      .setPath(ContractPath)
      // The signing service validates the shape (title, parties, signers) and answers its issues.
      .setPayload(body(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
      .addSuccess(SigningAttemptView, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.get("outcome", "/api/signing-attempts/:attemptId")
      .setPath(AttemptPath)
      .addSuccess(SigningOutcome)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("contractPdf", "/api/signing-attempts/:attemptId/contract-pdf")
      .setPath(AttemptPath)
      .addSuccess(PdfBytes)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("signedPdf", "/api/signing-attempts/:attemptId/signed-pdf")
      .setPath(AttemptPath)
      .addSuccess(PdfBytes)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("requestWithdrawal", "/api/signing-attempts/:attemptId/request-withdrawal")
      .setPath(AttemptPath)
      .addSuccess(SigningAttemptView)
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
