/**
 * The example connector: runs the ERP flow against a running deployment and prints what it did.
 *
 *   pnpm connector:example                      # reads .data/demo-credentials.json
 *   DEMO_CREDENTIALS=path/to/file.json pnpm connector:example
 */
import { readDemoCredentials } from "./DemoCredentialsFile.js"
import { runConnectorFlow } from "./ConnectorFlow.js"

const credentials = readDemoCredentials()

runConnectorFlow(credentials, Date.now().toString(36)).then(
  (steps) => {
    console.log(`Connector flow against ${credentials.base_url} as ${credentials.client_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The connector flow failed:", error)
    process.exit(1)
  }
)
