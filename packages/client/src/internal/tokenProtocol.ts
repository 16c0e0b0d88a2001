/**
 * The token endpoint's protocol without a transport (spec 5; RFC 6749, RFC 7523), shared by the Effect API's
 * `Tokens.ts` and the Promise API: the forms of both grants, the client assertion, and the reading of an answer.
 */
import { importJWK, importPKCS8, type JWK, SignJWT } from "jose"
import { parseRetryAfter, SchemaError, TokenError } from "../Errors.js"

/** The installation-token grant's `grant_type` and the assertion type (spec 5.3). */
export const GRANT_TYPE_INSTALLATION_TOKEN = "urn:service:params:oauth:grant-type:installation-token"
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
/** An assertion's life, `exp − iat`, in seconds: the longest the spec allows (spec 5.3). */
export const ASSERTION_LIFETIME_SECONDS = 300

/** An Application's credentials and its token endpoint (`{auth_url}/oauth/token`). */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret: string
  readonly tokenUrl: string
}

/**
 * An installed connector's: its app id, the installation, and its ES256 private key (a JWK with `kid`, or a PKCS #8
 * PEM string), and the token endpoint.
 */
export interface InstallationCredentials {
  readonly appId: string
  readonly installationId: string
  readonly privateKey: (JWK & { readonly kid?: string }) | string
  readonly tokenUrl: string
}

/** The token endpoint's success body (spec 5.1): `expires_in` in seconds. */
export interface IssuedToken {
  readonly accessToken: string
  readonly expiresIn: number
}

/** RFC 6749 Appendix B: application/x-www-form-urlencoded encoding of a credential before Basic. */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2)

/** client_credentials' form and its HTTP Basic authorization (client_secret_basic). */
export const clientCredentialsRequest = (credentials: ClientCredentials) => ({
  form: { grant_type: "client_credentials" } as Readonly<Record<string, string>>,
  authorization: `Basic ${btoa(`${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`)}`
})

/** The installation-token grant's form around a signed assertion. */
export const installationForm = (
  credentials: InstallationCredentials,
  assertion: string
): Readonly<Record<string, string>> => ({
  grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
  client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
  client_assertion: assertion,
  installation_id: credentials.installationId
})

/**
 * A signer of client assertions for one installation: each call gives a fresh JWT (`iat` from the wall clock, since
 * the identity host checks it against its own). Rejects when `privateKey` is not an EC P-256 private key.
 */
export const assertionSigner = (credentials: InstallationCredentials) => {
  const key =
    typeof credentials.privateKey === "string"
      ? importPKCS8(credentials.privateKey, "ES256")
      : importJWK(credentials.privateKey, "ES256")
  const kid = typeof credentials.privateKey === "string" ? undefined : credentials.privateKey.kid
  return async (): Promise<string> => {
    const iat = Math.floor(Date.now() / 1000)
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", typ: "JWT", ...(kid === undefined ? {} : { kid }) })
      .setIssuer(credentials.appId)
      .setSubject(credentials.appId)
      .setAudience(credentials.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_LIFETIME_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(await key)
  }
}

/** The error for an assertion that could not be signed (a key that is not EC P-256). */
export const signingFailed = (cause: unknown) =>
  new TokenError({ message: `cannot sign the client assertion: ${String(cause)}`, cause })

/**
 * Reads the token endpoint's answer: a 200 with `access_token` and `expires_in` is the token; a 200 without them a
 * `SchemaError`; any other status a `TokenError` whose `code` is RFC 6749 5.2's `error` (`unexpected_response` when
 * the body has none), with `retryAfter` seconds from `Retry-After` and the `X-Request-Id`.
 */
export const readTokenAnswer = (answer: {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly now: number
}): IssuedToken | TokenError | SchemaError => {
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>
  } catch {
    // the refusal below names the status
  }
  const requestId = answer.headers["x-request-id"]
  const common = { status: answer.status, ...(requestId === undefined ? {} : { requestId }) }
  if (answer.status === 200) {
    if (typeof body["access_token"] === "string" && typeof body["expires_in"] === "number")
      return { accessToken: body["access_token"], expiresIn: body["expires_in"] }
    return new SchemaError({ message: "the token endpoint answered 200 without a token", ...common })
  }
  const code = typeof body["error"] === "string" ? body["error"] : "unexpected_response"
  const detail = typeof body["error_description"] === "string" ? body["error_description"] : undefined
  const retryAfter = parseRetryAfter(answer.headers["retry-after"], answer.now)
  return new TokenError({
    message: `token request refused: ${answer.status} ${code}${detail === undefined ? "" : `: ${detail}`}`,
    code,
    ...common,
    ...(detail === undefined ? {} : { detail }),
    ...(retryAfter === undefined ? {} : { retryAfter })
  })
}
