/**
 * The example signing connector: runs the e-signing flow against a running deployment and prints what it did.
 *
 *   pnpm connector:signing                      # reads .data/demo-credentials.json
 *   DEMO_CREDENTIALS=path/to/file.json pnpm connector:signing
 */
import { readDemoCredentials } from "./DemoCredentialsFile.js"
import { runSigningConnectorFlow } from "./SigningConnectorFlow.js"

const credentials = readDemoCredentials()

runSigningConnectorFlow(credentials, Date.now().toString(36)).then(
  (steps) => {
    console.log(`Signing connector flow against ${credentials.base_url} as ${credentials.client_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The signing connector flow failed:", error)
    process.exit(1)
  }
)
