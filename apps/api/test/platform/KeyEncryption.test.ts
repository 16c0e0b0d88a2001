/**
 * Key-encryption keys (issue 19, item 7): the `KEY_ENCRYPTION_KEYS` syntax, AES-256-GCM envelopes (NIST SP 800-38D)
 * that open only with the key and for the record they were sealed for, re-sealing under the primary key, and where
 * the keys come from at start-up (the environment; PGlite's DATA_DIR file, made once with mode 0600; a refusal on
 * PostgreSQL without them).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppConfig, make } from "../../src/platform/AppConfig.js"
import {
  generateKeyEntry,
  KEY_ENCRYPTION_KEYS_FILE,
  KeyEncryption,
  parseKeyring,
  resealed
} from "../../src/platform/KeyEncryption.js"
import { keyringOf, keyringOfEntries } from "../support/KeyEncryptionFixtures.js"

const CONTEXT = "signing_keys:kid-1"

describe("parseKeyring", () => {
  it("reads <id>:<32 bytes> entries, the first one sealing, in base64url or base64", () => {
    const key = Buffer.alloc(32, 0xfb)
    const keyring = Either.getOrThrow(parseKeyring(`k2:${key.toString("base64url")}, k1:${key.toString("base64")}`))
    expect(keyring.primaryId).toBe("k2")
    expect(keyring.ids).toEqual(["k2", "k1"])
  })

  const refused: ReadonlyArray<readonly [string, string, string]> = [
    ["an empty list", " , ", "is empty"],
    ["an entry without an id", `:${Buffer.alloc(32).toString("base64url")}`, "has an entry without a valid id"],
    ["an entry without a key", "k1", "has an entry without a valid id"],
    ["an id with a dot", `k.1:${Buffer.alloc(32).toString("base64url")}`, "has an entry without a valid id"],
    ["a 16-byte key", `k1:${Buffer.alloc(16).toString("base64url")}`, `has a key "k1" that is not 32 bytes`],
    ["a 33-byte key", `k1:${Buffer.alloc(33).toString("base64url")}`, `has a key "k1" that is not 32 bytes`],
    ["a key that is not base64", `k1:${"!".repeat(43)}`, `has a key "k1" that is not 32 bytes`],
    ["an id listed twice", `${generateKeyEntry("k1")},${generateKeyEntry("k1")}`, `lists the id "k1" twice`]
  ]
  for (const [name, text, why] of refused) {
    it(`refuses ${name} with a sentence that says how to make a key`, () => {
      const error = Either.getOrThrow(Either.flip(parseKeyring(text)))
      expect(error.message).toContain(`KEY_ENCRYPTION_KEYS ${why}`)
      expect(error.message).toContain("randomBytes(32)")
    })
  }
})

describe("seal and open", () => {
  const keyring = keyringOf("k1")

  it("round-trips, with a fresh IV each time", () => {
    const first = keyring.seal("the private key", CONTEXT)
    const second = keyring.seal("the private key", CONTEXT)
    expect(first).not.toBe(second)
    expect(first).not.toContain(Buffer.from("the private key").toString("base64url"))
    expect(first).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
    expect(Either.getOrThrow(keyring.open(first, CONTEXT))).toBe("the private key")
    expect(keyring.sealedUnder(first)).toBe("k1")
  })

  it("does not open for another record, with another key under the same id, or once altered", () => {
    const envelope = keyring.seal("the private key", CONTEXT)
    expect(Either.isLeft(keyring.open(envelope, "signing_keys:kid-2"))).toBe(true)
    expect(Either.isLeft(keyringOf("k1").open(envelope, CONTEXT))).toBe(true)
    const parts = envelope.split(".")
    const flipped = Buffer.from(parts[3]!, "base64url")
    flipped[0] = flipped[0]! ^ 1
    expect(Either.isLeft(keyring.open([...parts.slice(0, 3), flipped.toString("base64url"), parts[4]].join("."), CONTEXT))).toBe(true)
    expect(Either.isLeft(keyring.open(envelope.replace("v1.", "v2."), CONTEXT))).toBe(true)
  })

  it("an envelope under a key the list does not hold names it", () => {
    const error = Either.getOrThrow(Either.flip(keyringOf("k2").open(keyring.seal("x", CONTEXT), CONTEXT)))
    expect(error.message).toContain(`sealed under the key-encryption key "k1", which KEY_ENCRYPTION_KEYS does not list (it lists "k2")`)
  })
})

describe("resealed", () => {
  const oldEntry = generateKeyEntry("old")
  const newEntry = generateKeyEntry("new")
  const before = keyringOfEntries(oldEntry)
  const after = keyringOfEntries(newEntry, oldEntry)

  it("seals a plaintext row, re-seals one under an older key, and leaves one under the primary key", () => {
    const sealed = Either.getOrThrow(resealed(after, { plaintext: "secret", envelope: null }, CONTEXT))!
    expect(after.sealedUnder(sealed)).toBe("new")
    const old = before.seal("secret", CONTEXT)
    const moved = Either.getOrThrow(resealed(after, { plaintext: null, envelope: old }, CONTEXT))!
    expect(after.sealedUnder(moved)).toBe("new")
    expect(Either.getOrThrow(after.open(moved, CONTEXT))).toBe("secret")
    expect(Either.getOrThrow(resealed(after, { plaintext: null, envelope: moved }, CONTEXT))).toBeUndefined()
  })

  it("fails on an envelope its keys don't open", () => {
    const foreign = keyringOf("new").seal("secret", CONTEXT)
    expect(Either.isLeft(resealed(after, { plaintext: null, envelope: foreign }, CONTEXT))).toBe(true)
  })
})

describe("KeyEncryption.fromEnv", () => {
  const keysFor = (env: Record<string, string>, config: { readonly databaseUrl?: string; readonly dataDir: string }) =>
    Effect.provide(
      KeyEncryption,
      KeyEncryption.fromEnv.pipe(
        Layer.provide(AppConfig.layer(make({ apiPort: 3000, authPort: 4000, ...config }))),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      )
    )
  const scratch = () => Effect.acquireRelease(Effect.promise(() => mkdtemp(join(tmpdir(), "kek-"))), (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true })))

  it.scoped("takes KEY_ENCRYPTION_KEYS, on PostgreSQL and PGlite alike", () =>
    Effect.gen(function* () {
      const dataDir = yield* scratch()
      const entry = generateKeyEntry("prod-1")
      const env = { KEY_ENCRYPTION_KEYS: `${entry},${generateKeyEntry("prod-0")}` }
      expect((yield* keysFor(env, { databaseUrl: "postgres://db/propline", dataDir })).ids).toEqual(["prod-1", "prod-0"])
      expect((yield* keysFor(env, { dataDir })).primaryId).toBe("prod-1")
      // Nothing is written to DATA_DIR when the environment names the keys.
      yield* Effect.promise(() => expect(stat(join(dataDir, KEY_ENCRYPTION_KEYS_FILE))).rejects.toThrow())
    })
  )

  it.scoped("refuses PostgreSQL without KEY_ENCRYPTION_KEYS, saying what to set", () =>
    Effect.gen(function* () {
      const dataDir = yield* scratch()
      const error = yield* Effect.flip(keysFor({}, { databaseUrl: "postgres://db/propline", dataDir }))
      expect(error.message).toMatch(/^KEY_ENCRYPTION_KEYS is not set\. With DATABASE_URL .* set KEY_ENCRYPTION_KEYS=<id>:<32 random bytes, base64url>, the same in every instance; generate one with: /)
    })
  )

  it.scoped("refuses a malformed KEY_ENCRYPTION_KEYS", () =>
    Effect.gen(function* () {
      const dataDir = yield* scratch()
      const error = yield* Effect.flip(keysFor({ KEY_ENCRYPTION_KEYS: "k1:short" }, { dataDir }))
      expect(error.message).toContain(`KEY_ENCRYPTION_KEYS has a key "k1" that is not 32 bytes`)
    })
  )

  it.scoped("on PGlite without it, makes DATA_DIR/key-encryption-keys once (mode 0600) and reads it on every start", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* scratch(), "missing", ".data")
      const first = yield* keysFor({}, { dataDir })
      const path = join(dataDir, KEY_ENCRYPTION_KEYS_FILE)
      expect((yield* Effect.promise(() => stat(path))).mode & 0o777).toBe(0o600)
      const text = yield* Effect.promise(() => readFile(path, "utf8"))
      expect(text).toMatch(/^k\d{8}[0-9a-f]{4}:[A-Za-z0-9_-]{43}\n$/)
      const again = yield* keysFor({}, { dataDir })
      expect(again.primaryId).toBe(first.primaryId)
      expect(Either.getOrThrow(again.open(first.seal("x", CONTEXT), CONTEXT))).toBe("x")
      // A file someone edited badly is an error naming the file, never replaced.
      yield* Effect.promise(() => writeFile(path, "nonsense\n"))
      const error = yield* Effect.flip(keysFor({}, { dataDir }))
      expect(error.message).toContain(`${path} has an entry without a valid id`)
      expect(yield* Effect.promise(() => readFile(path, "utf8"))).toBe("nonsense\n")
    })
  )
})
