/**
 * Signs and verifies short-lived addresses on the API host (the signed-PDF upload address, and downloads from the
 * local disk) with HMAC-SHA-256 (RFC 2104). The key lives in the database (`url_signing_keys`), made by the first
 * instance that needs it, so every instance verifies what any other signed.
 *
 * A signature covers the address's parts (method, record id, and whatever else the address is bound to, such as
 * a declared size and digest) and its expiry, as `expires` (Unix seconds) and `signature` (base64url) query
 * parameters.
 *
 * The key is stored sealed (`secret_envelope`, AES-256-GCM under the process's key-encryption key,
 * `platform/KeyEncryption`), never in plaintext. Building the service seals a key still in plaintext (a database
 * from before) or re-seals one sealed under an older key-encryption key; a key this process's keys can't open fails
 * the build with a `KeyEncryptionError` (start-up refused) rather than being replaced, which would invalidate every
 * address already given out. SQL in `UrlSigningKeyRepository`, on `platform/Sql`.
 */
import type * as Db from "@propline/db/Db"
import { Clock, Effect } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { KeyEncryption, type KeyEncryptionError, type Keyring, resealed } from "../platform/KeyEncryption.js"
import * as Sql from "../platform/Sql.js"
import { UrlSigningKeyRepository } from "./UrlSigningKeyRepository.js"

const KEY_ID = "default"

/** Why an address was refused: its signature does not match, or it is past its expiry. */
export type AddressCheck = "valid" | "expired" | "invalid"

/** The query parameters of a signed address. */
export interface SignedParams {
  readonly expires: string
  readonly signature: string
}

/** The associated data of a key's envelope: the record it belongs to. */
const envelopeContext = (id: string) => `url_signing_keys:${id}`

/**
 * The URL-signing key, made sealed when there is none; a key in plaintext or sealed under an older key-encryption
 * key is (re-)sealed under the primary one, in one transaction holding the row's lock. Returns the key's bytes.
 */
export const storedKey = (
  keyring: Keyring,
  now: Date
): Effect.Effect<Buffer, KeyEncryptionError, Db.Db | UrlSigningKeyRepository> =>
  Effect.flatMap(UrlSigningKeyRepository, (keys) =>
    Sql.transaction(
      Effect.gen(function* () {
        yield* keys.insertIfAbsent(KEY_ID, keyring.seal(randomBytes(32).toString("base64url"), envelopeContext(KEY_ID)), now)
        const row = yield* keys.lock(KEY_ID)
        const envelope = yield* resealed(keyring, { plaintext: row.secret, envelope: row.secretEnvelope }, envelopeContext(KEY_ID))
        if (envelope !== undefined) yield* keys.setEnvelope(KEY_ID, envelope)
        const secret = yield* keyring.open(envelope ?? row.secretEnvelope!, envelopeContext(KEY_ID))
        return Buffer.from(secret, "base64url")
      })
    )
  ).pipe(Effect.withSpan("UrlSigner.storedKey"))

const payload = (parts: ReadonlyArray<string>, expires: number) => [...parts, String(expires)].join("\n")

export class UrlSigner extends Effect.Service<UrlSigner>()("@propline/api/UrlSigner", {
  effect: Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    const secret = yield* storedKey(yield* KeyEncryption, now)
    const mac = (parts: ReadonlyArray<string>, expires: number) =>
      createHmac("sha256", secret).update(payload(parts, expires)).digest()

    return {
      /**
       * The `expires` and `signature` query parameters for `parts`, valid until `expiresAt` rounded up to the
       * second (never shorter than the record it names, which keeps its own expiry).
       */
      sign: (parts: ReadonlyArray<string>, expiresAt: Date): SignedParams => {
        const expires = Math.ceil(expiresAt.getTime() / 1000)
        return { expires: String(expires), signature: mac(parts, expires).toString("base64url") }
      },
      /**
       * Checks `expires` and `signature` as received for `parts`: `invalid` when either is malformed or the
       * signature does not match (checked first, in constant time), `expired` at or after `expires`.
       */
      verify: (
        parts: ReadonlyArray<string>,
        received: { readonly expires: string | undefined; readonly signature: string | undefined },
        now: Date
      ): AddressCheck => {
        if (received.expires === undefined || received.signature === undefined) return "invalid"
        if (!/^\d{1,12}$/.test(received.expires) || !/^[A-Za-z0-9_-]{43}$/.test(received.signature)) return "invalid"
        const expires = Number(received.expires)
        const expected = mac(parts, expires)
        const given = Buffer.from(received.signature, "base64url")
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid"
        return now.getTime() >= expires * 1000 ? "expired" : "valid"
      }
    }
  }),
  dependencies: [UrlSigningKeyRepository.Default]
}) {}
