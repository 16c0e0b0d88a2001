/**
 * The example installed connector: gets an installation token with a client assertion signed by the demo
 * connector's private key (spec 5.3) and calls the API with it, printing what it did.
 *
 *   pnpm connector:installation-example                 # reads .data/demo-connector.json
 *   DEMO_CONNECTOR=path/to/file.json pnpm connector:installation-example
 */
import { readDemoConnector } from "./DemoCredentialsFile.js"
import { runInstallationFlow } from "./InstallationFlow.js"

const { connector } = readDemoConnector()

runInstallationFlow(connector).then(
  (steps) => {
    console.log(`Installed connector ${connector.app_id} against ${connector.base_url}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The installation flow failed:", error)
    process.exit(1)
  }
)
