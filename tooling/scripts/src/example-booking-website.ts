/**
 * The example booking website: books a meeting room with catering for a company on a running deployment and
 * prints what it did, with the priced breakdown.
 *
 *   pnpm booking:example                      # reads .data/demo-credentials.json
 *   DEMO_CREDENTIALS=path/to/file.json pnpm booking:example
 */
import { runBookingWebsiteFlow } from "./BookingWebsiteFlow.js"
import { readDemoCredentials } from "./DemoCredentialsFile.js"

const credentials = readDemoCredentials()

runBookingWebsiteFlow(credentials, `website-${Date.now().toString(36)}`).then(
  (steps) => {
    console.log(`Booking website flow against ${credentials.base_url} as ${credentials.client_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The booking website flow failed:", error)
    process.exit(1)
  }
)
