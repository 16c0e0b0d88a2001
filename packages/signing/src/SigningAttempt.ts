/**
 * The signing attempt: one sending of a contract to an e-signing system, from the signing queue to its outcome
 * (spec sections 1 and 4.2 "Signing", decisions.md section 6), with the parties and signers it was prepared with.
 *
 * Conventions shared by every record of this package:
 * - ids are UUID strings, chosen by the caller (the service draws them) so the functions stay pure;
 * - timestamps are `Date`s (the contract encodes them as ISO 8601 in UTC);
 * - an optional field is absent, never `undefined` (`exactOptionalPropertyTypes`).
 *
 * @since 0.1.0
 */

/**
 * Every attempt status, in lifecycle order (decisions.md section 6).
 *
 * @since 0.1.0
 */
export const SIGNING_ATTEMPT_STATUSES = [
  "queued",
  "started",
  "signed",
  "declined",
  "expired",
  "failed",
  "withdrawn"
] as const

/**
 * Signing-attempt status (decisions.md section 6):
 * `queued` (in the signing queue) → `started` (the e-signing system reported its document id) → `signed`,
 * `declined` or `expired`; `queued` or `started` → `failed`; a withdrawal the operator asked for → `withdrawn`.
 * `queued` and `started` are live; the others are ended and final.
 *
 * @since 0.1.0
 */
export type SigningAttemptStatus = (typeof SIGNING_ATTEMPT_STATUSES)[number]

/**
 * The statuses of a live attempt: at most one per contract (`CRM_SIGNING_ATTEMPT_LIVE`).
 *
 * @since 0.1.0
 */
export const LIVE_STATUSES = ["queued", "started"] as const satisfies ReadonlyArray<SigningAttemptStatus>

/**
 * A live status: `queued` or `started`.
 *
 * @since 0.1.0
 */
export type LiveStatus = (typeof LIVE_STATUSES)[number]

/**
 * The statuses of an ended attempt: any report on one is refused with `CRM_SIGNING_ATTEMPT_ENDED`.
 *
 * @since 0.1.0
 */
export const ENDED_STATUSES = [
  "signed",
  "declined",
  "expired",
  "failed",
  "withdrawn"
] as const satisfies ReadonlyArray<SigningAttemptStatus>

/**
 * An ended status: `signed`, `declined`, `expired`, `failed` or `withdrawn`.
 *
 * @since 0.1.0
 */
export type EndedStatus = (typeof ENDED_STATUSES)[number]

/**
 * Whether `status` is live (`queued` or `started`).
 *
 * @since 0.1.0
 */
export const isLive = (status: SigningAttemptStatus): status is LiveStatus =>
  status === "queued" || status === "started"

/**
 * Whether `status` is ended (anything but `queued` and `started`).
 *
 * @since 0.1.0
 */
export const isEnded = (status: SigningAttemptStatus): status is EndedStatus => !isLive(status)

/**
 * Every party kind.
 *
 * @since 0.1.0
 */
export const PARTY_KINDS = ["customer", "organization"] as const

/**
 * A side of the contract: `customer` (the contract's customer, the tenant; always a party) or `organization`
 * (the operator that owns the contract, the landlord). Each kind is a party at most once.
 *
 * @since 0.1.0
 */
export type PartyKind = (typeof PARTY_KINDS)[number]

/**
 * Every signer role.
 *
 * @since 0.1.0
 */
export const SIGNER_ROLES = ["signatory", "approver", "viewer"] as const

/**
 * What a signer does with the document: `signatory` signs it for the party; `approver` approves it before the
 * signatories see it (an internal review: only on the organization's side); `viewer` receives it and the signed
 * copy without signing. Every party has at least one signatory.
 *
 * @since 0.1.0
 */
export type SignerRole = (typeof SIGNER_ROLES)[number]

/**
 * A person who takes part in the signing for a party.
 * - `signingOrder`: 1 or more; signers with a lower order act first, signers with the same order in parallel.
 * - `email`: where the e-signing system reaches the person; one person is a signer of an attempt once
 *   (compared without regard to case).
 *
 * @since 0.1.0
 */
export interface Signer {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly role: SignerRole
  readonly signingOrder: number
}

/**
 * A party of the attempt: its kind, its name as the document shows it (the customer's or the organization's
 * name) and its signers, in the order they were given.
 *
 * @since 0.1.0
 */
export interface SigningParty {
  readonly id: string
  readonly kind: PartyKind
  readonly name: string
  readonly signers: ReadonlyArray<Signer>
}

/**
 * A signing attempt.
 * - `title`: the document's title, as the e-signing system shows it to the signers.
 * - `providerDocumentId`: the e-signing system's own id of the document, set by `started`.
 * - `withdrawalRequestedAt`: set when an operator asks for withdrawal; while the attempt is live it is then on
 *   the withdrawal queue (and off the signing queue).
 * - `declinedByPartyId` and `declineReason`: set by `declined` (the reason only when one was reported).
 * - `failureReason`: set by `failed`.
 * - `signedDocumentUploadId`: the verified upload of the signed PDF, set by `signed`.
 * - one time per status reached (`queuedAt` … `withdrawnAt`), and `updatedAt`, the time of the last change.
 *
 * @since 0.1.0
 */
export interface SigningAttemptRecord {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly contractId: string
  readonly status: SigningAttemptStatus
  readonly title: string
  readonly parties: ReadonlyArray<SigningParty>
  readonly providerDocumentId?: string
  readonly withdrawalRequestedAt?: Date
  readonly declinedByPartyId?: string
  readonly declineReason?: string
  readonly failureReason?: string
  readonly signedDocumentUploadId?: string
  readonly queuedAt: Date
  readonly startedAt?: Date
  readonly signedAt?: Date
  readonly declinedAt?: Date
  readonly expiredAt?: Date
  readonly failedAt?: Date
  readonly withdrawnAt?: Date
  readonly updatedAt: Date
}

/**
 * Whether the attempt is an item of the signing queue (`GET /v1/crm/signing-queue`): `queued` and no withdrawal
 * asked for (a contract the operator wants withdrawn is not to be sent).
 *
 * @since 0.1.0
 */
export const isOnSigningQueue = (attempt: Pick<SigningAttemptRecord, "status" | "withdrawalRequestedAt">): boolean =>
  attempt.status === "queued" && attempt.withdrawalRequestedAt === undefined

/**
 * Whether the attempt is an item of the withdrawal queue (`GET /v1/crm/withdrawal-queue`): live, and an operator
 * asked for its withdrawal. It leaves the queue when an outcome ends it.
 *
 * @since 0.1.0
 */
export const isOnWithdrawalQueue = (
  attempt: Pick<SigningAttemptRecord, "status" | "withdrawalRequestedAt">
): boolean => isLive(attempt.status) && attempt.withdrawalRequestedAt !== undefined

/**
 * The contract's signing status, which follows its newest attempt: the attempt's own status, or `unsent` for a
 * contract never prepared for signing (issue "The contract's status follows its attempt").
 *
 * @since 0.1.0
 */
export type ContractSigningStatus = "unsent" | SigningAttemptStatus
