/**
 * axe-core in the console's browser tests: the rules of WCAG 2.1 A and AA (and axe's best practices) run in the
 * page as it is. The console's Content-Security-Policy allows no injected script tag, so the engine is evaluated
 * through the DevTools protocol (`page.evaluate`), which the policy does not govern.
 */
import type { Page } from "playwright-core"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** One violation as a line a failing test prints: the rule, its impact and the first offending nodes. */
export interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly nodes: ReadonlyArray<string>
}

/** The page's axe-core violations (WCAG 2.1 A/AA and best practices); [] when it passes. */
export const axeViolations = async (page: Page): Promise<ReadonlyArray<Violation>> => {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(axeSource)
  return page.evaluate<ReadonlyArray<Violation>>(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } })
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      nodes: violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target))
    }))
  })()`)
}
