/**
 * The installation-token grant's conformance suite (spec 5.3, 7.2 and 8; decisions 3; RFC 7521, 7523, 7515),
 * black box over HTTP against the identity host on PGlite and PostgreSQL, one case per row of issue 7's "Must
 * hold". Time is the host's controlled clock (frozen; moved on purpose, never slept on).
 */
import { describe, expect, layer } from "@effect/vitest"
import * as TestDatabase from "@propline/db/TestDatabase"
import { FORM_CONTENT_TYPE, GRANT_TYPE_INSTALLATION_TOKEN, parseTokenRequest } from "@propline/identity/TokenRequest"
import { Cause, Effect, Either, Exit } from "effect"
import { sql } from "kysely"
import { createRemoteJWKSet, type CryptoKey, exportSPKI, generateKeyPair, importJWK, jwtVerify } from "jose"
import { createHmac, randomUUID } from "node:crypto"
import * as oauth from "oauth4webapi"
import {
  assertionClaims,
  compactJws,
  type ConnectorFixture,
  es256,
  installationTokenBody,
  newConnector,
  newKeyPair,
  signAssertion,
  withConnectorApps,
  withInstallations
} from "./ConnectorFixtures.js"
import {
  API_URL,
  basic,
  type ControlledClock,
  FROZEN_AT,
  identityHost,
  json,
  newApplication,
  postToken,
  type Reply,
  statementsOf,
  system,
  TestHost
} from "./IdentityTestHost.js"
import { InstallationGrant } from "../../src/identity/InstallationGrant.js"
import * as Sql from "../../src/platform/Sql.js"

const NOW_SECONDS = Math.floor(FROZEN_AT.getTime() / 1000)
const INVALID_CLIENT_BODY = JSON.stringify({ error: "invalid_client", error_description: "Client authentication failed." })

const expectError = (reply: Reply, status: number, error: string) => {
  expect({ status: reply.status, error: json(reply)["error"] }, reply.text).toEqual({ status, error })
  expect(reply.headers.get("cache-control")).toBe("no-store")
}

/** `invalid_client`, 401, with the one body every refusal has, and no Basic challenge (the client used none). */
const expectInvalidClient = (reply: Reply) => {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 401, text: INVALID_CLIENT_BODY })
  expect(reply.headers.get("www-authenticate")).toBeNull()
}

const tokenEndpoint = Effect.map(TestHost, (host) => `${host.url}/oauth/token`)

/** The standard claims for `connector` at the frozen time, `aud` the token endpoint. */
const claimsFor = (connector: ConnectorFixture) =>
  Effect.map(tokenEndpoint, (aud) => assertionClaims(connector.appId, aud, NOW_SECONDS))

/** POSTs an assertion for the connector's installation (or `installationId`), with extra form fields. */
const exchange = (
  connector: ConnectorFixture,
  assertion: string,
  options: { readonly installationId?: string; readonly extra?: Record<string, string>; readonly headers?: Record<string, string> } = {}
) =>
  postToken(
    installationTokenBody(assertion, options.installationId ?? connector.installationId, options.extra),
    options.headers
  )

/** A fresh, valid assertion for the connector, with claim and header overrides. */
const assertionFor = (
  connector: ConnectorFixture,
  overrides: { readonly claims?: Record<string, unknown>; readonly header?: Record<string, unknown> } = {}
) => Effect.flatMap(claimsFor(connector), (claims) => signAssertion(connector.key, claims, overrides))

const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>

describe.each(TestDatabase.kinds())("installation-token grant on %s", (kind) => {
  layer(identityHost(kind), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    // Runs `body` and puts the clock back to FROZEN_AT whatever happens.
    const withClock = <A, E, R>(body: (clock: ControlledClock) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(TestHost, (host) => Effect.ensuring(body(host.clock), Effect.sync(() => host.clock.set(FROZEN_AT))))

    describe("success (spec 5.1, 5.3)", () => {
      it.effect("a valid assertion gets a 600 s token for the installation, with its roles, contexts and organization", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const connector = yield* newConnector({ roles: ["billing", "booking"] })
          const reply = yield* exchange(connector, yield* assertionFor(connector))
          expect(reply.status, reply.text).toBe(200)
          expect(reply.headers.get("cache-control")).toBe("no-store")
          const body = json(reply)
          expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"])
          expect(body).toMatchObject({ token_type: "Bearer", expires_in: 600 })
          const jwks = createRemoteJWKSet(new URL(`${host.url}/.well-known/jwks.json`))
          const { payload, protectedHeader } = yield* Effect.promise(() =>
            jwtVerify(body["access_token"] as string, jwks, {
              issuer: host.url,
              audience: API_URL,
              typ: "at+jwt",
              algorithms: ["ES256"],
              currentDate: FROZEN_AT
            })
          )
          expect(protectedHeader.alg).toBe("ES256")
          expect(payload).toMatchObject({
            sub: connector.installationId,
            client_id: connector.appId,
            org: connector.organizationId,
            roles: ["billing", "booking", "integrations"],
            ctx: [connector.contextId],
            iat: NOW_SECONDS,
            exp: NOW_SECONDS + 600
          })
        })
      )

      it.effect("aud may be the issuer identifier, or a one-element array of either (decisions 3)", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const connector = yield* newConnector()
          const endpoint = yield* tokenEndpoint
          for (const aud of [host.url, [host.url], [endpoint]]) {
            const reply = yield* exchange(connector, yield* assertionFor(connector, { claims: { aud } }))
            expect(reply.status, JSON.stringify(aud)).toBe(200)
          }
        })
      )

      it.effect("a client_id form field equal to iss is accepted (RFC 7521 4.2)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const reply = yield* exchange(connector, yield* assertionFor(connector), { extra: { client_id: connector.appId } })
          expect(reply.status).toBe(200)
        })
      )

      it.effect("oauth4webapi performs the grant with its standard PrivateKeyJwt client authentication", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const connector = yield* newConnector()
          const issuer = new URL(host.url)
          const as = yield* Effect.promise(async () =>
            oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }))
          )
          expect(as.grant_types_supported).toContain(GRANT_TYPE_INSTALLATION_TOKEN)
          expect(as.token_endpoint_auth_methods_supported).toContain("private_key_jwt")
          // oauth4webapi stamps assertions with its own clock; the host's is frozen at FROZEN_AT.
          const client: oauth.Client = {
            client_id: connector.appId,
            [oauth.clockSkew]: NOW_SECONDS - Math.floor(Date.now() / 1000)
          }
          const auth = oauth.PrivateKeyJwt({ key: connector.key.privateKey, kid: connector.key.kid })
          const response = yield* Effect.promise(async () =>
            oauth.processGenericTokenEndpointResponse(
              as,
              client,
              await oauth.genericTokenEndpointRequest(
                as,
                client,
                auth,
                GRANT_TYPE_INSTALLATION_TOKEN,
                { installation_id: connector.installationId },
                { [oauth.allowInsecureRequests]: true }
              )
            )
          )
          expect(response.token_type).toBe("bearer")
          expect(response.expires_in).toBe(600)
          expect(payloadOf(response.access_token)).toMatchObject({ sub: connector.installationId, client_id: connector.appId })
        })
      )
    })

    describe("the JWS header: ES256 with the app's key, picked by kid (decisions 3)", () => {
      it.effect("alg none", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const claims = yield* claimsFor(connector)
          expectInvalidClient(yield* exchange(connector, yield* compactJws({ alg: "none", kid: connector.key.kid }, claims, "none")))
          expectInvalidClient(yield* exchange(connector, yield* compactJws({ alg: "none" }, claims, "none")))
        })
      )

      it.effect("HS256 signed with the app's public key, as JWK and as PEM bytes", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const claims = yield* claimsFor(connector)
          const publicKey = yield* Effect.promise(() => importJWK(connector.key.publicJwk, "ES256", { extractable: true }))
          const pem = yield* Effect.promise(() => exportSPKI(publicKey as CryptoKey))
          for (const secret of [JSON.stringify(connector.key.publicJwk), pem]) {
            const hmac = async (data: Uint8Array) => new Uint8Array(createHmac("sha256", secret).update(data).digest())
            const forged = yield* compactJws({ alg: "HS256", kid: connector.key.kid }, claims, hmac)
            expectInvalidClient(yield* exchange(connector, forged))
          }
        })
      )

      it.effect("RS256 and ES384 under the app's kid", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const claims = yield* claimsFor(connector)
          const rsa = yield* Effect.promise(() => generateKeyPair("RS256"))
          const rs256 = async (data: Uint8Array) =>
            new Uint8Array(await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, rsa.privateKey, data))
          expectInvalidClient(yield* exchange(connector, yield* compactJws({ alg: "RS256", kid: connector.key.kid }, claims, rs256)))
          const p384 = yield* Effect.promise(() => generateKeyPair("ES384"))
          const es384 = async (data: Uint8Array) =>
            new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-384" }, p384.privateKey, data))
          expectInvalidClient(yield* exchange(connector, yield* compactJws({ alg: "ES384", kid: connector.key.kid }, claims, es384)))
        })
      )

      it.effect("another app's key: its own kid, or the app's kid", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          const claims = yield* claimsFor(connector)
          expectInvalidClient(yield* exchange(connector, yield* signAssertion(other.key, claims)))
          expectInvalidClient(
            yield* exchange(connector, yield* signAssertion(other.key, claims, { header: { kid: connector.key.kid } }))
          )
        })
      )

      it.effect("an unknown kid, a missing kid, and a retired key", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { header: { kid: "no-such-key" } })))
          expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { header: { kid: undefined } })))

          // Key rotation on the app's side: add a successor, retire the first; the first key no longer works.
          const successor = yield* newKeyPair()
          yield* withConnectorApps((apps) => apps.addKey(connector.appId, successor.publicJwk, system)).pipe(Effect.orDie)
          expect((yield* exchange(connector, yield* assertionFor(connector))).status).toBe(200)
          yield* withConnectorApps((apps) => apps.retireKey(connector.appId, connector.key.kid, system)).pipe(Effect.orDie)
          expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector)))
          const claims = yield* claimsFor(connector)
          expect((yield* exchange(connector, yield* signAssertion(successor, claims))).status).toBe(200)
        })
      )

      it.effect("an embedded jwk (the attacker's own key), a jku and an x5c", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const attacker = yield* newKeyPair(connector.key.kid)
          const claims = yield* claimsFor(connector)
          const { kid: _kid, ...attackerJwk } = attacker.publicJwk
          expectInvalidClient(yield* exchange(connector, yield* signAssertion(attacker, claims, { header: { jwk: attackerJwk } })))
          // Signed by the right key, yet carrying a key reference: refused outright.
          for (const header of [{ jwk: attackerJwk }, { jku: "https://evil.example/jwks.json" }, { x5c: ["MIIB"] }]) {
            expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { header })))
          }
        })
      )

      it.effect("a crit header", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const reply = yield* exchange(
            connector,
            yield* assertionFor(connector, { header: { crit: ["https://example.com/ext"], "https://example.com/ext": true } })
          )
          expectInvalidClient(reply)
        })
      )

      it.effect("a tampered payload (signature no longer matches)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const [header, , signature] = (yield* assertionFor(connector)).split(".")
          const other = Buffer.from(JSON.stringify({ ...(yield* claimsFor(connector)), jti: randomUUID() })).toString("base64url")
          expectInvalidClient(yield* exchange(connector, `${header}.${other}.${signature}`))
        })
      )
    })

    describe("the claims (spec 5.3; RFC 7523 3)", () => {
      it.effect("iss ≠ sub", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { claims: { sub: "someone-else" } })))
        })
      )

      it.effect("iss and sub naming another app (whose key did not sign)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          const reply = yield* exchange(
            connector,
            yield* assertionFor(connector, { claims: { iss: other.appId, sub: other.appId } })
          )
          expectInvalidClient(reply)
        })
      )

      it.effect("a wrong aud: trailing slash, http vs https, another host, a two-element array", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const connector = yield* newConnector()
          const endpoint = yield* tokenEndpoint
          const wrong: ReadonlyArray<unknown> = [
            `${endpoint}/`,
            `${host.url}/`,
            endpoint.replace("http://", "https://"),
            endpoint.replace("127.0.0.1", "localhost"),
            "https://auth.propline.test/oauth/token",
            API_URL,
            [endpoint, host.url],
            []
          ]
          for (const aud of wrong) {
            expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { claims: { aud } })))
          }
        })
      )

      it.effect("exp − iat = 300 is accepted; 301 is refused", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const accepted = yield* exchange(
            connector,
            yield* assertionFor(connector, { claims: { iat: NOW_SECONDS - 100, exp: NOW_SECONDS + 200 } })
          )
          expect(accepted.status, accepted.text).toBe(200)
          expectInvalidClient(
            yield* exchange(connector, yield* assertionFor(connector, { claims: { iat: NOW_SECONDS - 100, exp: NOW_SECONDS + 201 } }))
          )
        })
      )

      it.effect("expired beyond the 30 s leeway is refused; within it, accepted", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const lapsed = { iat: NOW_SECONDS - 200 }
          expectInvalidClient(
            yield* exchange(connector, yield* assertionFor(connector, { claims: { ...lapsed, exp: NOW_SECONDS - 30 } }))
          )
          const reply = yield* exchange(connector, yield* assertionFor(connector, { claims: { ...lapsed, exp: NOW_SECONDS - 29 } }))
          expect(reply.status, reply.text).toBe(200)
        })
      )

      it.effect("iat in the future beyond the leeway is refused; within it, accepted", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          expectInvalidClient(
            yield* exchange(connector, yield* assertionFor(connector, { claims: { iat: NOW_SECONDS + 31, exp: NOW_SECONDS + 100 } }))
          )
          const reply = yield* exchange(
            connector,
            yield* assertionFor(connector, { claims: { iat: NOW_SECONDS + 30, exp: NOW_SECONDS + 100 } })
          )
          expect(reply.status, reply.text).toBe(200)
        })
      )

      it.effect("a missing exp, iat, jti, iss or sub", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          for (const claim of ["exp", "iat", "jti", "iss", "sub"]) {
            const reply = yield* exchange(connector, yield* assertionFor(connector, { claims: { [claim]: undefined } }))
            expectInvalidClient(reply)
          }
        })
      )

      it.effect("claims of the wrong JSON type", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const wrong: ReadonlyArray<Record<string, unknown>> = [
            { exp: String(NOW_SECONDS + 300) },
            { iat: String(NOW_SECONDS) },
            { exp: true },
            { iat: null },
            { jti: 12345 },
            { jti: { id: "x" } },
            { iss: 1, sub: 1 },
            { iss: [connector.appId], sub: [connector.appId] },
            { sub: null },
            { aud: 1 },
            { aud: { url: "x" } },
            { nbf: "now" }
          ]
          for (const claims of wrong) {
            expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { claims })))
          }
          // A payload that is JSON but not an object.
          const array = yield* compactJws({ alg: "ES256", kid: connector.key.kid }, [1, 2], es256(connector.key.privateKey))
          expectInvalidClient(yield* exchange(connector, array))
        })
      )

      it.effect("a malformed JWT", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const good = yield* assertionFor(connector)
          const [header, payload] = good.split(".") as [string, string]
          const malformed = [
            "not-a-jwt",
            "a.b.c",
            `${header}.${payload}`,
            `${header}.${payload}.!!!`,
            `${header}.${payload}.sig.extra.part`,
            `${Buffer.from("{not json").toString("base64url")}.${payload}.sig`,
            `${header}.${Buffer.from("{not json").toString("base64url")}.sig`,
            `${header}.${Buffer.from([0xff, 0xfe]).toString("base64url")}.sig`,
            "..."
          ]
          for (const assertion of malformed) expectInvalidClient(yield* exchange(connector, assertion))
        })
      )
    })

    describe("the request (spec 5.3, 7.2)", () => {
      it.effect("a missing or wrong client_assertion_type is invalid_request (400)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const assertion = yield* assertionFor(connector)
          const body = (type: string | undefined) => {
            const form = new URLSearchParams(installationTokenBody(assertion, connector.installationId))
            if (type === undefined) form.delete("client_assertion_type")
            else form.set("client_assertion_type", type)
            return form.toString()
          }
          for (const type of [undefined, "urn:ietf:params:oauth:client-assertion-type:saml2-bearer", "jwt-bearer"]) {
            expectError(yield* postToken(body(type)), 400, "invalid_request")
          }
          // The assertion was not consumed by the refused requests: it still works.
          expect((yield* exchange(connector, assertion)).status).toBe(200)
        })
      )

      it.effect("an assertion plus a secret (form field or Basic) is invalid_request (400)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const app = yield* newApplication()
          const assertion = yield* assertionFor(connector)
          expectError(yield* exchange(connector, assertion, { extra: { client_secret: app.secret } }), 400, "invalid_request")
          expectError(
            yield* exchange(connector, assertion, { headers: { authorization: basic(app.clientId, app.secret) } }),
            400,
            "invalid_request"
          )
        })
      )

      it.effect("a body client_id other than iss is invalid_client", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector), { extra: { client_id: other.appId } }))
        })
      )

      it.effect("a missing installation_id is invalid_request (400)", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const form = new URLSearchParams(installationTokenBody(yield* assertionFor(connector), connector.installationId))
          form.delete("installation_id")
          expectError(yield* postToken(form.toString()), 400, "invalid_request")
        })
      )
    })

    describe("the installation (spec 7.2: invalid_grant, 400)", () => {
      const expectInvalidGrant = (reply: Reply) => {
        expectError(reply, 400, "invalid_grant")
        return reply.text
      }

      it.effect("another app's installation, an unknown one, and an id that is not a UUID: one body for all", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          const bodies = new Set<string>()
          for (const installationId of [other.installationId, randomUUID(), "not-a-uuid", "0"]) {
            bodies.add(expectInvalidGrant(yield* exchange(connector, yield* assertionFor(connector), { installationId })))
          }
          expect(bodies.size).toBe(1)
        })
      )

      it.effect("a suspended installation, until it is resumed", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          yield* withInstallations((installations) => installations.suspend(connector.installationId, system)).pipe(Effect.orDie)
          expectInvalidGrant(yield* exchange(connector, yield* assertionFor(connector)))
          yield* withInstallations((installations) => installations.resume(connector.installationId, system)).pipe(Effect.orDie)
          expect((yield* exchange(connector, yield* assertionFor(connector))).status).toBe(200)
        })
      )

      it.effect("a removed installation", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          yield* withInstallations((installations) => installations.remove(connector.installationId, system)).pipe(Effect.orDie)
          expectInvalidGrant(yield* exchange(connector, yield* assertionFor(connector)))
        })
      )

      it.effect("a bad assertion for a bad installation is invalid_client: authentication comes first", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          expectInvalidClient(
            yield* exchange(connector, yield* assertionFor(connector, { claims: { sub: "x" } }), {
              installationId: other.installationId
            })
          )
        })
      )
    })

    describe("jti: an assertion works once (spec 5.3, 8)", () => {
      it.effect("a replayed jti is invalid_client, also with a new signature and another installation id", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const claims = yield* claimsFor(connector)
          const assertion = yield* signAssertion(connector.key, claims)
          expect((yield* exchange(connector, assertion)).status).toBe(200)
          expectInvalidClient(yield* exchange(connector, assertion))
          // Same jti, re-signed with other claims: still used.
          const resigned = yield* signAssertion(connector.key, { ...claims, exp: NOW_SECONDS + 200 })
          expectInvalidClient(yield* exchange(connector, resigned))
          expectInvalidClient(yield* exchange(connector, assertion, { installationId: randomUUID() }))
        })
      )

      it.effect("one app's jti does not block another app's", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const other = yield* newConnector()
          const jti = randomUUID()
          expect((yield* exchange(connector, yield* assertionFor(connector, { claims: { jti } }))).status).toBe(200)
          expect((yield* exchange(other, yield* assertionFor(other, { claims: { jti } }))).status).toBe(200)
        })
      )

      it.effect("the same assertion sent 20 times concurrently: exactly one 200", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const assertion = yield* assertionFor(connector)
          const replies = yield* Effect.all(
            Array.from({ length: 20 }, () => exchange(connector, assertion)),
            { concurrency: "unbounded" }
          )
          expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1)
          for (const reply of replies.filter((candidate) => candidate.status !== 200)) expectInvalidClient(reply)
        })
      )
    })

    describe("every invalid_client body is identical (spec 7.2)", () => {
      it.effect("across header, signature, claim and replay failures", () =>
        Effect.gen(function* () {
          const connector = yield* newConnector()
          const claims = yield* claimsFor(connector)
          const used = yield* assertionFor(connector)
          yield* exchange(connector, used)
          const failures = [
            yield* compactJws({ alg: "none" }, claims, "none"),
            yield* assertionFor(connector, { header: { kid: "nope" } }),
            yield* assertionFor(connector, { claims: { aud: "x" } }),
            yield* assertionFor(connector, { claims: { exp: NOW_SECONDS - 3600, iat: NOW_SECONDS - 3700 } }),
            "garbage",
            used
          ]
          const bodies = new Set<string>()
          for (const assertion of failures) bodies.add((yield* exchange(connector, assertion)).text)
          expect([...bodies]).toEqual([INVALID_CLIENT_BODY])
        })
      )
    })

    describe("round trips", () => {
      /** The parsed request of an installation-token body, as the router hands it to the grant. */
      const parsed = (body: string) => {
        const request = parseTokenRequest({ contentType: FORM_CONTENT_TYPE, body, authorization: undefined })
        if (Either.isLeft(request) || request.right._tag !== "InstallationTokenRequest") throw new Error("not parsed")
        return request.right
      }
      // One consumption in FORGET_ONE_IN also forgets the expired jtis: a statement of its own, left out here.
      const counted = (statements: ReadonlyArray<string>) =>
        statements.filter((text) => !/^\s*delete from "consumed_assertions"/.test(text))
      const windowOf = (appId: string) =>
        Effect.map(
          Sql.rows(sql<{ readonly n: number }>`select cardinality(admitted_at) as n from token_rate_limits where client_id = ${appId}`),
          (rows) => rows[0]?.n ?? 0
        )

      it.effect("a token: two statements, the read, then the jti consumed with the rate limit in one", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const connector = yield* newConnector()
            // A first token loads the signing keys at this clock, so the measured one reads none.
            expect((yield* exchange(connector, yield* assertionFor(connector))).status).toBe(200)
            const grant = yield* InstallationGrant
            const request = parsed(installationTokenBody(yield* assertionFor(connector), connector.installationId))
            const { exit, statements } = yield* statementsOf(grant.issue(request).pipe(Effect.withClock(clock)))
            expect(Exit.isSuccess(exit)).toBe(true)
            const [read, consumeAndAdmit, ...others] = counted(statements)
            expect(others).toEqual([])
            expect(read).toContain('from "connector_app_keys"')
            expect(consumeAndAdmit).toMatch(/insert into consumed_assertions[\s\S]*insert into token_rate_limits/)
            expect(yield* windowOf(connector.appId)).toBe(2)
          })
        )
      )

      it.effect("a replayed assertion: the same two statements, and nothing of the app's window spent", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const connector = yield* newConnector()
            const assertion = yield* assertionFor(connector)
            expect((yield* exchange(connector, assertion)).status).toBe(200)
            const grant = yield* InstallationGrant
            const { exit, statements } = yield* statementsOf(
              grant.issue(parsed(installationTokenBody(assertion, connector.installationId))).pipe(Effect.withClock(clock))
            )
            expect(exit).toMatchObject({ _tag: "Failure" })
            expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause)).toMatchObject({
              _tag: "Some",
              value: { _tag: "InvalidClient", reason: "assertion_replayed" }
            })
            expect(counted(statements)).toHaveLength(2)
            expect(yield* windowOf(connector.appId)).toBe(1)
          })
        )
      )
    })

    describe("slow_down (429): the rate limit covers this grant (spec 7.2, 8; decisions 3)", () => {
      it.effect("the 61st fresh assertion of one app within 60 s is refused; failed authentication counts against no one", () =>
        withClock((clock) =>
          Effect.gen(function* () {
            const connector = yield* newConnector()
            for (let i = 0; i < 10; i++) {
              expectInvalidClient(yield* exchange(connector, yield* assertionFor(connector, { claims: { aud: "x" } })))
            }
            for (let i = 1; i <= 60; i++) {
              expect((yield* exchange(connector, yield* assertionFor(connector))).status, `request ${i}`).toBe(200)
            }
            const refused = yield* exchange(connector, yield* assertionFor(connector))
            expectError(refused, 429, "slow_down")
            expect(refused.headers.get("retry-after")).toBe("60")
            clock.advance("60 seconds")
            // The assertions' times are the frozen ones: still within the 300 s of life and the leeway.
            expect((yield* exchange(connector, yield* assertionFor(connector))).status).toBe(200)
          })
        )
      )
    })
  })
})
