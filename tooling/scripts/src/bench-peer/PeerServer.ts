/**
 * The benchmark's conventional peer (issue 27): what a team would write for the product's hot paths with the
 * framework it would otherwise pick — Fastify 5, `jose` and kysely with its CamelCasePlugin — run as its own process
 * beside the product and the plain baseline and measured in the same interleaved rounds (`bench.ts`). Not a product
 * component.
 *
 * Routes (the product's paths, so the benchmark sends both the same requests):
 * - `POST /oauth/token`: client_credentials with HTTP Basic (the API's one statement, `TokenStatements.TOKEN_SQL`,
 *   then the claims signed ES256 with jose's `SignJWT`), and the installation-token grant (the client assertion
 *   verified with jose against the app's key read with the installation, the `jti` consumed, the rate limit, the
 *   claims signed); form bodies through a content-type parser (`node:querystring`, what `@fastify/formbody` does).
 * - `GET /v1/billing/send-queue`, `POST /v1/billing/invoice-proposals/:proposalId/pass`,
 *   `POST /v1/billing/invoices/:invoiceId/report-payment`, `GET /v1/booking/resources/:resourceId/availability`,
 *   `POST /v1/booking/booking-requests/preview` (`PeerRoutes.ts`): an `onRequest` hook verifies the bearer token
 *   with jose's `jwtVerify` against the identity host's JWKS (`createRemoteJWKSet`, keys cached by jose; ES256,
 *   `typ: at+jwt`, issuer and audience checked) on every request, as a conventional server does; the organization
 *   and granted contexts come from the token's claims. Request bodies and query strings validated by Fastify's JSON
 *   schemas (ajv), answers serialized by its response schemas (fast-json-stringify).
 *
 * Environment: DATABASE_URL, ISSUER (the identity host's URL: the JWKS is `ISSUER/.well-known/jwks.json`), AUDIENCE
 * (the API's base URL), APPLICATION_ID (the demo Application, for the booking grant), POOL_MAX (default 10).
 * Listens on 127.0.0.1 on a free port and writes one line to stdout: `{"port":N,"publicJwk":{…}}`.
 */
import { createHash, randomUUID } from "node:crypto"
import { parse as parseQueryString } from "node:querystring"
import type { Database } from "@propline/db/Database"
import Fastify from "fastify"
import { createRemoteJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from "jose"
import { CamelCasePlugin, CompiledQuery, Kysely, PostgresDialect } from "kysely"
import pg from "pg"
import { GRANT_TYPE_INSTALLATION_TOKEN } from "../InstallationAssertion.js"
import { KEY_SQL } from "../internal/InstallationGrantBaseline.js"
import {
  accessTokenClaims,
  clientCredentialsClaims,
  admissionParameters,
  TOKEN_TTL_SECONDS,
  basicCredentials,
  CONSUME_ADMIT_SQL,
  TOKEN_SQL,
  type TokenRow,
  wellFormedSecret
} from "../internal/TokenStatements.js"
import { peerRoutes, type Principal } from "./PeerRoutes.js"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is not set`)
  return value
}

const issuer = env("ISSUER")
const audience = env("AUDIENCE")

/** As the product reads them (and as a team on kysely would): bigint columns as numbers, dates as ISO text. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === pg.types.builtins.INT8) return Number
    if (oid === pg.types.builtins.DATE) return (value: string) => value
    return pg.types.getTypeParser(oid, format)
  }) as typeof pg.types.getTypeParser
}
const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: Number(process.env["POOL_MAX"] ?? "10"), types })
pool.on("error", () => {})
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] })

const { privateKey, publicKey } = await generateKeyPair("ES256")
const kid = randomUUID()
const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`))

/** An access token of `claims`, signed as the product signs them (ES256, `typ: at+jwt`). */
const signClaims = (claims: JWTPayload): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid }).sign(privateKey)

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 })

app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
  done(null, parseQueryString(body as string))
})

const tokenResponse = {
  200: {
    type: "object",
    properties: { access_token: { type: "string" }, token_type: { type: "string" }, expires_in: { type: "integer" } }
  },
  "4xx": { type: "object", properties: { error: { type: "string" } } }
} as const

type Form = Record<string, string | Array<string> | undefined>
const field = (form: Form, name: string): string | undefined => {
  const value = form[name]
  return typeof value === "string" ? value : undefined
}

/**
 * The API's statement consuming an assertion's `jti` and, only if this request consumed it, judging the app's rate
 * limit: undefined when the `jti` was consumed before, else whether the request was admitted.
 */
const consumeAndAdmit = async (appId: string, jti: string, expiresAt: Date, at: Date): Promise<boolean | undefined> => {
  const { rows } = await db.executeQuery<{ admitted: boolean }>(
    CompiledQuery.raw(CONSUME_ADMIT_SQL, [appId, jti, expiresAt, at, ...admissionParameters(appId, at)])
  )
  return rows[0]?.admitted
}

interface KeyRow {
  readonly publicJwk: Record<string, unknown>
  readonly installationId: string | null
  readonly organizationId: string | null
  readonly status: string | null
  readonly roles: Array<string> | null
  readonly contexts: Array<{ readonly operationalContextId: string }>
}

const appKeys = new Map<string, CryptoKey | Uint8Array>()

app.post<{ Body: Form }>("/oauth/token", { schema: { response: tokenResponse } }, async (request, reply) => {
  const form = request.body
  if (typeof form !== "object" || form === null) return reply.code(400).send({ error: "invalid_request" })
  const grantType = field(form, "grant_type")
  const now = Date.now()
  if (grantType === GRANT_TYPE_INSTALLATION_TOKEN) {
    const assertion = field(form, "client_assertion") ?? ""
    const installationId = field(form, "installation_id") ?? ""
    let header: { alg?: string; kid?: string }
    let appId: unknown
    try {
      const [headerPart, payloadPart] = assertion.split(".")
      header = JSON.parse(Buffer.from(headerPart ?? "", "base64url").toString("utf8")) as typeof header
      appId = (JSON.parse(Buffer.from(payloadPart ?? "", "base64url").toString("utf8")) as JWTPayload).iss
    } catch {
      return reply.code(401).send({ error: "invalid_client" })
    }
    if (header.alg !== "ES256" || typeof header.kid !== "string" || typeof appId !== "string") {
      return reply.code(401).send({ error: "invalid_client" })
    }
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(installationId) ? installationId : null
    const row = (await db.executeQuery<KeyRow>(CompiledQuery.raw(KEY_SQL, [uuid, appId, header.kid, "active"]))).rows[0]
    if (row === undefined) return reply.code(401).send({ error: "invalid_client" })
    const cacheKey = `${appId} ${header.kid}`
    let key = appKeys.get(cacheKey)
    if (key === undefined) {
      key = await importJWK(row.publicJwk, "ES256")
      appKeys.set(cacheKey, key)
    }
    let claims: JWTPayload
    try {
      claims = (
        await jwtVerify(assertion, key, {
          algorithms: ["ES256"],
          issuer: appId,
          subject: appId,
          audience: [`${issuer}/oauth/token`, issuer],
          maxTokenAge: 330,
          clockTolerance: 30
        })
      ).payload
    } catch {
      return reply.code(401).send({ error: "invalid_client" })
    }
    if (typeof claims.jti !== "string" || typeof claims.exp !== "number") return reply.code(401).send({ error: "invalid_client" })
    const admitted = await consumeAndAdmit(appId, claims.jti, new Date(claims.exp * 1000), new Date(now))
    if (admitted === undefined) return reply.code(401).send({ error: "invalid_client" })
    if (!admitted) return reply.code(429).send({ error: "slow_down" })
    if (row.installationId === null || row.status !== "active") return reply.code(400).send({ error: "invalid_grant" })
    const accessToken = await signClaims(
      accessTokenClaims({
        issuer,
        audience,
        subject: row.installationId,
        clientId: appId,
        organizationId: row.organizationId,
        roles: row.roles,
        contextIds: row.contexts.map((context) => context.operationalContextId),
        nowMs: now
      })
    )
    return { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_TTL_SECONDS }
  }
  if (grantType !== "client_credentials") return reply.code(400).send({ error: "unsupported_grant_type" })
  const credentials = basicCredentials(request.headers.authorization)
  if (credentials === undefined || !wellFormedSecret.test(credentials.secret)) {
    return reply.code(401).send({ error: "invalid_client" })
  }
  const at = new Date(now)
  const digest = createHash("sha256").update(credentials.secret, "utf8").digest("hex")
  const { rows } = await db.executeQuery<TokenRow>(
    CompiledQuery.raw(TOKEN_SQL, [
      digest,
      credentials.clientId,
      ...admissionParameters(credentials.clientId, at),
      at,
      new Date(now - 60_000)
    ])
  )
  const client = rows[0]
  if (client === undefined) return reply.code(401).send({ error: "invalid_client" })
  if (!client.admitted) return reply.code(429).send({ error: "slow_down" })
  const accessToken = await signClaims(clientCredentialsClaims(issuer, audience, credentials.clientId, client, now))
  return { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_TTL_SECONDS }
})

/** The bearer token of every `/v1` request, verified against the identity host's JWKS. */
const authenticate = async (authorization: string | undefined): Promise<Principal | undefined> => {
  if (authorization === undefined || !authorization.startsWith("Bearer ")) return undefined
  try {
    const { payload } = await jwtVerify(authorization.slice(7), jwks, {
      algorithms: ["ES256"],
      typ: "at+jwt",
      issuer,
      audience
    })
    const { org, ctx, client_id: clientId } = payload as JWTPayload & { org?: unknown; ctx?: unknown; client_id?: unknown }
    if (typeof org !== "string" || !Array.isArray(ctx) || typeof clientId !== "string" || typeof payload.sub !== "string") {
      return undefined
    }
    return { organizationId: org, contextIds: ctx as Array<string>, clientId, subject: payload.sub }
  } catch {
    return undefined
  }
}

await app.register(peerRoutes({ db, authenticate, applicationId: env("APPLICATION_ID") }), { prefix: "/v1" })

const shutdown = (): void => {
  void app
    .close()
    .then(() => db.destroy())
    .finally(() => process.exit(0))
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

await app.listen({ port: 0, host: "127.0.0.1" })
const address = app.server.address()
if (address === null || typeof address === "string") throw new Error("no port")
process.stdout.write(`${JSON.stringify({ port: address.port, kid, publicJwk: { ...(await exportJWK(publicKey)), kid } })}\n`)
