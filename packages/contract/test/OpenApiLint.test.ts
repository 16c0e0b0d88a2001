/**
 * The OpenAPI document as generators and linters take it (issue 24): Redocly CLI (`redocly.yaml`: the recommended
 * rules and stricter ones) and Spectral (`.spectral.yaml`: every rule of `spectral:oas`) find nothing, not even a
 * warning; examples are checked against their schemas by both. Each tool runs once, on the document written to
 * `.openapi/openapi.json` (git-ignored; `.redocly.lint-ignore.yaml` names its reasoned exceptions).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { openApiDocument } from "../src/OpenApiDocument.js"

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, "..")
const bin = (name: string) => path.join(root, "node_modules", ".bin", name)
const documentPath = path.join(root, ".openapi", "openapi.json")
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" }

/** Runs a linter that exits non-zero on findings; its JSON report is on stdout either way. */
const lint = async (command: string, args: ReadonlyArray<string>): Promise<string> => {
  try {
    return (await run(command, [...args], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 })).stdout
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout
    if (stdout === undefined || stdout.trim() === "") throw error
    return stdout
  }
}

describe("the OpenAPI document under Redocly and Spectral", () => {
  mkdirSync(path.dirname(documentPath), { recursive: true })
  writeFileSync(documentPath, JSON.stringify(openApiDocument("https://api.propline.test", "https://auth.propline.test"), null, 2))

  it("has no Redocly error or warning", async () => {
    const report = JSON.parse(await lint(bin("redocly"), ["lint", documentPath, "--format=json", "--max-problems=1000"])) as {
      problems: ReadonlyArray<{ ruleId: string; severity: string; message: string; location: ReadonlyArray<{ pointer: string }> }>
    }
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([])
  }, 180_000)

  it("has no Spectral finding of any severity", async () => {
    const output = await lint(bin("spectral"), ["lint", documentPath, "--ruleset", ".spectral.yaml", "--format=json", "--fail-severity=hint", "--quiet"])
    const findings = JSON.parse(output.slice(output.indexOf("["))) as ReadonlyArray<{ code: string; path: ReadonlyArray<string>; message: string }>
    expect(findings.map((f) => `${f.code} ${f.path.join("/")}: ${f.message}`)).toEqual([])
  }, 180_000)
})
