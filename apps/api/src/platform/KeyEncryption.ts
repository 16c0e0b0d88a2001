/**
 * Key-encryption keys (KEKs) that seal the product's own keys at rest (issue 19, item 7): the token-signing private
 * keys (`signing_keys`) and the URL-signing keys (`url_signing_keys`) are stored in PostgreSQL only as envelopes, so
 * a dump of the database alone can't mint tokens or upload addresses.
 *
 * - Cipher: AES-256-GCM (NIST SP 800-38D) from `node:crypto`, a fresh random 96-bit IV per seal, a 128-bit tag. The
 *   associated data binds the envelope's version and KEK id and the record it belongs to (`signing_keys:<kid>`), so
 *   an envelope copied onto another row does not open.
 * - Envelope (text): `v1.<kek id>.<iv>.<ciphertext>.<tag>`, the last three base64url.
 * - `KEY_ENCRYPTION_KEYS`: `<id>:<key>[,<id>:<key>…]`, each key 32 random bytes in base64url (or base64), each id
 *   1–32 of `A-Z a-z 0-9 _ -`. The first key seals; every listed key opens. Rotating: list a new key second in every
 *   instance, then first (each start re-seals every row under it), then drop the old one (docs/operations.md,
 *   "Keys at rest").
 * - Without `KEY_ENCRYPTION_KEYS`: on PostgreSQL (`DATABASE_URL`) start-up is refused; on PGlite (the development
 *   environment) the key list is read from `DATA_DIR/key-encryption-keys` (mode 0600), generated there on first start.
 *
 * A KEK that can't open a stored envelope is a start-up error ({@link KeyEncryptionError}), never a reason to make new
 * keys: that would silently invalidate every token and address already issued.
 */
import { Config, Context, Data, Effect, Either, Layer, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { AppConfig } from "./AppConfig.js"

/** The environment variable that holds the KEKs. */
export const KEY_ENCRYPTION_KEYS = "KEY_ENCRYPTION_KEYS"

/** The file in DATA_DIR that holds the development environment's KEKs (PGlite only), in the variable's syntax. */
export const KEY_ENCRYPTION_KEYS_FILE = "key-encryption-keys"

const VERSION = "v1"
const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/
const BASE64URL = /^[A-Za-z0-9_-]+$/

/** Why keys can't be sealed or opened; `message` is a sentence an operator acts on. */
export class KeyEncryptionError extends Data.TaggedError("KeyEncryptionError")<{ readonly message: string }> {}

/** The KEKs of this process. */
export interface Keyring {
  /** The id of the KEK that seals (the first listed). */
  readonly primaryId: string
  /** Every KEK id, the primary first. */
  readonly ids: ReadonlyArray<string>
  /** `plaintext` (UTF-8) sealed under the primary KEK for the record `context` (e.g. `signing_keys:<kid>`). */
  readonly seal: (plaintext: string, context: string) => string
  /**
   * The plaintext of an envelope sealed for `context`; fails when the envelope is malformed, names a KEK this
   * keyring does not hold, or does not open with it (another key under the same id, another record, tampering).
   */
  readonly open: (envelope: string, context: string) => Either.Either<string, KeyEncryptionError>
  /** The id of the KEK an envelope names, if it is well formed. */
  readonly sealedUnder: (envelope: string) => string | undefined
}

const generateHint = `generate one with: node -e 'console.log("k1:" + require("crypto").randomBytes(32).toString("base64url"))'`

/**
 * Reads a key list (`<id>:<key>[,<id>:<key>…]`, see above); `source` names where it came from in the error message.
 * Fails on an empty list, a malformed entry, a key that is not 32 bytes, or an id listed twice.
 */
export const parseKeyring = (text: string, source: string = KEY_ENCRYPTION_KEYS): Either.Either<Keyring, KeyEncryptionError> => {
  const fail = (why: string) =>
    Either.left(new KeyEncryptionError({ message: `${source} ${why}: expected <id>:<32 random bytes, base64url>[,…]; ${generateHint}` }))
  const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  if (entries.length === 0) return fail("is empty")
  const keys = new Map<string, Buffer>()
  for (const entry of entries) {
    const separator = entry.indexOf(":")
    const id = entry.slice(0, separator)
    const encoded = entry.slice(separator + 1).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
    if (separator < 0 || !ID_PATTERN.test(id)) return fail(`has an entry without a valid id (1-32 of A-Z a-z 0-9 _ -)`)
    if (keys.has(id)) return fail(`lists the id "${id}" twice`)
    const key = Buffer.from(encoded, "base64url")
    if (!BASE64URL.test(encoded) || key.length !== KEY_BYTES) return fail(`has a key "${id}" that is not ${KEY_BYTES} bytes`)
    keys.set(id, key)
  }
  return Either.right(makeKeyring([...keys]))
}

const associatedData = (id: string, context: string) => Buffer.from(`${VERSION}.${id}.${context}`, "utf8")

const makeKeyring = (keys: ReadonlyArray<readonly [string, Buffer]>): Keyring => {
  const byId = new Map(keys)
  const [primaryId, primaryKey] = keys[0]!
  const parse = (envelope: string) => {
    const parts = envelope.split(".")
    if (parts.length !== 5 || parts[0] !== VERSION || !parts.slice(2).every((part) => BASE64URL.test(part))) return undefined
    const [, id, iv, ciphertext, tag] = parts as [string, string, string, string, string]
    return { id, iv: Buffer.from(iv, "base64url"), ciphertext: Buffer.from(ciphertext, "base64url"), tag: Buffer.from(tag, "base64url") }
  }
  return {
    primaryId,
    ids: keys.map(([id]) => id),
    seal: (plaintext, context) => {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv("aes-256-gcm", primaryKey, iv, { authTagLength: TAG_BYTES })
      cipher.setAAD(associatedData(primaryId, context))
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [VERSION, primaryId, iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".")
    },
    open: (envelope, context) => {
      const parsed = parse(envelope)
      if (parsed === undefined || parsed.iv.length !== IV_BYTES || parsed.tag.length !== TAG_BYTES) {
        return Either.left(new KeyEncryptionError({ message: `the stored ${context} is not a ${VERSION} envelope` }))
      }
      const key = byId.get(parsed.id)
      if (key === undefined) {
        return Either.left(
          new KeyEncryptionError({
            message: `the stored ${context} is sealed under the key-encryption key "${parsed.id}", which ${KEY_ENCRYPTION_KEYS} does not list (it lists ${[...byId.keys()].map((id) => `"${id}"`).join(", ")}): start with the key it was sealed under`
          })
        )
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, parsed.iv, { authTagLength: TAG_BYTES })
        decipher.setAAD(associatedData(parsed.id, context))
        decipher.setAuthTag(parsed.tag)
        return Either.right(Buffer.concat([decipher.update(parsed.ciphertext), decipher.final()]).toString("utf8"))
      } catch {
        return Either.left(
          new KeyEncryptionError({
            message: `the key-encryption key "${parsed.id}" in ${KEY_ENCRYPTION_KEYS} does not open the stored ${context}: it is not the key the row was sealed under (or the row was altered)`
          })
        )
      }
    },
    sealedUnder: (envelope) => parse(envelope)?.id
  }
}

/** A new key list entry `<id>:<32 random bytes, base64url>`. */
export const generateKeyEntry = (id: string): string => `${id}:${randomBytes(KEY_BYTES).toString("base64url")}`

/**
 * What start-up does with one stored secret: given its plaintext (a row from before sealing) or its envelope, the
 * envelope to write instead (sealed, or re-sealed under the primary KEK), or `undefined` when it is already sealed
 * under the primary KEK (opened once, to prove this keyring is the right one). Fails when the envelope does not open.
 */
export const resealed = (
  keyring: Keyring,
  stored: { readonly plaintext: string | null; readonly envelope: string | null },
  context: string
): Either.Either<string | undefined, KeyEncryptionError> => {
  if (stored.envelope === null) {
    return stored.plaintext === null
      ? Either.left(new KeyEncryptionError({ message: `the stored ${context} holds neither a key nor an envelope` }))
      : Either.right(keyring.seal(stored.plaintext, context))
  }
  return Either.map(keyring.open(stored.envelope, context), (plaintext) =>
    keyring.sealedUnder(stored.envelope!) === keyring.primaryId ? undefined : keyring.seal(plaintext, context)
  )
}

/**
 * Re-seals, row by row, the envelopes `envelopesOf(row)` gives (a record of column to envelope, `null` where none)
 * that are sealed under another key than the keyring's primary, for the row's `contextOf(row)`, and calls
 * `write(row, envelopes)` with every envelope of the row (re-sealed or as stored) for each row that had one to
 * re-seal. Each envelope is opened once, so a keyring that can't open one fails with a {@link KeyEncryptionError}
 * before anything after it is written (run it in the transaction that locked the rows, so nothing is). Returns how
 * many rows it wrote.
 */
export const resealEach = <Row, Envelopes extends Readonly<Record<string, string | null>>, E, R>(
  keyring: Keyring,
  rows: ReadonlyArray<Row>,
  envelopesOf: (row: Row) => Envelopes,
  contextOf: (row: Row) => string,
  write: (row: Row, envelopes: Envelopes) => Effect.Effect<void, E, R>
): Effect.Effect<number, KeyEncryptionError | E, R> =>
  Effect.gen(function* () {
    let written = 0
    for (const row of rows) {
      const envelopes: Record<string, string | null> = { ...envelopesOf(row) }
      let changed = false
      for (const [column, envelope] of Object.entries(envelopes)) {
        if (envelope === null) continue
        const again = yield* resealed(keyring, { plaintext: null, envelope }, contextOf(row))
        if (again === undefined) continue
        envelopes[column] = again
        changed = true
      }
      if (!changed) continue
      // An envelope is only ever replaced by another envelope, never by null: the record keeps `Envelopes`' shape.
      yield* write(row, envelopes as Envelopes)
      written++
    }
    return written
  })

/**
 * The development environment's key list: `DATA_DIR/key-encryption-keys`, made (mode 0600, never overwritten) on
 * first start with one key whose id is the day's date and four random hex digits.
 */
const developmentKeys = (dataDir: string) =>
  Effect.tryPromise({
    try: async () => {
      const path = join(dataDir, KEY_ENCRYPTION_KEYS_FILE)
      const id = `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}${randomBytes(2).toString("hex")}`
      await mkdir(dataDir, { recursive: true })
      let generated = false
      try {
        await writeFile(path, `${generateKeyEntry(id)}\n`, { mode: 0o600, flag: "wx" })
        generated = true
      } catch (error) {
        if ((error as { code?: unknown }).code !== "EEXIST") throw error
      }
      if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600)
      return { path, text: await readFile(path, "utf8"), generated }
    },
    catch: (error) => new KeyEncryptionError({ message: `can't read or write ${join(dataDir, KEY_ENCRYPTION_KEYS_FILE)}: ${String(error)}` })
  })

export class KeyEncryption extends Context.Tag("@propline/api/KeyEncryption")<KeyEncryption, Keyring>() {
  /**
   * `KEY_ENCRYPTION_KEYS` from the environment; without it, on PGlite the development key file in DATA_DIR (made on
   * first start), on PostgreSQL a {@link KeyEncryptionError} that says what to set.
   */
  static readonly fromEnv: Layer.Layer<KeyEncryption, KeyEncryptionError, AppConfig> = Layer.effect(
    KeyEncryption,
    Effect.gen(function* () {
      const config = yield* AppConfig
      const fromEnvironment = yield* Config.redacted(KEY_ENCRYPTION_KEYS).pipe(
        Config.option,
        Effect.orDie,
        Effect.map(Option.map(Redacted.value)),
        Effect.map(Option.filter((text) => text.trim() !== ""))
      )
      if (Option.isSome(fromEnvironment)) return yield* parseKeyring(fromEnvironment.value)
      if (config.databaseUrl !== undefined) {
        return yield* new KeyEncryptionError({
          message: `${KEY_ENCRYPTION_KEYS} is not set. With DATABASE_URL the token-signing and URL-signing keys are stored sealed under a key-encryption key from the environment: set ${KEY_ENCRYPTION_KEYS}=<id>:<32 random bytes, base64url>, the same in every instance; ${generateHint}`
        })
      }
      const file = yield* developmentKeys(config.dataDir)
      if (file.generated) yield* Effect.logInfo(`generated a key-encryption key into ${file.path} (mode 0600)`)
      return yield* parseKeyring(file.text, file.path)
    })
  )

  /** A given keyring (tests, commands). */
  static readonly layer = (keyring: Keyring): Layer.Layer<KeyEncryption> => Layer.succeed(KeyEncryption, keyring)
}

/**
 * Ends a process's program on a {@link KeyEncryptionError}: `<doing>: <message>` on stderr and exit code 1, without a
 * stack trace (the message says what to set).
 */
export const exitOnKeyEncryptionError =
  (doing: string) =>
  <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A | void, Exclude<E, KeyEncryptionError>, R> =>
    Effect.catchIf(
      program,
      (error): error is Extract<E, KeyEncryptionError> => error instanceof KeyEncryptionError,
      (error) =>
        Effect.sync(() => {
          console.error(`${doing}: ${error.message}`)
          process.exitCode = 1
        })
    ) as Effect.Effect<A | void, Exclude<E, KeyEncryptionError>, R>
