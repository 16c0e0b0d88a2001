/**
 * The example installed connector: gets an installation token with a client assertion signed by the demo
 * connector's private key (spec 5.3) and calls the API with it, printing what it did.
 *
 *   pnpm connector:installation-example                 # reads .data/demo-connector.json
 *   DEMO_CONNECTOR=path/to/file.json pnpm connector:installation-example
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { ConnectorCredentials } from "./InstallationAssertion.js"
import { runInstallationFlow } from "./InstallationFlow.js"

const file = process.env["DEMO_CONNECTOR"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-connector.json")
let connector: ConnectorCredentials
try {
  connector = JSON.parse(readFileSync(file, "utf8")) as ConnectorCredentials
} catch {
  console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CONNECTOR.`)
  process.exit(1)
}

Effect.runPromise(runInstallationFlow(connector)).then(
  (steps) => {
    console.log(`Installed connector ${connector.app_id} against ${connector.base_url}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The installation flow failed:", error)
    process.exit(1)
  }
)
