/**
 * Base62 encoding of an unsigned big-endian integer, digits `0-9A-Za-z`, left-padded with `0` to a fixed width.
 *
 * @internal
 */

// The 62 digits, in order of value.
const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `bytes` read as one big-endian number, written in base62 with at least `width` digits. @internal */
export const encodeBase62 = (bytes: Uint8Array, width: number): string => {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  let digits = ""
  while (value > 0n) {
    digits = BASE62_ALPHABET.charAt(Number(value % 62n)) + digits
    value /= 62n
  }
  return digits.padStart(width, "0")
}
