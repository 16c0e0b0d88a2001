/**
 * Row → record mapping shared by repositories: the domain records use absent fields where the table has nulls
 * (`exactOptionalPropertyTypes`).
 */

/** Drops null members, so records get absent fields instead of nulls. */
export const withoutNulls = <T extends object>(row: T): { [K in keyof T]: Exclude<T[K], null> } => {
  // A plain for-in: this runs for every row of every page, and Object.entries allocates per row.
  const out: Record<string, unknown> = {}
  for (const key in row) {
    const value = row[key]
    if (value !== null) out[key] = value
  }
  return out as { [K in keyof T]: Exclude<T[K], null> }
}

/** `undefined` → `null`, for writing an optional record field to a nullable column. */
export const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value)

/** Rows grouped by `keyOf`, each group's rows as `valueOf` makes them, in row order (a batch read for many parents). */
export const groupedBy = <Row, Key, Value>(
  rows: ReadonlyArray<Row>,
  keyOf: (row: Row) => Key,
  valueOf: (row: Row) => Value
): Map<Key, Array<Value>> => {
  const groups = new Map<Key, Array<Value>>()
  for (const row of rows) {
    const key = keyOf(row)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [valueOf(row)])
    else group.push(valueOf(row))
  }
  return groups
}
