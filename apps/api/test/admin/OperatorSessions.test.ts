/**
 * Operator sessions and the sign-in throttle against the clock (issue 11), on PGlite and PostgreSQL: a session ends
 * after SESSION_IDLE_SECONDS without a request, never outlives SESSION_MAX_SECONDS, and ends at sign-out; a pair's
 * failed sign-ins are forgotten FAILURE_MEMORY_SECONDS after the last. Time is the TestClock. (The throttle over
 * HTTP: SignInThrottling.test.ts.)
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Layer, Option, TestClock } from "effect"
import { OperatorSessions, SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS } from "../../src/admin/OperatorSessions.js"
import { FAILURE_MEMORY_SECONDS, FIRST_DELAY_SECONDS, FREE_FAILURES } from "../../src/admin/SignInThrottle.js"
import { operator } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { testDatabase } from "../identity/IdentityTestHost.js"

const START = new Date("2030-01-01T08:00:00.000Z")

const setUp = Effect.gen(function* () {
  yield* TestClock.setTime(START.getTime())
  const org = yield* Fixtures.organization({ name: "Nordhavn" })
  return yield* operator(org.organizationId)
})

const signIn = (who: { readonly email: string; readonly password: string }) =>
  Effect.flatMap(OperatorSessions, (sessions) => sessions.signIn({ ...who, clientAddress: "127.0.0.1" }))

const live = (token: string) =>
  Effect.flatMap(OperatorSessions, (sessions) => sessions.authenticate(token)).pipe(Effect.map(Option.isSome))

describe.each(TestDatabase.kinds())("operator sessions on %s", (kind) => {
  layer(Layer.provideMerge(OperatorSessions.Default, testDatabase(kind)), { timeout: "60 seconds" })((it) => {
    it.effect("a session lives while it is used, and ends after SESSION_IDLE_SECONDS without a request", () =>
      Effect.gen(function* () {
        const me = yield* setUp
        const { token } = yield* signIn(me)
        yield* TestClock.adjust(`${SESSION_IDLE_SECONDS - 60} seconds`)
        expect(yield* live(token)).toBe(true) // this request slides the expiry forward
        yield* TestClock.adjust(`${SESSION_IDLE_SECONDS - 60} seconds`)
        expect(yield* live(token)).toBe(true)
        yield* TestClock.adjust(`${SESSION_IDLE_SECONDS + 1} seconds`)
        expect(yield* live(token)).toBe(false)
      })
    )

    it.effect("no session outlives SESSION_MAX_SECONDS after sign-in, however often it is used", () =>
      Effect.gen(function* () {
        const me = yield* setUp
        const { token } = yield* signIn(me)
        const step = SESSION_IDLE_SECONDS / 2
        for (let elapsed = step; elapsed < SESSION_MAX_SECONDS; elapsed += step) {
          yield* TestClock.adjust(`${step} seconds`)
          expect(yield* live(token)).toBe(true)
        }
        yield* TestClock.adjust(`${step} seconds`)
        expect(yield* live(token)).toBe(false)
      })
    )

    it.effect("sign-out ends the session; an unknown token is no session", () =>
      Effect.gen(function* () {
        const me = yield* setUp
        const signedIn = yield* signIn(me)
        if (signedIn._tag !== "SignedIn") throw new Error("expected a session")
        const { token, session } = signedIn
        yield* Effect.flatMap(OperatorSessions, (sessions) => sessions.signOut(session))
        expect(yield* live(token)).toBe(false)
        expect(yield* live(`${token}x`)).toBe(false)
      })
    )

    it.effect("a pair's failures are forgotten FAILURE_MEMORY_SECONDS after its last failure", () =>
      Effect.gen(function* () {
        const me = yield* setUp
        const guess = () => Effect.flip(signIn({ email: me.email, password: "guess" }))
        for (let attempt = 0; attempt <= FREE_FAILURES; attempt++) expect((yield* guess())._tag).toBe("InvalidCredentials")
        expect(yield* Effect.flip(signIn(me))).toMatchObject({ _tag: "SignInThrottled", retryAfterSeconds: FIRST_DELAY_SECONDS })
        yield* TestClock.adjust(`${FAILURE_MEMORY_SECONDS - 1} seconds`)
        // Remembered: one more failure waits twice as long.
        expect((yield* guess())._tag).toBe("InvalidCredentials")
        expect(yield* Effect.flip(signIn(me))).toMatchObject({ retryAfterSeconds: 2 * FIRST_DELAY_SECONDS })
        yield* TestClock.adjust(`${FAILURE_MEMORY_SECONDS} seconds`)
        // Forgotten: the free failures are whole again.
        for (let attempt = 0; attempt < FREE_FAILURES; attempt++) expect((yield* guess())._tag).toBe("InvalidCredentials")
        yield* signIn(me)
      })
    )

    it.effect("keeps only a digest of the token", () =>
      Effect.gen(function* () {
        const me = yield* setUp
        const { token } = yield* signIn(me)
        const rows = yield* Db.query((db) => db.selectFrom("operatorSessions").select("tokenDigest").execute()).pipe(Effect.orDie)
        expect(rows.some((row) => row.tokenDigest === token)).toBe(false)
        expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.tokenDigest))).toBe(true)
      })
    )
  })
})
