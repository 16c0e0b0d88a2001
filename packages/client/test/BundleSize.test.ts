/**
 * The bundle budgets (bytes, measured with esbuild as `scripts/bundle-size.mjs` does, never timed): the Promise API
 * stays small and loads neither Effect nor the contract's schemas; the Effect API does not grow past today's size.
 */
import { describe, expect, it } from "vitest"
import { byPackage, measure } from "../scripts/bundle-size.mjs"

/** Budgets in bytes; the figures of 2026-11-26 are 26.3 kB / 9.7 kB and 570.8 kB / 176.6 kB. */
const BUDGET = {
  promise: { minified: 32_000, gzip: 12_000 },
  effect: { minified: 590_000, gzip: 182_000 }
} as const

describe("bundle size", () => {
  it("the Promise API from the package root stays within its budget, without effect or the contract", async () => {
    const { gzip, metafile, minified } = await measure("promise")
    expect(minified).toBeLessThanOrEqual(BUDGET.promise.minified)
    expect(gzip).toBeLessThanOrEqual(BUDGET.promise.gzip)
    const packages = Object.keys(byPackage(metafile))
    expect(packages).not.toContain("effect")
    expect(packages).not.toContain("@effect/platform")
    expect(packages).not.toContain("@propline/contract")
  }, 60_000)

  it("the Effect API stays within its budget", async () => {
    const { gzip, minified } = await measure("effect")
    expect(minified).toBeLessThanOrEqual(BUDGET.effect.minified)
    expect(gzip).toBeLessThanOrEqual(BUDGET.effect.gzip)
  }, 60_000)
})
