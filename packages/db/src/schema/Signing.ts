/**
 * Signing tables (spec 4.2, decisions 6; migration 20261123_0300_signing). Statuses and kinds are the values of
 * `@propline/signing`'s records, written out here so the database package depends on no domain package.
 */

/** `signing_documents`: a stored PDF — the contract sent for signature, or the signed PDF that came back. */
export interface SigningDocumentTable {
  readonly id: string
  readonly organizationId: string
  readonly kind: "contract" | "signed"
  /** Where the bytes are in the configured storage (local disk or an S3-compatible bucket). */
  readonly storageKey: string
  /** The file name a download suggests. */
  readonly fileName: string
  readonly contentType: string
  /** Bytes. */
  readonly sizeBytes: number
  /** Lower-case hex SHA-256 of the bytes. */
  readonly sha256: string
  readonly createdAt: Date
}

/** `signing_attempts`: one sending of a contract for signature, from the signing queue to its outcome. */
export interface SigningAttemptTable {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly contractId: string
  status: "queued" | "started" | "signed" | "declined" | "expired" | "failed" | "withdrawn"
  readonly title: string
  /** The contract PDF rendered when the attempt was prepared: what the parties sign. */
  readonly documentId: string
  /** The e-signing system's own document id, reported with `started`. */
  providerDocumentId: string | null
  /** Set when an operator asks for withdrawal: the attempt is then on the withdrawal queue while live. */
  withdrawalRequestedAt: Date | null
  declinedByPartyId: string | null
  declineReason: string | null
  failureReason: string | null
  /** The upload through which the signed PDF was stored, set by `signed`. */
  signedDocumentUploadId: string | null
  readonly queuedAt: Date
  startedAt: Date | null
  signedAt: Date | null
  declinedAt: Date | null
  expiredAt: Date | null
  failedAt: Date | null
  withdrawnAt: Date | null
  updatedAt: Date
}

/** `signing_parties`: a side of the contract in an attempt; one of each kind per attempt. */
export interface SigningPartyTable {
  readonly id: string
  readonly signingAttemptId: string
  /** 0-based order in which the operator named the parties. */
  readonly position: number
  readonly kind: "customer" | "organization"
  /** The customer's or the organization's name when the attempt was prepared. */
  readonly name: string
}

/** `signing_signers`: a person who takes part for a party; one e-mail address (any case) per attempt. */
export interface SigningSignerTable {
  readonly id: string
  readonly signingAttemptId: string
  readonly signingPartyId: string
  /** 0-based order within the party. */
  readonly position: number
  readonly name: string
  readonly email: string
  readonly role: "signatory" | "approver" | "viewer"
  /** 1 or more: lower orders act first; equal orders act in parallel. */
  readonly signingOrder: number
}

/** `signed_document_uploads`: an upload address given for a signed PDF, valid 15 minutes, for one PDF. */
export interface SignedDocumentUploadTable {
  readonly id: string
  readonly organizationId: string
  readonly signingAttemptId: string
  /** Bytes, 1 to 26 214 400. */
  readonly declaredSizeBytes: number
  /** Lower-case hex SHA-256. */
  readonly declaredSha256: string
  status: "pending" | "stored"
  /** The stored signed PDF, once one passed the checks. */
  documentId: string | null
  readonly expiresAt: Date
  readonly createdAt: Date
  storedAt: Date | null
}

/** `url_signing_keys`: HMAC keys that sign short-lived file addresses, shared by every instance. */
export interface UrlSigningKeyTable {
  readonly id: string
  /** Base64url of 32 random bytes: only in a row written before keys were sealed at rest, until the next start seals it. */
  secret: string | null
  /** The secret sealed under a key-encryption key (AES-256-GCM envelope `v1.<kek id>.<iv>.<ciphertext>.<tag>`). */
  secretEnvelope: string | null
  readonly createdAt: Date
}
