/**
 * Opaque keyset cursors (decisions 4): base64url of `{k, t, i}` — the list it belongs to, the sort timestamp
 * (ISO 8601) and the id of the last item on the page. A cursor from another list, or one that doesn't decode,
 * is a 400 VALIDATION_FAILED at `/cursor`, never a 500.
 */
import { problem } from "@propline/contract/Problem"
import type { BadRequest } from "@propline/contract/Problem"
import { Effect, Either, Schema } from "effect"
import { sql } from "kysely"

/** Exactly what `Date.prototype.toISOString` writes for years 1970 to 9999: anything else was not ours. */
const Instant = Schema.String.pipe(
  Schema.pattern(/^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  Schema.compose(Schema.DateFromString)
)

const CursorJson = Schema.parseJson(Schema.Struct({ k: Schema.String, t: Instant, i: Schema.UUID }))
const decodeCursor = Schema.decodeUnknownEither(CursorJson)

/** The position after which the next page starts. */
export interface Position {
  readonly at: Date
  readonly id: string
}

/**
 * The keyset condition of a cursor page (decisions 4): rows after `after` in (`column`, id) order, as one row-value
 * comparison, which PostgreSQL uses as an index condition (`(approved_at, id) > ($1, $2)` on an index ending in
 * those two columns), so a page deep in a long queue costs what the first page costs. Always true without a cursor.
 */
export const keysetAfter = (column: "created_at" | "approved_at", after: Position | undefined) =>
  after === undefined ? sql<boolean>`true` : sql<boolean>`(${sql.ref(column)}, id) > (${after.at}, ${after.id})`

/** Encodes the position after `item` for the list `kind`. */
export const encode = (kind: string, position: Position): string =>
  Buffer.from(JSON.stringify({ k: kind, t: position.at.toISOString(), i: position.id })).toString("base64url")

/** Decodes a cursor of the list `kind`; `undefined` in, `undefined` out. */
export const decode = (kind: string, cursor: string | undefined): Effect.Effect<Position | undefined, BadRequest> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const invalid = problem.validationFailed([{ path: "/cursor", message: "is not a cursor of this list" }])
  if (!/^[A-Za-z0-9_-]+$/.test(cursor) || cursor.length > 512) return Effect.fail(invalid)
  const decoded = decodeCursor(Buffer.from(cursor, "base64url").toString("utf8"))
  if (Either.isLeft(decoded) || decoded.right.k !== kind || Number.isNaN(decoded.right.t.getTime())) {
    return Effect.fail(invalid)
  }
  return Effect.succeed({ at: decoded.right.t, id: decoded.right.i })
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only tells that there is a next page.
 */
export const page = <A>(
  kind: string,
  rows: ReadonlyArray<A>,
  limit: number,
  positionOf: (row: A) => Position
): { readonly items: ReadonlyArray<A>; readonly nextCursor: string | null } => {
  if (rows.length <= limit) return { items: rows, nextCursor: null }
  const items = rows.slice(0, limit)
  return { items, nextCursor: encode(kind, positionOf(items[items.length - 1]!)) }
}
