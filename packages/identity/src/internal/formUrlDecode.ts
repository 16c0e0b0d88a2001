/**
 * application/x-www-form-urlencoded decoding of one name or value (WHATWG URL, "application/x-www-form-urlencoded
 * parsing", steps for one byte sequence): `+` is a space, `%XX` is the byte XX, any other `%` stays as it is, and
 * the bytes are read as UTF-8. Used for HTTP Basic credentials, which RFC 6749 section 2.3.1 and Appendix B encode
 * this way before base64.
 *
 * @internal
 */

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const hexValue = (byte: number | undefined): number => {
  if (byte === undefined) return -1
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x41 + 10
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x61 + 10
  return -1
}

/** The decoded text, or `undefined` when the decoded bytes are not UTF-8. @internal */
export const formUrlDecode = (text: string): string | undefined => {
  const input = encoder.encode(text)
  const out = new Uint8Array(input.length)
  let written = 0
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] as number
    if (byte === 0x2b) {
      out[written++] = 0x20
      continue
    }
    if (byte === 0x25) {
      const high = hexValue(input[i + 1])
      const low = hexValue(input[i + 2])
      if (high >= 0 && low >= 0) {
        out[written++] = high * 16 + low
        i += 2
        continue
      }
    }
    out[written++] = byte
  }
  try {
    return decoder.decode(out.subarray(0, written))
  } catch {
    return undefined
  }
}
