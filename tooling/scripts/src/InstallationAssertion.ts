/**
 * What an installed connector sends to get a token (spec 5.3; RFC 7523): a client assertion, a JWT signed ES256
 * with the connector's private key (`iss` = `sub` = the app id, `aud` the token endpoint, `iat`, `exp` 300 s later,
 * a fresh `jti`), exchanged with the installation-token grant for the installation's token.
 *
 * {@link createAssertionMinter} mints them synchronously with `node:crypto` (no promise per assertion), so a load
 * generator can make a fresh one per request inside its request hook: `pnpm bench` uses it for the installation
 * grant, the example connector for its token.
 */
import { createPrivateKey, type JsonWebKey, randomUUID, sign } from "node:crypto"

/** `DATA_DIR/demo-connector.json`, as the product writes it. */
export interface ConnectorCredentials {
  readonly app_id: string
  readonly installation_id: string
  /** An ES256 private JWK with `kid` and `alg`. */
  readonly private_jwk: JsonWebKey & { readonly kid: string }
  readonly auth_url: string
  readonly base_url: string
  /** A connection reference the product issued at its start (10 minutes, once), for `pnpm connector:setup`. */
  readonly connection_reference?: string
}

/** The installation-token grant's `grant_type` and the assertion type (spec 5.3). */
export const GRANT_TYPE_INSTALLATION_TOKEN = "urn:service:params:oauth:grant-type:installation-token"
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/** An assertion's life, `exp − iat`, in seconds: the longest the spec allows (spec 5.3, 8). */
export const ASSERTION_LIFETIME_SECONDS = 300

export interface AssertionMinter {
  /** A fresh assertion: new `jti`, `iat` now (whole seconds), `exp` 300 s later. */
  readonly assertion: () => string
  /** A complete `application/x-www-form-urlencoded` token request body with a fresh assertion. */
  readonly requestBody: () => string
  /** `{auth_url}/oauth/token`: where to POST the body, and the assertion's `aud`. */
  readonly tokenEndpoint: string
}

const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url")

/**
 * A minter for one connector installation. `now` (milliseconds since the epoch, default `Date.now`) stamps `iat`.
 * Throws when `private_jwk` is not an EC private key.
 */
export const createAssertionMinter = (
  connector: ConnectorCredentials,
  options: { readonly now?: () => number } = {}
): AssertionMinter => {
  const key = createPrivateKey({ key: connector.private_jwk, format: "jwk" })
  const now = options.now ?? Date.now
  const tokenEndpoint = `${connector.auth_url}/oauth/token`
  const header = base64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: connector.private_jwk.kid }))
  const assertion = () => {
    const iat = Math.floor(now() / 1000)
    const payload = base64url(
      JSON.stringify({
        iss: connector.app_id,
        sub: connector.app_id,
        aud: tokenEndpoint,
        iat,
        exp: iat + ASSERTION_LIFETIME_SECONDS,
        jti: randomUUID()
      })
    )
    const signingInput = `${header}.${payload}`
    const signature = sign("sha256", Buffer.from(signingInput), { key, dsaEncoding: "ieee-p1363" })
    return `${signingInput}.${signature.toString("base64url")}`
  }
  const requestBody = () =>
    new URLSearchParams({
      grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
      client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
      client_assertion: assertion(),
      installation_id: connector.installation_id
    }).toString()
  return { assertion, requestBody, tokenEndpoint }
}
