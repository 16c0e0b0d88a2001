/**
 * POST {auth_url}/oauth/token, black-box over HTTP on PGlite and PostgreSQL (spec 5.1, 5.2, 5.5, 7.2 and 8;
 * decisions 3).
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Either, Exit } from "effect"
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose"
import { randomUUID } from "node:crypto"
import * as oauth from "oauth4webapi"
import {
  API_URL,
  type ApplicationFixture,
  basic,
  clientSecretPostBody,
  type ControlledClock,
  disableApplication,
  FROZEN_AT,
  identityHost,
  issueSecret,
  json,
  newApplication,
  postToken,
  type Reply,
  request,
  revokeSecret,
  statementsOf,
  TestHost,
  tokenFor
} from "./IdentityTestHost.js"
import { ClientCredentialsGrant } from "../../src/identity/ClientCredentialsGrant.js"
import { FORM_CONTENT_TYPE, parseTokenRequest } from "@propline/identity/TokenRequest"

const CLIENT_CREDENTIALS = "grant_type=client_credentials"

const post = (app: ApplicationFixture, secret = app.secret) => clientSecretPostBody(app.clientId, secret)

const expectNoStore = (reply: Reply) => {
  expect(reply.headers.get("cache-control")).toBe("no-store")
  expect(reply.headers.get("pragma")).toBe("no-cache")
}

const expectError = (reply: Reply, status: number, error: string) => {
  expect({ status: reply.status, error: json(reply)["error"] }).toEqual({ status, error })
  expect(typeof json(reply)["error_description"]).toBe("string")
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
  expectNoStore(reply)
}

// The start of the second holding `at`, in epoch milliseconds.
const secondOf = (at: Date) => Math.floor(at.getTime() / 1000) * 1000

// The client's admissions in the rate-limit window, as milliseconds from FROZEN_AT, in the order recorded.
const admissionsOf = (clientId: string) =>
  Db.query((db) =>
    db.selectFrom("tokenRateLimits").select("admittedAt").where("clientId", "=", clientId).executeTakeFirst()
  ).pipe(
    Effect.orDie,
    Effect.map((row) => (row?.admittedAt ?? []).map((at) => new Date(at).getTime() - FROZEN_AT.getTime()))
  )

describe.each(TestDatabase.kinds())("token endpoint on %s", (kind) => {
  // The standalone `layer`, not `it.layer`: @effect/vitest's `it.layer` is replaced by the nesting variant once a
  // layer callback ran, so a second top-level `it.layer` (the next database kind) would build on the first.
  layer(identityHost(kind), { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    describe("a standard client (oauth4webapi)", () => {
      const clientCredentials = (auth: (secret: string) => oauth.ClientAuth) =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const app = yield* newApplication({ roles: ["billing", "booking"] })
          const issuer = new URL(host.url)
          const as = yield* Effect.promise(async () =>
            oauth.processDiscoveryResponse(
              issuer,
              await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true })
            )
          )
          const client: oauth.Client = { client_id: app.clientId }
          const response = yield* Effect.promise(async () =>
            oauth.processClientCredentialsResponse(
              as,
              client,
              await oauth.clientCredentialsGrantRequest(as, client, auth(app.secret), new URLSearchParams(), {
                [oauth.allowInsecureRequests]: true
              })
            )
          )
          expect(response.token_type).toBe("bearer")
          expect(response.expires_in).toBe(600)
          expect(response.refresh_token).toBeUndefined()

          const jwks = createRemoteJWKSet(new URL(as.jwks_uri!))
          const { payload, protectedHeader } = yield* Effect.promise(() =>
            jwtVerify(response.access_token, jwks, {
              issuer: host.url,
              audience: API_URL,
              typ: "at+jwt",
              algorithms: ["ES256"],
              currentDate: FROZEN_AT
            })
          )
          expect(protectedHeader).toMatchObject({ alg: "ES256", typ: "at+jwt" })
          expect(typeof protectedHeader.kid).toBe("string")
          expect(payload.exp! - payload.iat!).toBe(600)
          expect(payload.iat).toBe(Math.floor(FROZEN_AT.getTime() / 1000))
          expect(payload).toMatchObject({
            iss: host.url,
            aud: API_URL,
            sub: app.applicationId,
            client_id: app.clientId,
            org: app.organizationId,
            roles: ["billing", "booking"],
            ctx: [app.contextId]
          })
          expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/)
        })

      it.effect("discovers the server and gets a token with client_secret_basic (client id sent as app%5F…)", () =>
        clientCredentials(oauth.ClientSecretBasic)
      )

      it.effect("gets a token with client_secret_post", () => clientCredentials(oauth.ClientSecretPost))
    })

    describe("success response", () => {
      it.effect("takes one statement: the Application, its secret, its rate limit and the secret's last use", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const app = yield* newApplication()
          // A first token loads the signing keys at this clock, so the measured one reads none.
          expect((yield* postToken(post(app))).status).toBe(200)
          const parsed = parseTokenRequest({ contentType: FORM_CONTENT_TYPE, body: post(app), authorization: undefined })
          if (Either.isLeft(parsed) || parsed.right._tag !== "ClientCredentialsRequest") throw new Error("not parsed")
          const grant = yield* ClientCredentialsGrant
          const { exit, statements } = yield* statementsOf(grant.issue(parsed.right).pipe(Effect.withClock(host.clock)))
          expect(Exit.isSuccess(exit)).toBe(true)
          expect(statements).toHaveLength(1)
          expect(statements[0]).toMatch(/from applications a[\s\S]*insert into token_rate_limits[\s\S]*update application_secrets/)
        })
      )

      it.effect("is 200 JSON with access_token, token_type Bearer, expires_in 600, and no-store", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(post(app))
          expect(reply.status).toBe(200)
          expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
          expectNoStore(reply)
          const body = json(reply)
          expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"])
          expect(body).toMatchObject({ token_type: "Bearer", expires_in: 600 })
          expect(decodeProtectedHeader(body["access_token"] as string)).toMatchObject({ alg: "ES256", typ: "at+jwt" })
        })
      )

      it.effect("decodes percent-encoded Basic credentials (RFC 6749 Appendix B: %5F is _)", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const encoded = Buffer.from(`${app.clientId.replaceAll("_", "%5F")}:${app.secret.replaceAll("_", "%5F")}`)
          expect(encoded.toString()).toContain("%5F")
          const reply = yield* postToken(CLIENT_CREDENTIALS, { authorization: `Basic ${encoded.toString("base64")}` })
          expect(reply.status).toBe(200)
        })
      )

      it.effect("accepts a charset parameter on the content type", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(post(app), { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" })
          expect(reply.status).toBe(200)
        })
      )

      it.effect("treats an empty scope as omitted", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(`${post(app)}&scope=`)
          expect(reply.status).toBe(200)
        })
      )

      it.effect("records the secret's last use, at most once a minute", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const app = yield* newApplication()
          const lastUsed = Db.query((db) =>
            db.selectFrom("applicationSecrets").select("lastUsedAt").where("id", "=", app.secretId).executeTakeFirstOrThrow()
          ).pipe(
            Effect.orDie,
            Effect.map((row) => row.lastUsedAt?.toISOString())
          )
          expect(yield* lastUsed).toBeUndefined()
          yield* tokenFor(app)
          expect(yield* lastUsed).toBe(FROZEN_AT.toISOString())
          yield* Effect.ensuring(
            Effect.gen(function* () {
              host.clock.advance("59 seconds")
              yield* tokenFor(app)
              expect(yield* lastUsed).toBe(FROZEN_AT.toISOString())
              host.clock.advance("1 second")
              yield* tokenFor(app)
              expect(yield* lastUsed).toBe(new Date(FROZEN_AT.getTime() + 60_000).toISOString())
            }),
            Effect.sync(() => host.clock.set(FROZEN_AT))
          )
        })
      )
    })

    describe("invalid_request (400)", () => {
      it.effect("body not form-encoded (JSON)", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(
            JSON.stringify({ grant_type: "client_credentials", client_id: app.clientId, client_secret: app.secret }),
            { "content-type": "application/json" }
          )
          expectError(reply, 400, "invalid_request")
        })
      )

      it.effect("no content type", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* request("/oauth/token", {
            method: "POST",
            body: new Blob([post(app)]) // a Blob without a type sends no Content-Type
          })
          expectError(reply, 400, "invalid_request")
        })
      )

      it.effect("grant_type missing", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          expectError(yield* postToken("", { authorization: basic(app.clientId, app.secret) }), 400, "invalid_request")
          expectError(yield* postToken("grant_type=", { authorization: basic(app.clientId, app.secret) }), 400, "invalid_request")
        })
      )

      it.effect("a parameter repeated", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          expectError(yield* postToken(`${post(app)}&grant_type=client_credentials`), 400, "invalid_request")
          expectError(yield* postToken(`${post(app)}&client_id=${app.clientId}`), 400, "invalid_request")
        })
      )

      it.effect("both credential methods (Basic and client_secret)", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(post(app), { authorization: basic(app.clientId, app.secret) })
          expectError(reply, 400, "invalid_request")
          expect(reply.headers.get("www-authenticate")).toBeNull()
        })
      )

      it.effect("a body over 16 KiB, declared by Content-Length", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const reply = yield* postToken(`${post(app)}&padding=${"a".repeat(17 * 1024)}`)
          expectError(reply, 400, "invalid_request")
          const before = (yield* admissionsOf(app.clientId)).length
          expect(before).toBe(0)
        })
      )

      it.effect("a body over 16 KiB, streamed in chunks", () =>
        Effect.gen(function* () {
          const chunk = new TextEncoder().encode(`${CLIENT_CREDENTIALS}&padding=${"a".repeat(4096)}`)
          let sent = 0
          const body = new ReadableStream<Uint8Array>({
            pull(controller) {
              if (sent++ < 8) controller.enqueue(chunk)
              else controller.close()
            }
          })
          const reply = yield* request("/oauth/token", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body,
            duplex: "half"
            // Node's fetch needs duplex "half" to stream a request body (sent chunked, without Content-Length).
          } as RequestInit)
          expectError(reply, 400, "invalid_request")
        })
      )

      it.effect("a body that is not UTF-8", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const bytes = Buffer.concat([Buffer.from(`${post(app)}&x=`), Buffer.from([0xff, 0xfe])])
          const reply = yield* request("/oauth/token", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: bytes
          })
          expectError(reply, 400, "invalid_request")
        })
      )

      it.effect("installation-token grant without installation_id", () =>
        Effect.gen(function* () {
          const reply = yield* postToken(
            "grant_type=urn:service:params:oauth:grant-type:installation-token" +
              "&client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer&client_assertion=a.b.c"
          )
          expectError(reply, 400, "invalid_request")
        })
      )
    })

    describe("unsupported_grant_type and invalid_scope (400)", () => {
      it.effect("grant type neither client_credentials nor installation-token", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          for (const grant of ["password", "authorization_code", "refresh_token", "CLIENT_CREDENTIALS"]) {
            expectError(
              yield* postToken(`grant_type=${grant}`, { authorization: basic(app.clientId, app.secret) }),
              400,
              "unsupported_grant_type"
            )
          }
        })
      )

      it.effect("a scope parameter", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          expectError(yield* postToken(`${post(app)}&scope=billing`), 400, "invalid_scope")
        })
      )
    })

    describe("invalid_client (401)", () => {
      const refusals: ReadonlyArray<
        readonly [string, (app: ApplicationFixture) => Effect.Effect<{ clientId: string; secret: string }, never, Db.Db>]
      > = [
        ["wrong secret", (app) => Effect.succeed({ clientId: app.clientId, secret: `service_sk_${"A".repeat(43)}` })],
        ["unknown client", (app) => Effect.succeed({ clientId: "app_000000000000000000000000", secret: app.secret })],
        ["another Application's client id", (app) =>
          Effect.map(newApplication(), (other) => ({ clientId: other.clientId, secret: app.secret }))],
        ["revoked secret", (app) =>
          Effect.as(revokeSecret(app.applicationId, app.secretId), { clientId: app.clientId, secret: app.secret })],
        ["disabled Application", (app) =>
          Effect.as(disableApplication(app.applicationId), { clientId: app.clientId, secret: app.secret })],
        ["malformed secret", (app) => Effect.succeed({ clientId: app.clientId, secret: "hunter2" })],
        ["secret of the right shape with one character changed", (app) =>
          Effect.succeed({ clientId: app.clientId, secret: app.secret.slice(0, -1) + (app.secret.endsWith("a") ? "b" : "a") })]
      ]

      it.effect("every refusal has one byte-identical body; WWW-Authenticate after Basic only", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const bodies = new Set<string>()
          for (const [name, make] of refusals) {
            const app = yield* newApplication()
            const { clientId, secret } = yield* make(app)

            const afterBasic = yield* postToken(CLIENT_CREDENTIALS, { authorization: basic(clientId, secret) })
            expectError(afterBasic, 401, "invalid_client")
            expect(afterBasic.headers.get("www-authenticate"), name).toBe(
              `Basic realm="${host.url}", error="invalid_client"`
            )
            bodies.add(afterBasic.text)

            const afterPost = yield* postToken(clientSecretPostBody(clientId, secret))
            expectError(afterPost, 401, "invalid_client")
            expect(afterPost.headers.get("www-authenticate"), name).toBeNull()
            bodies.add(afterPost.text)

            // Failed authentication counts against no one (decisions 3).
            expect((yield* admissionsOf(app.clientId)).length, name).toBe(0)
          }
          expect([...bodies]).toEqual([
            JSON.stringify({ error: "invalid_client", error_description: "Client authentication failed." })
          ])
        })
      )

      it.effect("a client_id that is not 1 to 255 VSCHAR (a NUL, a control character, non-ASCII): 401, never 500", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const secret = `service_sk_${"A".repeat(43)}`
          const bodies = new Set<string>()
          const form = ["%00abc", "a%00", "client%0A1", "client%0D%0A1", "client%7F", "caf%C3%A9", "%E2%80%A8", "a".repeat(256)]
          for (const clientId of form) {
            const reply = yield* postToken(`${CLIENT_CREDENTIALS}&client_id=${clientId}&client_secret=${secret}`)
            expectError(reply, 401, "invalid_client")
            expect(reply.headers.get("www-authenticate"), clientId).toBeNull()
            bodies.add(reply.text)
          }
          // Basic user-ids, form-urlencoded before base64 (RFC 6749 2.3.1): %00 is a NUL once decoded.
          const basicIds = ["a%00b", "%00", "client%0A1", "client%7F", "caf%C3%A9", "a\u0000b", "a".repeat(256)]
          for (const clientId of basicIds) {
            const authorization = `Basic ${Buffer.from(`${clientId}:${secret}`, "utf8").toString("base64")}`
            const reply = yield* postToken(CLIENT_CREDENTIALS, { authorization })
            expectError(reply, 401, "invalid_client")
            expect(reply.headers.get("www-authenticate"), clientId).toBe(`Basic realm="${host.url}", error="invalid_client"`)
            bodies.add(reply.text)
          }
          expect([...bodies]).toEqual([
            JSON.stringify({ error: "invalid_client", error_description: "Client authentication failed." })
          ])
          // A client id of 255 VSCHAR is looked up as usual (and is unknown here).
          expectError(
            yield* postToken(`${CLIENT_CREDENTIALS}&client_id=${"a".repeat(255)}&client_secret=${secret}`),
            401,
            "invalid_client"
          )
        })
      )

      it.effect("no credentials, or only a client id", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          expectError(yield* postToken(CLIENT_CREDENTIALS), 401, "invalid_client")
          expectError(yield* postToken(`${CLIENT_CREDENTIALS}&client_id=${app.clientId}`), 401, "invalid_client")
        })
      )

      it.effect("a Basic header that is not base64", () =>
        Effect.gen(function* () {
          const reply = yield* postToken(CLIENT_CREDENTIALS, { authorization: "Basic !!!" })
          expectError(reply, 401, "invalid_client")
          expect(reply.headers.get("www-authenticate")).toMatch(/^Basic realm=/)
        })
      )

      it.effect("an assertion without a kid, for an installation that does not exist (see InstallationGrant.test.ts)", () =>
        Effect.gen(function* () {
          const reply = yield* postToken(
            "grant_type=urn:service:params:oauth:grant-type:installation-token" +
              "&client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer" +
              "&client_assertion=eyJhbGciOiJFUzI1NiJ9.e30.c2ln&installation_id=2b1c7d1e-6d5e-4f6a-9d8e-0f1a2b3c4d5e"
          )
          expectError(reply, 401, "invalid_client")
          expect(reply.headers.get("www-authenticate")).toBeNull()
        })
      )
    })

    describe("secrets (spec 5.2, 5.5, 8)", () => {
      it.effect("a second secret works beside the first; a third is refused", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const second = yield* issueSecret(app.applicationId).pipe(Effect.orDie)
          expect((yield* postToken(post(app))).status).toBe(200)
          expect((yield* postToken(post(app, second.secret))).status).toBe(200)
          const third = yield* Effect.flip(issueSecret(app.applicationId))
          expect(third._tag === "SecretLimitReached" && [third.code, third.status]).toStrictEqual([
            "APPLICATION_SECRET_LIMIT_REACHED",
            400
          ])
        })
      )

      it.effect("a revoked secret stops new tokens; the other secret still works", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const second = yield* issueSecret(app.applicationId).pipe(Effect.orDie)
          expect((yield* postToken(post(app))).status).toBe(200)
          yield* revokeSecret(app.applicationId, app.secretId)
          expectError(yield* postToken(post(app)), 401, "invalid_client")
          expect((yield* postToken(post(app, second.secret))).status).toBe(200)
          // With one secret revoked, a new one may be issued again.
          expect((yield* issueSecret(app.applicationId).pipe(Effect.orDie)).secret).toMatch(/^service_sk_/)
        })
      )
    })

    describe("slow_down (429): more than 60 requests for one client in any 60 seconds (to the millisecond)", () => {
      // Runs `body` and puts the clock back to FROZEN_AT whatever happens.
      const withClock = <A, E, R>(body: (clock: ControlledClock) => Effect.Effect<A, E, R>) =>
        Effect.flatMap(TestHost, (host) =>
          Effect.ensuring(body(host.clock), Effect.sync(() => host.clock.set(FROZEN_AT)))
        )
      const expectSlowDown = (reply: Reply, retryAfterSeconds: number) => {
        expectError(reply, 429, "slow_down")
        expect(reply.headers.get("retry-after")).toBe(String(retryAfterSeconds))
      }
      // Admissions another instance recorded, as milliseconds from FROZEN_AT.
      const seedAdmissions = (clientId: string, offsets: ReadonlyArray<number>) =>
        Db.query((db) =>
          db
            .insertInto("tokenRateLimits")
            .values({
              clientId,
              admittedAt: offsets.map((offset) => new Date(FROZEN_AT.getTime() + offset)),
              lastAdmissionId: randomUUID()
            })
            .execute()
        ).pipe(Effect.orDie)

      it.effect("the 61st request in 60 s is refused with the exact Retry-After; another client is unaffected", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            const other = yield* newApplication()
            for (let i = 1; i <= 60; i++) expect((yield* postToken(post(app))).status, `request ${i}`).toBe(200)
            // All 60 arrived now: the 61st waits the whole window.
            expectSlowDown(yield* postToken(post(app)), 60)
            expect((yield* postToken(post(other))).status).toBe(200)

            // 1 ms before the 60 s are up the window still holds all 60.
            clock.advance("59999 millis")
            expectSlowDown(yield* postToken(post(app)), 1)
            // Retry-After was exact, and the refused requests did not push it further.
            clock.advance("1 millis")
            expect((yield* postToken(post(app))).status).toBe(200)
          })
        )
      )

      it.effect("the window is exact: 60 at x.990 s, then none until 60 s later to the millisecond", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            const start = new Date(secondOf(FROZEN_AT) + 990)
            clock.set(start)
            for (let i = 1; i <= 60; i++) expect((yield* postToken(post(app))).status, `request ${i}`).toBe(200)
            // 59.1 s later, in another whole second: still within 60 s of all 60.
            clock.set(new Date(start.getTime() + 59_100))
            expectSlowDown(yield* postToken(post(app)), 1)
            clock.set(new Date(start.getTime() + 59_999))
            expectSlowDown(yield* postToken(post(app)), 1)
            clock.set(new Date(start.getTime() + 60_000))
            expect((yield* postToken(post(app))).status).toBe(200)
          })
        )
      )

      it.effect("an earlier review's case: 60 in the first 0.5 s of a minute, then 60 more 99.5 s later, all allowed", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            const minute = new Date(Math.ceil(FROZEN_AT.getTime() / 60_000) * 60_000)
            for (let i = 0; i < 60; i++) {
              clock.set(new Date(minute.getTime() + i * 8))
              expect((yield* postToken(post(app))).status, `burst request ${i + 1}`).toBe(200)
            }
            for (let i = 0; i < 60; i++) {
              clock.set(new Date(minute.getTime() + 99_500 + i * 8))
              expect((yield* postToken(post(app))).status, `later request ${i + 1}`).toBe(200)
            }
            expectSlowDown(yield* postToken(post(app)), 60)
          })
        )
      )

      it.effect("spread out, one a second: all allowed; one more in between waits until the oldest is 60 s old", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            for (let i = 0; i < 60; i++) {
              expect((yield* postToken(post(app))).status, `second ${i}`).toBe(200)
              clock.advance("1 second")
            }
            // Admissions at 0..59 s; now is 60 s: the one at 0 s just left, so one more fits.
            expect((yield* postToken(post(app))).status).toBe(200)
            clock.advance("300 millis")
            // Admissions at 1..60 s; the oldest is 59.3 s old.
            expectSlowDown(yield* postToken(post(app)), 1)
            clock.advance("700 millis")
            expect((yield* postToken(post(app))).status).toBe(200)
          })
        )
      )

      it.effect("counts admissions other instances recorded in the last 60 s, and forgets older ones", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            // 50 at −59.5 s, 9 at −30 s, 5 over a minute old, one exactly 60 s old (out), one 2 s ahead (an
            // instance whose clock is ahead: it counts).
            yield* seedAdmissions(app.clientId, [
              -3_600_000, -61_000, -60_500, -60_001, -60_000,
              ...Array.from({ length: 50 }, () => -59_500),
              ...Array.from({ length: 8 }, () => -30_000),
              2_000
            ])
            expect((yield* postToken(post(app))).status).toBe(200) // 50 + 8 + 1 + this = 60
            expect(yield* admissionsOf(app.clientId)).toEqual([
              ...Array.from({ length: 50 }, () => -59_500),
              ...Array.from({ length: 8 }, () => -30_000),
              2_000,
              0
            ])
            // The 50 at −59.5 s leave the window in 0.5 s.
            expectSlowDown(yield* postToken(post(app)), 1)
            clock.advance("500 millis")
            expect((yield* postToken(post(app))).status).toBe(200)
            expect((yield* admissionsOf(app.clientId)).length).toBe(11)
          })
        )
      )

      it.effect("after the window passes, requests are allowed again and old admissions are forgotten", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const app = yield* newApplication()
            for (let i = 1; i <= 60; i++) expect((yield* postToken(post(app))).status, `request ${i}`).toBe(200)
            for (let i = 1; i <= 5; i++) expectSlowDown(yield* postToken(post(app)), 60)
            // Refused requests are not recorded.
            expect((yield* admissionsOf(app.clientId)).length).toBe(60)
            clock.advance("10 minutes")
            for (let i = 1; i <= 60; i++) expect((yield* postToken(post(app))).status, `request ${i}`).toBe(200)
            expect(yield* admissionsOf(app.clientId)).toEqual(Array.from({ length: 60 }, () => 600_000))
          })
        )
      )

      it.effect("requests that fail authentication count against no one", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          for (let i = 0; i < 10; i++) {
            expectError(yield* postToken(post(app, `service_sk_${"B".repeat(43)}`)), 401, "invalid_client")
          }
          expect((yield* admissionsOf(app.clientId)).length).toBe(0)
          for (let i = 1; i <= 60; i++) expect((yield* postToken(post(app))).status, `request ${i}`).toBe(200)
          expectSlowDown(yield* postToken(post(app)), 60)
        })
      )

      it.effect("70 concurrent requests of one client: exactly 60 are admitted", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const replies = yield* Effect.all(
            Array.from({ length: 70 }, () => postToken(post(app))),
            { concurrency: "unbounded" }
          )
          const statuses = replies.map((reply) => reply.status)
          expect(statuses.filter((status) => status === 200).length).toBe(60)
          expect(statuses.filter((status) => status === 429).length).toBe(10)
          expect((yield* admissionsOf(app.clientId)).length).toBe(60)
        })
      )

      it.effect("20 concurrent requests all succeed and are all counted", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const replies = yield* Effect.all(
            Array.from({ length: 20 }, () => postToken(post(app))),
            { concurrency: "unbounded" }
          )
          expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 20 }, () => 200))
          expect((yield* admissionsOf(app.clientId)).length).toBe(20)
          const jtis = new Set(replies.map((reply) => {
            const token = json(reply)["access_token"] as string
            return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString())["jti"] as string
          }))
          expect(jtis.size).toBe(20)
        })
      )
    })

    describe("other methods and paths", () => {
      it.effect("GET /oauth/token is 405 with Allow: POST and an OAuth body", () =>
        Effect.gen(function* () {
          const reply = yield* request("/oauth/token")
          expectError(reply, 405, "invalid_request")
          expect(reply.headers.get("allow")).toBe("POST")
        })
      )

      it.effect("a query string, a percent-encoded path or a trailing slash reaches the same endpoint (the router's)", () =>
        Effect.gen(function* () {
          const app = yield* newApplication()
          const form = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: post(app) }
          for (const path of ["/oauth/token?x=1", "/oauth/%74oken", "/oauth/token/"]) {
            const reply = yield* request(path, form)
            expect(reply.status, `${path}: ${reply.text}`).toBe(200)
            expectNoStore(reply)
          }
          expectError(yield* request("/oauth/token?x=1"), 405, "invalid_request")
          const discovery = yield* request("/.well-known/openid-configuration?x=1")
          expect(discovery.status).toBe(200)
          expect((yield* request("/oauth/tokens", form)).status).toBe(404)
        })
      )

      it.effect("every response carries X-Request-Id: a well-formed one is echoed, others replaced", () =>
        Effect.gen(function* () {
          const echoed = yield* postToken(CLIENT_CREDENTIALS, { "x-request-id": "erp-7f3a:42" })
          expect(echoed.headers.get("x-request-id")).toBe("erp-7f3a:42")
          const replaced = yield* postToken(CLIENT_CREDENTIALS, { "x-request-id": "not ok" })
          expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
          const app = yield* newApplication()
          const success = yield* postToken(post(app))
          expect(success.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
          const missing = yield* request("/nowhere")
          expect(missing.status).toBe(404)
          expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
        })
      )
    })
  })
})
