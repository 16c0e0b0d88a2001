/**
 * The example connector's set-up (decisions 8): with the connection reference the product issued at its start for
 * the demo connector's signing configuration (`connection_reference` in demo-connector.json), it redeems the
 * reference, reads the configuration and reports it ready, printing what it did.
 *
 *   pnpm connector:setup                  # reads .data/demo-connector.json
 *   DEMO_CONNECTOR=path/to/file.json pnpm connector:setup
 *   pnpm connector:setup icr_…            # a reference from a setup address instead
 */
import { readDemoConnector } from "./DemoCredentialsFile.js"
import { runSetupFlow } from "./SetupFlow.js"

const { connector, file } = readDemoConnector()
const reference = process.argv[2] ?? connector.connection_reference
if (reference === undefined) {
  console.error(`${file} holds no connection_reference: start the product again, or pass one as an argument.`)
  process.exit(1)
}

runSetupFlow(connector, reference).then(
  (steps) => {
    console.log(`Connector ${connector.app_id} sets up a configuration of installation ${connector.installation_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The set-up failed:", error)
    process.exit(1)
  }
)
