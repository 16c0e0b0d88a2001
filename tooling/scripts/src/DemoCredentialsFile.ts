/**
 * Reads the connector scripts' credentials: DEMO_CREDENTIALS, else DATA_DIR/demo-credentials.json (DATA_DIR
 * defaulting to `.data`); exits with a hint when the file can't be read.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { DemoCredentials } from "./ConnectorFlow.js"

export const readDemoCredentials = (): DemoCredentials => {
  const file =
    process.env["DEMO_CREDENTIALS"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-credentials.json")
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DemoCredentials
  } catch {
    console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CREDENTIALS.`)
    process.exit(1)
  }
}
