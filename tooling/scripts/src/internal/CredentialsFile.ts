/**
 * The credentials file the example scripts read: DEMO_CREDENTIALS, or DATA_DIR/demo-credentials.json (default
 * .data/demo-credentials.json), as the started product writes it. Exits with a hint when it cannot be read.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { DemoCredentials } from "../ConnectorFlow.js"

export const readCredentialsOrExit = (): DemoCredentials => {
  const file = process.env["DEMO_CREDENTIALS"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-credentials.json")
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DemoCredentials
  } catch {
    console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CREDENTIALS.`)
    process.exit(1)
  }
}
