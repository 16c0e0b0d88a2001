/**
 * Operators' TOTP secrets when the key-encryption keys rotate (issue 25, item 5; docs/operations.md "Keys at rest"),
 * on PGlite and PostgreSQL: a start with a new primary key re-seals every confirmed and pending secret under it, the
 * same secrets, so codes from the operators' authenticators keep working once the old key is dropped; a start whose
 * primary already seals them writes nothing; a key list that can't open one fails with a sentence and writes nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either } from "effect"
import * as OTPAuth from "otpauth"
import { newTotpSecret, openSecret, resealTotpSecrets, sealSecret, totpStep } from "../../src/admin/SecondFactor.js"
import { OperatorRepository } from "../../src/identity/OperatorRepository.js"
import { generateKeyEntry, KeyEncryption, type Keyring } from "../../src/platform/KeyEncryption.js"
import { operator } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { keyringOf, keyringOfEntries, testKeyEntry, testKeyring } from "../support/KeyEncryptionFixtures.js"
import { testDatabase } from "../identity/IdentityTestHost.js"

const NOW = new Date("2026-11-26T09:00:00.000Z")

const reseal = (keyring: Keyring) => resealTotpSecrets(keyring).pipe(Effect.provide(OperatorRepository.Default))

const rowOf = (id: string) =>
  Db.query((db) =>
    db.selectFrom("operators").select(["totpSecretEnvelope", "totpPendingEnvelope", "updatedAt"]).where("id", "=", id).executeTakeFirstOrThrow()
  ).pipe(Effect.orDie)

/** Three operators: one with a confirmed secret, one mid-enrolment (a pending secret), one without a second factor. */
const setUp = Effect.gen(function* () {
  // Each case starts from no sealed secret (an earlier case re-sealed its operators under another key).
  yield* Db.query((db) => db.updateTable("operators").set({ totpSecretEnvelope: null, totpPendingEnvelope: null }).execute()).pipe(Effect.orDie)
  const org = yield* Fixtures.organization({ name: "Nordhavn" })
  const [enrolled, enrolling, without] = [yield* operator(org.organizationId), yield* operator(org.organizationId), yield* operator(org.organizationId)]
  const secrets = { enrolled: newTotpSecret(enrolled.email).secret, enrolling: newTotpSecret(enrolling.email).secret }
  const sealed = (id: string, secret: string) => sealSecret(id, secret).pipe(Effect.provideService(KeyEncryption, testKeyring))
  yield* Db.query((db) =>
    db.updateTable("operators").set({ totpEnabledAt: NOW }).where("id", "=", enrolled.id).execute()
  ).pipe(Effect.orDie)
  const operators = yield* OperatorRepository
  yield* operators.setTotpEnvelopes(enrolled.id, { totpSecretEnvelope: yield* sealed(enrolled.id, secrets.enrolled), totpPendingEnvelope: null })
  yield* operators.setTotpEnvelopes(enrolling.id, { totpSecretEnvelope: null, totpPendingEnvelope: yield* sealed(enrolling.id, secrets.enrolling) })
  return { enrolled, enrolling, without, secrets }
}).pipe(Effect.provide(OperatorRepository.Default), Effect.orDie)

describe.each(TestDatabase.kinds())("TOTP secrets across a key-encryption key rotation on %s", (kind) => {
  layer(testDatabase(kind), { timeout: "60 seconds" })((it) => {
    it.effect("a new primary key re-seals every confirmed and pending secret; the old key can then be dropped", () =>
      Effect.gen(function* () {
        const { enrolled, enrolling, without, secrets } = yield* setUp
        const before = yield* rowOf(enrolled.id)
        expect(before.totpSecretEnvelope).toMatch(/^v1\.test\./)
        const withoutBefore = yield* rowOf(without.id)

        const nextEntry = generateKeyEntry("next")
        expect(yield* reseal(keyringOfEntries(nextEntry, testKeyEntry))).toBe(2)

        const after = yield* rowOf(enrolled.id)
        expect(after.totpSecretEnvelope).toMatch(/^v1\.next\./)
        expect(after.totpPendingEnvelope).toBeNull()
        expect(after.updatedAt).toEqual(before.updatedAt)
        const pending = yield* rowOf(enrolling.id)
        expect(pending.totpSecretEnvelope).toBeNull()
        expect(pending.totpPendingEnvelope).toMatch(/^v1\.next\./)
        expect(yield* rowOf(without.id)).toEqual(withoutBefore)

        // With only the new key listed: the same secrets open, and an authenticator's code is still accepted.
        const onlyNext = keyringOfEntries(nextEntry)
        const opened = yield* openSecret(enrolled.id, after.totpSecretEnvelope!).pipe(Effect.provideService(KeyEncryption, onlyNext))
        expect(opened).toBe(secrets.enrolled)
        expect(yield* openSecret(enrolling.id, pending.totpPendingEnvelope!).pipe(Effect.provideService(KeyEncryption, onlyNext))).toBe(
          secrets.enrolling
        )
        const code = OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(opened), algorithm: "SHA1", digits: 6, period: 30, timestamp: NOW.getTime() })
        expect(totpStep(opened, code, NOW)).toBe(Math.floor(NOW.getTime() / 30_000))

        // A start whose primary already seals every secret writes nothing.
        expect(yield* reseal(onlyNext)).toBe(0)
        expect(yield* rowOf(enrolled.id)).toEqual(after)
      })
    )

    it.effect("a key list that can't open a secret fails with a sentence and writes nothing", () =>
      Effect.gen(function* () {
        const { enrolled } = yield* setUp
        const before = yield* rowOf(enrolled.id)
        // A key under the same id that is not the one the rows were sealed with.
        const error = yield* Effect.flip(reseal(keyringOf("test")))
        expect(error._tag).toBe("KeyEncryptionError")
        expect(error.message).toMatch(
          /^the key-encryption key "test" in KEY_ENCRYPTION_KEYS does not open the stored operators:[0-9a-f-]{36}:totp: it is not the key the row was sealed under/
        )
        expect(yield* rowOf(enrolled.id)).toEqual(before)
        // The right key still opens it.
        expect(Either.isRight(testKeyring.open(before.totpSecretEnvelope!, `operators:${enrolled.id}:totp`))).toBe(true)
      })
    )
  })
})
