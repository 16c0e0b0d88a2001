/**
 * The ES256 keys that sign access tokens (decisions 3), kept in `signing_keys` so that every instance of the
 * identity host signs with the same key and every instance of the API host can verify without calling the
 * identity host.
 *
 * - The first use on an empty database creates the first key. Instances starting together serialise on a
 *   PostgreSQL advisory lock held for the creating transaction, so exactly one key is created.
 * - {@link SigningKeysShape.rotate} pre-publishes the next key: it is in every instance's JWKS (and accepted by
 *   `AccessTokenVerifier`) at once, and signs only from {@link PREPUBLICATION_SECONDS} later, when the active key
 *   retires: longer than the refresh interval, so no instance signs with a key another instance's JWKS does not list
 *   yet (issue 23, item 7). A retired key stays published for {@link RETIRED_KEY_RETENTION_SECONDS} after it
 *   stopped signing: the token lifetime plus a margin for instances that have not yet noticed the rotation.
 * - The key that signs is chosen against the clock at each use (the newest key whose activation has come and that
 *   is not retired), so every instance switches at the same instant, whenever it last read the list.
 * - Imported keys are cached in memory by kid (a kid names immutable key material). The list of keys is re-read
 *   at most every {@link REFRESH_INTERVAL_MS}, or, throttled to once per {@link UNKNOWN_KID_REFRESH_INTERVAL_MS},
 *   when a token names a kid this instance does not know, so stateless instances converge after a rotation.
 *
 * - Private keys are stored sealed (`private_jwk_envelope`, AES-256-GCM under the process's key-encryption key,
 *   `platform/KeyEncryption`), never in plaintext. Building the service seals every row still in plaintext (a
 *   database from before) and re-seals every row sealed under an older key-encryption key, under the advisory lock;
 *   a row this process's keys can't open fails the build with a {@link KeyEncryptionError} (start-up refused), and
 *   no key is ever regenerated for it.
 *
 * SQL in `SigningKeyRepository`, on `platform/Sql` (changes in `Sql.transaction` under the advisory lock). The
 * service keeps the database it was built with: its reads refresh a per-instance cache behind effects that need
 * nothing (`AccessTokenVerification` is such a port). Time comes from Effect's `Clock`. Database failures are
 * defects: no caller can act on them.
 */
import * as Db from "@propline/db/Db"
import { ACCESS_TOKEN_TTL_SECONDS } from "@propline/identity/AccessTokenClaims"
import { Clock, Effect, Either, Option, Ref, SynchronizedRef } from "effect"
import { calculateJwkThumbprint, type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose"
import { createPrivateKey, type JsonWebKey, type KeyObject } from "node:crypto"
import { KeyEncryption, type KeyEncryptionError, type Keyring, resealed } from "../platform/KeyEncryption.js"
import * as Sql from "../platform/Sql.js"
import { SIGNING_ALGORITHM, SigningKeyRepository, type SigningKeyRow } from "./SigningKeyRepository.js"
import { traced } from "../platform/Spans.js"

export { SIGNING_ALGORITHM } from "./SigningKeyRepository.js"

/** How long this instance trusts its in-memory list of keys before re-reading the database, in milliseconds. */
export const REFRESH_INTERVAL_MS = 5_000

/**
 * How long a rotated-in key is published before it signs, in seconds: three refresh intervals, so that every
 * instance has read it into its JWKS (at most {@link REFRESH_INTERVAL_MS} after the rotation) well before any
 * instance signs with it.
 */
export const PREPUBLICATION_SECONDS = (3 * REFRESH_INTERVAL_MS) / 1000

/** The shortest time between two database reads caused by unknown kids, in milliseconds (bounds forged kids). */
export const UNKNOWN_KID_REFRESH_INTERVAL_MS = 1_000

/**
 * How long a retired key stays published after `retiredAt`, in seconds: a token's 600 s lifetime, plus 60 s for
 * an instance that signed with the key up to {@link REFRESH_INTERVAL_MS} after the rotation and for clock skew.
 */
export const RETIRED_KEY_RETENTION_SECONDS = ACCESS_TOKEN_TTL_SECONDS + 60

/**
 * A key to sign with: its kid (the RFC 7638 thumbprint of the public key) and the private key, as a WebCrypto key
 * (for jose) and as a `node:crypto` KeyObject (for `crypto.sign`, which signs on the calling thread without
 * WebCrypto's promise and worker-thread round trip; the token endpoint signs with it).
 */
export interface ActiveSigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly keyObject: KeyObject
}

/** A public JWK as published: `kty`, `crv`, `x`, `y`, plus `kid`, `alg: "ES256"` and `use: "sig"`. */
export type PublicJwk = JWK & { readonly kid: string; readonly alg: "ES256"; readonly use: "sig" }

export interface SigningKeysShape {
  /** The active key, created on first use. */
  readonly current: Effect.Effect<ActiveSigningKey>
  /**
   * The key {@link current} would answer at `now` (milliseconds of the same clock), when this instance can tell
   * without a step: its list of keys read less than {@link REFRESH_INTERVAL_MS} before `now` and that key made
   * before; `undefined` otherwise (then `current` reads, creates or makes it). Never reads the database.
   */
  readonly cachedAt: (now: number) => ActiveSigningKey | undefined
  /** The public keys a verifier accepts: the active key and keys retired less than the retention ago. */
  readonly jwks: Effect.Effect<{ readonly keys: ReadonlyArray<PublicJwk> }>
  /** The public key with this kid, if it is active or recently retired; an unknown kid re-reads the database. */
  readonly publicKey: (kid: string) => Effect.Effect<Option.Option<CryptoKey>>
  /**
   * Publishes a new key at `now` that signs from `activatesAt` (`now` + {@link PREPUBLICATION_SECONDS}), when the
   * active key retires; returns the new kid and that instant.
   */
  readonly rotate: (now: Date) => Effect.Effect<{ readonly kid: string; readonly activatesAt: Date }>
}

interface Snapshot {
  /** Published keys, newest activation first. */
  readonly rows: ReadonlyArray<SigningKeyRow>
  /** Clock time of the read, in milliseconds. */
  readonly loadedAt: number
}

const neverStale = (): boolean => false

const activationOf = (row: SigningKeyRow): number => (row.activatesAt ?? row.createdAt).getTime()

/**
 * The key that signs at `now`: the newest one whose activation has come and that is not retired by then; the
 * oldest not retired one if none has come yet (a clock behind the rotating instance's). `rows` newest first.
 */
const signerAt = (rows: ReadonlyArray<SigningKeyRow>, now: number): SigningKeyRow | undefined => {
  const live = rows.filter((row) => row.retiredAt === null || row.retiredAt.getTime() > now)
  return live.find((row) => activationOf(row) <= now) ?? live.at(-1)
}

/** The associated data of a key's envelope: the record it belongs to. */
const envelopeContext = (kid: string) => `signing_keys:${kid}`

/**
 * Fresh key material, its private JWK sealed; generated outside the transaction so the lock is held only for two
 * statements.
 */
const generateKey = (now: Date, keyring: Keyring, activatesAt: Date | null = null): Effect.Effect<SigningKeyRow> =>
  Effect.promise(async () => {
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true })
    const publicJwk = await exportJWK(publicKey)
    const kid = await calculateJwkThumbprint(publicJwk, "sha256")
    const privateJwk = await exportJWK(privateKey)
    return {
      kid,
      privateJwkEnvelope: keyring.seal(JSON.stringify({ ...privateJwk, kid, alg: SIGNING_ALGORITHM }), envelopeContext(kid)),
      privateJwk: null,
      publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: "sig" },
      createdAt: now,
      activatesAt,
      retiredAt: null
    }
  })

/**
 * Seals every stored private key still in plaintext and re-seals every one sealed under another key than the
 * keyring's primary, in one transaction under the advisory lock; opens each once, so a wrong key-encryption key
 * fails here, at start-up. Returns how many rows it wrote.
 */
export const sealStoredKeys = (
  keyring: Keyring
): Effect.Effect<number, KeyEncryptionError, Db.Db | SigningKeyRepository> =>
  Effect.flatMap(SigningKeyRepository, (repository) =>
    Sql.transaction(
      Effect.gen(function* () {
        yield* repository.lock
        let written = 0
        for (const row of yield* repository.privateKeys) {
          const stored = {
            plaintext: row.privateJwk === null ? null : JSON.stringify(row.privateJwk),
            envelope: row.privateJwkEnvelope
          }
          const envelope = yield* resealed(keyring, stored, envelopeContext(row.kid))
          if (envelope === undefined) continue
          yield* repository.setEnvelope(row.kid, envelope)
          written++
        }
        return written
      })
    )
  ).pipe(Effect.withSpan("SigningKeys.sealStoredKeys"))

export class SigningKeys extends Effect.Service<SigningKeys>()("@propline/api/identity/SigningKeys", {
  effect: Effect.gen(function* () {
    const db = yield* Db.Db
    const keyring = yield* KeyEncryption
    const repository = yield* SigningKeyRepository
    yield* sealStoredKeys(keyring)
    const snapshot = yield* SynchronizedRef.make<Snapshot | undefined>(undefined)
    // What `snapshot` holds, readable without a step (`cachedAt`): written wherever `snapshot` is.
    let latest: Snapshot | undefined
    // Imported keys by kid; key material under a kid never changes, so entries never go stale.
    const publicKeys = new Map<string, CryptoKey>()
    // Each kid's key to sign with, made once: `current` answers the same object for every token it signs.
    const privateKeys = new Map<string, ActiveSigningKey>()
    const lastUnknownKidRefresh = yield* Ref.make(Number.NEGATIVE_INFINITY)

    /** Creates the first key unless another instance did; serialised by the advisory lock. */
    const ensureActiveKey = (now: Date) =>
      Effect.flatMap(generateKey(now, keyring), (candidate) =>
        Sql.transaction(
          Effect.gen(function* () {
            yield* repository.lock
            if (yield* repository.hasActiveKey) return
            yield* repository.insert(candidate)
          })
        )
      )

    const load = (now: number): Effect.Effect<Snapshot> =>
      Effect.gen(function* () {
        let rows = yield* repository.published(now, RETIRED_KEY_RETENTION_SECONDS)
        if (!rows.some((row) => row.retiredAt === null)) {
          yield* ensureActiveKey(new Date(now))
          rows = yield* repository.published(now, RETIRED_KEY_RETENTION_SECONDS)
        }
        if (!rows.some((row) => row.retiredAt === null)) return yield* Effect.dieMessage("no active signing key")
        return (latest = { rows, loadedAt: now })
      }).pipe(Effect.provideService(Db.Db, db))

    /** Whether `s` was read less than the refresh interval before `now` (and not after it). */
    const recent = (s: Snapshot, now: number): boolean => now - s.loadedAt < REFRESH_INTERVAL_MS && now >= s.loadedAt

    /** The snapshot, re-read when older than the refresh interval or when `stale` says so. */
    const read = (stale: (current: Snapshot, now: number) => boolean = neverStale): Effect.Effect<Snapshot> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const fresh = (s: Snapshot | undefined): s is Snapshot => s !== undefined && recent(s, now) && !stale(s, now)
        return Effect.flatMap(SynchronizedRef.get(snapshot), (cached) =>
          fresh(cached)
            ? Effect.succeed(cached)
            : // One read at a time per instance; callers queued behind it reuse its result.
              SynchronizedRef.modifyEffect(snapshot, (current) =>
                fresh(current) ? Effect.succeed([current, current] as const) : Effect.map(load(now), (s) => [s, s] as const)
              )
        )
      })

    const importPublic = (row: SigningKeyRow): Effect.Effect<CryptoKey> => {
      const known = publicKeys.get(row.kid)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.promise(() => importJWK(row.publicJwk as JWK, SIGNING_ALGORITHM) as Promise<CryptoKey>).pipe(
        Effect.tap((key) => Effect.sync(() => publicKeys.set(row.kid, key)))
      )
    }

    // A key another instance sealed under a key-encryption key this one does not hold is a defect: the instances'
    // KEY_ENCRYPTION_KEYS disagree (README: rotate by listing the new key everywhere before it seals).
    const privateJwkOf = (row: SigningKeyRow): Effect.Effect<JWK> =>
      row.privateJwkEnvelope === null
        ? Effect.succeed(row.privateJwk as JWK)
        : Either.match(keyring.open(row.privateJwkEnvelope, envelopeContext(row.kid)), {
            onLeft: (error) => Effect.die(error),
            onRight: (json) => Effect.succeed(JSON.parse(json) as JWK)
          })

    const importPrivate = (row: SigningKeyRow) => {
      const known = privateKeys.get(row.kid)
      if (known !== undefined) return Effect.succeed(known)
      // The KeyObject comes from the JWK itself: `KeyObject.from` of jose's non-extractable CryptoKey is deprecated
      // (Node.js 24, DEP0204).
      return privateJwkOf(row).pipe(
        Effect.flatMap((jwk) =>
          Effect.map(
            Effect.promise(() => importJWK(jwk, SIGNING_ALGORITHM) as Promise<CryptoKey>),
            (privateKey): ActiveSigningKey => ({
              kid: row.kid,
              privateKey,
              keyObject: createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" })
            })
          )
        ),
        Effect.tap((keys) => Effect.sync(() => privateKeys.set(row.kid, keys)))
      )
    }

    // No stack trace on the span: this runs for every token issued (see BillingService's spans).
    // Steps rather than a generator, and the kid's key as made once: this runs for every token issued.
    const current: SigningKeysShape["current"] = Effect.flatMap(read(), ({ rows }) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const active = signerAt(rows, now)
        return active === undefined ? Effect.dieMessage("no active signing key") : importPrivate(active)
      })
    ).pipe(traced("SigningKeys.current"))

    const cachedAt: SigningKeysShape["cachedAt"] = (now) => {
      const s = latest
      if (s === undefined || !recent(s, now)) return undefined
      const active = signerAt(s.rows, now)
      return active === undefined ? undefined : privateKeys.get(active.kid)
    }

    // The snapshot may be up to REFRESH_INTERVAL_MS old; retention is judged against the clock on every read.
    const published = (s: Snapshot): Effect.Effect<ReadonlyArray<SigningKeyRow>> =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        s.rows.filter(
          (row) => row.retiredAt === null || row.retiredAt.getTime() > now - RETIRED_KEY_RETENTION_SECONDS * 1000
        )
      )

    const jwks: SigningKeysShape["jwks"] = read().pipe(
      Effect.flatMap(published),
      Effect.map((rows) => ({ keys: rows.map((row) => row.publicJwk as PublicJwk) })),
      Effect.withSpan("SigningKeys.jwks")
    )

    const publicKey: SigningKeysShape["publicKey"] = (kid) =>
      Effect.gen(function* () {
        const throttleOpen = (now: number) =>
          Ref.modify(lastUnknownKidRefresh, (last) =>
            now - last >= UNKNOWN_KID_REFRESH_INTERVAL_MS || now < last ? [true, now] : [false, last]
          )
        let s = yield* read()
        if (!s.rows.some((row) => row.kid === kid)) {
          const now = yield* Clock.currentTimeMillis
          if (yield* throttleOpen(now)) s = yield* read((current) => !current.rows.some((row) => row.kid === kid))
        }
        const row = (yield* published(s)).find((candidate) => candidate.kid === kid)
        return row === undefined ? Option.none() : Option.some(yield* importPublic(row))
      }).pipe(traced("SigningKeys.publicKey", { attributes: { kid } }))

    const rotate: SigningKeysShape["rotate"] = (now) =>
      Effect.gen(function* () {
        const activatesAt = new Date(now.getTime() + PREPUBLICATION_SECONDS * 1000)
        const next = yield* generateKey(now, keyring, activatesAt)
        yield* Sql.transaction(
          Effect.gen(function* () {
            yield* repository.lock
            yield* repository.retireActive(activatesAt)
            yield* repository.insert(next)
          })
        ).pipe(Effect.provideService(Db.Db, db))
        yield* SynchronizedRef.set(snapshot, (latest = undefined))
        return { kid: next.kid, activatesAt }
      }).pipe(Effect.withSpan("SigningKeys.rotate"))

    return { current, cachedAt, jwks, publicKey, rotate } satisfies SigningKeysShape
  }),
  dependencies: [SigningKeyRepository.Default]
}) {}
