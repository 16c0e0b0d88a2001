/**
 * Strict base64 decoding (RFC 4648 section 4, standard alphabet) for HTTP Basic credentials.
 *
 * `atob` and `Buffer.from(s, "base64")` skip characters outside the alphabet, so a damaged header would decode
 * to some other credentials instead of being refused; this refuses it. Padding may be omitted, but when present
 * it must complete the last quantum.
 *
 * @internal
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** The bytes `text` encodes, or `undefined` when it is not base64. @internal */
export const decodeBase64 = (text: string): Uint8Array | undefined => {
  const unpadded = text.endsWith("==") ? text.slice(0, -2) : text.endsWith("=") ? text.slice(0, -1) : text
  if (unpadded.length !== text.length && text.length % 4 !== 0) return undefined
  if (unpadded.length % 4 === 1) return undefined
  const out = new Uint8Array(Math.floor((unpadded.length * 3) / 4))
  let buffer = 0
  let bits = 0
  let written = 0
  for (let i = 0; i < unpadded.length; i++) {
    const sextet = ALPHABET.indexOf(unpadded.charAt(i))
    if (sextet < 0) return undefined
    buffer = ((buffer << 6) | sextet) & 0xffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[written++] = (buffer >> bits) & 0xff
    }
  }
  return out
}
