/**
 * Discovery on the identity host (spec 5.4; decisions 1 and 3; RFC 8414), black-box over HTTP on PGlite and
 * PostgreSQL.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import * as oauth from "oauth4webapi"
import { SigningKeys } from "../../src/identity/SigningKeys.js"
import { identityHost, json, request, TestHost } from "./IdentityTestHost.js"

describe.each(TestDatabase.kinds())("discovery on %s", (kind) => {
  // The standalone `layer`, not `it.layer`, so the second database kind does not build on the first.
  layer(identityHost(kind), { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    describe("GET /.well-known/openid-configuration and /.well-known/oauth-authorization-server", () => {
      it.effect("serve the same metadata, cacheable for 5 minutes", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const openid = yield* request("/.well-known/openid-configuration")
          const oauth2 = yield* request("/.well-known/oauth-authorization-server")
          for (const reply of [openid, oauth2]) {
            expect(reply.status).toBe(200)
            expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
            expect(reply.headers.get("cache-control")).toBe("public, max-age=300")
            expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
          }
          expect(oauth2.text).toBe(openid.text)
          expect(json(openid)).toEqual({
            issuer: host.url,
            token_endpoint: `${host.url}/oauth/token`,
            jwks_uri: `${host.url}/.well-known/jwks.json`,
            grant_types_supported: ["client_credentials", "urn:service:params:oauth:grant-type:installation-token"],
            token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
            token_endpoint_auth_signing_alg_values_supported: ["ES256"],
            response_types_supported: []
          })
        })
      )

      it.effect("pass oauth4webapi's discovery checks, OpenID Connect style and RFC 8414 style", () =>
        Effect.gen(function* () {
          const host = yield* TestHost
          const issuer = new URL(host.url)
          for (const algorithm of ["oidc", "oauth2"] as const) {
            const as = yield* Effect.promise(async () =>
              oauth.processDiscoveryResponse(
                issuer,
                await oauth.discoveryRequest(issuer, { algorithm, [oauth.allowInsecureRequests]: true })
              )
            )
            expect(as.token_endpoint).toBe(`${host.url}/oauth/token`)
          }
        })
      )

      it.effect("answer HEAD; refuse other methods with 405 and Allow", () =>
        Effect.gen(function* () {
          const head = yield* request("/.well-known/openid-configuration", { method: "HEAD" })
          expect(head.status).toBe(200)
          expect(head.text).toBe("")
          const posted = yield* request("/.well-known/openid-configuration", { method: "POST", body: "x" })
          expect(posted.status).toBe(405)
          expect(posted.headers.get("allow")).toBe("GET, HEAD")
          expect(posted.headers.get("content-type")).toMatch(/^application\/problem\+json/)
        })
      )
    })

    describe("GET /.well-known/jwks.json", () => {
      it.effect("lists the public signing keys with kid, alg ES256 and use sig; cacheable for a minute", () =>
        Effect.gen(function* () {
          const reply = yield* request("/.well-known/jwks.json")
          expect(reply.status).toBe(200)
          expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
          expect(reply.headers.get("cache-control")).toBe("public, max-age=60")
          const { keys } = json(reply) as { keys: Array<Record<string, unknown>> }
          const { kid } = yield* Effect.flatMap(SigningKeys, (signingKeys) => signingKeys.current)
          expect(keys.map((key) => key["kid"])).toContain(kid)
          for (const key of keys) {
            expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" })
            expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"])
          }
        })
      )
    })

    describe("other paths", () => {
      it.effect("are 404 problem details with X-Request-Id", () =>
        Effect.gen(function* () {
          const reply = yield* request("/v1/operational-contexts")
          expect(reply.status).toBe(404)
          expect(reply.headers.get("content-type")).toMatch(/^application\/problem\+json/)
          expect(json(reply)).toEqual({ type: "about:blank", title: "Not Found", status: 404 })
          expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
        })
      )
    })
  })
})
