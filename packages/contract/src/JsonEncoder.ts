/**
 * Response bodies written straight to JSON by an encoder compiled once from a contract Schema, for values the
 * server knows satisfy it (its own records). The text is exactly `JSON.stringify(Schema.encodeSync(schema)(value))`
 * — same keys in the same order, absent optional fields left out, timestamps as `Date.prototype.toISOString` — but
 * made without validating, without building the Schema's classes and without an intermediate encoded object, which
 * on a page of 50 invoices is most of the time a request takes. `test/JsonEncoder.test.ts` checks the equality on
 * generated values of every schema the API encodes this way.
 *
 * The encoder writes UTF-8 bytes into one scratch buffer reused by every encoding (an encoding runs synchronously
 * from start to end, so one at a time), and copies the result out once: {@link makeBytes} as a `Uint8Array` (outside
 * the JavaScript heap, what a server writes to its socket), {@link make} decoded to a string. No string is made per
 * field, key, date or number on the way: a page of 50 invoices used to be a rope of thousands of concatenations that
 * the garbage collector had to trace and node flattened twice more before writing it.
 *
 * It accepts the shapes the server holds: plain objects as well as the Schema's classes, plain strings where the
 * Schema brands them, and `null` (a database row's) as well as absence for an optional field. It trusts the
 * Schema's refinements: a UUID, an ISO date or a literal is written without escaping, as it holds nothing JSON
 * escapes.
 *
 * Supported schemas: structs and classes of them, arrays, strings, numbers, booleans, literals and their unions,
 * `NullOr`, `optional`, refinements and brands of these, and `Schema.Date` (encoded with `toISOString`). Any other
 * schema (a transformation it does not know, a record, a tuple, a recursive schema) throws when the encoder is made,
 * never when it runs.
 *
 * @since 0.1.0
 */
import { Option, type Schema, SchemaAST } from "effect"

/**
 * What an encoder of `A` accepts: `A`'s shape with brands and literal types widened to their primitive, and an
 * optional field also given as `null`.
 *
 * @since 0.1.0
 */
export type Loose<A> = A extends Date
  ? Date
  : A extends string
    ? string
    : A extends number
      ? number
      : A extends boolean
        ? boolean
        : A extends null | undefined
          ? A
          : A extends ReadonlyArray<infer E>
            ? ReadonlyArray<Loose<E>>
            : A extends object
              ? {
                  readonly [K in keyof A]: undefined extends A[K]
                    ? Loose<Exclude<A[K], undefined>> | null | undefined
                    : Loose<A[K]>
                }
              : A

/** The scratch buffer an encoding writes to: `bytes[0, length)` is what it wrote so far. */
interface Out {
  bytes: Uint8Array
  length: number
}

const INITIAL_BYTES = 64 * 1024
/** A scratch buffer grown past this by a large value is let go after that encoding, not kept for the next. */
const KEPT_BYTES = 1024 * 1024

const scratch: Out = { bytes: new Uint8Array(INITIAL_BYTES), length: 0 }

/** Makes room for `more` bytes after `out.length`. */
const reserve = (out: Out, more: number): void => {
  const needed = out.length + more
  if (needed <= out.bytes.length) return
  const grown = new Uint8Array(Math.max(needed, out.bytes.length * 2))
  grown.set(out.bytes.subarray(0, out.length))
  out.bytes = grown
}

/**
 * Appends `text` as UTF-8, as node writes a string to a socket: a surrogate pair as its 4 bytes, a lone surrogate
 * (which JSON.stringify never leaves, but a trusted "safe" string could hold) as U+FFFD.
 */
const writeText = (out: Out, text: string): void => {
  const size = text.length
  reserve(out, size * 3)
  const bytes = out.bytes
  let at = out.length
  for (let index = 0; index < size; index++) {
    let code = text.charCodeAt(index)
    if (code < 0x80) {
      bytes[at++] = code
      continue
    }
    if (code < 0x800) {
      bytes[at++] = 0xc0 | (code >> 6)
      bytes[at++] = 0x80 | (code & 0x3f)
      continue
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = index + 1 < size ? text.charCodeAt(index + 1) : 0
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = ((code - 0xd800) << 10) + (next - 0xdc00) + 0x10000
        bytes[at++] = 0xf0 | (point >> 18)
        bytes[at++] = 0x80 | ((point >> 12) & 0x3f)
        bytes[at++] = 0x80 | ((point >> 6) & 0x3f)
        bytes[at++] = 0x80 | (point & 0x3f)
        index++
        continue
      }
      code = 0xfffd
    }
    bytes[at++] = 0xe0 | (code >> 12)
    bytes[at++] = 0x80 | ((code >> 6) & 0x3f)
    bytes[at++] = 0x80 | (code & 0x3f)
  }
  out.length = at
}

/** Appends bytes encoded once when the encoder was made (a key, a literal). */
const writeBytes = (out: Out, piece: Uint8Array): void => {
  const size = piece.length
  reserve(out, size)
  const bytes = out.bytes
  const at = out.length
  for (let index = 0; index < size; index++) bytes[at + index] = piece[index]!
  out.length = at + size
}

const utf8 = new TextEncoder()

/** Writes one value as JSON, appending its UTF-8 bytes to `out`. */
type Writer = (value: never, out: Out) => void
type AnyWriter = (value: unknown, out: Out) => void

const QUOTE = 0x22
const NULL = utf8.encode("null")
const TRUE = utf8.encode("true")
const FALSE = utf8.encode("false")

const writeString = (value: string, out: Out): void => writeText(out, JSON.stringify(value))
// A string the Schema restricts to characters JSON never escapes (a UUID, an ISO date, a plain literal): no escaping
// to do, so no JSON.stringify per value.
const writeSafeString = (value: string, out: Out): void => {
  reserve(out, 1)
  out.bytes[out.length++] = QUOTE
  writeText(out, value)
  reserve(out, 1)
  out.bytes[out.length++] = QUOTE
}

/** Appends the digits of a non-negative safe integer. */
const writeDigits = (out: Out, value: number): void => {
  let digits = 1
  for (let rest = value; rest >= 10; rest = (rest - (rest % 10)) / 10) digits++
  reserve(out, digits)
  const bytes = out.bytes
  let at = out.length + digits
  out.length = at
  let rest = value
  do {
    const digit = rest % 10
    bytes[--at] = 0x30 + digit
    rest = (rest - digit) / 10
  } while (rest > 0)
}

// JSON.stringify is what the Schema path ends with: NaN and the infinities become null there too. A safe integer
// (what the contract's counts and minor units are) is written digit by digit: the same text, -0 as 0 included.
const writeNumber = (value: number, out: Out): void => {
  if (!Number.isSafeInteger(value)) return writeText(out, JSON.stringify(value))
  if (value < 0) {
    reserve(out, 1)
    out.bytes[out.length++] = 0x2d
    writeDigits(out, -value)
  } else {
    writeDigits(out, value)
  }
}
const writeBoolean = (value: boolean, out: Out): void => writeBytes(out, value ? TRUE : FALSE)
const writeNull = (_value: unknown, out: Out): void => writeBytes(out, NULL)

/** Appends `value` as exactly `width` digits (it has no more). */
const writePadded = (bytes: Uint8Array, at: number, value: number, width: number): number => {
  let rest = value
  for (let index = width - 1; index >= 0; index--) {
    const digit = rest % 10
    bytes[at + index] = 0x30 + digit
    rest = (rest - digit) / 10
  }
  return at + width
}

// `Date.prototype.toISOString` quoted (ISO 8601 text never needs escaping), written from the date's UTC fields for
// the years 0 to 9999 (`YYYY-MM-DDTHH:mm:ss.sssZ`); other years (`±YYYYYY-…`) and invalid dates (a RangeError, as
// the Schema path throws) go through toISOString itself.
const writeDate = (value: Date, out: Out): void => {
  const year = value.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return writeText(out, `"${value.toISOString()}"`)
  reserve(out, 26)
  const bytes = out.bytes
  let at = out.length
  bytes[at++] = QUOTE
  at = writePadded(bytes, at, year, 4)
  bytes[at++] = 0x2d
  at = writePadded(bytes, at, value.getUTCMonth() + 1, 2)
  bytes[at++] = 0x2d
  at = writePadded(bytes, at, value.getUTCDate(), 2)
  bytes[at++] = 0x54
  at = writePadded(bytes, at, value.getUTCHours(), 2)
  bytes[at++] = 0x3a
  at = writePadded(bytes, at, value.getUTCMinutes(), 2)
  bytes[at++] = 0x3a
  at = writePadded(bytes, at, value.getUTCSeconds(), 2)
  bytes[at++] = 0x2e
  at = writePadded(bytes, at, value.getUTCMilliseconds(), 3)
  bytes[at++] = 0x5a
  bytes[at++] = QUOTE
  out.length = at
}

/** JSON Schema formats whose strings hold only letters, digits and `-`: nothing JSON escapes. */
const SAFE_FORMATS: ReadonlySet<unknown> = new Set(["uuid", "date"])

/**
 * A pattern that can only match digits, `-` and the punctuation from `,` to `9` (none of which JSON escapes): made
 * of `\d`, digits, `-`, `,`, anchors, groups, alternatives, character classes (negated ones are refused apart) and
 * quantifiers, and nothing else — an ISO date's `^\d{4}-(0[1-9]|1[0-2])-…$`.
 */
const DIGITS_AND_DASHES_PATTERN = /^(?:\\d|[\^$0-9\-[\]{}()|,?+*])*$/

const isSafeLiteral = (literal: SchemaAST.LiteralValue): boolean =>
  typeof literal === "string" && JSON.stringify(literal) === `"${literal}"`

/** A string refinement to a format with no character JSON escapes (`Schema.UUID`, an ISO date). */
const isSafeFormat = (ast: SchemaAST.Refinement): boolean => {
  const jsonSchema = SchemaAST.getJSONSchemaAnnotation(ast)
  if (Option.isNone(jsonSchema) || primitiveKind(ast) !== "string") return false
  const { format, pattern } = jsonSchema.value as { readonly format?: unknown; readonly pattern?: unknown }
  return (
    SAFE_FORMATS.has(format) ||
    (typeof pattern === "string" && DIGITS_AND_DASHES_PATTERN.test(pattern) && !pattern.includes("[^"))
  )
}

const unsupported = (ast: SchemaAST.AST, why: string): never => {
  throw new Error(`JsonEncoder: ${why} (${String(ast)})`)
}

/** `Schema.Date`'s encoding: the transformation from string to Date named DateFromString. */
const isDateFromString = (ast: SchemaAST.Transformation): boolean => {
  const identifier = SchemaAST.getIdentifierAnnotation(ast)
  return Option.isSome(identifier) && identifier.value === "DateFromString" && ast.from._tag === "StringKeyword"
}

/** A Schema.Class: the struct of its fields, turned into the class and back without changing a value. */
const classFields = (ast: SchemaAST.Transformation): SchemaAST.TypeLiteral | undefined =>
  ast.from._tag === "TypeLiteral" && ast.to._tag === "Declaration" && ast.transformation._tag === "FinalTransformation"
    ? Option.isSome(SchemaAST.getSurrogateAnnotation(ast.to))
      ? ast.from
      : undefined
    : undefined

const literalWriter = (literal: SchemaAST.LiteralValue): Writer => {
  if (literal === null) return writeNull as Writer
  switch (typeof literal) {
    case "string":
      return (isSafeLiteral(literal) ? writeSafeString : writeString) as Writer
    case "number":
      return writeNumber as Writer
    case "boolean":
      return writeBoolean as Writer
    default:
      // bigint: JSON has no such value, and the Schema path throws on it too.
      throw new Error("JsonEncoder: bigint literals are not supported")
  }
}

interface Field {
  readonly name: string
  /** `"name":` as UTF-8, escaped once. */
  readonly prefix: Uint8Array
  /** `,"name":`, for every field written after the first. */
  readonly commaPrefix: Uint8Array
  readonly write: AnyWriter
  /** Optional fields are left out when absent, undefined or null. */
  readonly optional: boolean
}

const structWriter = (ast: SchemaAST.TypeLiteral): Writer => {
  if (ast.indexSignatures.length > 0) unsupported(ast, "index signatures are not supported")
  const fields: ReadonlyArray<Field> = ast.propertySignatures.map((property) => {
    if (typeof property.name !== "string") unsupported(ast, "only string keys are supported")
    const name = property.name as string
    return {
      name,
      prefix: utf8.encode(`${JSON.stringify(name)}:`),
      commaPrefix: utf8.encode(`,${JSON.stringify(name)}:`),
      write: writerOf(property.type) as AnyWriter,
      optional: property.isOptional
    }
  })
  return ((value: Record<string, unknown>, out: Out): void => {
    reserve(out, 1)
    out.bytes[out.length++] = 0x7b
    let first = true
    for (const field of fields) {
      const member = value[field.name]
      if (field.optional && (member === undefined || member === null)) continue
      writeBytes(out, first ? field.prefix : field.commaPrefix)
      first = false
      field.write(member, out)
    }
    reserve(out, 1)
    out.bytes[out.length++] = 0x7d
  }) as Writer
}

const unionWriter = (ast: SchemaAST.Union): Writer => {
  // An optional field's type is `X | undefined`; its absence is handled by the struct.
  const members = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
  const nullable = members.some((member) => member._tag === "Literal" && member.literal === null)
  const others = members.filter((member) => !(member._tag === "Literal" && member.literal === null))
  if (others.length === 0) return writeNull as Writer
  const kinds = new Set(others.map(primitiveKind))
  if (kinds.size !== 1 || kinds.has(undefined)) {
    return others.length === 1 ? withNull(writerOf(others[0]!), nullable) : unsupported(ast, "unions of different kinds are not supported")
  }
  const kind = [...kinds][0]
  const safe = others.every((member) => member._tag === "Literal" && isSafeLiteral(member.literal))
  const write = (
    kind === "string" ? (safe ? writeSafeString : writeString) : kind === "number" ? writeNumber : writeBoolean
  ) as Writer
  return withNull(write, nullable)
}

const withNull = (write: Writer, nullable: boolean): Writer =>
  nullable
    ? (((value: unknown, out: Out) => (value === null ? writeNull(value, out) : (write as AnyWriter)(value, out))) as Writer)
    : write

/** The JSON primitive a schema encodes to when it is a plain string, number or boolean (literals included). */
const primitiveKind = (ast: SchemaAST.AST): "string" | "number" | "boolean" | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "string"
    case "NumberKeyword":
      return "number"
    case "BooleanKeyword":
      return "boolean"
    case "Literal":
      return typeof ast.literal === "string"
        ? "string"
        : typeof ast.literal === "number"
          ? "number"
          : typeof ast.literal === "boolean"
            ? "boolean"
            : undefined
    case "Refinement":
      return primitiveKind(ast.from)
    case "Union": {
      const kinds = new Set(ast.types.map(primitiveKind))
      return kinds.size === 1 ? [...kinds][0] : undefined
    }
    default:
      return undefined
  }
}

const writerOf = (ast: SchemaAST.AST): Writer => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return writeString as Writer
    case "NumberKeyword":
      return writeNumber as Writer
    case "BooleanKeyword":
      return writeBoolean as Writer
    case "Literal":
      return literalWriter(ast.literal)
    case "Refinement":
      // A refinement checks a value; it encodes as what it refines.
      return isSafeFormat(ast) ? (writeSafeString as Writer) : writerOf(ast.from)
    case "Union":
      return unionWriter(ast)
    case "TypeLiteral":
      return structWriter(ast)
    case "TupleType": {
      if (ast.elements.length > 0 || ast.rest.length !== 1) return unsupported(ast, "only arrays are supported")
      const write = writerOf(ast.rest[0]!.type) as AnyWriter
      return ((values: ReadonlyArray<unknown>, out: Out): void => {
        reserve(out, 1)
        out.bytes[out.length++] = 0x5b
        for (let index = 0; index < values.length; index++) {
          if (index > 0) {
            reserve(out, 1)
            out.bytes[out.length++] = 0x2c
          }
          write(values[index], out)
        }
        reserve(out, 1)
        out.bytes[out.length++] = 0x5d
      }) as Writer
    }
    case "Transformation": {
      if (isDateFromString(ast)) return writeDate as Writer
      const fields = classFields(ast)
      return fields !== undefined ? structWriter(fields) : unsupported(ast, "this transformation is not supported")
    }
    default:
      return unsupported(ast, `${ast._tag} is not supported`)
  }
}

/** Runs `write` on the scratch buffer and hands its bytes to `take` (which copies them: the buffer is reused). */
const encodeWith = <T>(write: AnyWriter, value: unknown, take: (bytes: Uint8Array) => T): T => {
  scratch.length = 0
  try {
    write(value, scratch)
    return take(scratch.bytes.subarray(0, scratch.length))
  } finally {
    if (scratch.bytes.length > KEPT_BYTES) scratch.bytes = new Uint8Array(INITIAL_BYTES)
    scratch.length = 0
  }
}

const copyOf = (bytes: Uint8Array): Uint8Array => bytes.slice()
const utf8Decoder = new TextDecoder()
const textOf = (bytes: Uint8Array): string => utf8Decoder.decode(bytes)

/**
 * Compiles the encoder of `schema` to JSON text. Throws when the schema holds something the encoder does not support
 * (see the module's docs), so make encoders at module load, where a mistake shows at start-up and in tests.
 *
 * @since 0.1.0
 */
export const make = <A, I, R>(schema: Schema.Schema<A, I, R>): ((value: Loose<A>) => string) => {
  const write = writerOf(schema.ast) as AnyWriter
  return (value) => encodeWith(write, value, textOf)
}

/**
 * Compiles the encoder of `schema` to the UTF-8 bytes of the JSON text {@link make} writes: a fresh `Uint8Array`
 * per value (its own copy; its memory is outside the JavaScript heap), for a server to write to its socket as it is.
 * Throws when made on a schema the encoder does not support, as {@link make}.
 *
 * @since 0.2.0
 */
export const makeBytes = <A, I, R>(schema: Schema.Schema<A, I, R>): ((value: Loose<A>) => Uint8Array) => {
  const write = writerOf(schema.ast) as AnyWriter
  return (value) => encodeWith(write, value, copyOf)
}
