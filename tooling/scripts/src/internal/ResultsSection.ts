/**
 * Writes the last benchmark's table into `docs/performance.md`, between two marker comments, so the figures there
 * always come from `pnpm bench` and never from hand editing.
 */
import { readFile, writeFile } from "node:fs/promises"

export const START_MARKER = "<!-- bench:results:start (written by pnpm bench; do not edit by hand) -->"
export const END_MARKER = "<!-- bench:results:end -->"

/** `page` with the text between the markers replaced by `content`; throws unless both markers occur once, in order. */
export const replaceBetweenMarkers = (page: string, content: string): string => {
  const start = page.indexOf(START_MARKER)
  const end = page.indexOf(END_MARKER)
  if (start < 0 || end < start || page.indexOf(START_MARKER, start + 1) >= 0 || page.indexOf(END_MARKER, end + 1) >= 0) {
    throw new Error(`the results page must hold "${START_MARKER}" and then "${END_MARKER}", once each`)
  }
  return `${page.slice(0, start + START_MARKER.length)}\n${content.trim()}\n${page.slice(end)}`
}

/** Rewrites the section between the markers of the Markdown page at `path`. */
export const writeResultsSection = async (path: string, content: string): Promise<void> => {
  const page = await readFile(path, "utf8")
  await writeFile(path, replaceBetweenMarkers(page, content))
}
