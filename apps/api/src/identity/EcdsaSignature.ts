/**
 * An ECDSA signature as `node:crypto.sign` makes it by default (DER, the `ECDSA-Sig-Value` SEQUENCE of RFC 3279
 * 2.2.3) turned into the form JOSE uses (RFC 7518 3.4: the two integers r and s, each big-endian and left-padded with
 * zeros to the curve's size, concatenated): what `dsaEncoding: "ieee-p1363"` gives, without the options object
 * `sign` parses on every call.
 */

/** DER's tags of a SEQUENCE and an INTEGER. */
const SEQUENCE = 0x30
const INTEGER = 0x02

/**
 * `der`'s INTEGER at `offset` (a positive one, minimally encoded: a leading 0x00 only before a byte with the high bit
 * set) written right-aligned into `out[at, at + size)`; the offset just past it. Throws when it is not such an
 * INTEGER of at most `size` bytes of value.
 */
const copyInteger = (der: Uint8Array, offset: number, out: Buffer, at: number, size: number): number => {
  if (der[offset] !== INTEGER) throw new Error("ECDSA signature: an INTEGER was expected")
  const length = der[offset + 1]
  if (length === undefined || length === 0 || length > 0x7f) throw new Error("ECDSA signature: bad INTEGER length")
  let start = offset + 2
  const end = start + length
  if (end > der.length) throw new Error("ECDSA signature: truncated INTEGER")
  if ((der[start]! & 0x80) !== 0) throw new Error("ECDSA signature: negative INTEGER")
  if (der[start] === 0x00 && length > 1) {
    if ((der[start + 1]! & 0x80) === 0) throw new Error("ECDSA signature: INTEGER not minimally encoded")
    start += 1
  }
  const valueLength = end - start
  if (valueLength > size) throw new Error("ECDSA signature: INTEGER larger than the curve")
  out.set(der.subarray(start, end), at + size - valueLength)
  return end
}

/**
 * The JOSE form (r || s, `2 × size` bytes) of a DER-encoded ECDSA signature whose integers fit `size` bytes (32 for
 * P-256/ES256). Throws on anything that is not exactly one such SEQUENCE of two non-negative, minimally encoded
 * INTEGERs (a signature `node:crypto` made is always one: a throw is a defect).
 */
export const derToJose = (der: Uint8Array, size: number): Buffer => {
  // A signature of a curve up to P-384 (2 × (2 + 49) bytes) has a one-byte SEQUENCE length; P-521's has a long form.
  if (der[0] !== SEQUENCE) throw new Error("ECDSA signature: a SEQUENCE was expected")
  let offset = 2
  let length = der[1]
  if (length === 0x81) {
    length = der[2]
    offset = 3
  }
  if (length === undefined || (offset === 3 && length < 0x80) || offset + length !== der.length) {
    throw new Error("ECDSA signature: bad SEQUENCE length")
  }
  const out = Buffer.alloc(2 * size)
  offset = copyInteger(der, offset, out, 0, size)
  offset = copyInteger(der, offset, out, size, size)
  if (offset !== der.length) throw new Error("ECDSA signature: trailing bytes")
  return out
}
