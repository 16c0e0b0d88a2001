/**
 * Scenarios of the identity host and of the tokens it issues (spec 5, 7.2; RFC 8414, RFC 9068): discovery, the
 * client credentials grant with each client authentication method through a standard client, the token
 * endpoint's refusals, and the API host's refusal of requests without a valid access token.
 *
 * Raw HTTP and a third-party OAuth client (oauth4webapi) on purpose, not the published client: these check the
 * identity host itself — every client authentication method, malformed and refused token requests, tokens that are
 * missing, garbage or forged — which the published client would never send. The run's own tokens come from the
 * published client (`Harness.ts`, `published`, `installed`).
 */
import { createRemoteJWKSet, generateKeyPair, jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import * as oauth from "oauth4webapi"
import {
  check,
  type Context,
  equal,
  expectProblem,
  expectStatus,
  field,
  join,
  type Reply,
  type Scenario,
  send,
  show
} from "../Harness.js"

const tokenEndpoint = (context: Context) => join(context.credentials.auth_url, "/oauth/token")

const basicAuthorization = (clientId: string, secret: string) => {
  // RFC 6749 Appendix B: form-encode each part before Basic.
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2)
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString("base64")}`
}

const postToken = (context: Context, body: string, headers: Record<string, string> = {}) => {
  context.tokenRequests++
  return send(tokenEndpoint(context), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body
  })
}

/** Whether `url` is plain HTTP: oauth4webapi then needs its explicit allowance (local deployments). */
const insecure = (url: string) => new URL(url).protocol === "http:"

const hasNoStore = (headers: Headers) =>
  (headers.get("cache-control") ?? "")
    .split(",")
    .map((directive) => directive.trim().toLowerCase())
    .includes("no-store")

/** Spec 7.2: the OAuth 2.0 error object with the given status and error. */
const expectTokenError = (reply: Reply, status: number, error: string, what: string) => {
  expectStatus(reply, status, what)
  equal(field(reply.body, "error"), error, `${what}: error`)
  check(typeof field(reply.body, "error_description") === "string", `${what}: no error_description`)
  const contentType = reply.headers.get("content-type") ?? ""
  check(contentType.startsWith("application/json"), `${what}: content type ${contentType}, not application/json`)
  check(hasNoStore(reply.headers), `${what}: no Cache-Control: no-store`)
}

const discovery: Scenario = {
  name: "discovery",
  run: async (context) => {
    const { auth_url } = context.credentials
    const openid = await send(join(auth_url, "/.well-known/openid-configuration"))
    const oauth2 = await send(join(auth_url, "/.well-known/oauth-authorization-server"))
    expectStatus(openid, 200, "GET /.well-known/openid-configuration")
    expectStatus(oauth2, 200, "GET /.well-known/oauth-authorization-server")
    equal(oauth2.body, openid.body, "the two discovery documents")
    equal(field(openid.body, "issuer"), auth_url, "issuer")
    equal(field(openid.body, "token_endpoint"), join(auth_url, "/oauth/token"), "token_endpoint")
    const grants = field(openid.body, "grant_types_supported")
    check(Array.isArray(grants) && grants.includes("client_credentials"), `grant_types_supported: ${show(grants)}`)
    const methods = field(openid.body, "token_endpoint_auth_methods_supported")
    check(
      Array.isArray(methods) && methods.includes("client_secret_basic") && methods.includes("client_secret_post"),
      `token_endpoint_auth_methods_supported: ${show(methods)}`
    )
    // A standard client's checks, OpenID Connect style and RFC 8414 style.
    for (const algorithm of ["oidc", "oauth2"] as const) {
      const issuer = new URL(auth_url)
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm, [oauth.allowInsecureRequests]: insecure(auth_url) })
      )
      equal(as.token_endpoint, join(auth_url, "/oauth/token"), `oauth4webapi (${algorithm}) token_endpoint`)
    }
    const jwksUri = field(openid.body, "jwks_uri")
    check(typeof jwksUri === "string", "no jwks_uri")
    const jwks = await send(jwksUri)
    expectStatus(jwks, 200, `GET ${jwksUri}`)
    const keys = field(jwks.body, "keys")
    check(Array.isArray(keys) && keys.length > 0, "the JWKS has no keys")
    const signing = keys.filter(
      (key) =>
        field(key, "kty") === "EC" &&
        field(key, "crv") === "P-256" &&
        field(key, "alg") === "ES256" &&
        typeof field(key, "kid") === "string" &&
        field(key, "kid") !== ""
    )
    check(signing.length > 0, `the JWKS has no ES256 key with a kid: ${jwks.text.slice(0, 300)}`)
    check(
      keys.every((key) => field(key, "d") === undefined),
      "the JWKS publishes a private key member (d)"
    )
    return `issuer ${auth_url}; both documents agree; ${signing.length} ES256 key(s): ${signing.map((k) => field(k, "kid")).join(", ")}`
  }
}

const tokenWith = (method: "client_secret_basic" | "client_secret_post"): Scenario => ({
  name: `token (oauth4webapi, ${method})`,
  run: async (context) => {
    const { auth_url, base_url, client_id, client_secret } = context.credentials
    const issuer = new URL(auth_url)
    const options = { [oauth.allowInsecureRequests]: insecure(auth_url) }
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options))
    const client: oauth.Client = { client_id }
    const auth = method === "client_secret_basic" ? oauth.ClientSecretBasic(client_secret) : oauth.ClientSecretPost(client_secret)
    context.tokenRequests++
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), options)
    equal(response.status, 200, "token response status")
    check(hasNoStore(response.headers), `token response Cache-Control: ${response.headers.get("cache-control")}`)
    const token = await oauth.processClientCredentialsResponse(as, client, response)
    equal(token.token_type, "bearer", "token_type (normalized by oauth4webapi)")
    equal(token.expires_in, 600, "expires_in")
    equal(token.refresh_token, undefined, "refresh_token")
    check(typeof as.jwks_uri === "string", "no jwks_uri")
    const { payload, protectedHeader } = await jwtVerify(token.access_token, createRemoteJWKSet(new URL(as.jwks_uri)), {
      issuer: auth_url,
      audience: base_url,
      typ: "at+jwt",
      algorithms: ["ES256"]
    })
    check(typeof protectedHeader.kid === "string", "the token's header has no kid")
    check(typeof payload.exp === "number" && typeof payload.iat === "number", "the token has no exp or iat")
    equal(payload.exp - payload.iat, 600, "exp - iat")
    equal(payload["client_id"], client_id, "client_id claim")
    return `200 no-store; ES256 at+jwt (kid ${protectedHeader.kid}) verifies against the JWKS, iss ${auth_url}, aud ${base_url}, lives 600 s`
  }
})

const tokenErrors: Scenario = {
  name: "token endpoint errors (spec 7.2)",
  run: async (context) => {
    const { client_id, client_secret } = context.credentials
    const basic = { authorization: basicAuthorization(client_id, client_secret) }
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id, client_secret }).toString()
    // A client that does not exist: failed authentication counts against no client's rate limit.
    const unknownClient = `harness_unknown_${context.runId}`
    const wrongSecret = `service_sk_${"A".repeat(43)}`
    const cases: Array<[string, () => Promise<Reply>, number, string]> = [
      [
        "JSON body",
        () =>
          postToken(context, JSON.stringify({ grant_type: "client_credentials", client_id, client_secret }), {
            "content-type": "application/json"
          }),
        400,
        "invalid_request"
      ],
      ["grant_type missing", () => postToken(context, "", basic), 400, "invalid_request"],
      [
        "grant_type repeated",
        () => postToken(context, "grant_type=client_credentials&grant_type=client_credentials", basic),
        400,
        "invalid_request"
      ],
      ["Basic and form credentials", () => postToken(context, form, basic), 400, "invalid_request"],
      ["unknown grant type", () => postToken(context, "grant_type=password", basic), 400, "unsupported_grant_type"],
      ["scope sent", () => postToken(context, "grant_type=client_credentials&scope=billing", basic), 400, "invalid_scope"],
      [
        "wrong credentials after Basic",
        () =>
          postToken(context, "grant_type=client_credentials", {
            authorization: basicAuthorization(unknownClient, wrongSecret)
          }),
        401,
        "invalid_client"
      ],
      [
        "wrong credentials in the form",
        () =>
          postToken(
            context,
            new URLSearchParams({ grant_type: "client_credentials", client_id: unknownClient, client_secret: wrongSecret }).toString()
          ),
        401,
        "invalid_client"
      ]
    ]
    for (const [what, request, status, error] of cases) {
      const reply = await request()
      expectTokenError(reply, status, error, what)
      if (what === "wrong credentials after Basic") {
        const challenge = reply.headers.get("www-authenticate") ?? ""
        check(/^Basic\b/i.test(challenge), `${what}: WWW-Authenticate ${show(challenge)}, not a Basic challenge`)
      }
    }
    return `${cases.length} refusals: ${cases.map(([what, , status, error]) => `${what} ${status} ${error}`).join("; ")}`
  }
}

const apiAuthentication: Scenario = {
  name: "API authentication",
  run: async (context) => {
    const url = join(context.credentials.base_url, "/v1/operational-contexts")
    const none = await send(url)
    expectProblem(none, 401, undefined, "no token")
    const challenge = none.headers.get("www-authenticate") ?? ""
    check(/^Bearer\b/.test(challenge), `no token: WWW-Authenticate ${show(challenge)}, not a Bearer challenge`)

    const garbage = await send(url, { headers: { authorization: "Bearer not-a-token" } })
    expectProblem(garbage, 401, undefined, "garbage token")
    check(/^Bearer\b/.test(garbage.headers.get("www-authenticate") ?? ""), "garbage token: no Bearer challenge")

    // Well-formed, right issuer and audience, but signed by a key the identity host never published.
    const { privateKey } = await generateKeyPair("ES256")
    const forged = await new SignJWT({ client_id: context.credentials.client_id })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "harness-forged" })
      .setIssuer(context.credentials.auth_url)
      .setAudience(context.credentials.base_url)
      .setSubject(context.credentials.client_id)
      .setIssuedAt()
      .setExpirationTime("10m")
      .setJti(randomUUID())
      .sign(privateKey)
    expectProblem(await send(url, { headers: { authorization: `Bearer ${forged}` } }), 401, undefined, "forged token")

    // 401 comes before any validation of the input.
    const unauthenticatedPass = await send(
      join(context.credentials.base_url, "/v1/billing/invoice-proposals/not-a-uuid/pass"),
      { method: "POST", headers: { "content-type": "application/json" }, body: "{" }
    )
    expectProblem(unauthenticatedPass, 401, undefined, "malformed pass without a token")
    return `401 problem+json with "${challenge}" without a token; 401 for a garbage and a forged token, and before input validation`
  }
}


/** The identity scenarios, in the order they run. */
export const identityScenarios: ReadonlyArray<Scenario> = [
  discovery,
  tokenWith("client_secret_basic"),
  tokenWith("client_secret_post"),
  tokenErrors,
  apiAuthentication
]
