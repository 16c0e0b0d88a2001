/**
 * Just enough PDF syntax (ISO 32000-1 sections 7.2 to 7.5) to read the names at the top level of the file's
 * trailer dictionaries: the classic `trailer << … >>` and a cross-reference stream's dictionary (`/Type /XRef`),
 * which is where an encrypted file names its encryption dictionary (`/Encrypt`, section 7.6.1).
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

// Section 7.2.2: white-space and delimiter characters end a name.
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

/** Reads a name starting at `/`; `#xx` escapes (section 7.3.5) are decoded. Returns the name and the next index. */
const readName = (bytes: Uint8Array, start: number): { readonly name: string; readonly end: number } => {
  let index = start + 1
  let name = ""
  while (index < bytes.length && isRegular(bytes[index]!)) {
    const byte = bytes[index]!
    if (byte === HASH && index + 2 < bytes.length) {
      const high = hexValue(bytes[index + 1]!)
      const low = hexValue(bytes[index + 2]!)
      if (high >= 0 && low >= 0) {
        name += String.fromCharCode(high * 16 + low)
        index += 3
        continue
      }
    }
    name += String.fromCharCode(byte)
    index++
  }
  return { name, end: index }
}

/** Skips a literal string starting at `(`, with its escapes and balanced parentheses (section 7.3.4.2). */
const skipLiteralString = (bytes: Uint8Array, start: number): number => {
  let depth = 0
  let index = start
  while (index < bytes.length) {
    const byte = bytes[index]!
    if (byte === BACKSLASH) {
      index += 2
      continue
    }
    if (byte === LPAREN) depth++
    if (byte === RPAREN) {
      depth--
      if (depth === 0) return index + 1
    }
    index++
  }
  return index
}

const skipComment = (bytes: Uint8Array, start: number): number => {
  let index = start
  while (index < bytes.length && bytes[index] !== 0x0a && bytes[index] !== 0x0d) index++
  return index
}

/**
 * The names directly inside the dictionary that opens at `start` (`<<`), not those of nested dictionaries or
 * arrays. Keys are among them, so a dictionary "has key K" when K is in the set.
 */
const topLevelNames = (bytes: Uint8Array, start: number): ReadonlySet<string> => {
  const names = new Set<string>()
  let depth = 0 // dictionaries and arrays
  let index = start
  while (index < bytes.length) {
    const byte = bytes[index]!
    if (byte === LT && bytes[index + 1] === LT) {
      depth++
      index += 2
    } else if (byte === GT && bytes[index + 1] === GT) {
      depth--
      index += 2
      if (depth === 0) return names
    } else if (byte === LT) {
      // a hex string
      while (index < bytes.length && bytes[index] !== GT) index++
      index++
    } else if (byte === LBRACKET) {
      depth++
      index++
    } else if (byte === RBRACKET) {
      depth--
      index++
    } else if (byte === LPAREN) {
      index = skipLiteralString(bytes, index)
    } else if (byte === PERCENT) {
      index = skipComment(bytes, index)
    } else if (byte === SLASH) {
      const { end, name } = readName(bytes, index)
      if (depth === 1) names.add(name)
      index = end
    } else {
      index++
    }
  }
  return names
}

const matchesAt = (bytes: Uint8Array, index: number, word: Uint8Array): boolean => {
  if (index + word.length > bytes.length) return false
  for (let offset = 0; offset < word.length; offset++) if (bytes[index + offset] !== word[offset]) return false
  return true
}

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0))
const TRAILER = ascii("trailer")
const OBJ = ascii("obj")

const skipWhiteSpace = (bytes: Uint8Array, start: number): number => {
  let index = start
  while (index < bytes.length && isWhiteSpace(bytes[index]!)) index++
  return index
}

/**
 * The top-level names of every trailer dictionary of the file: each `trailer << … >>`, and the dictionary of each
 * indirect object (`N G obj << … >>`) whose `/Type` is `/XRef`.
 */
export const trailerDictionaries = (bytes: Uint8Array): ReadonlyArray<ReadonlySet<string>> => {
  const found: Array<ReadonlySet<string>> = []
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!
    if (byte === 0x74 /* t */ && matchesAt(bytes, index, TRAILER)) {
      const open = skipWhiteSpace(bytes, index + TRAILER.length)
      if (bytes[open] === LT && bytes[open + 1] === LT) found.push(topLevelNames(bytes, open))
    } else if (byte === 0x6f /* o */ && matchesAt(bytes, index, OBJ) && !isRegular(bytes[index - 1] ?? 0x20)) {
      const open = skipWhiteSpace(bytes, index + OBJ.length)
      if (bytes[open] === LT && bytes[open + 1] === LT) {
        const names = topLevelNames(bytes, open)
        if (names.has("XRef") && names.has("Type")) found.push(names)
      }
    }
  }
  return found
}
