/**
 * The events signing state changes produce, written by the service in the same transaction as the change
 * (outbox) and delivered to webhooks (decisions.md section 9). Each names the attempt that changed, its contract
 * and when; receivers re-read the attempt, so an event carries no record state.
 *
 * @since 0.1.0
 */

/**
 * Fields every signing event carries: the attempt's id, its contract, organization and operational context (for
 * routing and visibility), and `at`, the time of the change.
 *
 * @since 0.1.0
 */
export interface SigningAttemptEventFields {
  readonly attemptId: string
  readonly contractId: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly at: Date
}

/**
 * An operator prepared a contract for signing: the attempt is `queued`, in the signing queue.
 *
 * @since 0.1.0
 */
export interface SigningAttemptQueued extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.queued"
}

/**
 * The e-signing system reported the document out for signature: `started`.
 *
 * @since 0.1.0
 */
export interface SigningAttemptStarted extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.started"
}

/**
 * A signed PDF passed its checks and was stored through an upload address; `uploadId` names the upload.
 *
 * @since 0.1.0
 */
export interface SignedDocumentUploaded extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.signed_document_uploaded"
  readonly uploadId: string
}

/**
 * Every party signed: `signed`, with its stored PDF.
 *
 * @since 0.1.0
 */
export interface SigningAttemptSigned extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.signed"
}

/**
 * A party declined: `declined`.
 *
 * @since 0.1.0
 */
export interface SigningAttemptDeclined extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.declined"
}

/**
 * The document expired unsigned: `expired`.
 *
 * @since 0.1.0
 */
export interface SigningAttemptExpired extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.expired"
}

/**
 * The e-signing system could not create the document: `failed`.
 *
 * @since 0.1.0
 */
export interface SigningAttemptFailed extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.failed"
}

/**
 * An operator asked for the attempt's withdrawal: it joined the withdrawal queue.
 *
 * @since 0.1.0
 */
export interface SigningAttemptWithdrawalRequested extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.withdrawal_requested"
}

/**
 * The e-signing system cancelled the document as asked: `withdrawn`.
 *
 * @since 0.1.0
 */
export interface SigningAttemptWithdrawn extends SigningAttemptEventFields {
  readonly _tag: "crm.signing_attempt.withdrawn"
}

/**
 * Any signing event; `_tag` is the event type as webhooks name it (decisions.md section 9).
 *
 * @since 0.1.0
 */
export type SigningEvent =
  | SigningAttemptQueued
  | SigningAttemptStarted
  | SignedDocumentUploaded
  | SigningAttemptSigned
  | SigningAttemptDeclined
  | SigningAttemptExpired
  | SigningAttemptFailed
  | SigningAttemptWithdrawalRequested
  | SigningAttemptWithdrawn

/**
 * An event type name, such as `crm.signing_attempt.signed`.
 *
 * @since 0.1.0
 */
export type SigningEventType = SigningEvent["_tag"]

// A record keyed by every event type, so adding an event without listing it here fails to compile.
const eventTypes: { readonly [Type in SigningEventType]: null } = {
  "crm.signing_attempt.queued": null,
  "crm.signing_attempt.started": null,
  "crm.signing_attempt.signed_document_uploaded": null,
  "crm.signing_attempt.signed": null,
  "crm.signing_attempt.declined": null,
  "crm.signing_attempt.expired": null,
  "crm.signing_attempt.failed": null,
  "crm.signing_attempt.withdrawal_requested": null,
  "crm.signing_attempt.withdrawn": null
}

/**
 * Every signing event type, for webhook subscription choices.
 *
 * @since 0.1.0
 */
export const SIGNING_EVENT_TYPES = Object.keys(eventTypes) as ReadonlyArray<SigningEventType>
