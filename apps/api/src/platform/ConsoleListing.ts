/**
 * What the console's lists share beyond the kernel's cursor pages (`./CursorPage.ts`): the page size,
 * text filters matched as substrings without wildcards of their own, empty filters read as absent, and rows
 * keyed by the `cursorAt` column a list selects with `CursorPage.sortKey`.
 */
import { DEFAULT_LIMIT } from "@propline/contract/Page"
import type * as CursorPage from "./CursorPage.js"

/** The page size asked for, or the default (50). */
export const limitOf = (limit: number | undefined): number => limit ?? DEFAULT_LIMIT

/** A LIKE pattern that matches `text` anywhere, its own `%`, `_` and `\` taken literally. */
export const containing = (text: string): string => `%${escapeLike(text)}%`

/** `text` with LIKE's wildcards and escape character taken literally. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** A filter's value, or undefined when absent or empty (a form sends every field it has). */
export const given = <A extends string>(value: A | "" | undefined): A | undefined =>
  value === undefined || value === "" ? undefined : value

/** Rows that selected `cursorAt` (and have an `id`) as keyed records for `CursorPage.page`. */
export const keyed = <Row extends { readonly cursorAt: string; readonly id: string }>(
  rows: ReadonlyArray<Row>
): ReadonlyArray<CursorPage.Keyed<Omit<Row, "cursorAt">>> =>
  rows.map(({ cursorAt, ...record }) => ({ record, position: { at: cursorAt, id: record.id } }))
