/**
 * The benchmark baseline of the installation-token grant (spec 5.3): the least a plain Node server does for it,
 * running the SQL the API runs, for `BaselineServer` to serve beside client_credentials (`bench.ts` wires it:
 * `POST /oauth/token` with `grant_type=urn:service:params:oauth:grant-type:installation-token`).
 *
 * Per request, as `InstallationGrant` does: read the JWS header (ES256 and a kid) and the unverified `iss`; {@link KEY_SQL}
 * (the app's active key with that kid and the installation, one round trip); verify the ES256 signature with
 * `node:crypto` (public keys cached by app and kid); check `iss` = `sub`, `aud`, `iat`/`exp` and the `jti`;
 * `TokenStatements.CONSUME_ADMIT_SQL` (the `jti` consumed, durable, and only then the app's rate limit, as the
 * API's `TokenRateLimitRepository.admitFreshAssertion`); then sign the same claims. Errors are bare
 * `invalid_client` / `invalid_grant` / `slow_down` bodies.
 *
 * {@link KEY_SQL} is the text of the API's `ConnectorAppRepository.activeKeyAndInstallation`, placeholders numbered
 * alike, so the server plans both the same. Change them together.
 */
import { createPublicKey, type KeyObject, randomUUID, verify } from "node:crypto"
import type pg from "pg"
import { admissionParameters, CONSUME_ADMIT_SQL } from "./TokenStatements.js"

/** `ConnectorAppRepository.activeKeyAndInstallation`. Parameters: installation id (or null), app id, kid, "active". */
export const KEY_SQL = `select "connector_app_keys"."public_jwk", "installations"."id" as "installation_id", "installations"."organization_id", "installations"."status", "installations"."roles", (select coalesce(json_agg(agg), '[]') from (select "installation_contexts"."operational_context_id" from "installation_contexts" where "installation_contexts"."installation_id" = "installations"."id" order by "installation_contexts"."operational_context_id") as agg) as "contexts" from "connector_app_keys" left join "installations" on installations.id = $1::uuid and "installations"."app_id" = "connector_app_keys"."app_id" where "connector_app_keys"."app_id" = $2 and "connector_app_keys"."kid" = $3 and "connector_app_keys"."status" = $4`

interface KeyRow {
  readonly public_jwk: Record<string, unknown>
  readonly installation_id: string | null
  readonly organization_id: string | null
  readonly status: string | null
  readonly roles: Array<string> | null
  readonly contexts: Array<{ readonly operational_context_id: string }>
}

/** What the handler answers: a status and a JSON body. */
export interface BaselineReply {
  readonly status: number
  readonly body: unknown
}

export interface InstallationGrantBaseline {
  readonly pool: pg.Pool
  /** `{auth_url}/oauth/token` and `{auth_url}`: the audiences an assertion may name. */
  readonly tokenEndpoint: string
  readonly issuer: string
  /** Signs an access token's claims as the baseline signs client_credentials tokens. */
  readonly signToken: (claims: Record<string, unknown>) => string
  readonly audience: string
}

const decode = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** A handler for one parsed form (`URLSearchParams` of the body). */
export const installationGrantBaseline = (deps: InstallationGrantBaseline) => {
  const keys = new Map<string, KeyObject>()
  const invalidClient: BaselineReply = { status: 401, body: { error: "invalid_client" } }

  return async (form: URLSearchParams): Promise<BaselineReply> => {
    const assertion = form.get("client_assertion") ?? ""
    const installationId = form.get("installation_id") ?? ""
    const [headerPart, payloadPart, signaturePart] = assertion.split(".")
    const header = decode(headerPart)
    const claims = decode(payloadPart)
    if (header?.["alg"] !== "ES256" || typeof header["kid"] !== "string" || claims === undefined) return invalidClient
    const appId = claims["iss"]
    if (typeof appId !== "string") return invalidClient
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(installationId) ? installationId : null
    const row = (await deps.pool.query<KeyRow>(KEY_SQL, [uuid, appId, header["kid"], "active"])).rows[0]
    if (row === undefined) return invalidClient
    const cacheKey = `${appId} ${header["kid"]}`
    let key = keys.get(cacheKey)
    if (key === undefined) {
      key = createPublicKey({ key: row.public_jwk, format: "jwk" })
      keys.set(cacheKey, key)
    }
    const valid = verify(
      "sha256",
      Buffer.from(`${headerPart}.${payloadPart}`),
      { key, dsaEncoding: "ieee-p1363" },
      Buffer.from(signaturePart ?? "", "base64url")
    )
    const now = Date.now()
    const { aud, exp, iat, jti, sub } = claims
    if (
      !valid ||
      sub !== appId ||
      (aud !== deps.tokenEndpoint && aud !== deps.issuer) ||
      typeof exp !== "number" ||
      typeof iat !== "number" ||
      exp - iat > 300 ||
      now >= (exp + 30) * 1000 ||
      typeof jti !== "string"
    ) {
      return invalidClient
    }
    const at = new Date(now)
    const admission = await deps.pool.query<{ admitted: boolean }>(CONSUME_ADMIT_SQL, [
      appId,
      jti,
      new Date(exp * 1000),
      at,
      ...admissionParameters(appId, at)
    ])
    if (admission.rows[0] === undefined) return invalidClient
    if (!admission.rows[0].admitted) return { status: 429, body: { error: "slow_down" } }
    if (row.installation_id === null || row.status !== "active") return { status: 400, body: { error: "invalid_grant" } }
    const issuedAt = Math.floor(now / 1000)
    const accessToken = deps.signToken({
      iss: deps.issuer,
      sub: row.installation_id,
      aud: deps.audience,
      exp: issuedAt + 600,
      iat: issuedAt,
      jti: randomUUID(),
      client_id: appId,
      org: row.organization_id,
      roles: row.roles,
      ctx: row.contexts.map((context) => context.operational_context_id)
    })
    return { status: 200, body: { access_token: accessToken, token_type: "Bearer", expires_in: 600 } }
  }
}
