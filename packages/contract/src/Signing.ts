/**
 * The signing group, `crm` (spec 1 and 4.2 "Signing", decisions 4 and 6): an e-signing system reads the signing
 * queue and the withdrawal queue, reports each attempt's outcome, and uploads the signed PDF. Every operation
 * needs the `signing` role.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { OperationalContextId, OrganizationId, Uuid } from "./Ids.js"
import { JsonBody } from "./JsonBody.js"
import { Page, PageParams } from "./Page.js"
import { NotFound } from "./Problem.js"
import { body, EmptyRequest } from "./Request.js"
import { SigningRole } from "./Roles.js"
import { BoundedText, IntegerBetween, Timestamp } from "./Values.js"

/** A signing attempt's id: the `attemptId` of the queues and of every report. */
export const SigningAttemptId = Uuid.pipe(Schema.brand("SigningAttemptId"))
export type SigningAttemptId = typeof SigningAttemptId.Type

/** Largest signed PDF, in bytes (25 MiB). */
export const MAX_SIGNED_DOCUMENT_BYTES = 26_214_400

/** Spec 4.2, decisions 6: the attempt's status. `queued` and `started` are live, the rest ended. */
export const SigningAttemptStatus = Schema.Literal(
  "queued",
  "started",
  "signed",
  "declined",
  "expired",
  "failed",
  "withdrawn"
).annotations({
  description:
    "`queued` (in the signing queue) → `started` → `signed` | `declined` | `expired`; `queued` or `started` → " +
    "`failed`; a withdrawal the operator asked for → `withdrawn`."
})

export const PartyKind = Schema.Literal("customer", "organization").annotations({
  description: "`customer` (the contract's customer, the tenant) or `organization` (the operator, the landlord)."
})

export const SignerRole = Schema.Literal("signatory", "approver", "viewer").annotations({
  description:
    "`signatory` signs for the party; `approver` approves before the signatories see the document (the " +
    "organization's side only); `viewer` receives the document and the signed copy without signing."
})

export class Signer extends Schema.Class<Signer>("Signer")({
  id: Schema.UUID,
  name: Schema.String,
  email: Schema.String,
  role: SignerRole,
  signingOrder: Schema.Int.annotations({
    description: "1 or more: lower orders act first; signers with the same order act in parallel."
  })
}) {}

export class SigningParty extends Schema.Class<SigningParty>("SigningParty")({
  id: Schema.UUID.annotations({ description: "Name it as `partyId` when reporting that this party declined." }),
  kind: PartyKind,
  name: Schema.String,
  signers: Schema.Array(Signer)
}) {}

/** A signing attempt and its outcome, as every report answers it. */
export class SigningAttempt extends Schema.Class<SigningAttempt>("SigningAttempt")(
  {
    id: SigningAttemptId,
    organizationId: OrganizationId,
    operationalContextId: OperationalContextId,
    contractId: Schema.UUID,
    status: SigningAttemptStatus,
    title: Schema.String,
    parties: Schema.Array(SigningParty),
    providerDocumentId: Schema.optional(Schema.String),
    withdrawalRequestedAt: Schema.optional(Timestamp),
    declinedByPartyId: Schema.optional(Schema.UUID),
    declineReason: Schema.optional(Schema.String),
    failureReason: Schema.optional(Schema.String),
    queuedAt: Timestamp,
    startedAt: Schema.optional(Timestamp),
    signedAt: Schema.optional(Timestamp),
    declinedAt: Schema.optional(Timestamp),
    expiredAt: Schema.optional(Timestamp),
    failedAt: Schema.optional(Timestamp),
    withdrawnAt: Schema.optional(Timestamp),
    updatedAt: Timestamp
  },
  { description: "A sending of a contract for signature and its outcome (decisions 6)." }
) {}

/** The PDF to sign, downloadable without a token from a short-lived address. */
export class SigningDocument extends Schema.Class<SigningDocument>("SigningDocument")(
  {
    url: Schema.String.annotations({ description: "GET address of the PDF; works without a token until expiresAt." }),
    expiresAt: Timestamp,
    fileName: Schema.String,
    contentType: Schema.Literal("application/pdf"),
    sizeBytes: Schema.Int,
    sha256: Schema.String.annotations({ description: "Lower-case hex SHA-256 of the PDF." })
  },
  { description: "The contract rendered as a PDF when the operator prepared the attempt." }
) {}

export class SigningQueueContract extends Schema.Class<SigningQueueContract>("SigningQueueContract")({
  id: Schema.UUID,
  title: Schema.String,
  contractNumber: Schema.String,
  organizationId: OrganizationId,
  operationalContextId: OperationalContextId
}) {}

/** An item of the signing queue: what a signing system needs to send the contract for signature. */
export class SigningQueueItem extends Schema.Class<SigningQueueItem>("SigningQueueItem")({
  attemptId: SigningAttemptId,
  contract: SigningQueueContract,
  parties: Schema.Array(SigningParty),
  document: SigningDocument,
  queuedAt: Timestamp
}) {}

/** An item of the withdrawal queue: an attempt to cancel at the signing system, then report `withdrawn`. */
export class WithdrawalQueueItem extends Schema.Class<WithdrawalQueueItem>("WithdrawalQueueItem")({
  attemptId: SigningAttemptId,
  contractId: Schema.UUID,
  status: Schema.Literal("queued", "started"),
  providerDocumentId: Schema.optional(Schema.String).annotations({
    description: "Absent when the attempt was never reported started."
  }),
  withdrawalRequestedAt: Timestamp
}) {}

export const SigningQueuePage = Page(SigningQueueItem, "SigningQueuePage")
export const WithdrawalQueuePage = Page(WithdrawalQueueItem, "WithdrawalQueuePage")

/** Body of `started`. */
export class StartedRequest extends Schema.Class<StartedRequest>("StartedRequest")({
  providerDocumentId: BoundedText(1, 200).annotations({
    description: "The signing system's own id of the document, 1 to 200 characters."
  })
}) {}

/** Body of `signed-document-upload`: what the PDF to upload is. */
export class SignedDocumentUploadRequest extends Schema.Class<SignedDocumentUploadRequest>(
  "SignedDocumentUploadRequest"
)({
  sizeBytes: IntegerBetween(1, MAX_SIGNED_DOCUMENT_BYTES).annotations({
    description: "The PDF's size in bytes, 1 to 26214400 (25 MiB)."
  }),
  sha256: Schema.String.pipe(
    Schema.pattern(/^[0-9a-fA-F]{64}$/),
    Schema.annotations({ message: () => ({ message: "must be 64 hexadecimal digits", override: true }) })
  ).annotations({ description: "The PDF's SHA-256, 64 hex digits." })
}) {}

/** 201 of `signed-document-upload`: where and how to PUT the PDF. */
export class SignedDocumentUpload extends Schema.Class<SignedDocumentUpload>("SignedDocumentUpload")(
  {
    id: Schema.UUID.annotations({ description: "The upload's id; name it as `uploadId` when reporting `signed`." }),
    method: Schema.Literal("PUT"),
    url: Schema.String.annotations({ description: "The upload address; needs no token; valid until expiresAt." }),
    headers: Schema.Struct({ "Content-Type": Schema.Literal("application/pdf") }),
    expiresAt: Timestamp,
    sizeBytes: Schema.Int,
    sha256: Schema.String
  },
  {
    description:
      "PUT exactly the declared bytes to `url` with these headers before `expiresAt` (15 minutes). The PDF is " +
      "checked — the declared size and SHA-256, a `%PDF-` header, a trailer dictionary, not encrypted — and " +
      "stored only if it passes: 201 then; otherwise 400 `CRM_SIGNED_DOCUMENT_REJECTED` (413 for a body longer " +
      "than declared; 415 for a body not sent as `application/pdf`) and nothing is stored. An address takes one " +
      "PDF. The PUT is in this document: `PUT /v1/crm/signed-document-uploads/{uploadId}`."
  }
) {}

/** Body of `signed`. */
export class SignedRequest extends Schema.Class<SignedRequest>("SignedRequest")({
  uploadId: Uuid.annotations({ description: "The upload through which the signed PDF was stored." })
}) {}

/** Body of `declined`. */
export class DeclinedRequest extends Schema.Class<DeclinedRequest>("DeclinedRequest")({
  partyId: Uuid.annotations({ description: "The party that declined: one of the attempt's parties." }),
  reason: Schema.optional(
    BoundedText(1, 1000).annotations({ description: "Why, as the party said; 1 to 1000 characters." })
  )
}) {}

/** Body of `failed`. */
export class FailedRequest extends Schema.Class<FailedRequest>("FailedRequest")({
  reason: BoundedText(1, 1000).annotations({
    description: "Why the document could not be created; shown to an operator. 1 to 1000 characters."
  })
}) {}

/** Body of `expired` and `withdrawn`: `{}` or none (`@propline/contract/Request`'s, named here as before). */
export { EmptyRequest } from "./Request.js"

const AttemptPath = Schema.Struct({ attemptId: SigningAttemptId })

const ENDED = "400 `CRM_SIGNING_ATTEMPT_ENDED` when the attempt is signed, declined, expired, failed or withdrawn (a " +
  "repeated report included)"
const NOT_FOUND = "404 when the attempt does not exist or the token cannot see it"

const report = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path).setPath(AttemptPath).addSuccess(SigningAttempt, { status: 201 }).addError(NotFound)

export class SigningGroup extends HttpApiGroup.make("crm")
  .add(
    HttpApiEndpoint.get("getSigningQueue", "/v1/crm/signing-queue")
      .setUrlParams(PageParams)
      .addSuccess(SigningQueuePage)
      .annotate(OpenApi.Summary, "List contracts waiting to be sent for signature")
      .annotate(
        OpenApi.Description,
        "Signing attempts `queued` with no withdrawal asked for, oldest first. Each item carries the contract, the " +
          "parties with their signers (name, e-mail, role, signing order) and the PDF to sign at an address valid " +
          "15 minutes (read the queue again for a fresh one). An attempt leaves the queue when it is reported " +
          "`started` or `failed`, or when the operator asks for its withdrawal."
      )
  )
  .add(
    HttpApiEndpoint.get("getWithdrawalQueue", "/v1/crm/withdrawal-queue")
      .setUrlParams(PageParams)
      .addSuccess(WithdrawalQueuePage)
      .annotate(OpenApi.Summary, "List signing attempts the operator wants withdrawn")
      .annotate(
        OpenApi.Description,
        "Live attempts (`queued` or `started`) whose withdrawal an operator asked for, oldest request first. Cancel " +
          "the document at the signing system and report `withdrawn`. An attempt leaves the queue when any outcome " +
          "ends it (a document signed before the cancellation reached it is reported `signed`)."
      )
  )
  .add(
    report("started", "/v1/crm/signing-attempts/:attemptId/started")
      .setPayload(body(StartedRequest))
      .annotate(OpenApi.Summary, "Report that the document is out for signature")
      .annotate(
        OpenApi.Description,
        `\`queued\` → \`started\`, recording the signing system's document id. ${ENDED}; 400 ` +
          `\`CRM_AGREEMENT_TRANSITION_INVALID\` when it is already started; ${NOT_FOUND}.`
      )
  )
  .add(
    HttpApiEndpoint.post("signedDocumentUpload", "/v1/crm/signing-attempts/:attemptId/signed-document-upload")
      .setPath(AttemptPath)
      .setPayload(body(SignedDocumentUploadRequest))
      .addSuccess(SignedDocumentUpload, { status: 201 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an upload address for the signed PDF")
      .annotate(
        OpenApi.Description,
        "Declare the signed PDF's size and SHA-256 and get a PUT address valid 15 minutes for that one PDF. " +
          `Only for a \`started\` attempt: ${ENDED}; 400 \`CRM_AGREEMENT_TRANSITION_INVALID\` when it is ` +
          `\`queued\`; ${NOT_FOUND}.`
      )
  )
  .add(
    report("signed", "/v1/crm/signing-attempts/:attemptId/signed")
      .setPayload(body(SignedRequest))
      .annotate(OpenApi.Summary, "Report that every party signed")
      .annotate(
        OpenApi.Description,
        "`started` → `signed`, with the signed PDF stored through `uploadId`. 400 `CRM_SIGNED_DOCUMENT_REJECTED` " +
          "unless a PDF that passed its checks was stored through that upload of this attempt (nothing is " +
          `recorded then); ${ENDED}; 400 \`CRM_AGREEMENT_TRANSITION_INVALID\` when it is \`queued\`; ${NOT_FOUND}.`
      )
  )
  .add(
    report("declined", "/v1/crm/signing-attempts/:attemptId/declined")
      .setPayload(body(DeclinedRequest))
      .annotate(OpenApi.Summary, "Report that a party declined")
      .annotate(
        OpenApi.Description,
        "`started` → `declined`, naming the party and, optionally, its reason. 400 `VALIDATION_FAILED` at " +
          `\`/partyId\` when the party is not one of the attempt's; ${ENDED}; 400 ` +
          `\`CRM_AGREEMENT_TRANSITION_INVALID\` when it is \`queued\`; ${NOT_FOUND}.`
      )
  )
  .add(
    report("expired", "/v1/crm/signing-attempts/:attemptId/expired")
      .setPayload(EmptyRequest)
      .annotate(OpenApi.Summary, "Report that the document expired unsigned")
      .annotate(
        OpenApi.Description,
        `\`started\` → \`expired\`. Body \`{}\`. ${ENDED}; 400 \`CRM_AGREEMENT_TRANSITION_INVALID\` when it is ` +
          `\`queued\`; ${NOT_FOUND}.`
      )
  )
  .add(
    report("withdrawn", "/v1/crm/signing-attempts/:attemptId/withdrawn")
      .setPayload(EmptyRequest)
      .annotate(OpenApi.Summary, "Report that the document was cancelled")
      .annotate(
        OpenApi.Description,
        "Answers the withdrawal queue: a live attempt whose withdrawal was asked for → `withdrawn`. Body `{}` or none. 400 " +
          `\`CRM_AGREEMENT_TRANSITION_INVALID\` when no withdrawal was asked for; ${ENDED}; ${NOT_FOUND}.`
      )
  )
  .add(
    report("failed", "/v1/crm/signing-attempts/:attemptId/failed")
      .setPayload(body(FailedRequest))
      .annotate(OpenApi.Summary, "Report that the document could not be created")
      .annotate(
        OpenApi.Description,
        `\`queued\` or \`started\` → \`failed\`, with a reason shown to an operator. ${ENDED}; ${NOT_FOUND}.`
      )
  )
  .middleware(JsonBody)
  .middleware(SigningRole)
  .middleware(Authentication) {}
