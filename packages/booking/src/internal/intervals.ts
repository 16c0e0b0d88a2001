/**
 * Half-open intervals of instants, `[start, end)` in epoch milliseconds, and the set operations availability
 * and the rule check share. A "set" is an array sorted by `start` whose members neither overlap nor touch.
 *
 * @internal
 */

/** `[start, end)`, epoch milliseconds; empty when `end <= start`. @internal */
export interface Interval {
  readonly start: number
  readonly end: number
}

/** Whether two intervals share an instant. @internal */
export const overlaps = (a: Interval, b: Interval): boolean => a.start < b.end && b.start < a.end

/** Sorts, drops empty members and merges overlapping or touching ones. @internal */
export const normalize = (intervals: ReadonlyArray<Interval>): Array<Interval> => {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start || a.end - b.end)
  const merged: Array<Interval> = []
  for (const next of sorted) {
    const last = merged[merged.length - 1]
    if (last !== undefined && next.start <= last.end) {
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, next.end) }
    } else {
      merged.push(next)
    }
  }
  return merged
}

/** The part of a set inside `range`. @internal */
export const clip = (set: ReadonlyArray<Interval>, range: Interval): Array<Interval> =>
  set
    .map((i) => ({ start: Math.max(i.start, range.start), end: Math.min(i.end, range.end) }))
    .filter((i) => i.end > i.start)

/** `set` without any instant of `holes` (both normalized or not; the result is normalized). @internal */
export const subtract = (set: ReadonlyArray<Interval>, holes: ReadonlyArray<Interval>): Array<Interval> => {
  const cuts = normalize(holes)
  const result: Array<Interval> = []
  for (const piece of normalize(set)) {
    let cursor = piece.start
    for (const hole of cuts) {
      if (hole.end <= cursor || hole.start >= piece.end) continue
      if (hole.start > cursor) result.push({ start: cursor, end: hole.start })
      cursor = Math.max(cursor, hole.end)
      if (cursor >= piece.end) break
    }
    if (cursor < piece.end) result.push({ start: cursor, end: piece.end })
  }
  return result
}

/** Whether `inner` lies wholly inside one member of the normalized `set`. @internal */
export const within = (set: ReadonlyArray<Interval>, inner: Interval): boolean =>
  set.some((i) => i.start <= inner.start && inner.end <= i.end)
