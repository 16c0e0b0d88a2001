/**
 * Connection references (decisions 8): when an operator presses Connect on a configuration, the service issues a
 * reference and sends the operator's browser to the connector app's setup address with it; the connector redeems
 * it (`POST /v1/integrations/connection-references/redeem`) with a token of the configuration's installation.
 *
 * A reference is `icr_` followed by 43 base64url characters that encode 256 random bits. It works once, for 10
 * minutes, and only for the installation it was issued for (so only for that app). The service stores only its
 * SHA-256 digest, as with client secrets (decisions 3); it computes digests (node:crypto) and draws the bytes.
 *
 * @since 0.1.0
 */

/**
 * Every connection reference begins with this prefix, so people and secret scanners can recognise one.
 *
 * @since 0.1.0
 */
export const REFERENCE_PREFIX = "icr_"

/**
 * How many random bytes a reference encodes: 32 (256 bits).
 *
 * @since 0.1.0
 */
export const REFERENCE_RANDOM_BYTES = 32

/**
 * How long a reference works after it was issued: 10 minutes (decisions 8), in seconds.
 *
 * @since 0.1.0
 */
export const REFERENCE_LIFETIME_SECONDS = 600

/**
 * The query parameters the setup address carries: the reference, and the installation whose token redeems it
 * (a connector installed in several organizations learns which one to ask a token for).
 *
 * @since 0.1.0
 */
export const SETUP_QUERY = { reference: "connection_reference", installation: "installation_id" } as const

/**
 * A reference as stored: its digest (lower-case hex SHA-256 of the whole reference), the configuration and the
 * installation it was issued for, when it was issued and until when it works, and — once it stops working before
 * then — when it was redeemed, or voided (another reference of the configuration was redeemed, or the
 * configuration was disconnected).
 *
 * @since 0.1.0
 */
export interface ConnectionReferenceRecord {
  readonly digest: string
  readonly configurationId: string
  readonly installationId: string
  readonly issuedAt: Date
  readonly expiresAt: Date
  readonly redeemedAt?: Date
  readonly voidedAt?: Date
}

/**
 * Writes a reference from random bytes the caller drew (`crypto.randomBytes(32)`): the prefix and the first 32
 * bytes in base64url without padding. Deterministic: the same bytes give the same reference.
 *
 * @throws RangeError when fewer than 32 bytes are given (the reference would be guessable).
 * @since 0.1.0
 */
export const formatReference = (randomBytes: Uint8Array): string => {
  if (randomBytes.length < REFERENCE_RANDOM_BYTES) {
    throw new RangeError(`formatReference needs ${REFERENCE_RANDOM_BYTES} random bytes, got ${randomBytes.length}`)
  }
  let binary = ""
  for (const byte of randomBytes.subarray(0, REFERENCE_RANDOM_BYTES)) binary += String.fromCharCode(byte)
  return REFERENCE_PREFIX + btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
}

const wellFormed = /^icr_[A-Za-z0-9_-]{43}$/

/**
 * Whether `reference` has the shape {@link formatReference} writes. Anything else is refused without a lookup —
 * with the same refusal an unknown reference gets.
 *
 * @since 0.1.0
 */
export const isWellFormedReference = (reference: string): boolean => wellFormed.test(reference)

/**
 * The setup address: the app's setup URL with `connection_reference` and `installation_id` added to its query
 * (kept: what the URL already had).
 *
 * @since 0.1.0
 */
export const setupAddress = (setupUrl: string, reference: string, installationId: string): string => {
  const url = new URL(setupUrl)
  url.searchParams.set(SETUP_QUERY.reference, reference)
  url.searchParams.set(SETUP_QUERY.installation, installationId)
  return url.toString()
}
