/**
 * The access-token signing keys kept in the database (decisions 3: ES256, rotation keeps the previous key
 * published until every token it signed has expired; issue 19 item 7: private keys sealed at rest under the
 * key-encryption keys), on PGlite and PostgreSQL. Time is the TestClock.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Clock, Context, Effect, Layer, Option, TestClock } from "effect"
import { calculateJwkThumbprint, exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose"
import { sign } from "node:crypto"
import {
  PREPUBLICATION_SECONDS,
  REFRESH_INTERVAL_MS,
  RETIRED_KEY_RETENTION_SECONDS,
  SigningKeys
} from "../../src/identity/SigningKeys.js"
import { generateKeyEntry, KeyEncryption, type Keyring } from "../../src/platform/KeyEncryption.js"
import { hasPgDump, keyringOf, keyringOfEntries, pgDump, testKeyEntry, testKeyring } from "../support/KeyEncryptionFixtures.js"
import { anotherInstanceDb, FROZEN_AT, TestDatabaseConfig, testDatabase } from "./IdentityTestHost.js"

/**
 * A new SigningKeys instance (its own cache) over `db` with `keyring`: what another process of the service would
 * hold. Building it seals and re-seals the stored keys.
 */
const instanceOver = (db: Db.DbService, keyring: Keyring = testKeyring) =>
  Layer.build(Layer.fresh(SigningKeys.Default)).pipe(
    Effect.map((context) => Context.get(context, SigningKeys)),
    Effect.provideService(Db.Db, db),
    Effect.provideService(KeyEncryption, keyring)
  )

const storedRows = Db.query((db) =>
  db.selectFrom("signingKeys").select(["kid", "privateJwk", "privateJwkEnvelope"]).orderBy("kid").execute()
).pipe(Effect.orDie)

/** The private scalar `d` (RFC 7518 6.2.2.1) of the key an instance signs with. */
const privateScalar = (keys: SigningKeys) =>
  Effect.map(keys.current, (key) => key.keyObject.export({ format: "jwk" }).d!)

/** A token signed with the instance's current key, and a check of it against another instance's published key. */
const signed = (keys: SigningKeys) =>
  Effect.flatMap(keys.current, (key) =>
    Effect.promise(() => new SignJWT({ sub: "test" }).setProtectedHeader({ alg: "ES256", kid: key.kid }).sign(key.privateKey))
  )
const verifiesAt = (keys: SigningKeys, token: string) =>
  Effect.gen(function* () {
    const kid = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid as string
    const key = yield* keys.publicKey(kid)
    if (Option.isNone(key)) return false
    return yield* Effect.promise(() => jwtVerify(token, key.value).then(() => true, () => false))
  })

const keyRows = Db.query((db) => db.selectFrom("signingKeys").select(["kid", "retiredAt"]).execute()).pipe(
  Effect.orDie
)

/** Each case starts at the frozen time on an empty key table (instances are per case, so no cache survives). */
const freshStart = Effect.zipRight(
  TestClock.setTime(FROZEN_AT.getTime()),
  Db.query((db) => db.deleteFrom("signingKeys").execute()).pipe(Effect.orDie)
)

describe.each(TestDatabase.kinds())("signing keys on %s", (kind) => {
  // The standalone `layer`, not `it.layer`, so the second database kind does not build on the first.
  layer(testDatabase(kind), { timeout: "60 seconds" })((it) => {
    it.scoped("instances that start together on an empty database create exactly one key", () =>
      Effect.gen(function* () {
        yield* freshStart
        const db = yield* Db.Db
        const other = yield* anotherInstanceDb
        const instances = yield* Effect.all([
          instanceOver(db),
          instanceOver(db),
          instanceOver(other),
          instanceOver(other)
        ])
        const used = yield* Effect.all(
          instances.map((keys) => keys.current),
          { concurrency: "unbounded" }
        )
        expect(new Set(used.map((key) => key.kid)).size).toBe(1)
        const rows = yield* keyRows
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({ kid: used[0]!.kid, retiredAt: null })
      })
    )

    it.scoped("the kid is the RFC 7638 thumbprint; the JWKS holds public keys only", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const { kid } = yield* keys.current
        const { keys: published } = yield* keys.jwks
        const jwk = published.find((candidate) => candidate.kid === kid)!
        expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig", kid })
        expect(jwk).not.toHaveProperty("d")
        expect(yield* Effect.promise(() => calculateJwkThumbprint(jwk, "sha256"))).toBe(kid)
      })
    )

    it.scoped("rotation publishes the new key at once, signs with it after the pre-publication, and keeps the previous one published for the retention", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const previous = yield* keys.current
        const { activatesAt, kid } = yield* keys.rotate(FROZEN_AT)
        expect(kid).not.toBe(previous.kid)
        expect(activatesAt).toEqual(new Date(FROZEN_AT.getTime() + PREPUBLICATION_SECONDS * 1000))
        expect((yield* keys.jwks).keys.map((jwk) => jwk.kid)).toEqual([kid, previous.kid])
        expect(Option.isSome(yield* keys.publicKey(kid))).toBe(true)
        expect((yield* keys.current).kid).toBe(previous.kid)
        yield* TestClock.adjust(`${PREPUBLICATION_SECONDS * 1000 - 1} millis`)
        expect((yield* keys.current).kid).toBe(previous.kid)
        yield* TestClock.adjust("1 millis")
        expect((yield* keys.current).kid).toBe(kid)
        expect((yield* keys.jwks).keys.map((jwk) => jwk.kid)).toEqual([kid, previous.kid])
        expect(Option.isSome(yield* keys.publicKey(previous.kid))).toBe(true)

        yield* TestClock.adjust(`${RETIRED_KEY_RETENTION_SECONDS - 1} seconds`)
        expect((yield* keys.jwks).keys.map((jwk) => jwk.kid)).toEqual([kid, previous.kid])

        yield* TestClock.adjust("2 seconds")
        expect((yield* keys.jwks).keys.map((jwk) => jwk.kid)).toEqual([kid])
        expect(Option.isNone(yield* keys.publicKey(previous.kid))).toBe(true)
        expect(RETIRED_KEY_RETENTION_SECONDS).toBeGreaterThanOrEqual(600 + REFRESH_INTERVAL_MS / 1000)
      })
    )

    it.scoped("cachedAt answers current's key while the key list is fresh; nothing before the list is read, after a rotation or once it is stale", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const now = () => Clock.currentTimeMillis
        expect(keys.cachedAt(yield* now())).toBeUndefined()
        const first = yield* keys.current
        expect(keys.cachedAt(yield* now())).toBe(first)
        // Read at the frozen time: not for an instant before it, nor from the refresh interval after it.
        expect(keys.cachedAt((yield* now()) - 1)).toBeUndefined()
        expect(keys.cachedAt((yield* now()) + REFRESH_INTERVAL_MS - 1)).toBe(first)
        expect(keys.cachedAt((yield* now()) + REFRESH_INTERVAL_MS)).toBeUndefined()

        const { activatesAt, kid } = yield* keys.rotate(FROZEN_AT)
        expect(keys.cachedAt(yield* now())).toBeUndefined()
        expect(yield* keys.current).toBe(first)
        expect(keys.cachedAt(yield* now())).toBe(first)

        yield* TestClock.setTime(activatesAt.getTime())
        expect(keys.cachedAt(yield* now())).toBeUndefined()
        const next = yield* keys.current
        expect(next.kid).toBe(kid)
        expect(keys.cachedAt(yield* now())).toBe(next)
      })
    )

    it.scoped("another instance lists the new key within the refresh interval, and signs with it at its activation, not before", () =>
      Effect.gen(function* () {
        yield* freshStart
        const rotating = yield* instanceOver(yield* Db.Db)
        const other = yield* anotherInstanceDb
        const verifying = yield* instanceOver(other)
        const signing = yield* instanceOver(other)
        const before = yield* signing.current
        expect((yield* verifying.current).kid).toBe(before.kid)

        const { kid } = yield* rotating.rotate(FROZEN_AT)
        expect(Option.isSome(yield* verifying.publicKey(kid))).toBe(true)

        expect((yield* signing.current).kid).toBe(before.kid)
        yield* TestClock.adjust(`${REFRESH_INTERVAL_MS} millis`)
        expect((yield* signing.jwks).keys.map((jwk) => jwk.kid)).toContain(kid)
        expect((yield* signing.current).kid).toBe(before.kid)
        expect(PREPUBLICATION_SECONDS * 1000).toBeGreaterThan(REFRESH_INTERVAL_MS)
        yield* TestClock.adjust(`${PREPUBLICATION_SECONDS * 1000 - REFRESH_INTERVAL_MS} millis`)
        expect((yield* signing.current).kid).toBe(kid)
      })
    )

    it.scoped("an unknown kid finds nothing", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        expect(Option.isNone(yield* keys.publicKey("no-such-kid"))).toBe(true)
        expect(Option.isNone(yield* keys.publicKey("no-such-kid"))).toBe(true)
      })
    )

    it.scoped("no private key is stored in plaintext: each is sealed under the key-encryption key, and a pg_dump holds neither", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const scalars = [yield* privateScalar(keys)]
        yield* keys.rotate(FROZEN_AT)
        scalars.push(yield* privateScalar(keys))
        const rows = yield* storedRows
        expect(rows).toHaveLength(2)
        for (const row of rows) {
          expect(row.privateJwk).toBeNull()
          expect(row.privateJwkEnvelope).toMatch(/^v1\.test\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
        }
        const table = JSON.stringify(yield* Db.query((db) => db.selectFrom("signingKeys").selectAll().execute()).pipe(Effect.orDie))
        for (const d of scalars) expect(table).not.toContain(d)
        const config = yield* TestDatabaseConfig
        if (config._tag === "postgres" && hasPgDump()) {
          const dump = pgDump(config.connectionString)
          expect(dump).toContain(rows[0]!.privateJwkEnvelope)
          for (const d of scalars) expect(dump).not.toContain(d)
          expect(dump).not.toMatch(/"d"\s*:/)
        }
      })
    )

    it.scoped("after a restart with the same key-encryption key, the same key signs and earlier tokens verify", () =>
      Effect.gen(function* () {
        yield* freshStart
        const before = yield* instanceOver(yield* Db.Db)
        const token = yield* signed(before)
        const restarted = yield* instanceOver(yield* anotherInstanceDb)
        expect((yield* restarted.current).kid).toBe((yield* before.current).kid)
        expect(yield* verifiesAt(restarted, token)).toBe(true)
        expect(yield* verifiesAt(before, yield* signed(restarted))).toBe(true)
        expect(yield* storedRows).toHaveLength(1)
      })
    )

    it.scoped("rotating the key-encryption key re-seals every row under the new one; earlier tokens still verify", () =>
      Effect.gen(function* () {
        yield* freshStart
        const before = yield* instanceOver(yield* Db.Db)
        const first = yield* signed(before)
        yield* before.rotate(FROZEN_AT)
        const second = yield* signed(before)
        const nextEntry = generateKeyEntry("next")

        // Step 2 of the rotation in docs/operations.md: the new key first, the old one still listed.
        const rotated = yield* instanceOver(yield* anotherInstanceDb, keyringOfEntries(nextEntry, testKeyEntry))
        for (const row of yield* storedRows) expect(row.privateJwkEnvelope).toMatch(/^v1\.next\./)
        expect(yield* verifiesAt(rotated, first)).toBe(true)
        expect(yield* verifiesAt(rotated, second)).toBe(true)
        expect((yield* rotated.current).kid).toBe((yield* before.current).kid)

        // Step 3: the old key dropped.
        const onlyNext = yield* instanceOver(yield* anotherInstanceDb, keyringOfEntries(nextEntry))
        expect(yield* verifiesAt(onlyNext, yield* signed(onlyNext))).toBe(true)
        expect(yield* verifiesAt(before, yield* signed(onlyNext))).toBe(true)
        const error = yield* Effect.flip(instanceOver(yield* Db.Db, testKeyring))
        expect(error.message).toContain(`sealed under the key-encryption key "next", which KEY_ENCRYPTION_KEYS does not list`)
      })
    )

    it.scoped("a wrong key-encryption key fails the build with a sentence, and no key is replaced", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const { kid } = yield* keys.current
        const stored = yield* storedRows

        const sameId = yield* Effect.flip(instanceOver(yield* Db.Db, keyringOf("test")))
        expect(sameId._tag).toBe("KeyEncryptionError")
        expect(sameId.message).toBe(
          `the key-encryption key "test" in KEY_ENCRYPTION_KEYS does not open the stored signing_keys:${kid}: it is not the key the row was sealed under (or the row was altered)`
        )
        const otherId = yield* Effect.flip(instanceOver(yield* Db.Db, keyringOf("other")))
        expect(otherId.message).toBe(
          `the stored signing_keys:${kid} is sealed under the key-encryption key "test", which KEY_ENCRYPTION_KEYS does not list (it lists "other"): start with the key it was sealed under`
        )
        expect(yield* storedRows).toEqual(stored)
      })
    )

    it.scoped("a key stored in plaintext before keys were sealed is sealed at the next start, and keeps signing", () =>
      Effect.gen(function* () {
        yield* freshStart
        const { privateKey, publicKey } = yield* Effect.promise(() => generateKeyPair("ES256", { extractable: true }))
        const publicJwk = yield* Effect.promise(() => exportJWK(publicKey))
        const kid = yield* Effect.promise(() => calculateJwkThumbprint(publicJwk, "sha256"))
        const privateJwk = { ...(yield* Effect.promise(() => exportJWK(privateKey))), kid, alg: "ES256" }
        yield* Db.query((db) =>
          db
            .insertInto("signingKeys")
            .values({
              kid,
              algorithm: "ES256",
              privateJwk,
              privateJwkEnvelope: null,
              publicJwk: { ...publicJwk, kid, alg: "ES256", use: "sig" },
              createdAt: FROZEN_AT,
              retiredAt: null
            })
            .execute()
        ).pipe(Effect.orDie)

        const keys = yield* instanceOver(yield* Db.Db)
        expect(yield* storedRows).toEqual([{ kid, privateJwk: null, privateJwkEnvelope: expect.stringMatching(/^v1\.test\./) }])
        expect((yield* keys.current).kid).toBe(kid)
        expect(yield* privateScalar(keys)).toBe(privateJwk.d)
      })
    )

    it.scoped("the signing key is built without a Node.js deprecation warning (DEP0204: KeyObject.from of a non-extractable CryptoKey)", () =>
      Effect.gen(function* () {
        yield* freshStart
        const warnings: Array<string> = []
        const listener = (warning: Error & { code?: string }) => warnings.push(`${warning.code ?? warning.name}: ${warning.message}`)
        yield* Effect.acquireRelease(
          Effect.sync(() => process.on("warning", listener)),
          () => Effect.sync(() => process.off("warning", listener))
        )
        const keys = yield* instanceOver(yield* Db.Db)
        const key = yield* keys.current
        expect(sign("sha256", Buffer.from("payload"), { key: key.keyObject, dsaEncoding: "ieee-p1363" })).toHaveLength(64)
        // Warnings are emitted on a later tick.
        yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
        expect(warnings.filter((warning) => warning.startsWith("DEP0204"))).toEqual([])
      })
    )
  })
})
