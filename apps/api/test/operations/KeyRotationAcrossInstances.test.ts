/**
 * Key rotation across instances (issue 23, item 7; `identity/SigningKeys`): two instances of the built product on one
 * PostgreSQL; after a rotation, the new key is in both instances' JWKS before either signs a token with it, both
 * switch to it once it activates, and every token either issues verifies on the other's API host throughout.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { decodeProtectedHeader } from "jose"
import { afterAll, describe, expect, it } from "vitest"
import { PREPUBLICATION_SECONDS, REFRESH_INTERVAL_MS } from "../../src/identity/SigningKeys.js"
import { rotateSigningKey } from "../../src/identity/SigningKeyRotation.js"
import { type ChildProduct, sharedDatabase, startChild } from "../support/ChildProduct.js"
import * as Fixtures from "../support/Fixtures.js"
import { testKeyEntry } from "../support/KeyEncryptionFixtures.js"
import { call, token } from "../support/TestApp.js"

const jwksKids = async (authUrl: string): Promise<ReadonlyArray<string>> =>
  ((await (await fetch(`${authUrl}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map(
    (key) => key.kid
  )

describe.runIf(TestDatabase.kinds().includes("postgres"))("a key rotation seen by two instances (PostgreSQL)", () => {
  let database: TestDatabase.TestDatabase | undefined
  const children: Array<ChildProduct> = []

  afterAll(async () => {
    for (const child of children) child.kill()
    await database?.drop()
  }, 60_000)

  it(
    "every instance's JWKS lists the new key before any instance signs with it; no verification fails",
    async () => {
      const shared = await sharedDatabase()
      database = shared.database
      const org = await shared.fixtures.runPromise(Fixtures.organization({ name: "Rotating" }))
      const client = await shared.fixtures.runPromise(Fixtures.application(org, { roles: ["billing"] }))
      // One deployment behind a load balancer: both instances have the same public addresses (issuer, audience).
      const env = {
        DATABASE_URL: shared.connectionString,
        KEY_ENCRYPTION_KEYS: testKeyEntry,
        BASE_URL: "https://api.propline.test",
        AUTH_URL: "https://auth.propline.test"
      }
      children.push(...(await Promise.all([startChild(env), startChild(env)])))
      const [a, b] = children as [ChildProduct, ChildProduct]
      const oldKid = decodeProtectedHeader(await token(a.authUrl, client.clientId, client.secret)).kid

      const rotation = await shared.fixtures.runPromise(rotateSigningKey)
      expect(rotation.previousKid).toBe(oldKid)
      const listedAt = new Map<ChildProduct, number>()
      let firstSignedAt: number | undefined
      const failures: Array<string> = []
      const until = rotation.activatesAt.getTime() + REFRESH_INTERVAL_MS
      for (let round = 0; Date.now() < until; round++) {
        for (const child of [a, b]) {
          if (!listedAt.has(child) && (await jwksKids(child.authUrl)).includes(rotation.kid)) listedAt.set(child, Date.now())
        }
        if (round % 4 === 0) {
          // At most ~50 tokens in the window: under the client's 60 per 60 s.
          const [issuer, verifier] = round % 8 === 0 ? [a, b] : [b, a]
          const issued = await token(issuer.authUrl, client.clientId, client.secret)
          const kid = decodeProtectedHeader(issued).kid
          if (kid === rotation.kid) firstSignedAt ??= Date.now()
          const answer = await call(`${verifier.apiUrl}/v1/billing/send-queue`, { token: issued })
          if (answer.status !== 200) failures.push(`${kid}: ${answer.status}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(failures).toEqual([])
      expect(listedAt.size).toBe(2)
      expect(firstSignedAt).toBeDefined()
      expect(Math.max(...listedAt.values())).toBeLessThan(firstSignedAt!)
      expect(firstSignedAt!).toBeGreaterThanOrEqual(rotation.activatesAt.getTime())
      for (const child of [a, b]) {
        expect(decodeProtectedHeader(await token(child.authUrl, client.clientId, client.secret)).kid).toBe(rotation.kid)
        expect(await jwksKids(child.authUrl)).toEqual([rotation.kid, oldKid])
      }
      expect(PREPUBLICATION_SECONDS * 1000).toBeGreaterThan(REFRESH_INTERVAL_MS)
      await shared.fixtures.dispose()
    },
    420_000
  )
})
