/**
 * The example booking website: books a meeting room with catering for a company on a running deployment and
 * prints what it did, with the priced breakdown.
 *
 *   pnpm booking:example                      # reads .data/demo-credentials.json
 *   DEMO_CREDENTIALS=path/to/file.json pnpm booking:example
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { runBookingWebsiteFlow } from "./BookingWebsiteFlow.js"
import type { DemoCredentials } from "./ConnectorFlow.js"

const file = process.env["DEMO_CREDENTIALS"] ?? path.join(process.env["DATA_DIR"] ?? ".data", "demo-credentials.json")
let credentials: DemoCredentials
try {
  credentials = JSON.parse(readFileSync(file, "utf8")) as DemoCredentials
} catch {
  console.error(`Cannot read ${file}: start the product first (see README), or set DEMO_CREDENTIALS.`)
  process.exit(1)
}

Effect.runPromise(
  runBookingWebsiteFlow(credentials, `website-${Date.now().toString(36)}`)
).then(
  (steps) => {
    console.log(`Booking website flow against ${credentials.base_url} as ${credentials.client_id}:\n`)
    for (const { step, outcome } of steps) console.log(`- ${step}\n    ${outcome}`)
  },
  (error: unknown) => {
    console.error("The booking website flow failed:", error)
    process.exit(1)
  }
)
