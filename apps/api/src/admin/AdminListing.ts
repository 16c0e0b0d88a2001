/**
 * Paging and filtering shared by the console's lists: keyset pages over (a timestamp, id) in either direction with
 * the API's opaque cursors (`../http/Cursor.ts`), `limit` defaulting to 50, and text filters matched as substrings
 * without wildcards of their own.
 */
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import { type ExpressionBuilder, sql } from "kysely"
import * as Cursor from "../http/Cursor.js"

export type Position = Cursor.Position

/** The page size asked for, or the default. */
export const limitOf = (limit: number | undefined): number => limit ?? DEFAULT_LIMIT

/**
 * Rows after `after` in (`column`, `idColumn`) order, ascending or descending: the keyset condition of a page.
 * Column names are the query's own (qualified when joined).
 */
export const keyset =
  (column: string, idColumn: string, direction: "asc" | "desc", after: Position | undefined) =>
  <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) => {
    if (after === undefined) return eb.and([])
    const beyond = direction === "asc" ? ">" : "<"
    return eb.or([
      eb(sql.ref(column), beyond, after.at),
      eb.and([eb(sql.ref(column), "=", after.at), eb(sql.ref(idColumn), beyond, after.id)])
    ])
  }

/** A LIKE pattern that matches `text` anywhere, its own `%`, `_` and `\` taken literally. */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** A filter's value, or undefined when absent or empty (a form sends every field it has). */
export const given = <A extends string>(value: A | "" | undefined): A | undefined =>
  value === undefined || value === "" ? undefined : value

export const { decode: decodeCursor, page } = Cursor
