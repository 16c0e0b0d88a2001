/**
 * Reading and judging a request to the token endpoint, `POST {auth_url}/oauth/token` (spec 5.1 to 5.3 and 7.2;
 * RFC 6749 sections 2.3.1, 3.2, 4.4 and 5.2; RFC 7521/7523 for the assertion).
 *
 * {@link parseTokenRequest} applies the rules below in this order and answers with the first refusal, so a request
 * with several faults always gets the same error:
 *
 * 1. Content type: the media type is `application/x-www-form-urlencoded` (case-insensitive, parameters such as
 *    `; charset=UTF-8` allowed). Else `invalid_request`.
 * 2. Repeated parameters: a parameter this endpoint reads (`grant_type`, `scope`, `client_id`, `client_secret`,
 *    `client_assertion_type`, `client_assertion`, `installation_id`) appears at most once, whatever its values
 *    (RFC 6749 3.2). Else `invalid_request`. Other parameters are ignored, repeated or not, as RFC 6749 3.2
 *    requires of unrecognised parameters (RFC 8707 `resource`, for one, may legitimately repeat). After this rule a
 *    parameter with an empty value counts as omitted (RFC 6749 3.2; decisions 3).
 * 3. Grant type: `grant_type` is present, else `invalid_request`; it is `client_credentials` or
 *    `urn:service:params:oauth:grant-type:installation-token`, else `unsupported_grant_type`.
 * 4. Scope: no non-empty `scope`, else `invalid_scope` (spec 5.2; decisions 3).
 * 5. Client authentication, by grant:
 *    - `client_credentials` (spec 5.2): see {@link ClientCredentialsRequest}.
 *    - installation-token (spec 5.3): see {@link InstallationTokenRequest}.
 *
 * No rule needs the database; what does (the client exists, the secret's digest matches, the assertion's signature,
 * the installation is active, the rate limit) is the HTTP layer's, with `ClientSecret`, `ClientAssertion` and
 * `RateLimitWindow`.
 *
 * @since 0.1.0
 */
import { Data, Either, Option, Redacted } from "effect"
import { isWellFormedSecret } from "./ClientSecret.js"
import { decodeBase64 } from "./internal/base64.js"
import { formUrlDecode } from "./internal/formUrlDecode.js"
import { InvalidClient, InvalidRequest, InvalidScope, UnsupportedGrantType } from "./TokenError.js"

/**
 * The `grant_type` of an Application's request (spec 5.2; RFC 6749 4.4).
 *
 * @since 0.1.0
 */
export const GRANT_TYPE_CLIENT_CREDENTIALS = "client_credentials"

/**
 * The `grant_type` of an installed connector's request (spec 5.3).
 *
 * @since 0.1.0
 */
export const GRANT_TYPE_INSTALLATION_TOKEN = "urn:service:params:oauth:grant-type:installation-token"

/**
 * The only accepted `client_assertion_type` (spec 5.3; RFC 7523 2.2).
 *
 * @since 0.1.0
 */
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/**
 * The media type of a token request body (spec 5.1; RFC 6749 3.2).
 *
 * @since 0.1.0
 */
export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"

/**
 * The form parameters the token endpoint reads; any other parameter is ignored.
 *
 * @since 0.1.0
 */
export const TOKEN_REQUEST_PARAMETERS = [
  "grant_type",
  "scope",
  "client_id",
  "client_secret",
  "client_assertion_type",
  "client_assertion",
  "installation_id"
] as const

/**
 * One of {@link TOKEN_REQUEST_PARAMETERS}.
 *
 * @since 0.1.0
 */
export type TokenRequestParameter = (typeof TOKEN_REQUEST_PARAMETERS)[number]

/**
 * The longest `client_id` accepted, in characters. RFC 6749 sets no maximum; 255 is ample for the ids this service
 * issues and keeps a lookup key short.
 *
 * @since 0.1.0
 */
export const CLIENT_ID_MAX_LENGTH = 255

// RFC 6749 Appendix A.1: client-id = *VSCHAR, VSCHAR = %x20-7E.
const CLIENT_ID = new RegExp(`^[\\x20-\\x7E]{1,${CLIENT_ID_MAX_LENGTH}}$`)

/**
 * Whether `clientId` (decoded: after form-decoding of the field or of the Basic user-id) is a well-formed client
 * identifier: 1 to {@link CLIENT_ID_MAX_LENGTH} characters, each of RFC 6749 VSCHAR (Appendix A.1: %x20-7E, the
 * printable ASCII characters and the space). No control character (NUL, line breaks, DEL) and no non-ASCII
 * character is one.
 *
 * @since 0.1.0
 */
export const isWellFormedClientId = (clientId: string): boolean => CLIENT_ID.test(clientId)

/**
 * What the HTTP layer hands over, unread: the `Content-Type` header, the body as text, and the `Authorization`
 * header (`undefined` when a header is absent).
 *
 * @since 0.1.0
 */
export interface TokenRequestInput {
  readonly contentType: string | undefined
  readonly body: string
  readonly authorization: string | undefined
}

/**
 * A `client_credentials` request whose credentials are well formed; the HTTP layer still checks them against the
 * database (unknown client, wrong or revoked secret, disabled Application: `invalid_client` with this `method` as
 * its `authenticationMethod`, so a 401 after Basic gets its `WWW-Authenticate`).
 *
 * Credentials come from exactly one of (spec 5.2; RFC 6749 2.3.1):
 * - `client_secret_basic`: `Authorization: Basic base64(client_id ":" client_secret)`, each of the two
 *   application/x-www-form-urlencoded before base64 and decoded after it (RFC 6749 Appendix B; decisions 3), so
 *   `%5F` is `_`, `+` is a space and `%3A` a colon. The scheme name is case-insensitive. A `client_id` form
 *   field may accompany Basic when it names the same client (RFC 6749 3.2.1); another client is `invalid_request`.
 * - `client_secret_post`: the form fields `client_id` and `client_secret`.
 *
 * Refusals, in this order:
 * - More than one of Basic, a `client_secret` field and a `client_assertion` field: `invalid_request` (spec 5.2).
 * - A `client_assertion` alone: `invalid_client` (`method_unsupported`); assertions serve the installation-token
 *   grant only.
 * - A Basic header that is not base64 of UTF-8 text with a colon (a bare `Basic` included): `invalid_client`
 *   after Basic (`credentials_malformed`).
 * - A `client_id` form field beside Basic that names another client: `invalid_request`.
 * - Nothing: `invalid_client` (`credentials_missing`). An `Authorization` header with another scheme (`Bearer`,
 *   `Digest` …) is not client authentication at this endpoint and counts as absent, so such a request is judged by
 *   its form fields alone.
 * - A client id without a secret or a secret without a client id, by either method: `invalid_client`
 *   (`credentials_incomplete`).
 * - A client id (after decoding) that is not {@link isWellFormedClientId} (1 to 255 characters of RFC 6749 VSCHAR,
 *   %x20-7E): `invalid_client` (`credentials_malformed`) with the method used, without a database lookup. So a NUL,
 *   a line break, DEL or any non-ASCII character never reaches the query by `client_id` (PostgreSQL refuses a NUL
 *   in text outright); the body is the one of every `invalid_client`.
 * - A secret not of the `service_sk_` format: `invalid_client` (`credentials_malformed`), without a database
 *   lookup.
 *
 * `clientSecret` is `Redacted` so that logging the request never prints it.
 *
 * @since 0.1.0
 */
export class ClientCredentialsRequest extends Data.TaggedClass("ClientCredentialsRequest")<{
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly method: "client_secret_basic" | "client_secret_post"
}> {}

/**
 * An installation-token request (spec 5.3): the connector's signed JWT (`clientAssertion`, not yet verified: the
 * HTTP layer verifies its ES256 signature and then `ClientAssertion.judgeAssertionClaims`) and the
 * `installationId` it wants a token for. `clientId` is the optional `client_id` form field (RFC 7521 4.2; some
 * libraries send it); when present it must equal the assertion's `iss`, which `judgeAssertionClaims` checks.
 *
 * Refusals, in this order:
 * - HTTP Basic or a `client_secret` field: `invalid_request`; the grant authenticates with the assertion only.
 * - `client_assertion_type` missing or other than `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`:
 *   `invalid_request`.
 * - `client_assertion` missing: `invalid_request`.
 * - `installation_id` missing: `invalid_request`.
 * - A `client_id` that is not {@link isWellFormedClientId}: `invalid_client` (`private_key_jwt`,
 *   `credentials_malformed`), as for `client_credentials`.
 *
 * @since 0.1.0
 */
export class InstallationTokenRequest extends Data.TaggedClass("InstallationTokenRequest")<{
  readonly clientAssertion: string
  readonly installationId: string
  readonly clientId: Option.Option<string>
}> {}

/**
 * A token request that passed every rule of this module.
 *
 * @since 0.1.0
 */
export type TokenRequest = ClientCredentialsRequest | InstallationTokenRequest

/**
 * The refusals {@link parseTokenRequest} can give: `invalid_request` (400), `invalid_client` (401; its
 * `authenticationMethod` is `client_secret_basic` when the client attempted Basic), `unsupported_grant_type`
 * (400), `invalid_scope` (400).
 *
 * @since 0.1.0
 */
export type TokenRequestError = InvalidRequest | InvalidClient | UnsupportedGrantType | InvalidScope

/**
 * Judges a token request by the rules of this module, in the order the module documentation gives.
 *
 * @since 0.1.0
 */
export const parseTokenRequest = (input: TokenRequestInput): Either.Either<TokenRequest, TokenRequestError> => {
  // The rules in order, the first refusal answered; plain early returns rather than `Either.gen`: every token
  // request runs this, and the generator's steps were a visible share of the token endpoint's allocations.
  const contentType = checkContentType(input.contentType)
  if (Either.isLeft(contentType)) return Either.left(contentType.left)
  const form = readForm(input.body)
  if (Either.isLeft(form)) return Either.left(form.left)
  const grantType = readGrantType(form.right)
  if (Either.isLeft(grantType)) return Either.left(grantType.left)
  const scope = checkNoScope(form.right)
  if (Either.isLeft(scope)) return Either.left(scope.left)
  return grantType.right === GRANT_TYPE_CLIENT_CREDENTIALS
    ? readClientCredentials(form.right, input.authorization)
    : readInstallationTokenGrant(form.right, input.authorization)
}

// The recognised parameters that have a non-empty value.
type Form = ReadonlyMap<TokenRequestParameter, string>

const invalidRequest = (errorDescription: string) => Either.left(new InvalidRequest({ errorDescription }))

const invalidClient = (
  authenticationMethod: InvalidClient["authenticationMethod"],
  reason: InvalidClient["reason"]
) => Either.left(new InvalidClient({ authenticationMethod, reason }))

// Rule 1.
const checkContentType = (contentType: string | undefined): Either.Either<void, InvalidRequest> =>
  contentType?.split(";")[0]?.trim().toLowerCase() === FORM_CONTENT_TYPE
    ? Either.void
    : invalidRequest(`The request body must be ${FORM_CONTENT_TYPE}.`)

const isRecognised = (name: string): name is TokenRequestParameter =>
  (TOKEN_REQUEST_PARAMETERS as ReadonlyArray<string>).includes(name)

// Rule 2. The leading "&" keeps URLSearchParams from dropping a leading "?" of the body, which a form body has no
// reason to treat specially; empty pairs are skipped by the parser.
const readForm = (body: string): Either.Either<Form, InvalidRequest> => {
  const seen = new Set<TokenRequestParameter>()
  const form = new Map<TokenRequestParameter, string>()
  for (const [name, value] of new URLSearchParams(`&${body}`)) {
    if (!isRecognised(name)) continue
    if (seen.has(name)) return invalidRequest(`The ${name} parameter is included more than once.`)
    seen.add(name)
    if (value !== "") form.set(name, value)
  }
  return Either.right(form)
}

// Rule 3.
const readGrantType = (
  form: Form
): Either.Either<typeof GRANT_TYPE_CLIENT_CREDENTIALS | typeof GRANT_TYPE_INSTALLATION_TOKEN, InvalidRequest | UnsupportedGrantType> => {
  const grantType = form.get("grant_type")
  if (grantType === undefined) return invalidRequest("The grant_type parameter is missing.")
  if (grantType === GRANT_TYPE_CLIENT_CREDENTIALS || grantType === GRANT_TYPE_INSTALLATION_TOKEN) {
    return Either.right(grantType)
  }
  return Either.left(new UnsupportedGrantType())
}

// Rule 4.
const checkNoScope = (form: Form): Either.Either<void, InvalidScope> =>
  form.has("scope") ? Either.left(new InvalidScope()) : Either.void

type BasicCredentials =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Present"; readonly clientId: string; readonly clientSecret: string }

const absent: BasicCredentials = { _tag: "Absent" }
const malformed: BasicCredentials = { _tag: "Malformed" }
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

// RFC 9110 11.4 and RFC 7617 2: `Basic` (any case), one or more spaces, then token68. The user-id cannot contain
// a colon, so the first colon separates it from the password.
const readBasicCredentials = (authorization: string | undefined): BasicCredentials => {
  const header = authorization?.trim() ?? ""
  const schemeEnd = header.search(/[ \t]/)
  const scheme = schemeEnd < 0 ? header : header.slice(0, schemeEnd)
  if (scheme.toLowerCase() !== "basic") return absent
  const bytes = schemeEnd < 0 ? undefined : decodeBase64(header.slice(schemeEnd).trim())
  if (bytes === undefined) return malformed
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return malformed
  }
  const colon = text.indexOf(":")
  if (colon < 0) return malformed
  const clientId = formUrlDecode(text.slice(0, colon))
  const clientSecret = formUrlDecode(text.slice(colon + 1))
  if (clientId === undefined || clientSecret === undefined) return malformed
  return { _tag: "Present", clientId, clientSecret }
}

// Rule 5, client_credentials.
const readClientCredentials = (
  form: Form,
  authorization: string | undefined
): Either.Either<ClientCredentialsRequest, InvalidRequest | InvalidClient> => {
  const basic = readBasicCredentials(authorization)
  const formClientId = form.get("client_id")
  const formSecret = form.get("client_secret")
  const methods = [basic._tag !== "Absent", formSecret !== undefined, form.has("client_assertion")]
  if (methods.filter(Boolean).length > 1) {
    return invalidRequest(
      "Use one client authentication method: HTTP Basic, or the client_id and client_secret form fields."
    )
  }
  if (form.has("client_assertion")) return invalidClient("private_key_jwt", "method_unsupported")
  switch (basic._tag) {
    case "Malformed":
      return invalidClient("client_secret_basic", "credentials_malformed")
    case "Present":
      if (formClientId !== undefined && formClientId !== basic.clientId) {
        return invalidRequest("The client_id form field names another client than the Authorization header.")
      }
      return clientCredentials(basic.clientId, basic.clientSecret, "client_secret_basic")
    case "Absent":
      if (formClientId === undefined && formSecret === undefined) return invalidClient("none", "credentials_missing")
      return clientCredentials(formClientId ?? "", formSecret ?? "", "client_secret_post")
  }
}

const clientCredentials = (
  clientId: string,
  clientSecret: string,
  method: ClientCredentialsRequest["method"]
): Either.Either<ClientCredentialsRequest, InvalidClient> => {
  if (clientId === "" || clientSecret === "") return invalidClient(method, "credentials_incomplete")
  if (!isWellFormedClientId(clientId)) return invalidClient(method, "credentials_malformed")
  if (!isWellFormedSecret(clientSecret)) return invalidClient(method, "credentials_malformed")
  return Either.right(new ClientCredentialsRequest({ clientId, clientSecret: Redacted.make(clientSecret), method }))
}

// Rule 5, installation-token grant.
const readInstallationTokenGrant = (
  form: Form,
  authorization: string | undefined
): Either.Either<InstallationTokenRequest, InvalidRequest | InvalidClient> => {
  if (readBasicCredentials(authorization)._tag !== "Absent" || form.has("client_secret")) {
    return invalidRequest(
      "The installation-token grant authenticates with client_assertion only; send no client_secret and no HTTP Basic credentials."
    )
  }
  const assertionType = form.get("client_assertion_type")
  if (assertionType === undefined) return invalidRequest("The client_assertion_type parameter is missing.")
  if (assertionType !== CLIENT_ASSERTION_TYPE_JWT_BEARER) {
    return invalidRequest(`The client_assertion_type must be ${CLIENT_ASSERTION_TYPE_JWT_BEARER}.`)
  }
  const clientAssertion = form.get("client_assertion")
  if (clientAssertion === undefined) return invalidRequest("The client_assertion parameter is missing.")
  const installationId = form.get("installation_id")
  if (installationId === undefined) return invalidRequest("The installation_id parameter is missing.")
  const clientId = form.get("client_id")
  if (clientId !== undefined && !isWellFormedClientId(clientId)) {
    return invalidClient("private_key_jwt", "credentials_malformed")
  }
  return Either.right(new InstallationTokenRequest({ clientAssertion, installationId, clientId: Option.fromNullable(clientId) }))
}
