/**
 * The sign-in throttle's migration (issue 19, item 6): `operator_sign_in_failures` replaces
 * `operator_sign_in_throttle`, one row per (e-mail address, client address), and the migration goes down and up again.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Kysely, sql } from "kysely"
import { Migrator } from "kysely/migration"
import * as Db from "../src/Db.js"
import { migrations } from "../src/Migrations.js"
import * as TestDatabase from "../src/TestDatabase.js"

const tables = async (db: Kysely<unknown>) =>
  (
    await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = current_schema() and table_name like 'operator_sign_in%' order by table_name`.execute(db)
  ).rows.map((row) => row.table_name)

describe.each(TestDatabase.kinds())("the sign-in pairs migration on %s", (kind) => {
  it("keeps one row per (e-mail address, client address), and goes down to the old table and up again", async () => {
    const scratch = await TestDatabase.create(kind)
    const kysely = await Db.makeKysely(scratch.config)
    try {
      const db = kysely.withoutPlugins() as Kysely<unknown>
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
      expect(await tables(db)).toEqual(["operator_sign_in_failures"])
      const row = (email: string, client: string) =>
        sql`insert into operator_sign_in_failures (email, client_address, failure_count, last_failure_at, blocked_until, last_attempt_id)
            values (${email}, ${client}, 1, now(), now(), gen_random_uuid())`.execute(db)
      await row("a@example.com", "192.0.2.1")
      await row("a@example.com", "192.0.2.2")
      await expect(row("a@example.com", "192.0.2.1")).rejects.toThrow()

      expect((await migrator.migrateTo("20261124_0200_integrations")).error).toBeUndefined()
      expect(await tables(db)).toEqual(["operator_sign_in_throttle"])
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
      expect(await tables(db)).toEqual(["operator_sign_in_failures"])
    } finally {
      await kysely.destroy()
      await scratch.drop()
    }
  }, 120_000)
})
