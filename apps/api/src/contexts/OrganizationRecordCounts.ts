/**
 * The port the console's organization page counts other capabilities' records through: how many customers and
 * contracts (tenancy's tables) and Applications and operators (identity's) an organization has, each a scalar
 * subquery the table's owner writes, so the page still reads them in one statement. contexts declares it because
 * tenancy and identity import contexts (importing them back would close a folder-level cycle; CONTRIBUTING.md,
 * "Between the folders of `apps/api/src/`"); the admin host provides it from the owners' fragments (`AdminHost.ts`).
 */
import { Context } from "effect"
import type { RawBuilder } from "kysely"

/** What the page counts, by kind: a scalar subquery of the organization's count (a bigint, as PostgreSQL counts). */
export type OrganizationRecordCountsShape = {
  readonly [Kind in "customers" | "contracts" | "applications" | "operators"]: (organizationId: string) => RawBuilder<number>
}

export class OrganizationRecordCounts extends Context.Tag("@propline/api/contexts/OrganizationRecordCounts")<
  OrganizationRecordCounts,
  OrganizationRecordCountsShape
>() {}
