/**
 * Paging of every admin list: the public API's `limit` (1 to 100, default 50) and opaque `cursor`
 * (`@propline/contract/Page`), answered as `{ items, nextCursor }`. Filters are optional query members beside them;
 * an empty filter counts as absent, so a form can send every field it has.
 */
import { PageParams } from "./Page.js"
import { Schema } from "effect"

export { Page } from "./Page.js"

/** The paging members of a list's query. */
export const PageQuery = PageParams.fields

/** An optional filter: absent or "" means no filter; otherwise 1 to `max` characters. */
export const Filter = (max: number) =>
  Schema.optional(
    Schema.String.pipe(
      Schema.maxLength(max, { message: () => `must be at most ${max} characters` })
    )
  )

/** An optional filter restricted to `values` (or "" for none). */
export const Choice = <const Values extends ReadonlyArray<string>>(...values: Values) =>
  Schema.optional(Schema.Literal("", ...values))
