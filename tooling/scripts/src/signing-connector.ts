/**
 * The example signing connector: runs the e-signing flow against a running deployment and prints what it did.
 *
 *   pnpm connector:signing                      # reads .data/demo-credentials.json
 *   DEMO_CREDENTIALS=path/to/file.json pnpm connector:signing
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { DemoCredentials } from "./ConnectorFlow.js"
import { runSigningConnectorFlow } from "./SigningConnectorFlow.js"

const file = process.env["DEMO_CREDENTIALS"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-credentials.json")
let credentials: DemoCredentials
try {
  credentials = JSON.parse(readFileSync(file, "utf8")) as DemoCredentials
} catch {
  console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CREDENTIALS.`)
  process.exit(1)
}

Effect.runPromise(runSigningConnectorFlow(credentials, Date.now().toString(36))).then(
  (steps) => {
    console.log(`Signing connector flow against ${credentials.base_url} as ${credentials.client_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The signing connector flow failed:", error)
    process.exit(1)
  }
)
