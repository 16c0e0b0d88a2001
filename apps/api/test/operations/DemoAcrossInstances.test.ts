/**
 * Demo data across instances (issue 23, item 7; `main.ts`): two instances with `DEMO_DATA=true` on one PostgreSQL,
 * each with its own DATA_DIR. The first start seeds and writes the demo files; the second finds the database seeded
 * and writes none, so the first one's demo credentials keep working.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type ChildProduct, sharedDatabase, startChild } from "../support/ChildProduct.js"
import { testKeyEntry } from "../support/KeyEncryptionFixtures.js"
import { basicToken } from "../support/TestApp.js"

describe.runIf(TestDatabase.kinds().includes("postgres"))("demo data on an already-seeded database (PostgreSQL)", () => {
  let database: TestDatabase.TestDatabase | undefined
  const children: Array<ChildProduct> = []
  const dirs = [mkdtempSync(join(tmpdir(), "propline-demo-a-")), mkdtempSync(join(tmpdir(), "propline-demo-b-"))]

  afterAll(async () => {
    for (const child of children) child.kill()
    await database?.drop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it(
    "only the seeding start writes the demo files; the first instance's credentials still obtain a token",
    async () => {
      const shared = await sharedDatabase()
      database = shared.database
      await shared.fixtures.dispose()
      const env = (dataDir: string) => ({
        DATABASE_URL: shared.connectionString,
        KEY_ENCRYPTION_KEYS: testKeyEntry,
        DEMO_DATA: "true",
        DATA_DIR: dataDir
      })
      const first = await startChild(env(dirs[0]!))
      children.push(first)
      const file = join(dirs[0]!, "demo-credentials.json")
      expect(existsSync(file)).toBe(true)
      const second = await startChild(env(dirs[1]!))
      children.push(second)
      expect(existsSync(join(dirs[1]!, "demo-credentials.json"))).toBe(false)
      expect(existsSync(join(dirs[1]!, "demo-connector.json"))).toBe(false)
      expect(second.lines().some((line) => String(line["msg"]).startsWith("demo data already seeded"))).toBe(true)
      const credentials = JSON.parse(readFileSync(file, "utf8")) as { client_id: string; client_secret: string }
      for (const child of [first, second]) {
        expect((await basicToken(child.authUrl, credentials.client_id, credentials.client_secret)).status).toBe(200)
      }
    },
    420_000
  )
})
