/**
 * `node apps/harness/dist/main.js [path-to-credentials.json]`: runs every scenario against the deployment the
 * credentials file names (default `${DATA_DIR:-.data}/demo-credentials.json`), prints one line per scenario and a
 * closing `N passed, N failed`, and exits 1 when any scenario failed. The installed connector's file
 * (`demo-connector.json` beside the credentials, or `DEMO_CONNECTOR`) drives the integrations scenarios; without it
 * they skip.
 */
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { type ConnectorFile, type Credentials, parseConnector, parseCredentials, runAll } from "./Harness.js"
import { scenarios } from "./Scenarios.js"

const file = process.argv[2] ?? path.join(process.env["DATA_DIR"] || ".data", "demo-credentials.json")

let credentials: Credentials
try {
  credentials = parseCredentials(JSON.parse(readFileSync(file, "utf8")))
} catch (error) {
  console.error(`Cannot read the credentials file ${file}: ${error instanceof Error ? error.message : String(error)}`)
  console.error("Usage: node apps/harness/dist/main.js [path-to-credentials.json]")
  process.exit(1)
}

// The installed connector's file beside the credentials (or DEMO_CONNECTOR): the integrations scenarios use it.
const connectorFile = process.env["DEMO_CONNECTOR"] || path.join(path.dirname(file), "demo-connector.json")
let connector: ConnectorFile | undefined
if (existsSync(connectorFile)) {
  try {
    connector = parseConnector(JSON.parse(readFileSync(connectorFile, "utf8")))
  } catch (error) {
    console.error(`Cannot read the connector file ${connectorFile}: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
}

console.log(`Harness against ${credentials.base_url} (auth ${credentials.auth_url}, client ${credentials.client_id})`)
const { outcomes, tokenRequests } = await runAll(
  scenarios,
  credentials,
  (outcome) => console.log(`${outcome.verdict} ${outcome.name}: ${outcome.message}`),
  connector
)
const failed = outcomes.filter((outcome) => outcome.verdict === "FAIL").length
const passed = outcomes.filter((outcome) => outcome.verdict === "PASS").length
const skipped = outcomes.length - passed - failed
console.log(`(${skipped} skipped, ${tokenRequests} token requests)`)
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
