/**
 * Cursor pagination (decisions.md section 4): `?limit=1..100` (default 50) and an opaque `cursor`; the response is
 * `{ items, nextCursor }` with `nextCursor` null on the last page. Queues are oldest first.
 */
import { Schema } from "effect"
import { IntegerParameter } from "./Values.js"

/** Default and bounds of `limit`. */
export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 100

/**
 * `limit` as sent in the query: only plain decimal digits without a leading zero, 1 to 100 (`IntegerParameter`).
 * Forms `Number()` would also read — `0x10`, `1e2`, ` 5`, `016`, `5.0` — are refused, so one value has one
 * spelling. Documented as an integer 1 to 100 with default 50.
 */
export const Limit = IntegerParameter(1, MAX_LIMIT).annotations({
  description: "Items per page, 1 to 100; default 50.",
  jsonSchema: {
    type: "integer",
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: "Items per page, 1 to 100; default 50."
  }
})

/** The query of every list and queue operation. */
export const PageParams = Schema.Struct({
  limit: Schema.optional(Limit),
  cursor: Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(512),
      Schema.annotations({ description: "Opaque cursor from the previous page's nextCursor." })
    )
  )
})
export type PageParams = typeof PageParams.Type

/** A page of `item`. */
export const Page = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({
    items: Schema.Array(item),
    nextCursor: Schema.NullOr(Schema.String).annotations({
      description: "Pass as `cursor` to read the next page; null when this is the last page."
    })
  }).annotations({ identifier })
