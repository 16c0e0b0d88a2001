/**
 * The business-rule refusals of signing, one class per rule, on the house's one refusal shape
 * (`@propline/refusal/Refusal`): `code` from spec section 7.3, `status` 400 or 409 (decisions.md section 4),
 * `detail` safe to show a client (it repeats nothing the caller sent), and the facts that led to it.
 *
 * @since 0.1.0
 */
import { Refusal } from "@propline/refusal/Refusal"
import type { PartyKind, SignerRole, SigningAttemptStatus } from "./SigningAttempt.js"

/**
 * What an operator or a signing system asked of an attempt, as named in a refusal's `action`: the six outcome
 * reports (`POST /v1/crm/signing-attempts/{attemptId}/…`), `signed-document-upload` (asking for an upload address),
 * `upload` (the PUT of the signed PDF) and `request-withdrawal` (the operator's ask).
 *
 * @since 0.1.0
 */
export type AttemptAction =
  | "started"
  | "signed"
  | "declined"
  | "expired"
  | "withdrawn"
  | "failed"
  | "signed-document-upload"
  | "upload"
  | "request-withdrawal"

/**
 * `CRM_SIGNING_ATTEMPT_LIVE`, HTTP 409: the contract already has a live (`queued` or `started`) attempt; one live
 * attempt per contract (decisions.md section 6). `liveAttemptId` names it.
 *
 * @since 0.1.0
 */
export class SigningAttemptLive extends Refusal("SigningAttemptLive", "CRM_SIGNING_ATTEMPT_LIVE", 409)<{
  readonly contractId: string
  readonly liveAttemptId: string
}> {}

/**
 * `CRM_SIGNING_ATTEMPT_ENDED`, HTTP 400: the attempt is `signed`, `declined`, `expired`, `failed` or `withdrawn`,
 * and nothing more can be reported on it or asked of it (decisions.md section 6), a repeated report included.
 *
 * @since 0.1.0
 */
export class SigningAttemptEnded extends Refusal("SigningAttemptEnded", "CRM_SIGNING_ATTEMPT_ENDED", 400)<{
  readonly attemptStatus: SigningAttemptStatus
  readonly action: AttemptAction
}> {}

/**
 * `CRM_AGREEMENT_TRANSITION_INVALID`, HTTP 400: the attempt is live but the state machine does not allow
 * `action` from its `attemptStatus` (for example `signed` on a `queued` attempt, a second `started`, or
 * `withdrawn` on an attempt no operator asked to withdraw). The contract ("agreement") follows its attempt, so
 * a forbidden attempt transition is a forbidden agreement transition.
 *
 * @since 0.1.0
 */
export class SigningTransitionInvalid extends Refusal(
  "SigningTransitionInvalid",
  "CRM_AGREEMENT_TRANSITION_INVALID",
  400
)<{
  readonly attemptStatus: SigningAttemptStatus
  readonly action: AttemptAction
  readonly withdrawalRequested: boolean
}> {}

/**
 * Why a contract cannot be prepared for signing: it is `terminated`, or it is already `signed`.
 *
 * @since 0.1.0
 */
export type NotAvailableReason = "contract-terminated" | "contract-signed"

/**
 * `CRM_SIGNING_NOT_AVAILABLE`, HTTP 400: the contract cannot be sent for signature (see {@link NotAvailableReason}).
 *
 * @since 0.1.0
 */
export class SigningNotAvailable extends Refusal("SigningNotAvailable", "CRM_SIGNING_NOT_AVAILABLE", 400)<{
  readonly contractId: string
  readonly reason: NotAvailableReason
}> {}

/**
 * `CRM_SIGNING_PARTY_REPEATED`, HTTP 400: the preparation names the party `kind` more than once; `index` is the
 * position (0-based) of the repetition in `parties`.
 *
 * @since 0.1.0
 */
export class SigningPartyRepeated extends Refusal("SigningPartyRepeated", "CRM_SIGNING_PARTY_REPEATED", 400)<{
  readonly kind: PartyKind
  readonly index: number
}> {}

/**
 * `CRM_SIGNER_ALREADY_ADDED`, HTTP 400: a person (by e-mail, without regard to case) is a signer of the attempt
 * already, for this party or another; `partyIndex` and `signerIndex` (0-based) locate the repetition.
 *
 * @since 0.1.0
 */
export class SignerAlreadyAdded extends Refusal("SignerAlreadyAdded", "CRM_SIGNER_ALREADY_ADDED", 400)<{
  readonly partyIndex: number
  readonly signerIndex: number
}> {}

/**
 * Why a signer cannot take part: `approver-outside-organization` (approval is the operator's own review, so an
 * approver belongs to the organization's party), `private-customer-second-signatory` (a private customer is one
 * natural person, who signs alone for themselves).
 *
 * @since 0.1.0
 */
export type NotEligibleReason = "approver-outside-organization" | "private-customer-second-signatory"

/**
 * `CRM_SIGNER_NOT_ELIGIBLE`, HTTP 400: the signer at `partyIndex`/`signerIndex` (0-based) may not take part in
 * that role for that party (see {@link NotEligibleReason}).
 *
 * @since 0.1.0
 */
export class SignerNotEligible extends Refusal("SignerNotEligible", "CRM_SIGNER_NOT_ELIGIBLE", 400)<{
  readonly partyIndex: number
  readonly signerIndex: number
  readonly partyKind: PartyKind
  readonly role: SignerRole
  readonly reason: NotEligibleReason
}> {}

/**
 * `VALIDATION_FAILED`, HTTP 400: `declined` names a `partyId` that is not a party of this attempt. `path` is the
 * JSON Pointer (RFC 6901) of the field in the request body; `issues` holds that one field with the `detail`
 * (spec 7.1).
 *
 * @since 0.1.0
 */
export class DecliningPartyUnknown extends Refusal("DecliningPartyUnknown", "VALIDATION_FAILED", 400)<{
  readonly partyId: string
  readonly path: "/partyId"
}> {
  constructor(args: { readonly partyId: string; readonly path: "/partyId"; readonly detail: string }) {
    super({ ...args, issues: [{ path: args.path, message: args.detail }] })
  }
}

/**
 * Why an uploaded signed document was refused, or why `signed` found no acceptable one:
 * - `address-expired`: the upload address's 15 minutes are over;
 * - `already-uploaded`: a PDF was already stored through this address (one address, one PDF);
 * - `size-mismatch`: the body's length is not the declared size;
 * - `digest-mismatch`: the body's SHA-256 is not the declared one;
 * - `not-pdf`: the body does not begin with `%PDF-`;
 * - `unreadable`: the PDF has no trailer (no closed trailer dictionary, classic or a cross-reference stream's;
 *   ISO 32000-1 7.5.5);
 * - `too-complex`: the check could not finish within its time and memory budget (the API host's
 *   `PdfInspector`), so the file can't be shown to be a readable, unencrypted PDF;
 * - `encrypted`: the PDF is encrypted (its trailer names an `/Encrypt` dictionary), so it can't be archived and
 *   read without a password;
 * - `not-uploaded`: `signed` names an upload through which no PDF was stored;
 * - `other-attempt`: `signed` names an upload made for another attempt.
 *
 * @since 0.1.0
 */
export type DocumentRejectionReason =
  | "address-expired"
  | "already-uploaded"
  | "size-mismatch"
  | "digest-mismatch"
  | "not-pdf"
  | "unreadable"
  | "too-complex"
  | "encrypted"
  | "not-uploaded"
  | "other-attempt"

/**
 * `CRM_SIGNED_DOCUMENT_REJECTED`, HTTP 400: the signed PDF was refused (nothing is stored), or `signed` was
 * reported without a stored PDF that passed its checks (nothing is recorded); see {@link DocumentRejectionReason}.
 *
 * @since 0.1.0
 */
export class SignedDocumentRejected extends Refusal("SignedDocumentRejected", "CRM_SIGNED_DOCUMENT_REJECTED", 400)<{
  readonly reason: DocumentRejectionReason
}> {}

/**
 * Any refusal of this package.
 *
 * @since 0.1.0
 */
export type SigningRefusal =
  | SigningAttemptLive
  | SigningAttemptEnded
  | SigningTransitionInvalid
  | SigningNotAvailable
  | SigningPartyRepeated
  | SignerAlreadyAdded
  | SignerNotEligible
  | DecliningPartyUnknown
  | SignedDocumentRejected
