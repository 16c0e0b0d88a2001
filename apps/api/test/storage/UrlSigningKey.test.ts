/**
 * The URL-signing key sealed at rest (issue 19, item 7), on PGlite and PostgreSQL: `url_signing_keys` holds only an
 * envelope under the key-encryption key, never the HMAC key; a key stored in plaintext before is sealed at start and
 * keeps its addresses valid; rotating the key-encryption key re-seals it and addresses given out before still verify;
 * a wrong key-encryption key fails the signer's build and replaces nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Context, Effect, Either, Layer } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { generateKeyEntry, KeyEncryption, type Keyring } from "../../src/platform/KeyEncryption.js"
import { UrlSigner } from "../../src/storage/UrlSigner.js"
import { TestDatabaseConfig, testDatabase } from "../identity/IdentityTestHost.js"
import { hasPgDump, keyringOf, keyringOfEntries, pgDump, testKeyEntry, testKeyring } from "../support/KeyEncryptionFixtures.js"

const NOW = new Date("2026-11-26T09:00:00.000Z")
const EXPIRES_AT = new Date(NOW.getTime() + 900_000)
const PARTS = ["PUT", "6d1e1f9a-2b3c-4d5e-8f90-a1b2c3d4e5f6", "48213", "ab".repeat(32)]

/** A new signer over the test database with `keyring`, as a starting instance builds it. */
const signerWith = (keyring: Keyring) =>
  Layer.build(Layer.fresh(UrlSigner.Default)).pipe(
    Effect.map((context) => Context.get(context, UrlSigner)),
    Effect.provideService(KeyEncryption, keyring)
  )

const storedRow = Db.query((db) => db.selectFrom("urlSigningKeys").selectAll().where("id", "=", "default").executeTakeFirstOrThrow()).pipe(
  Effect.orDie
)

const freshStart = Db.query((db) => db.deleteFrom("urlSigningKeys").execute()).pipe(Effect.orDie)

describe.each(TestDatabase.kinds())("the URL-signing key on %s", (kind) => {
  layer(testDatabase(kind), { timeout: "60 seconds" })((it) => {
    it.scoped("is stored sealed: neither the table nor a pg_dump holds the HMAC key", () =>
      Effect.gen(function* () {
        yield* freshStart
        const signer = yield* signerWith(testKeyring)
        const params = signer.sign(PARTS, EXPIRES_AT)
        const row = yield* storedRow
        expect(row.secret).toBeNull()
        expect(row.secretEnvelope).toMatch(/^v1\.test\./)
        // The key the envelope holds is the one that signs (so the assertions below look for the right bytes).
        const key = Either.getOrThrow(testKeyring.open(row.secretEnvelope!, "url_signing_keys:default"))
        const mac = createHmac("sha256", Buffer.from(key, "base64url")).update([...PARTS, params.expires].join("\n")).digest("base64url")
        expect(mac).toBe(params.signature)
        const hex = Buffer.from(key, "base64url").toString("hex")
        expect(JSON.stringify(row)).not.toContain(key)
        const config = yield* TestDatabaseConfig
        if (config._tag === "postgres" && hasPgDump()) {
          const dump = pgDump(config.connectionString)
          expect(dump).toContain(row.secretEnvelope)
          expect(dump).not.toContain(key)
          expect(dump).not.toContain(hex)
        }
      })
    )

    it.scoped("a key stored in plaintext before is sealed at start, and the addresses it signed still verify", () =>
      Effect.gen(function* () {
        yield* freshStart
        const legacy = randomBytes(32)
        yield* Db.query((db) =>
          db.insertInto("urlSigningKeys").values({ id: "default", secret: legacy.toString("base64url"), secretEnvelope: null, createdAt: NOW }).execute()
        ).pipe(Effect.orDie)
        const expires = String(Math.ceil(EXPIRES_AT.getTime() / 1000))
        const signature = createHmac("sha256", legacy).update([...PARTS, expires].join("\n")).digest("base64url")

        const signer = yield* signerWith(testKeyring)
        expect(signer.verify(PARTS, { expires, signature }, NOW)).toBe("valid")
        const row = yield* storedRow
        expect(row.secret).toBeNull()
        expect(row.secretEnvelope).toMatch(/^v1\.test\./)
      })
    )

    it.scoped("rotating the key-encryption key re-seals it; addresses given out before still verify", () =>
      Effect.gen(function* () {
        yield* freshStart
        const before = yield* signerWith(testKeyring)
        const params = before.sign(PARTS, EXPIRES_AT)
        const nextEntry = generateKeyEntry("next")
        const rotated = yield* signerWith(keyringOfEntries(nextEntry, testKeyEntry))
        expect((yield* storedRow).secretEnvelope).toMatch(/^v1\.next\./)
        expect(rotated.verify(PARTS, params, NOW)).toBe("valid")
        const onlyNext = yield* signerWith(keyringOfEntries(nextEntry))
        expect(onlyNext.verify(PARTS, params, NOW)).toBe("valid")
        expect(before.verify(PARTS, onlyNext.sign(PARTS, EXPIRES_AT), NOW)).toBe("valid")
      })
    )

    it.scoped("a wrong key-encryption key fails the build with a sentence, and the key is not replaced", () =>
      Effect.gen(function* () {
        yield* freshStart
        yield* signerWith(testKeyring)
        const stored = yield* storedRow
        const error = yield* Effect.flip(signerWith(keyringOf("test")))
        expect(error.message).toBe(
          `the key-encryption key "test" in KEY_ENCRYPTION_KEYS does not open the stored url_signing_keys:default: it is not the key the row was sealed under (or the row was altered)`
        )
        expect(yield* storedRow).toEqual(stored)
      })
    )
  })
})
