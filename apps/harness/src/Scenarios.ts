/**
 * End-to-end scenarios that prove a running deployment of the Integration API v1 works, black box over HTTP, driven
 * only by a credentials file `{ client_id, client_secret, auth_url, base_url }` (the demo writes it to
 * DATA_DIR/demo-credentials.json). Each scenario asserts exact statuses and codes (spec 2.3, 3, 4.1, 5, 7) and
 * answers PASS, FAIL or SKIP with a message; `Harness.ts` runs them.
 *
 * Scenarios live per connector kind in `scenarios/<kind>.ts`, each exporting its array in run order; this file
 * composes them. A new kind (signing, booking, an identity connector …) adds `scenarios/<kind>.ts` and spreads
 * its array below, after the kinds whose records it uses.
 *
 * Scenarios consume data (they pass, reject and fail records), so every run picks records that are still in the
 * right state and skips, with a message, when a queue is empty.
 */
import type { Scenario } from "./Harness.js"
import { commonScenarios } from "./scenarios/common.js"
import { bookingScenarios } from "./scenarios/booking.js"
import { erpScenarios } from "./scenarios/erp.js"
import { erpSettlementScenarios } from "./scenarios/erpSettlement.js"
import { esignScenarios } from "./scenarios/esign.js"
import { eventsScenarios } from "./scenarios/events.js"
import { identityScenarios } from "./scenarios/identity.js"
import { integrationsScenarios } from "./scenarios/integrations.js"

/** Every scenario, in the order they run (later ones use what earlier ones did). */
export const scenarios: ReadonlyArray<Scenario> = [
  ...identityScenarios,
  ...commonScenarios,
  // Early: the connection reference they redeem works 10 minutes after the deployment started.
  ...integrationsScenarios,
  ...erpScenarios,
  ...eventsScenarios,
  ...erpSettlementScenarios,
  ...bookingScenarios,
  ...esignScenarios
]
