/**
 * The format of an Application's client secret (spec 5.2; decisions 3): `service_sk_` followed by 43 base62
 * digits (`0-9A-Za-z`) that encode 256 random bits. The secret is shown once and stored only as its SHA-256
 * digest; the caller computes digests (node:crypto) and compares them here in constant time.
 *
 * @since 0.1.0
 */
import { encodeBase62 } from "./internal/base62.js"

/**
 * Every client secret begins with this prefix (spec 5.2), so secret scanners and people can recognise one.
 *
 * @since 0.1.0
 */
export const SECRET_PREFIX = "service_sk_"

/**
 * How many random bytes a secret encodes: 32 bytes, 256 bits (decisions 3: "at least 256 random bits").
 *
 * @since 0.1.0
 */
export const SECRET_RANDOM_BYTES = 32

/**
 * How many base62 digits follow the prefix: 43, the fewest that hold any 256-bit number (62^43 > 2^256).
 *
 * @since 0.1.0
 */
export const SECRET_BODY_LENGTH = 43

const wellFormed = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{${SECRET_BODY_LENGTH}}$`)

/**
 * Writes a new secret from random bytes the caller drew (e.g. `crypto.randomBytes(32)`): the prefix, then the first
 * {@link SECRET_RANDOM_BYTES} bytes as one big-endian number in base62, left-padded with `0` to
 * {@link SECRET_BODY_LENGTH} digits. Deterministic: the same bytes give the same secret. Bytes beyond the first 32
 * are not used.
 *
 * @throws RangeError when fewer than 32 bytes are given (a programming error: the secret would be guessable).
 * @since 0.1.0
 */
export const formatSecret = (randomBytes: Uint8Array): string => {
  if (randomBytes.length < SECRET_RANDOM_BYTES) {
    throw new RangeError(`formatSecret needs at least ${SECRET_RANDOM_BYTES} random bytes, got ${randomBytes.length}`)
  }
  return SECRET_PREFIX + encodeBase62(randomBytes.subarray(0, SECRET_RANDOM_BYTES), SECRET_BODY_LENGTH)
}

/**
 * Whether `secret` has the shape {@link formatSecret} writes: the prefix and exactly 43 base62 digits. A secret
 * that fails this is refused as `invalid_client` (401, `credentials_malformed`) without a database lookup.
 *
 * @since 0.1.0
 */
export const isWellFormedSecret = (secret: string): boolean => wellFormed.test(secret)

/**
 * Compares two digests in time that depends only on their lengths, not on where they first differ, so a stored
 * secret's digest cannot be found byte by byte through response times. Digests of one algorithm have one public
 * length (32 bytes for SHA-256); different lengths compare unequal at once.
 *
 * @since 0.1.0
 */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number)
  return difference === 0
}
