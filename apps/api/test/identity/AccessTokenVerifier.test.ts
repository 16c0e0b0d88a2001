/**
 * Verifying access tokens on the API host (spec 5, 5.5; decisions 3; RFC 9068), on PGlite and PostgreSQL. Tokens
 * are issued by the real ClientCredentialsGrant or signed here with the real signing key and chosen claims. Time is the
 * TestClock.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as TestDatabase from "@propline/db/TestDatabase"
import { parseTokenRequest } from "@propline/identity/TokenRequest"
import { Effect, Either, Layer, TestClock } from "effect"
import { generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from "jose"
import { randomUUID } from "node:crypto"
import { AppConfig, make as makeConfig } from "../../src/platform/AppConfig.js"
import { AccessTokenVerifier, CLOCK_LEEWAY_SECONDS } from "../../src/identity/AccessTokenVerifier.js"
import { IdentityLive } from "../../src/identity/IdentityRouter.js"
import { SigningKeys } from "../../src/identity/SigningKeys.js"
import { ClientCredentialsGrant } from "../../src/identity/ClientCredentialsGrant.js"
import {
  API_URL,
  type ApplicationFixture,
  clientSecretPostBody,
  FROZEN_AT,
  newApplication,
  testDatabase
} from "./IdentityTestHost.js"
import { TestKeyEncryption } from "../support/KeyEncryptionFixtures.js"

const AUTH_URL = "https://auth.propline.test"
const NOW_SECONDS = Math.floor(FROZEN_AT.getTime() / 1000)

const services = (kind: TestDatabase.TestDatabase["config"]["_tag"]) =>
  IdentityLive.pipe(
    Layer.provideMerge(AppConfig.layer(makeConfig({ apiPort: 0, authPort: 0, authUrl: AUTH_URL, baseUrl: API_URL }))),
    Layer.provideMerge(testDatabase(kind)),
    Layer.provideMerge(TestKeyEncryption)
  )

/** A token from the real issuer (client_secret_post). */
const issue = (app: ApplicationFixture) =>
  Effect.gen(function* () {
    const request = parseTokenRequest({
      contentType: "application/x-www-form-urlencoded",
      body: clientSecretPostBody(app.clientId, app.secret),
      authorization: undefined
    })
    const parsed = Either.getOrThrow(request)
    if (parsed._tag !== "ClientCredentialsRequest") return yield* Effect.dieMessage("not a client_credentials request")
    const grant = yield* ClientCredentialsGrant
    return (yield* grant.issue(parsed).pipe(Effect.orDie)).accessToken
  })

const validClaims = (app: ApplicationFixture): JWTPayload => ({
  iss: AUTH_URL,
  sub: app.applicationId,
  aud: API_URL,
  iat: NOW_SECONDS,
  exp: NOW_SECONDS + 600,
  jti: randomUUID(),
  client_id: app.clientId,
  org: app.organizationId,
  roles: ["billing"],
  ctx: [app.contextId]
})

/** A token signed with the identity host's real key, with `claims` and header fields of our choosing. */
const signWithRealKey = (claims: JWTPayload, header: { readonly typ?: string } = {}) =>
  Effect.gen(function* () {
    const key = yield* Effect.flatMap(SigningKeys, (keys) => keys.current)
    return yield* Effect.promise(() =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", typ: header.typ ?? "at+jwt", kid: key.kid })
        .sign(key.privateKey)
    )
  })

const reasonOf = (token: string) =>
  Effect.flatMap(AccessTokenVerifier, (verifier) => verifier.verify(token)).pipe(
    Effect.flip,
    Effect.map((error) => error.reason)
  )

const start = TestClock.setTime(FROZEN_AT.getTime())

describe.each(TestDatabase.kinds())("access token verification on %s", (kind) => {
  // The standalone `layer`, not `it.layer`, so the second database kind does not build on the first.
  layer(services(kind), { timeout: "60 seconds" })((it) => {
    it.effect("accepts an issued token and gives its principal", () =>
      Effect.gen(function* () {
        yield* start
        const app = yield* newApplication({ roles: ["billing", "signing"] })
        const token = yield* issue(app)
        const verifier = yield* AccessTokenVerifier
        expect(yield* verifier.verify(token)).toEqual({
          clientId: app.clientId,
          subject: app.applicationId,
          organizationId: app.organizationId,
          roles: ["billing", "signing"],
          contexts: [app.contextId],
          expiresAt: NOW_SECONDS + 600
        })
      })
    )

    it.effect("refuses a cached token once it expired (600 s plus the leeway)", () =>
      Effect.gen(function* () {
        yield* start
        const token = yield* issue(yield* newApplication())
        const verifier = yield* AccessTokenVerifier
        yield* verifier.verify(token)
        yield* TestClock.adjust(`${600 + CLOCK_LEEWAY_SECONDS - 1} seconds`)
        yield* verifier.verify(token)
        yield* TestClock.adjust("1 second")
        expect(yield* reasonOf(token)).toBe("expired")
      })
    )

    it.effect("refuses a tampered signature", () =>
      Effect.gen(function* () {
        yield* start
        const token = yield* issue(yield* newApplication())
        const [header, payload, signature] = token.split(".") as [string, string, string]
        const middle = Math.floor(signature.length / 2)
        const flipped = signature[middle] === "A" ? "B" : "A"
        const tampered = `${header}.${payload}.${signature.slice(0, middle)}${flipped}${signature.slice(middle + 1)}`
        expect(yield* reasonOf(tampered)).toBe("bad_signature")
      })
    )

    it.effect("refuses a tampered payload (roles raised)", () =>
      Effect.gen(function* () {
        yield* start
        const token = yield* issue(yield* newApplication({ roles: ["booking"] }))
        const [header, payload, signature] = token.split(".") as [string, string, string]
        const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
        const raised = Buffer.from(JSON.stringify({ ...claims, roles: ["billing", "signing", "booking"] })).toString(
          "base64url"
        )
        expect(yield* reasonOf(`${header}.${raised}.${signature}`)).toBe("bad_signature")
      })
    )

    it.effect("refuses a wrong audience, a wrong issuer, a lifetime over 600 s, an expired and a not-yet-valid token", () =>
      Effect.gen(function* () {
        yield* start
        const app = yield* newApplication()
        const cases: ReadonlyArray<readonly [JWTPayload, string]> = [
          [{ aud: "https://elsewhere.test" }, "wrong_audience"],
          [{ aud: ["https://elsewhere.test"] }, "wrong_audience"],
          [{ iat: NOW_SECONDS, exp: NOW_SECONDS + 365 * 24 * 3600 }, "lifetime"],
          [{ iat: NOW_SECONDS, exp: NOW_SECONDS + 601 }, "lifetime"],
          [{ ctx: ["not-a-uuid"] }, "malformed"],
          [{ iss: "https://evil.test" }, "wrong_issuer"],
          [{ iat: NOW_SECONDS - 1200, exp: NOW_SECONDS - 600 }, "expired"],
          [{ iat: NOW_SECONDS - 600 - CLOCK_LEEWAY_SECONDS, exp: NOW_SECONDS - CLOCK_LEEWAY_SECONDS }, "expired"],
          [{ iat: NOW_SECONDS + 60, exp: NOW_SECONDS + 660 }, "not_yet_valid"],
          [{ org: "not-a-uuid" }, "malformed"],
          [{ roles: ["admin"] }, "malformed"]
        ]
        for (const [override, reason] of cases) {
          const token = yield* signWithRealKey({ ...validClaims(app), ...override })
          expect(yield* reasonOf(token), JSON.stringify(override)).toBe(reason)
        }
        // The same claims unchanged are accepted: the refusals above are for the overridden claim alone.
        const valid = yield* signWithRealKey(validClaims(app))
        expect((yield* Effect.flatMap(AccessTokenVerifier, (verifier) => verifier.verify(valid))).clientId).toBe(
          app.clientId
        )
        // RFC 7519 4.1.3: an audience array that contains ours is ours.
        const inArray = yield* signWithRealKey({ ...validClaims(app), aud: ["https://elsewhere.test", API_URL] })
        expect((yield* Effect.flatMap(AccessTokenVerifier, (verifier) => verifier.verify(inArray))).clientId).toBe(
          app.clientId
        )
      })
    )

    it.effect("refuses a token whose typ is not at+jwt (an ID token or a plain JWT)", () =>
      Effect.gen(function* () {
        yield* start
        const app = yield* newApplication()
        expect(yield* reasonOf(yield* signWithRealKey(validClaims(app), { typ: "JWT" }))).toBe("wrong_header")
      })
    )

    it.effect("refuses alg none and a symmetric alg", () =>
      Effect.gen(function* () {
        yield* start
        const app = yield* newApplication()
        const unsecured = new UnsecuredJWT(validClaims(app)).encode()
        expect(yield* reasonOf(unsecured)).toBe("wrong_header")
        const { kid } = yield* Effect.flatMap(SigningKeys, (keys) => keys.current)
        const hs256 = yield* Effect.promise(() =>
          new SignJWT(validClaims(app))
            .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid })
            .sign(new TextEncoder().encode("a shared secret an attacker chose, 32+ bytes long"))
        )
        expect(yield* reasonOf(hs256)).toBe("wrong_header")
      })
    )

    it.effect("refuses a token signed by an unknown key, and one claiming a known kid with another key", () =>
      Effect.gen(function* () {
        yield* start
        const app = yield* newApplication()
        const { privateKey } = yield* Effect.promise(() => generateKeyPair("ES256"))
        const unknownKid = yield* Effect.promise(() =>
          new SignJWT(validClaims(app)).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "attacker" }).sign(privateKey)
        )
        expect(yield* reasonOf(unknownKid)).toBe("unknown_key")
        const { kid } = yield* Effect.flatMap(SigningKeys, (keys) => keys.current)
        const knownKid = yield* Effect.promise(() =>
          new SignJWT(validClaims(app)).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid }).sign(privateKey)
        )
        expect(yield* reasonOf(knownKid)).toBe("bad_signature")
        const noKid = yield* Effect.promise(() =>
          new SignJWT(validClaims(app)).setProtectedHeader({ alg: "ES256", typ: "at+jwt" }).sign(privateKey)
        )
        expect(yield* reasonOf(noKid)).toBe("wrong_header")
      })
    )

    it.effect("refuses what is not a JWS", () =>
      Effect.gen(function* () {
        yield* start
        for (const token of ["", "not-a-token", "a.b.c", "eyJhbGciOiJFUzI1NiJ9..", "x".repeat(5000)]) {
          expect(["malformed", "wrong_header"], token.slice(0, 20)).toContain(yield* reasonOf(token))
        }
      })
    )

    it.effect("accepts a token signed before a rotation (the previous key stays published)", () =>
      Effect.gen(function* () {
        yield* start
        const token = yield* issue(yield* newApplication())
        yield* Effect.flatMap(SigningKeys, (keys) => keys.rotate(FROZEN_AT))
        yield* TestClock.adjust("599 seconds")
        const principal = yield* Effect.flatMap(AccessTokenVerifier, (verifier) => verifier.verify(token))
        expect(principal.expiresAt).toBe(NOW_SECONDS + 600)
        const next = yield* issue(yield* newApplication())
        expect(yield* Effect.flatMap(AccessTokenVerifier, (verifier) => verifier.verify(next))).toBeDefined()
      })
    )
  })
})
