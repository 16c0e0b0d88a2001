/**
 * The demo connector (issue 7 item 5) against a real database (PGlite and PostgreSQL): registered with a key pair,
 * installed with every role over the demo organization, `DATA_DIR/demo-connector.json` written with exactly the
 * documented keys; a matching file is kept, a stale one replaced, a second instance's file coexists.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, ManagedRuntime } from "effect"
import { calculateJwkThumbprint } from "jose"
import { createHash } from "node:crypto"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemoData } from "../../src/demo/DemoData.js"
import { DEMO_IDS } from "../../src/demo/DemoIds.js"
import {
  DEMO_CONNECTOR_APP_ID,
  DEMO_CONNECTOR_FILE,
  type DemoConnector,
  demoConnectorBanner,
  ensureDemoConnector
} from "../../src/demo/identity/DemoConnector.js"
import { InstallationService } from "../../src/identity/InstallationService.js"
import { InstallationServiceLive } from "../../src/integrations/InstallationRemovalLive.js"

const NOW = new Date("2026-11-22T10:00:00.000Z")
const AUTH_URL = "http://localhost:4000"
const BASE_URL = "http://localhost:3000"

describe.each(TestDatabase.kinds())("the demo connector on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)
  let scratch: string
  const ensure = (dataDir: string, urls: { readonly authUrl?: string } = {}) =>
    run(
      ensureDemoConnector({
        dataDir,
        authUrl: urls.authUrl ?? AUTH_URL,
        baseUrl: BASE_URL,
        organizationId: DEMO_IDS.organization,
        rootContextId: DEMO_IDS.rootContext
      })
    )
  const activeKids = () =>
    run(
      Db.query((db) =>
        db
          .selectFrom("connectorAppKeys")
          .select("kid")
          .where("appId", "=", DEMO_CONNECTOR_APP_ID)
          .where("status", "=", "active")
          .orderBy("addedAt")
          .execute()
      )
    ).then((rows) => rows.map((row) => row.kid))

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    await run(seedDemoData(NOW))
    scratch = await mkdtemp(join(tmpdir(), "demo-connector-"))
  })
  afterAll(async () => {
    await managed?.dispose()
    await database?.drop()
    await rm(scratch, { recursive: true, force: true })
  })

  let first: DemoConnector
  const dataDir = () => join(scratch, "first")

  it("registers the app, installs it with every role over the organization, and writes the file (mode 0600)", async () => {
    first = await ensure(dataDir())
    const file = JSON.parse(await readFile(join(dataDir(), DEMO_CONNECTOR_FILE), "utf8")) as Record<string, unknown>
    expect(Object.keys(file)).toStrictEqual(["app_id", "installation_id", "private_jwk", "auth_url", "base_url", "connection_reference"])
    expect(file["connection_reference"]).toMatch(/^icr_[A-Za-z0-9_-]{43}$/)
    expect(file).toMatchObject({ app_id: DEMO_CONNECTOR_APP_ID, installation_id: first.installation_id, auth_url: AUTH_URL, base_url: BASE_URL })
    const jwk = first.private_jwk
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" })
    expect(jwk.kid).toBe(await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, "sha256"))
    expect((await stat(join(dataDir(), DEMO_CONNECTOR_FILE))).mode & 0o777).toBe(0o600)
    const installation = await run(
      Db.query((db) => db.selectFrom("installations").selectAll().where("id", "=", first.installation_id).executeTakeFirstOrThrow())
    )
    expect(installation).toMatchObject({ appId: DEMO_CONNECTOR_APP_ID, organizationId: DEMO_IDS.organization, status: "active" })
    expect(installation.roles).toEqual(["billing", "signing", "booking", "integrations"])
    expect(await activeKids()).toEqual([jwk.kid])
  })

  it("the banner names the file, never the private key or the connection reference", async () => {
    const banner = demoConnectorBanner(first)
    expect(banner).toContain(first.app_id)
    expect(banner).toContain(first.installation_id)
    expect(banner).toContain(join(dataDir(), DEMO_CONNECTOR_FILE))
    expect(banner).not.toContain(first.connection_reference)
    expect(banner).not.toContain(first.private_jwk.d)
  })

  it("keeps the key of a file that still matches, with new addresses and a fresh connection reference", async () => {
    const again = await ensure(dataDir())
    expect({ ...again, connection_reference: first.connection_reference }).toStrictEqual(first)
    expect(again.connection_reference).not.toBe(first.connection_reference)
    const moved = await ensure(dataDir(), { authUrl: "http://localhost:4100" })
    expect({ ...moved, auth_url: AUTH_URL, connection_reference: first.connection_reference }).toStrictEqual(first)
    expect(await activeKids()).toEqual([first.private_jwk.kid])
    const file = JSON.parse(await readFile(join(dataDir(), DEMO_CONNECTOR_FILE), "utf8")) as Record<string, unknown>
    expect(file["connection_reference"]).toBe(moved.connection_reference)
  })

  it("keeps one signing configuration waiting for Connect, and issues a reference for it on every start", async () => {
    const configurations = await run(
      Db.query((db) =>
        db
          .selectFrom("integrationConfigurations")
          .select(["id", "kind", "status"])
          .where("installationId", "=", first.installation_id)
          .orderBy("kind")
          .execute()
      )
    )
    expect(configurations.map(({ kind, status }) => ({ kind, status }))).toStrictEqual([
      { kind: "billing", status: "ready" },
      { kind: "signing", status: "pending" }
    ])
    const signing = configurations.find((configuration) => configuration.kind === "signing")
    const latest = await ensure(dataDir())
    const references = await run(
      Db.query((db) =>
        db
          .selectFrom("integrationConnectionReferences")
          .select("digest")
          .where("configurationId", "=", signing?.id ?? "")
          .execute()
      )
    )
    // One per start so far: the first, the two of the test before, and this one.
    expect(references).toHaveLength(4)
    expect(references.map((reference) => reference.digest)).toContain(
      createHash("sha256").update(latest.connection_reference).digest("hex")
    )
    first = latest
  })

  it("a second instance with its own DATA_DIR gets its own key; both files keep working; a third retires the oldest", async () => {
    const second = await ensure(join(scratch, "second"))
    expect(second.installation_id).toBe(first.installation_id)
    expect(second.private_jwk.kid).not.toBe(first.private_jwk.kid)
    expect(await activeKids()).toEqual([first.private_jwk.kid, second.private_jwk.kid])
    const third = await ensure(join(scratch, "third"))
    expect(await activeKids()).toEqual([second.private_jwk.kid, third.private_jwk.kid])
    // The first file's key was retired: it is replaced on the next start.
    const replaced = await ensure(dataDir())
    expect(replaced.private_jwk.kid).not.toBe(first.private_jwk.kid)
    first = replaced
  })

  it("replaces a malformed file, and resumes or reinstalls the installation", async () => {
    await writeFile(join(dataDir(), DEMO_CONNECTOR_FILE), "{ not json")
    const fresh = await ensure(dataDir())
    expect(fresh.private_jwk.kid).not.toBe(first.private_jwk.kid)
    const actor = { type: "operator", id: "op" } as const
    const installations = <A, E>(f: (service: InstallationService) => Effect.Effect<A, E, Db.Db>) =>
      run(Effect.flatMap(InstallationService, f).pipe(Effect.provide(InstallationServiceLive), Effect.orDie))
    await installations((service) => service.suspend(fresh.installation_id, actor))
    expect((await ensure(dataDir())).installation_id).toBe(fresh.installation_id)
    const status = () =>
      run(Db.query((db) => db.selectFrom("installations").select("status").where("id", "=", fresh.installation_id).executeTakeFirstOrThrow()))
    expect((await status()).status).toBe("active")
    await installations((service) => service.remove(fresh.installation_id, actor))
    const reinstalled = await ensure(dataDir())
    expect(reinstalled.installation_id).not.toBe(fresh.installation_id)
  })
})
