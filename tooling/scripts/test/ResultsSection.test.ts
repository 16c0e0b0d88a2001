/**
 * The benchmark writes its table between two markers of `docs/performance.md`: the page holds them once each, in
 * order, and only the text between them is replaced.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { END_MARKER, replaceBetweenMarkers, START_MARKER } from "../src/internal/ResultsSection.js"

const performancePage = fileURLToPath(new URL("../../../docs/performance.md", import.meta.url))

describe("replaceBetweenMarkers", () => {
  it("replaces the text between the markers of docs/performance.md and keeps the rest", () => {
    const page = readFileSync(performancePage, "utf8")
    const written = replaceBetweenMarkers(page, "| a new table |\n")
    expect(written.slice(0, written.indexOf(START_MARKER))).toBe(page.slice(0, page.indexOf(START_MARKER)))
    expect(written.slice(written.indexOf(END_MARKER))).toBe(page.slice(page.indexOf(END_MARKER)))
    expect(written).toContain(`${START_MARKER}\n| a new table |\n${END_MARKER}`)
  })

  it.each([
    ["no markers", "# Performance\n"],
    ["the end before the start", `${END_MARKER}\n${START_MARKER}\n`],
    ["a start marker twice", `${START_MARKER}\n${START_MARKER}\n${END_MARKER}\n`],
    ["an end marker twice", `${START_MARKER}\n${END_MARKER}\n${END_MARKER}\n`]
  ])("refuses a page with %s", (_, page) => {
    expect(() => replaceBetweenMarkers(page, "x")).toThrow(/must hold/)
  })
})
