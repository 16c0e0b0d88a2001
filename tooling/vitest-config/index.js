// The one vitest configuration every package's `vitest.config.ts` re-exports.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets CI print one closing "N passed, N failed" line for the whole workspace.
    reporters: ["default", "json"],
    outputFile: { json: ".vitest/results.json" }
  }
})
