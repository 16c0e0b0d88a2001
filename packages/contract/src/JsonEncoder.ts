/**
 * Response bodies written straight to JSON text by an encoder compiled once from a contract Schema, for values the
 * server knows satisfy it (its own records). The text is exactly `JSON.stringify(Schema.encodeSync(schema)(value))`
 * — same keys in the same order, absent optional fields left out, timestamps as `Date.prototype.toISOString` — but
 * made without validating, without building the Schema's classes and without an intermediate encoded object, which
 * on a page of 50 invoices is most of the time a request takes. `test/JsonEncoder.test.ts` checks the equality on
 * generated values of every schema the API encodes this way.
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

/** Writes one value as JSON text. */
type Writer = (value: never) => string

const writeString = (value: string): string => JSON.stringify(value)
// A string the Schema restricts to characters JSON never escapes (a UUID, an ISO date, a plain literal): no escaping
// to do, so no JSON.stringify per value.
const writeSafeString = (value: string): string => `"${value}"`
// JSON.stringify is what the Schema path ends with: NaN and the infinities become null there too.
const writeNumber = (value: number): string => JSON.stringify(value)
const writeBoolean = (value: boolean): string => (value ? "true" : "false")
// ISO 8601 text never needs escaping.
const writeDate = (value: Date): string => `"${value.toISOString()}"`

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
  if (literal === null) return () => "null"
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
  /** `"name":`, escaped once. */
  readonly prefix: string
  readonly write: (value: unknown) => string
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
      prefix: `${JSON.stringify(name)}:`,
      write: writerOf(property.type) as (value: unknown) => string,
      optional: property.isOptional
    }
  })
  return ((value: Record<string, unknown>): string => {
    let out = "{"
    for (const field of fields) {
      const member = value[field.name]
      if (field.optional && (member === undefined || member === null)) continue
      out += out.length === 1 ? field.prefix : `,${field.prefix}`
      out += field.write(member)
    }
    return `${out}}`
  }) as Writer
}

const unionWriter = (ast: SchemaAST.Union): Writer => {
  // An optional field's type is `X | undefined`; its absence is handled by the struct.
  const members = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
  const nullable = members.some((member) => member._tag === "Literal" && member.literal === null)
  const others = members.filter((member) => !(member._tag === "Literal" && member.literal === null))
  if (others.length === 0) return () => "null"
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
  nullable ? (((value: unknown) => (value === null ? "null" : (write as (v: unknown) => string)(value))) as Writer) : write

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
      const write = writerOf(ast.rest[0]!.type) as (value: unknown) => string
      return ((values: ReadonlyArray<unknown>): string => {
        let out = "["
        for (let index = 0; index < values.length; index++) {
          if (index > 0) out += ","
          out += write(values[index])
        }
        return `${out}]`
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

/**
 * Compiles the encoder of `schema`. Throws when the schema holds something the encoder does not support (see the
 * module's docs), so make encoders at module load, where a mistake shows at start-up and in tests.
 *
 * @since 0.1.0
 */
export const make = <A, I, R>(schema: Schema.Schema<A, I, R>): ((value: Loose<A>) => string) =>
  writerOf(schema.ast) as (value: Loose<A>) => string
