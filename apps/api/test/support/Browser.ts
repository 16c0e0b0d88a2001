/**
 * Headless Chromium for the console's end-to-end tests: Debian's `chromium` package driven by playwright-core
 * (no browser is downloaded). `CHROMIUM_PATH` names another binary. Without one the browser suites are skipped,
 * unless `REQUIRE_BROWSER=1` (set by CI), which turns a missing browser into a failure.
 */
import { existsSync } from "node:fs"
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium } from "playwright-core"

const candidates = [process.env["CHROMIUM_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]

/** The Chromium binary, or undefined; throws when none is found and `REQUIRE_BROWSER=1`. */
export const chromiumPath = (): string | undefined => {
  const found = candidates.find((candidate): candidate is string => candidate !== undefined && candidate !== "" && existsSync(candidate))
  if (found === undefined && process.env["REQUIRE_BROWSER"] === "1") {
    throw new Error("REQUIRE_BROWSER=1 but no Chromium was found (apt-get install -y chromium, or set CHROMIUM_PATH)")
  }
  return found
}

export const launch = (executablePath: string): Promise<Browser> =>
  chromium.launch({ executablePath, headless: true, chromiumSandbox: false, args: ["--disable-dev-shm-usage"] })

/** Where screenshots go: `apps/api/.artifacts/screenshots` (ignored by git; CI can keep it). */
export const screenshotDir = (): string => {
  const dir = path.resolve(fileURLToPath(new URL("../../.artifacts/screenshots", import.meta.url)))
  mkdirSync(dir, { recursive: true })
  return dir
}
