/**
 * The API host's bearer check as an attacker holding the identity host's signing key would probe it, black box over
 * HTTP on PGlite and PostgreSQL (spec 5 and 8; decisions 3; RFC 7519 4.1.3; RFC 9068). Every token here is signed
 * with the real active key, so only the claims decide: a lifetime beyond 600 s is refused, a claim that is not a
 * UUID where one is due is 401 (never 500), and an `aud` array that contains the API is accepted.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { type CryptoKey, importJWK, type JWK, type JWTPayload, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { KeyEncryption } from "../../src/platform/KeyEncryption.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("bearer tokens over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let client: { readonly id: string; readonly clientId: string }
  let signingKey: { readonly kid: string; readonly key: CryptoKey }

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const created = await app.run(Fixtures.application(org))
    client = created
    // A token request makes sure the first signing key exists.
    await token(app.authUrl, created.clientId, created.secret)
    // The private key is sealed at rest (issue 19 item 7): opened with the test's key-encryption key.
    const { kid, privateJwk } = await app.run(
      Effect.gen(function* () {
        const row = yield* Db.query((db) =>
          db.selectFrom("signingKeys").select(["kid", "privateJwkEnvelope"]).where("retiredAt", "is", null).executeTakeFirstOrThrow()
        )
        const keyring = yield* KeyEncryption
        const json = yield* keyring.open(row.privateJwkEnvelope!, `signing_keys:${row.kid}`)
        return { kid: row.kid, privateJwk: JSON.parse(json) as JWK }
      })
    )
    signingKey = { kid, key: (await importJWK(privateJwk, "ES256")) as CryptoKey }
  })
  afterAll(async () => {
    await app?.dispose()
  })

  const claims = (overrides: JWTPayload = {}): JWTPayload => {
    const now = Math.floor(Date.now() / 1000)
    return {
      iss: app.authUrl,
      sub: client.id,
      aud: app.apiUrl,
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
      client_id: client.clientId,
      org: org.organizationId,
      roles: ["billing"],
      ctx: [org.rootId],
      ...overrides
    }
  }

  const signed = (payload: JWTPayload) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: signingKey.kid })
      .sign(signingKey.key)

  const contexts = async (payload: JWTPayload) =>
    call(`${app.apiUrl}/v1/operational-contexts`, { token: await signed(payload) })

  const expectUnauthorized = (answer: Awaited<ReturnType<typeof call>>) => {
    expect(answer.status).toBe(401)
    expect(answer.headers.get("content-type")).toContain("application/problem+json")
    expect(answer.body).toMatchObject({ status: 401, title: "Unauthorized" })
  }

  it("accepts a well-formed token signed by the identity host's key", async () => {
    expect((await contexts(claims())).status).toBe(200)
  })

  describe("lifetime: exp − iat is at most 600 s (spec 5.1 and 8)", () => {
    it("accepts exactly 600 s", async () => {
      const now = Math.floor(Date.now() / 1000)
      expect((await contexts(claims({ iat: now - 10, exp: now + 590 }))).status).toBe(200)
    })

    it.each([
      ["601 s", 601],
      ["one year", 365 * 24 * 3600]
    ])("refuses %s with 401", async (_, lifetime) => {
      const now = Math.floor(Date.now() / 1000)
      expectUnauthorized(await contexts(claims({ iat: now, exp: now + lifetime })))
    })

    it("refuses exp not after iat with 401", async () => {
      const now = Math.floor(Date.now() / 1000)
      expectUnauthorized(await contexts(claims({ iat: now, exp: now })))
    })
  })

  describe("claims that must be UUIDs are 401, never 500", () => {
    it.each<readonly [string, JWTPayload]>([
      ["a context that is not a UUID", { ctx: ["not-a-uuid"] }],
      ["a context with a NUL", { ctx: ["\u0000"] }],
      ["a UUID context beside one that is not", { ctx: [randomUUID(), "1"] }],
      ["an organization that is not a UUID", { org: "not-a-uuid" }],
      ["contexts that are not an array", { ctx: "00000000-0000-4000-8000-000000000000" }]
    ])("%s", async (_, overrides) => {
      expectUnauthorized(await contexts(claims(overrides)))
    })
  })

  describe("aud (RFC 7519 4.1.3)", () => {
    it("accepts an array that contains the API's address", async () => {
      expect((await contexts(claims({ aud: ["https://elsewhere.test", app.apiUrl] }))).status).toBe(200)
    })

    it.each<readonly [string, (apiUrl: string) => string | Array<string>]>([
      ["an array without the API's address", () => ["https://elsewhere.test"]],
      ["an empty array", () => []],
      ["another address", () => "https://elsewhere.test"],
      ["the address with a trailing slash", (apiUrl) => `${apiUrl}/`]
    ])("refuses %s", async (_, aud) => {
      expectUnauthorized(await contexts(claims({ aud: aud(app.apiUrl) })))
    })
  })
})
