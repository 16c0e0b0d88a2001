/**
 * The example scripts' files. Reads the connector scripts' credentials: DEMO_CREDENTIALS, else DATA_DIR/demo-credentials.json (DATA_DIR
 * defaulting to `.data`); exits with a hint when the file can't be read.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { DemoCredentials } from "./ConnectorFlow.js"
import type { ConnectorCredentials } from "./InstallationAssertion.js"

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

/**
 * Reads the installed connector's file: DEMO_CONNECTOR, else DATA_DIR/demo-connector.json; exits with a hint when
 * it can't be read. Answers the file's path too.
 */
export const readDemoConnector = (): { readonly file: string; readonly connector: ConnectorCredentials } => {
  const file = process.env["DEMO_CONNECTOR"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-connector.json")
  try {
    return { file, connector: JSON.parse(readFileSync(file, "utf8")) as ConnectorCredentials }
  } catch {
    console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CONNECTOR.`)
    process.exit(1)
  }
}
