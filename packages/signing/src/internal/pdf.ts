/**
 * Just enough PDF syntax (ISO 32000-1 sections 7.2 to 7.5) to read the keys of the file's trailer dictionaries:
 * the classic `trailer << … >>` and a cross-reference stream's dictionary (`N G obj << /Type /XRef … >>`), which
 * is where an encrypted file names its encryption dictionary (`/Encrypt`, section 7.6.1), and to tell whether the
 * file has a trailer dictionary at all (section 7.5.5).
 *
 * One pass over the bytes, each byte looked at a bounded number of times, so the time is linear in the length
 * whatever the bytes are (a hostile `" obj<<".repeat(N)` included), and the memory is constant: only the
 * dictionary that opens right after `trailer` or `obj` is followed, by its depth, never a stack of frames.
 *
 * @internal
 */

const LT = 0x3c // <
const GT = 0x3e // >
const SLASH = 0x2f
const LPAREN = 0x28
const RPAREN = 0x29
const BACKSLASH = 0x5c
const PERCENT = 0x25
const LBRACKET = 0x5b
const RBRACKET = 0x5d
const HASH = 0x23

// Section 7.2.2: white-space and delimiter characters end a name or a keyword.
const isWhiteSpace = (byte: number) =>
  byte === 0x00 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20
const isDelimiter = (byte: number) =>
  byte === LPAREN ||
  byte === RPAREN ||
  byte === LT ||
  byte === GT ||
  byte === LBRACKET ||
  byte === RBRACKET ||
  byte === 0x7b ||
  byte === 0x7d ||
  byte === SLASH ||
  byte === PERCENT
const isRegular = (byte: number) => !isWhiteSpace(byte) && !isDelimiter(byte)

const hexValue = (byte: number): number => {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57
  return -1
}

/** Longer names are kept to this many characters: every name compared here is shorter. */
const NAME_PREFIX = 16

/** What the scan found: whether a trailer dictionary names `/Encrypt`, and whether the file has one closed. */
export interface TrailerScan {
  /** A classic trailer, or a cross-reference stream dictionary, has an `/Encrypt` key at its top level. */
  readonly encrypted: boolean
  /** A trailer dictionary (classic, or a cross-reference stream's) is closed by its `>>`. */
  readonly hasTrailer: boolean
}

/** The trailer dictionary being read: opened by `<<` right after `trailer` or after `obj`. */
type Followed = "trailer" | "object"

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0))
const OBJ = ascii("obj")
const ENDOBJ = ascii("endobj")
const TRAILER = ascii("trailer")
const STREAM = ascii("stream")
const ENDSTREAM = ascii("endstream")
const XREF = ascii("xref")
const STARTXREF = ascii("startxref")

const matchesAt = (bytes: Uint8Array, index: number, word: Uint8Array): boolean => {
  if (index + word.length > bytes.length) return false
  for (let offset = 0; offset < word.length; offset++) if (bytes[index + offset] !== word[offset]) return false
  return true
}

/**
 * Reads the file's tokens once (section 7.3: names with `#xx` escapes, literal strings with escapes and balanced
 * parentheses, hexadecimal strings, comments; stream data skipped to `endstream`) and follows each dictionary
 * opened right after `trailer` or `obj` while it is open, noting its top-level keys. Keys, not values: in a
 * dictionary a name is a key when the previous entry's value is complete. `obj`, `endobj`, `stream`, `trailer`,
 * `xref` and `startxref` can't stand inside a dictionary or array, so each ends whatever is open (a reader
 * resynchronizes there), which keeps an unclosed `<<` from hiding the rest of the file.
 */
export const scanTrailers = (bytes: Uint8Array): TrailerScan => {
  const length = bytes.length
  let depth = 0 // dictionaries and arrays open
  let pending: Followed | undefined // the keyword just read, if a dictionary opening now is a trailer
  let followed: Followed | undefined // the dictionary at depth 1, if it is one to read
  let expectKey = true // in the followed dictionary at depth 1: the next name is a key
  let lastKey = ""
  let hasEncrypt = false
  let isXRef = false
  let encrypted = false
  let trailerClosed = false

  const close = (complete: boolean) => {
    if (followed !== undefined && hasEncrypt && (followed === "trailer" || isXRef)) encrypted = true
    if (complete && followed !== undefined && (followed === "trailer" || isXRef)) trailerClosed = true
    followed = undefined
    hasEncrypt = false
    isXRef = false
  }
  /** A value, or the end of a nested one, at the followed dictionary's top level. */
  const valueDone = () => {
    if (followed !== undefined && depth === 1) expectKey = true
  }
  const resync = () => {
    if (followed !== undefined) close(false)
    depth = 0
  }

  let index = 0
  while (index < length) {
    const byte = bytes[index]!
    if (isWhiteSpace(byte)) {
      index++
      continue
    }
    const wasPending: Followed | undefined = pending
    pending = undefined
    if (byte === PERCENT) {
      pending = wasPending // a comment is white space
      while (index < length && bytes[index] !== 0x0a && bytes[index] !== 0x0d) index++
    } else if (byte === LT && bytes[index + 1] === LT) {
      index += 2
      depth++
      if (depth === 1 && wasPending !== undefined) {
        followed = wasPending
        expectKey = true
        lastKey = ""
      }
    } else if (byte === GT && bytes[index + 1] === GT) {
      index += 2
      if (depth > 0) depth--
      if (depth === 0 && followed !== undefined) close(true)
      else valueDone()
    } else if (byte === LT) {
      index++
      while (index < length && bytes[index] !== GT) index++
      index++
      valueDone()
    } else if (byte === LBRACKET) {
      index++
      depth++
    } else if (byte === RBRACKET) {
      index++
      if (depth > 0) depth--
      if (depth === 0 && followed !== undefined) close(false)
      else valueDone()
    } else if (byte === LPAREN) {
      let nesting = 0
      while (index < length) {
        const next = bytes[index]!
        if (next === BACKSLASH) {
          index += 2
          continue
        }
        index++
        if (next === LPAREN) nesting++
        else if (next === RPAREN && --nesting === 0) break
      }
      valueDone()
    } else if (byte === SLASH) {
      index++
      let name = ""
      while (index < length && isRegular(bytes[index]!)) {
        let code = bytes[index]!
        index++
        if (code === HASH && index + 1 < length) {
          const high = hexValue(bytes[index]!)
          const low = hexValue(bytes[index + 1]!)
          if (high >= 0 && low >= 0) {
            code = high * 16 + low
            index += 2
          }
        }
        if (name.length < NAME_PREFIX) name += String.fromCharCode(code)
      }
      if (followed !== undefined && depth === 1) {
        if (expectKey) {
          lastKey = name
          expectKey = false
          if (name === "Encrypt") hasEncrypt = true
        } else {
          if (lastKey === "Type" && name === "XRef") isXRef = true
          expectKey = true
        }
      }
    } else if (isRegular(byte)) {
      // A number or a keyword: compare it without building a string.
      const start = index
      while (index < length && isRegular(bytes[index]!)) index++
      const word = index - start
      const is = (keyword: Uint8Array) => word === keyword.length && matchesAt(bytes, start, keyword)
      if (is(OBJ)) {
        resync()
        pending = "object"
      } else if (is(TRAILER)) {
        resync()
        pending = "trailer"
      } else if (is(STREAM)) {
        resync()
        // Stream data is bytes, not tokens (section 7.3.8): skip to `endstream`.
        while (index < length && !(bytes[index] === 0x65 && matchesAt(bytes, index, ENDSTREAM))) index++
        index += ENDSTREAM.length
      } else if (is(ENDOBJ) || is(XREF) || is(STARTXREF)) {
        resync()
      } else {
        // In a dictionary, a number completes a value; the generation and `R` of a reference then come while a key
        // is expected, and are not names, so they change nothing.
        valueDone()
      }
    } else {
      index++ // a stray `)`, `>`, `{` or `}`
    }
  }
  if (followed !== undefined) close(false)
  return { encrypted, hasTrailer: trailerClosed }
}
