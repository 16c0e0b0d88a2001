/**
 * How both hosts read a request (decisions 4, issue 19): as strictly as the OpenAPI document describes it. A body
 * with a member its schema does not name is 400 VALIDATION_FAILED with one issue per unknown member (its JSON
 * Pointer), and every failing field is reported, not only the first. Query strings are read as before: a parameter
 * an operation does not name is ignored (proxies and caches add their own), every named one is checked.
 */
import type { ParseOptions } from "effect/SchemaAST"
import { Schema } from "effect"

/** The parse options of every request body: unknown members are errors; every failing field is reported. */
export const STRICT: ParseOptions = { onExcessProperty: "error", errors: "all" }

/**
 * `schema` as an operation's body (`setPayload(body(X))`): decoded with {@link STRICT}. Only decoding a request is
 * affected; records are encoded as before.
 */
export const body = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> =>
  Schema.asSchema(schema).annotations({ parseOptions: STRICT })

/** The message of a body that is not `{}` where the operation takes no fields. */
export const EMPTY_BODY_MESSAGE = "The body must be an empty JSON object, {}, or absent."

const isEmptyObject = (input: unknown): input is EmptyRequest =>
  input === undefined ||
  (typeof input === "object" && input !== null && !Array.isArray(input) && Object.keys(input).length === 0)

/** What an operation without fields reads: nothing. */
export type EmptyRequest = Readonly<Record<never, never>> | undefined

/**
 * The body of an operation that takes no fields (report-discarded, `expired`, `withdrawn`): `{}`, or no body at all
 * (read as `undefined`). Anything else — `[]`, `[1,2]`, `"s"`, `1`, `null`, `{"a":1}` — is 400 VALIDATION_FAILED
 * at "" with {@link EMPTY_BODY_MESSAGE}.
 */
export const EmptyRequest: Schema.Schema<EmptyRequest> = Schema.declare(isEmptyObject, {
  identifier: "EmptyRequest",
  description: "An empty JSON object, `{}`; the body may also be left out.",
  message: () => ({ message: EMPTY_BODY_MESSAGE, override: true }),
  jsonSchema: { type: "object", properties: {}, additionalProperties: false }
})
