/**
 * The demo data as rows to insert, built without I/O from the current time: the same `now` gives the same rows.
 * Ids are name-based (UUID version 5 in a demo namespace), names, prices and organisation numbers come from a
 * seeded pseudo-random generator, so every database seeded in the same month holds the same demo records and
 * the harness can name them ({@link DEMO_IDS} in `DemoIds.ts`).
 *
 * One file per capability builds that capability's rows; this file only composes them, in dependency order:
 * - `DemoIds.ts`: what every area shares — ids, the seeded generator, names, organisation numbers, the timeline;
 * - `tenancy/DemoTenancy.ts`: organizations, contexts, customers, billing accounts, contracts and their lines
 *   (spec 2.1, 2.2; decisions 2, 5), and the contracts the other areas build on;
 * - `billing/DemoBilling.ts`: integrations, invoice runs, invoices, the credit note, proposals, charges and
 *   document lines drafted from those contracts;
 * - `booking/DemoBooking.ts`: rooms, desks and parking in Stockholm and Oslo with price rules and add-ons;
 * - `integrations/DemoIntegrations.ts`: the demo connector installed in both organizations, each installation with
 *   the ready billing configuration billing runs under.
 *
 * Adding an area (signing, booking, an identity connector …): write `demo/<area>/Demo<Area>.ts` exporting a
 * `Demo<Area>Plan` (its tables' rows) and a `demo<Area>(timeline, …what it builds on)` function, extend
 * {@link DemoPlan} with the plan, call the function below after the areas it builds on and spread its plan into
 * the result, then insert its tables in `DemoData.ts`. An area that draws from `random` draws after the areas
 * before it, so adding one never changes the records that already exist.
 */
import type { OrganizationTable } from "@propline/db/Database"
import type { Insertable } from "kysely"
import { type DemoBillingPlan, demoBilling } from "./billing/DemoBilling.js"
import { type DemoBookingPlan, demoBooking } from "./booking/DemoBooking.js"
import { demoTimeline, seededRandom } from "./DemoIds.js"
import { type DemoIntegrationsPlan, demoIntegrations } from "./integrations/DemoIntegrations.js"
import { demoOrganizations, demoTenancy, type DemoTenancyPlan } from "./tenancy/DemoTenancy.js"

/** Every row of the demo, per table; `DemoData.ts` inserts the tables in an order that satisfies the foreign keys. */
export interface DemoPlan extends DemoTenancyPlan, DemoBillingPlan, DemoBookingPlan, DemoIntegrationsPlan {
  readonly organizations: ReadonlyArray<Insertable<OrganizationTable>>
}

/**
 * The demo's rows for `now` (see the module comment). Pure and deterministic: times are offsets from `now`
 * (records made before it), periods are the calendar months (UTC) before and containing `now`.
 */
export const demoPlan = (now: Date): DemoPlan => {
  const random = seededRandom(20_261_122)
  const timeline = demoTimeline(now)
  const tenancy = demoTenancy(timeline, random)
  const billing = demoBilling(timeline, tenancy.contracts)
  return {
    // The organizations carry billing's invoice number series, so they are built once billing has numbered.
    organizations: demoOrganizations(timeline, billing.nextInvoiceNumber),
    ...tenancy.plan,
    ...billing.plan,
    ...demoBooking(timeline),
    ...demoIntegrations(timeline)
  }
}
