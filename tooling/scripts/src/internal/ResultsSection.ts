/**
 * Writes the last benchmark's table into `docs/performance.md`, between two marker comments, so the figures there
 * always come from `pnpm bench` (and `pnpm bench:webhooks` and `pnpm bench:queues`, between their own markers) and never from hand editing.
 */
import { readFile, writeFile } from "node:fs/promises"

export const START_MARKER = "<!-- bench:results:start (written by pnpm bench; do not edit by hand) -->"
export const END_MARKER = "<!-- bench:results:end -->"

/** A section's two markers. */
export interface Markers {
  readonly start: string
  readonly end: string
}

/** `pnpm bench`'s section. */
export const BENCH_MARKERS: Markers = { start: START_MARKER, end: END_MARKER }

/** `pnpm bench:webhooks`'s section. */
export const WEBHOOKS_MARKERS: Markers = {
  start: "<!-- bench:webhooks:start (written by pnpm bench:webhooks; do not edit by hand) -->",
  end: "<!-- bench:webhooks:end -->"
}

/** `pnpm bench:queues`'s section (pg-boss against graphile-worker). */
export const QUEUES_MARKERS: Markers = {
  start: "<!-- bench:queues:start (written by pnpm bench:queues; do not edit by hand) -->",
  end: "<!-- bench:queues:end -->"
}

/** `page` with the text between the markers replaced by `content`; throws unless both markers occur once, in order. */
export const replaceBetweenMarkers = (page: string, content: string, markers: Markers = BENCH_MARKERS): string => {
  const start = page.indexOf(markers.start)
  const end = page.indexOf(markers.end)
  if (start < 0 || end < start || page.indexOf(markers.start, start + 1) >= 0 || page.indexOf(markers.end, end + 1) >= 0) {
    throw new Error(`the results page must hold "${markers.start}" and then "${markers.end}", once each`)
  }
  return `${page.slice(0, start + markers.start.length)}\n${content.trim()}\n${page.slice(end)}`
}

/** Rewrites the section between the markers (`pnpm bench`'s by default) of the Markdown page at `path`. */
export const writeResultsSection = async (path: string, content: string, markers: Markers = BENCH_MARKERS): Promise<void> => {
  const page = await readFile(path, "utf8")
  await writeFile(path, replaceBetweenMarkers(page, content, markers))
}
