/**
 * The demo operator and `DATA_DIR/demo-operator.json` (issue 11): written with exactly email, password and
 * admin_url, mode 0600; the password signs in (its argon2id hash is what the database keeps); kept across
 * restarts; a file whose password no longer matches gets a new password (audited).
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, ManagedRuntime } from "effect"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifyPassword } from "../../src/admin/Passwords.js"
import { DEMO_OPERATOR_EMAIL, DEMO_OPERATOR_FILE, ensureDemoOperator, printOperatorBanner } from "../../src/demo/DemoOperator.js"
import * as Fixtures from "../support/Fixtures.js"

const ADMIN_URL = "http://localhost:5000"

describe.each(TestDatabase.kinds())("ensureDemoOperator on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)
  let organizationId: string
  let dataDir: string
  const filePath = () => join(dataDir, DEMO_OPERATOR_FILE)
  const ensure = (adminUrl = ADMIN_URL) => run(ensureDemoOperator({ dataDir, adminUrl, organizationId, now: Fixtures.NOW }))
  const storedHash = () =>
    run(Db.query((db) => db.selectFrom("operators").select(["passwordHash", "organizationId"]).where("email", "=", DEMO_OPERATOR_EMAIL).executeTakeFirstOrThrow()))

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    organizationId = (await run(Fixtures.organization({ name: "Nordhavn" }))).organizationId
    dataDir = join(await mkdtemp(join(tmpdir(), "demo-operator-")), "missing", ".data")
  })
  afterAll(async () => {
    await managed?.dispose()
    await database?.drop()
  })

  it("creates the operator and writes exactly {email, password, admin_url} with mode 0600, creating DATA_DIR", async () => {
    const operator = await ensure()
    const file = JSON.parse(await readFile(filePath(), "utf8")) as Record<string, unknown>
    expect(Object.keys(file)).toEqual(["email", "password", "admin_url"])
    expect(file).toEqual({ email: DEMO_OPERATOR_EMAIL, password: operator.password, admin_url: ADMIN_URL })
    expect((await stat(filePath())).mode & 0o777).toBe(0o600)
    const stored = await storedHash()
    expect(stored.organizationId).toBe(organizationId)
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(await Effect.runPromise(verifyPassword(stored.passwordHash, operator.password))).toBe(true)
  })

  it("keeps the password on a restart, and follows a new admin_url", async () => {
    const first = JSON.parse(await readFile(filePath(), "utf8")) as { password: string }
    expect((await ensure()).password).toBe(first.password)
    const moved = await ensure("https://admin.example.test")
    expect(moved.password).toBe(first.password)
    expect(JSON.parse(await readFile(filePath(), "utf8"))).toMatchObject({ admin_url: "https://admin.example.test" })
  })

  it("sets a new password, audited, when the file's no longer signs in", async () => {
    await writeFile(filePath(), JSON.stringify({ email: DEMO_OPERATOR_EMAIL, password: "stale", admin_url: ADMIN_URL }))
    const audited = () =>
      run(
        Db.query((db) =>
          db.selectFrom("auditLog").select((eb) => eb.fn.countAll<number>().as("n")).where("action", "=", "operator.password_set").executeTakeFirstOrThrow()
        )
      ).then((row) => Number(row.n))
    const before = await audited()
    const operator = await ensure()
    expect(operator.password).not.toBe("stale")
    expect(await Effect.runPromise(verifyPassword((await storedHash()).passwordHash, operator.password))).toBe(true)
    expect(await audited()).toBe(before + 1)
    await rm(filePath())
    const again = await ensure()
    expect(JSON.parse(await readFile(filePath(), "utf8"))).toMatchObject({ password: again.password })
  })

  it("prints the console's address, the e-mail address and the password's file in the banner, never the password", async () => {
    const operator = await ensure()
    const banner = printOperatorBanner(operator)
    expect(banner).toContain(`Admin console             ${ADMIN_URL}`)
    expect(banner).toContain(`sign in as  ${DEMO_OPERATOR_EMAIL}`)
    expect(banner).toContain(`password    in ${filePath()}`)
    expect(banner).not.toContain(operator.password)
  })

  it("prints a single-use invitation link for the demo's teammate, a new one at each start (issue 25)", async () => {
    const first = await ensure()
    const second = await ensure()
    expect(printOperatorBanner(second)).toContain(`${ADMIN_URL}/invitation#`)
    expect(second.inviteUrl).toMatch(new RegExp(`^${ADMIN_URL}/invitation#[A-Za-z0-9_-]{43}$`))
    expect(second.inviteUrl).not.toBe(first.inviteUrl)
  })
})
