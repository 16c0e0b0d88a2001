/**
 * The benchmark's installation-grant baseline runs against the real schema (PostgreSQL; the baseline uses pg):
 * a fresh assertion gets a token, a replay is refused, a suspended installation is invalid_grant, and the app's
 * rate limit counts the fresh assertion only (`CONSUME_ADMIT_SQL`). Guards the copied SQL against schema changes.
 */
import { makeKysely } from "@propline/db/Db"
import { migrateToLatest } from "@propline/db/Migrations"
import * as TestDatabase from "@propline/db/TestDatabase"
import { generateKeyPairSync, randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAssertionMinter } from "../src/InstallationAssertion.js"
import { installationGrantBaseline } from "../src/internal/InstallationGrantBaseline.js"

describe.runIf(TestDatabase.kinds().includes("postgres"))("the installation-grant baseline on postgres", () => {
  let database: TestDatabase.TestDatabase
  let pool: pg.Pool
  const appId = "bench-connector"
  const installationId = randomUUID()
  const organizationId = randomUUID()
  const contextId = randomUUID()
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const privateJwk = { ...privateKey.export({ format: "jwk" }), kid: "k1", alg: "ES256" }
  const authUrl = "http://127.0.0.1:4999"

  beforeAll(async () => {
    database = await TestDatabase.create("postgres")
    if (database.config._tag !== "postgres") throw new Error("expected PostgreSQL")
    const kysely = await makeKysely(database.config)
    await migrateToLatest(kysely.withoutPlugins() as unknown as Parameters<typeof migrateToLatest>[0])
    await kysely.destroy()
    pool = new pg.Pool({ connectionString: database.config.connectionString, max: 2 })
    const now = new Date()
    const { d: _d, alg: _alg, ...publicJwk } = privateJwk
    await pool.query("insert into organizations (id, name, country, created_at, updated_at) values ($1, 'Bench', 'SE', $2, $2)", [organizationId, now])
    await pool.query(
      "insert into operational_contexts (id, organization_id, parent_id, kind, name, created_at, updated_at) values ($1, $2, null, 'organization', 'Bench', $3, $3)",
      [contextId, organizationId, now]
    )
    await pool.query("insert into connector_apps (id, name, setup_url, created_at, updated_at) values ($1, 'Bench', 'https://x.example', $2, $2)", [appId, now])
    await pool.query(
      "insert into connector_app_keys (app_id, kid, public_jwk, status, added_at, retired_at) values ($1, 'k1', $2, 'active', $3, null)",
      [appId, publicJwk, now]
    )
    await pool.query(
      "insert into installations (id, app_id, organization_id, status, roles, created_at, updated_at) values ($1, $2, $3, 'active', '{billing,integrations}', $4, $4)",
      [installationId, appId, organizationId, now]
    )
    await pool.query("insert into installation_contexts (installation_id, operational_context_id) values ($1, $2)", [installationId, contextId])
  })
  afterAll(async () => {
    await pool?.end()
    await database?.drop()
  })

  const handler = () =>
    installationGrantBaseline({
      pool,
      tokenEndpoint: `${authUrl}/oauth/token`,
      issuer: authUrl,
      audience: "http://127.0.0.1:3999",
      signToken: (claims) => JSON.stringify(claims)
    })
  const minter = createAssertionMinter({ app_id: appId, installation_id: installationId, private_jwk: privateJwk, auth_url: authUrl, base_url: "" })

  it("issues a token for a fresh assertion and refuses its replay", async () => {
    const grant = handler()
    const form = new URLSearchParams(minter.requestBody())
    const reply = await grant(form)
    expect(reply.status).toBe(200)
    const claims = JSON.parse((reply.body as { access_token: string }).access_token) as Record<string, unknown>
    expect(claims).toMatchObject({ sub: installationId, client_id: appId, org: organizationId, roles: ["billing", "integrations"], ctx: [contextId] })
    expect(await grant(form)).toEqual({ status: 401, body: { error: "invalid_client" } })
    const window = await pool.query<{ n: number }>("select cardinality(admitted_at) as n from token_rate_limits where client_id = $1", [appId])
    expect(window.rows).toEqual([{ n: 1 }])
  })

  it("answers invalid_grant for a suspended installation", async () => {
    await pool.query("update installations set status = 'suspended' where id = $1", [installationId])
    expect(await handler()(new URLSearchParams(minter.requestBody()))).toEqual({ status: 400, body: { error: "invalid_grant" } })
  })
})
