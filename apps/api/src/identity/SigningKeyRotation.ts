/**
 * Rotating the access-token signing key (decisions 3): a new ES256 key is published at once (every running instance
 * lists it in its JWKS within `SigningKeys.REFRESH_INTERVAL_MS`, without a restart) and signs from
 * `SigningKeys.PREPUBLICATION_SECONDS` later, on every instance at that instant; the previous one signs until then,
 * and stays published in the JWKS, and accepted by every API instance, until every token it signed has expired
 * (`SigningKeys.RETIRED_KEY_RETENTION_SECONDS` after it stopped signing), then drops out.
 */
import type * as Db from "@propline/db/Db"
import { Clock, Effect, Layer } from "effect"
import type { KeyEncryption, KeyEncryptionError } from "../platform/KeyEncryption.js"
import { RETIRED_KEY_RETENTION_SECONDS, SigningKeys } from "./SigningKeys.js"

/**
 * What a rotation did: the new kid and when it starts signing, the previous one, and when the previous one leaves
 * the JWKS.
 */
export interface Rotation {
  readonly kid: string
  readonly activatesAt: Date
  readonly previousKid: string
  readonly previousPublishedUntil: Date
}

/**
 * Rotates with a fresh `SigningKeys` instance (this process's own, as a command's is). Creates the first key first
 * when the database has none, so there is always a previous key to report. The new key is sealed under the primary
 * key-encryption key; building the instance (re-)seals the stored keys first, and fails with a `KeyEncryptionError`
 * when they don't open.
 */
export const rotateSigningKey: Effect.Effect<Rotation, KeyEncryptionError, Db.Db | KeyEncryption> = Effect.gen(function* () {
  const keys = yield* SigningKeys
  const previous = yield* keys.current
  const now = new Date(yield* Clock.currentTimeMillis)
  const { activatesAt, kid } = yield* keys.rotate(now)
  return {
    kid,
    activatesAt,
    previousKid: previous.kid,
    previousPublishedUntil: new Date(activatesAt.getTime() + RETIRED_KEY_RETENTION_SECONDS * 1000)
  }
}).pipe(Effect.provide(Layer.fresh(SigningKeys.Default)), Effect.withSpan("SigningKeyRotation.rotateSigningKey"))
