/**
 * Writes the last benchmark's table into the README, between two marker comments of its Performance section, so
 * the figures there always come from `pnpm bench` and never from hand editing.
 */
import { readFile, writeFile } from "node:fs/promises"

export const START_MARKER = "<!-- bench:results:start (written by pnpm bench; do not edit by hand) -->"
export const END_MARKER = "<!-- bench:results:end -->"

/** `readme` with the text between the markers replaced by `content`; throws unless both markers occur once, in order. */
export const replaceBetweenMarkers = (readme: string, content: string): string => {
  const start = readme.indexOf(START_MARKER)
  const end = readme.indexOf(END_MARKER)
  if (start < 0 || end < start || readme.indexOf(START_MARKER, start + 1) >= 0 || readme.indexOf(END_MARKER, end + 1) >= 0) {
    throw new Error(`the README must hold "${START_MARKER}" and then "${END_MARKER}", once each`)
  }
  return `${readme.slice(0, start + START_MARKER.length)}\n${content.trim()}\n${readme.slice(end)}`
}

/** Rewrites the section of the README at `path`. */
export const writeReadmeSection = async (path: string, content: string): Promise<void> => {
  const readme = await readFile(path, "utf8")
  await writeFile(path, replaceBetweenMarkers(readme, content))
}
