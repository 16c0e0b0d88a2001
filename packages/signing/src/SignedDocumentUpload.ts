/**
 * The upload address given for a signed PDF (spec 4.2 `signed-document-upload`, decisions.md section 6) as a
 * record, and its limits.
 *
 * @since 0.1.0
 */

/**
 * How long an upload address is valid: 900 seconds (15 minutes) from when it was given.
 *
 * @since 0.1.0
 */
export const UPLOAD_ADDRESS_LIFETIME_SECONDS = 900

/**
 * The largest signed PDF accepted, in bytes: 25 MiB (26 214 400). A larger declared size is refused by the
 * contract (400 `VALIDATION_FAILED`).
 *
 * @since 0.1.0
 */
export const MAX_SIGNED_DOCUMENT_BYTES = 25 * 1024 * 1024

/**
 * An upload address given for one signed PDF of one attempt:
 * - `declaredSizeBytes` (1 to {@link MAX_SIGNED_DOCUMENT_BYTES}) and `declaredSha256` (64 lower-case hex digits):
 *   what the e-signing system declared; the stored PDF matches both;
 * - `status`: `pending` until a PDF that passed the checks is stored through the address, then `stored`;
 * - `expiresAt`: 15 minutes after `createdAt`; a PDF sent at or after it is refused.
 *
 * @since 0.1.0
 */
export interface SignedDocumentUpload {
  readonly id: string
  readonly attemptId: string
  readonly organizationId: string
  readonly declaredSizeBytes: number
  readonly declaredSha256: string
  readonly status: "pending" | "stored"
  readonly expiresAt: Date
  readonly createdAt: Date
  readonly storedAt?: Date
}
