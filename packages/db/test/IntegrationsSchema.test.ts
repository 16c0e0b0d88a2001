/**
 * The integrations migration (issue 8): the former per-organization billing integrations become billing
 * configurations of the organization's root context, one ready configuration fills a point (a kind in a context)
 * at a time, and the migration goes down and up again.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Kysely, sql } from "kysely"
import { Migrator } from "kysely/migration"
import * as Db from "../src/Db.js"
import { migrations } from "../src/Migrations.js"
import * as TestDatabase from "../src/TestDatabase.js"

const READY_ORG = "10000000-0000-4000-8000-000000000001"
const READY_ROOT = "10000000-0000-4000-8000-000000000002"
const FAILED_ORG = "10000000-0000-4000-8000-000000000003"
const FAILED_ROOT = "10000000-0000-4000-8000-000000000004"

describe.each(TestDatabase.kinds())("the integrations migration on %s", (kind) => {
  it("carries billing integrations over as root-context billing configurations, fills one point once, goes down and up", async () => {
    const scratch = await TestDatabase.create(kind)
    const kysely = await Db.makeKysely(scratch.config)
    try {
      const db = kysely.withoutPlugins() as Kysely<unknown>
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
      expect((await migrator.migrateTo("20261123_0500_admin_operators")).error).toBeUndefined()
      for (const [org, root, name] of [[READY_ORG, READY_ROOT, "Nordhavn"], [FAILED_ORG, FAILED_ROOT, "Fjord"]] as const) {
        await sql`insert into organizations (id, name, country, created_at, updated_at)
                  values (${org}, ${name}, 'SE', now(), now())`.execute(db)
        await sql`insert into operational_contexts (id, organization_id, parent_id, kind, name, created_at, updated_at)
                  values (${root}, ${org}, null, 'organization', ${name}, now(), now())`.execute(db)
      }
      await sql`insert into billing_integrations
                  (organization_id, provider, status, declared_gates, external_account, created_at, updated_at)
                values (${READY_ORG}, 'Fortnox', 'ready', '{verification}', 'fortnox:1', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'),
                       (${FAILED_ORG}, 'Tripletex', 'failed', '{}', null, '2026-11-01T00:00:00Z', '2026-11-03T00:00:00Z')`.execute(db)

      expect((await migrator.migrateToLatest()).error).toBeUndefined()
      const configurations = await sql<Record<string, unknown>>`
        select c.organization_id, c.installation_id, c.kind, c.status, c.external_account_id, c.external_account_name,
               c.declared_gates, c.failure_reason is not null as has_reason, c.ready_at, x.operational_context_id, x.filled
        from integration_configurations c inner join integration_configuration_contexts x on x.configuration_id = c.id
        order by c.organization_id`.execute(db)
      expect(configurations.rows).toMatchObject([
        {
          organization_id: READY_ORG,
          installation_id: null,
          kind: "billing",
          status: "ready",
          external_account_id: "fortnox:1",
          external_account_name: "Fortnox",
          declared_gates: ["verification"],
          has_reason: false,
          operational_context_id: READY_ROOT,
          filled: true
        },
        {
          organization_id: FAILED_ORG,
          status: "failed",
          external_account_id: "Tripletex",
          declared_gates: [],
          has_reason: true,
          ready_at: null,
          operational_context_id: FAILED_ROOT,
          filled: false
        }
      ])
      expect((await sql`select to_regclass('billing_integrations') as t`.execute(db)).rows).toEqual([{ t: null }])

      // A second ready billing configuration of the same context can't fill the point.
      const second = "20000000-0000-4000-8000-000000000001"
      await sql`insert into integration_configurations (id, organization_id, kind, status, created_at, updated_at)
                values (${second}, ${READY_ORG}, 'billing', 'ready', now(), now())`.execute(db)
      const fill = sql`insert into integration_configuration_contexts (configuration_id, kind, operational_context_id, filled)
                       values (${second}, 'billing', ${READY_ROOT}, true)`
      await expect(fill.execute(db)).rejects.toMatchObject({ message: expect.stringContaining("integration_points_filled_key") })
      // The same context for another kind, or not filled, is fine.
      await sql`insert into integration_configuration_contexts (configuration_id, kind, operational_context_id, filled)
                values (${second}, 'billing', ${READY_ROOT}, false)`.execute(db)
      await sql`delete from integration_configuration_contexts where configuration_id = ${second}`.execute(db)
      await sql`delete from integration_configurations where id = ${second}`.execute(db)

      expect((await migrator.migrateTo("20261123_0500_admin_operators")).error).toBeUndefined()
      const restored = await sql`select organization_id, provider, status, declared_gates, external_account
                                 from billing_integrations order by organization_id`.execute(db)
      expect(restored.rows).toEqual([
        { organization_id: READY_ORG, provider: "Fortnox", status: "ready", declared_gates: ["verification"], external_account: "fortnox:1" },
        { organization_id: FAILED_ORG, provider: "Tripletex", status: "failed", declared_gates: [], external_account: "Tripletex" }
      ])
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
    } finally {
      await kysely.destroy()
      await scratch.drop()
    }
  }, 120_000)
})
