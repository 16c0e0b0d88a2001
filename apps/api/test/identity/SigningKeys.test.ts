/**
 * The access-token signing keys kept in the database (decisions 3: ES256, rotation keeps the previous key
 * published until every token it signed has expired), on PGlite and PostgreSQL. Time is the TestClock.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Context, Effect, Layer, Option, TestClock } from "effect"
import { calculateJwkThumbprint } from "jose"
import {
  REFRESH_INTERVAL_MS,
  RETIRED_KEY_RETENTION_SECONDS,
  SigningKeys
} from "../../src/identity/SigningKeys.js"
import { anotherInstanceDb, FROZEN_AT, testDatabase } from "./IdentityTestHost.js"

/** A new SigningKeys instance (its own cache) over `db`: what another process of the service would hold. */
const instanceOver = (db: Db.DbService) =>
  Layer.build(Layer.fresh(SigningKeys.Default)).pipe(
    Effect.map((context) => Context.get(context, SigningKeys)),
    Effect.provideService(Db.Db, db)
  )

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

    it.scoped("rotation signs with the new key and keeps the previous one published for the retention", () =>
      Effect.gen(function* () {
        yield* freshStart
        const keys = yield* instanceOver(yield* Db.Db)
        const previous = yield* keys.current
        const { kid } = yield* keys.rotate(FROZEN_AT)
        expect(kid).not.toBe(previous.kid)
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

    it.scoped("another instance converges after a rotation: at once for an unknown kid, else within the refresh interval", () =>
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
  })
})
