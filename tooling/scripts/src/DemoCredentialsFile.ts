/**
 * The files the started product writes for the example scripts (DATA_DIR defaulting to `.data`): the demo
 * Application's credentials, the demo connector's and the demo operator's sign-in. Each exits with a hint when its file can't be read.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { DemoCredentials } from "./ConnectorFlow.js"
import type { ConnectorCredentials } from "./InstallationAssertion.js"
import type { DemoOperator } from "./WebhookSubscription.js"

/** A JSON file the started product wrote, named by `variable` or found in DATA_DIR; exits with a hint otherwise. */
const readProductFile = <A>(variable: string, name: string): { readonly file: string; readonly content: A } => {
  const file = process.env[variable] ?? path.join(process.env["DATA_DIR"] ?? ".data", name)
  try {
    return { file, content: JSON.parse(readFileSync(file, "utf8")) as A }
  } catch {
    console.error(`Cannot read ${file}: start the product first (see README), or set ${variable}.`)
    process.exit(1)
  }
}

/** The demo Application's credentials: DEMO_CREDENTIALS, else DATA_DIR/demo-credentials.json. */
export const readDemoCredentials = (): DemoCredentials =>
  readProductFile<DemoCredentials>("DEMO_CREDENTIALS", "demo-credentials.json").content

/** The demo connector's installation and key: DEMO_CONNECTOR, else DATA_DIR/demo-connector.json. */
export const readDemoConnector = (): { readonly file: string; readonly connector: ConnectorCredentials } => {
  const { file, content } = readProductFile<ConnectorCredentials>("DEMO_CONNECTOR", "demo-connector.json")
  return { file, connector: content }
}

/** The demo operator's sign-in to the admin console: DEMO_OPERATOR, else DATA_DIR/demo-operator.json. */
export const readDemoOperator = (): DemoOperator => readProductFile<DemoOperator>("DEMO_OPERATOR", "demo-operator.json").content
