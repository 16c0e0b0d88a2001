/**
 * The keys-sealed-at-rest migration (issue 19, item 7): rows from before keep their plaintext (the API's start seals
 * them), a row holds a plaintext key or an envelope and never neither nor both, and the migration goes down (deleting
 * the rows only an envelope holds, which it can't decrypt) and up again.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Kysely, sql } from "kysely"
import { Migrator } from "kysely/migration"
import * as Db from "../src/Db.js"
import { migrations } from "../src/Migrations.js"
import * as TestDatabase from "../src/TestDatabase.js"

const BEFORE = "20261124_0200_integrations"

describe.each(TestDatabase.kinds())("the keys-sealed-at-rest migration on %s", (kind) => {
  it("keeps plaintext rows, allows one of key and envelope per row, goes down and up", async () => {
    const scratch = await TestDatabase.create(kind)
    const kysely = await Db.makeKysely(scratch.config)
    try {
      const db = kysely.withoutPlugins() as Kysely<unknown>
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined()
      await sql`insert into signing_keys (kid, algorithm, private_jwk, public_jwk, created_at)
                values ('old', 'ES256', '{"d":"x"}', '{}', now())`.execute(db)
      await sql`insert into url_signing_keys (id, secret, created_at) values ('default', 'plain', now())`.execute(db)

      expect((await migrator.migrateToLatest()).error).toBeUndefined()
      const keys = await sql<{ kid: string; private_jwk: unknown; private_jwk_envelope: string | null }>`
        select kid, private_jwk, private_jwk_envelope from signing_keys`.execute(db)
      expect(keys.rows).toEqual([{ kid: "old", private_jwk: { d: "x" }, private_jwk_envelope: null }])
      await sql`insert into signing_keys (kid, algorithm, private_jwk, private_jwk_envelope, public_jwk, created_at)
                values ('sealed', 'ES256', null, 'v1.k1.a.b.c', '{}', now())`.execute(db)
      for (const [jwk, envelope] of [[null, null], ['{"d":"y"}', "v1.k1.a.b.c"]] as const) {
        await expect(
          sql`insert into signing_keys (kid, algorithm, private_jwk, private_jwk_envelope, public_jwk, created_at)
              values ('bad', 'ES256', ${jwk}, ${envelope}, '{}', now())`.execute(db)
        ).rejects.toThrow(/signing_keys_private_key_stored/)
      }
      await expect(sql`update url_signing_keys set secret = null`.execute(db)).rejects.toThrow(/url_signing_keys_secret_stored/)
      await sql`update url_signing_keys set secret = null, secret_envelope = 'v1.k1.a.b.c'`.execute(db)

      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined()
      expect((await sql<{ kid: string }>`select kid from signing_keys`.execute(db)).rows).toEqual([{ kid: "old" }])
      expect((await sql`select id from url_signing_keys`.execute(db)).rows).toEqual([])
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
    } finally {
      await kysely.destroy()
      await scratch.drop()
    }
  })
})
