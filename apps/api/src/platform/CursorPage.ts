/**
 * Cursor pages (decisions 4): `?limit=1..100` (default 50) and an opaque `cursor`; `{ items, nextCursor }`.
 *
 * A cursor is base64url of `{k, t, i}`: the list it belongs to, the sort column's value of the page's last row and
 * that row's id. `t` keeps the column's full precision — PostgreSQL's microseconds, read as text by
 * {@link sortKey} — so a row written with sub-millisecond precision is neither repeated nor skipped (a
 * JavaScript `Date` would round it to milliseconds). The next page is `(column, id) > (t, i)`: a row-value
 * comparison that an index on `(…, column, id)` answers directly, so a page deep in a long list costs what the
 * first page costs. A cursor of another list, or one that doesn't decode, is 400 VALIDATION_FAILED at `/cursor`.
 */
import { problem } from "@propline/contract/Problem"
import type { BadRequest } from "@propline/contract/Problem"
import type { Db } from "@propline/db/Db"
import { Effect, Either, Schema } from "effect"
import { type RawBuilder, sql } from "kysely"
import * as Sql from "./Sql.js"

/** A UTC timestamp with microseconds as {@link sortKey} writes it, for years 1970 to 9999. */
const Instant = Schema.String.pipe(
  Schema.pattern(/^(19[7-9]\d|[2-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/)
)

const CursorJson = Schema.parseJson(Schema.Struct({ k: Schema.String, t: Instant, i: Schema.UUID }))
const decodeCursor = Schema.decodeUnknownEither(CursorJson)

/** Where a page ends: the sort column's value (ISO 8601, UTC, microseconds) and the row's id. */
export interface Position {
  readonly at: string
  readonly id: string
}

/** A fetched row and its position in the list. */
export interface Keyed<A> {
  readonly record: A
  readonly position: Position
}

/**
 * Rows read with their cursor key as `cursorAt` (the {@link sortKey} of the sort column) and `id`, keyed by their
 * position. The row itself is the record: the encoders write only the contract's fields, so `cursorAt` stays out
 * of the response without a copy of each row.
 */
export const keyed = <Row extends { readonly cursorAt: string; readonly id: string }>(
  rows: ReadonlyArray<Row>
): ReadonlyArray<Keyed<Row>> => rows.map((row) => ({ record: row, position: { at: row.cursorAt, id: row.id } }))

/** What {@link pageRows} reads: trusted SQL names (never input) and the statement's parts. */
export interface PageQuery<Row> {
  /** A `with …` prefix the other parts may refer to (`visibleContextsPrefix`). */
  readonly with?: RawBuilder<unknown>
  /** The select list, `Sql.columns` of the row type. */
  readonly columns: RawBuilder<Row>
  /** The table, with an alias if the columns use one: `invoices`, `operational_contexts as c`. */
  readonly from: string
  /** The list's own condition (organization, status, visible contexts). */
  readonly where: RawBuilder<unknown>
  /** The sort column and the id column, qualified as `from` names them: `approved_at` and `id`. */
  readonly sortColumn: string
  readonly idColumn: string
  readonly after: Position | undefined
  readonly limit: number
}

/**
 * One page of a list as one plain statement (`Sql.rows`): the rows after `after` in (sort column, id) order with
 * their {@link sortKey} as `cursorAt`, `limit + 1` of them, keyed by position ({@link keyed}) for {@link page}.
 */
export const pageRows = <Row extends { readonly id: string }>(query: PageQuery<Row>) =>
  Sql.rows(
    sql<Row & { readonly cursorAt: string }>`
      ${query.with ?? sql``}
      ${pageSelect(query)}`
  ).pipe(Effect.map(keyed))

/**
 * The select of {@link pageRows} without its `with` prefix, for a statement that reads a page together with other
 * values (`BillingScopeRepository.integrationAndPage`): the rows after `after` in (sort column, id) order with their
 * {@link sortKey} as `cursorAt` and their 1-based place on the page as `pageIndex` when `numbered` (an outer
 * statement that joins the page orders by it), `limit + 1` of them.
 */
export const pageSelect = <Row>(query: Omit<PageQuery<Row>, "with">, numbered = false): RawBuilder<Row & { readonly cursorAt: string }> =>
  sql`
      select ${query.columns}, ${sortKey(query.sortColumn)} as "cursorAt"${
        numbered ? sql`, row_number() over (order by ${sql.ref(query.sortColumn)}, ${sql.ref(query.idColumn)}) as "pageIndex"` : sql``
      }
      from ${sql.raw(query.from)}
      where ${query.where}
        and ${query.after === undefined ? sql`true` : after(query.sortColumn, query.idColumn, query.after)}
      order by ${sql.ref(query.sortColumn)}, ${sql.ref(query.idColumn)}
      limit ${query.limit + 1}`

/** What {@link visiblePageRows} reads: a list of an organization's table in the contexts the principal sees. */
export interface VisiblePageQuery<Row> {
  readonly columns: RawBuilder<Row>
  /** The table (trusted); its rows have `id`, `organization_id` and `operational_context_id` columns. */
  readonly from: string
  /** The list's own condition besides organization and contexts: `status = 'approved' and deleted_at is null`. */
  readonly where: RawBuilder<unknown>
  readonly organizationId: string
  /** The contexts the principal sees (granted ones and their subtrees); none → no rows, without a statement. */
  readonly contextIds: ReadonlyArray<string>
  /** The sort column (`approved_at`); ties are broken by `id`. */
  readonly sortColumn: string
  readonly after: Position | undefined
  readonly limit: number
}

/**
 * A queue page ({@link pageRows}) of the organization's rows in the visible contexts (as `Sql.lockVisible` locks
 * one of them) that `where` also holds for: `limit + 1` rows keyed by position.
 */
export const visiblePageRows = <Row extends { readonly id: string }>(
  query: VisiblePageQuery<Row>
): Effect.Effect<ReadonlyArray<Keyed<Row & { readonly cursorAt: string }>>, never, Db> =>
  query.contextIds.length === 0
    ? Effect.succeed([])
    : pageRows({
        columns: query.columns,
        from: query.from,
        where: sql`organization_id = ${query.organizationId} and ${query.where}
                       and operational_context_id in (${sql.join(query.contextIds)})`,
        sortColumn: query.sortColumn,
        idColumn: "id",
        after: query.after,
        limit: query.limit
      })

/** A page of a list: at most `limit` items, and the cursor of the next page or null on the last. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/**
 * The sort column as the cursor's text: `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC, all six fractional digits.
 * `column` is a trusted, qualified column name (`invoices.approved_at`), never input.
 */
export const sortKey = (column: string): RawBuilder<string> =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** The keyset condition `(column, id) > (at, id)` for rows after `position`; trusted column names only. */
export const after = (column: string, idColumn: string, position: Position): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(column)}, ${sql.ref(idColumn)}) > (${position.at}::timestamptz, ${position.id}::uuid)`

/**
 * The keyset condition `(column, id) < (at, id)`: the rows after `position` in a list read newest first (ordered by
 * `column desc, id desc`, as the admin console's audit log and record lists are); trusted column names only.
 */
export const before = (column: string, idColumn: string, position: Position): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(column)}, ${sql.ref(idColumn)}) < (${position.at}::timestamptz, ${position.id}::uuid)`

/** Encodes the position after which the next page of the list `kind` starts. */
export const encode = (kind: string, position: Position): string =>
  Buffer.from(JSON.stringify({ k: kind, t: position.at, i: position.id })).toString("base64url")

/**
 * Whether an {@link Instant} names a day the calendar has: `Date.parse` rolls February 30 over to March 2, which
 * PostgreSQL refuses to cast (a forged cursor would fail the page's statement, a 500, instead of a 400).
 */
const isCalendarInstant = (at: string): boolean => {
  const millis = Date.parse(at)
  return !Number.isNaN(millis) && new Date(millis).toISOString().slice(0, 19) === at.slice(0, 19)
}

/** Decodes a cursor of the list `kind`; `undefined` in, `undefined` out; 400 VALIDATION_FAILED otherwise. */
export const decode = (kind: string, cursor: string | undefined): Effect.Effect<Position | undefined, BadRequest> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  // Made only for a refusal: an error captures a stack trace, which a valid cursor (every deep page) need not pay.
  const invalid = () => problem.validationFailed([{ path: "/cursor", message: "is not a cursor of this list" }])
  if (!/^[A-Za-z0-9_-]+$/.test(cursor) || cursor.length > 512) return Effect.fail(invalid())
  const decoded = decodeCursor(Buffer.from(cursor, "base64url").toString("utf8"))
  if (Either.isLeft(decoded) || decoded.right.k !== kind || !isCalendarInstant(decoded.right.t)) {
    return Effect.fail(invalid())
  }
  return Effect.succeed({ at: decoded.right.t, id: decoded.right.i })
}

/**
 * Turns `limit + 1` fetched rows into a page of the list `kind`: the extra row only tells that there is a next
 * page, whose cursor is the position of this page's last item.
 */
export const page = <A>(kind: string, rows: ReadonlyArray<Keyed<A>>, limit: number): Page<A> => {
  const items = new Array<A>(Math.min(rows.length, limit))
  for (let index = 0; index < items.length; index++) items[index] = rows[index]!.record
  return {
    items,
    nextCursor: rows.length > limit ? encode(kind, rows[limit - 1]!.position) : null
  }
}
