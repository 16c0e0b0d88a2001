/**
 * How both hosts read a request (decisions 4, issue 19): as strictly as the OpenAPI document describes it. A body
 * with a member its schema does not name is 400 VALIDATION_FAILED with one issue per unknown member (its JSON
 * Pointer), and every failing field is reported, not only the first. Query strings are read as before: a parameter
 * an operation does not name is ignored (proxies and caches add their own), every named one is checked.
 */
import { type Effect, ParseResult, Schema, type SchemaAST } from "effect"

/** The parse options of every request body: unknown members are errors; every failing field is reported. */
export const STRICT: SchemaAST.ParseOptions = { onExcessProperty: "error", errors: "all" }

/**
 * `schema` as an operation's body (`setPayload(body(X))`): decoded with {@link STRICT}. Only decoding a request is
 * affected; records are encoded as before.
 */
export const body = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> =>
  Schema.asSchema(schema).annotations({ parseOptions: STRICT })

/** The message of a body that is not `{}` where the operation takes no fields. */
export const EMPTY_BODY_MESSAGE = "The body must be an empty JSON object, {}, or absent."

const isObject = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/** What an operation without fields reads: nothing. */
export type EmptyRequest = Readonly<Record<never, never>> | undefined

const emptyObject = (input: unknown, ast: SchemaAST.AST): Effect.Effect<EmptyRequest, ParseResult.ParseIssue> => {
  if (input === undefined) return ParseResult.succeed(undefined)
  if (!isObject(input)) return ParseResult.fail(new ParseResult.Type(ast, input, EMPTY_BODY_MESSAGE))
  const members = Object.keys(input)
  if (members.length === 0) return ParseResult.succeed({})
  const unknown = members.map(
    (name) => new ParseResult.Pointer(name, input, new ParseResult.Unexpected(input[name], "is not a member of this request; it has none"))
  )
  return ParseResult.fail(new ParseResult.Composite(ast, input, unknown as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>]))
}

/**
 * The body of an operation that takes no fields (report-discarded, `expired`, `withdrawn`): `{}`, or no body at all
 * (read as `undefined`). Anything else is 400 VALIDATION_FAILED: `[]`, `[1,2]`, `"s"`, `1`, `null` at "" with
 * {@link EMPTY_BODY_MESSAGE}; `{"a":1}` with one issue per member (`/a`).
 */
export const EmptyRequest: Schema.Schema<EmptyRequest> = Schema.declare([], {
  decode: () => (input, _, ast) => emptyObject(input, ast),
  encode: () => (input, _, ast) => emptyObject(input, ast)
}, {
  identifier: "EmptyRequest",
  description: "An empty JSON object, `{}`; the body may also be left out.",
  jsonSchema: { type: "object", properties: {}, additionalProperties: false }
})
