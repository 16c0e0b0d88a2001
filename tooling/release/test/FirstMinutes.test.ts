/**
 * A newcomer's first minutes (issue 24, item 4): the start command streams the build's progress (each package's
 * build as it runs) instead of minutes of silence; pnpm has no "ignored build scripts" question left (every
 * dependency with an install script is named in pnpm-workspace.yaml, built or not); and the repository's README,
 * CONTRIBUTING and docs link only to files of the repository (and headings in them) that exist.
 */
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, "..", "..", "..")
const read = (file: string) => readFileSync(path.join(root, file), "utf8")

/** GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const anchorsOf = (file: string): ReadonlyArray<string> =>
  read(file)
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => slug(line.replace(/^#+ /, "")))

describe("a newcomer's first minutes", () => {
  it("the start command's build streams each package's progress (turbo's new output, not errors only)", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts
    const turbo = JSON.parse(read("turbo.json")) as { ui?: string }
    expect(turbo.ui).toBe("stream")
    for (const name of ["start", "harness", "connector:example"]) {
      const script = scripts[name] ?? ""
      expect(script, name).toMatch(/turbo run build .*--output-logs=(new-only|full)\b/)
      expect(script, name).not.toMatch(/--output-logs=(none|errors-only|hash-only)|>\s*\/dev\/null|--silent/)
    }
  })

  it("pnpm reports no ignored build scripts: each dependency's install script is allowed or declined by name", async () => {
    const { stdout } = await run("pnpm", ["ignored-builds"], { cwd: root })
    expect(stdout).toMatch(/Automatically ignored builds during installation:\s+None/)
  }, 60_000)

  it("README, CONTRIBUTING and docs link only inside the repository, to files and headings that exist", () => {
    const files = ["README.md", "CONTRIBUTING.md", ...readdirSync(path.join(root, "docs")).map((name) => `docs/${name}`)]
    const problems: Array<string> = []
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      for (const [, target = ""] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target) || target.startsWith("/")) {
          problems.push(`${file}: ${target} leaves the repository`)
          continue
        }
        const [relative = "", anchor] = target.split("#")
        const linked = relative === "" ? file : path.join(path.dirname(file), relative)
        if (!existsSync(path.join(root, linked))) problems.push(`${file}: ${target} does not exist`)
        else if (anchor !== undefined && linked.endsWith(".md") && !anchorsOf(linked).includes(anchor))
          problems.push(`${file}: ${target} names no heading of ${linked}`)
      }
    }
    expect(problems).toEqual([])
  })
})
