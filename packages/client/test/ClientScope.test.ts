/**
 * The published client is the public v1 API's only: the console's HttpApi (`@propline/contract/AdminApi` and its
 * `*Admin` groups, `AdminSession`, `AdminPage`, `AdminProblem`) lives in the contract package but never in the
 * client, which neither imports nor re-exports it.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const srcDir = fileURLToPath(new URL("../src", import.meta.url))

describe("client scope", () => {
  it("imports none of the console's contract modules", () => {
    const files = readdirSync(srcDir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const text = readFileSync(`${srcDir}/${file}`, "utf8")
      expect(text, file).not.toMatch(/@propline\/contract\/(Admin\w*|\w+Admin)\b/)
    }
  })
})
