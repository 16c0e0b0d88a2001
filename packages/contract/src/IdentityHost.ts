/**
 * The identity host's documents ({auth_url}; spec 5, decisions 1 and 3) in the API's OpenAPI document: the token
 * endpoint (`POST /oauth/token`), the authorization server metadata (RFC 8414, also at the OpenID discovery path)
 * and the token signing keys (`/.well-known/jwks.json`). They are served by the identity host, not the API host, so
 * each path item carries its own `servers` (`{auth_url}`): one document, one generated client, and the token URL of
 * the `oauth2` security scheme names the same endpoint. The identity host answers OAuth errors in RFC 6749's format
 * (`{ error, error_description }`), not as problem details.
 */
type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

/** `grant_type` of the client-credentials grant (RFC 6749 4.4): an Application's `client_id` and secret. */
export const CLIENT_CREDENTIALS_GRANT = "client_credentials"
/** `grant_type` of the installation-token grant (decisions 3): an installed connector's ES256 client assertion. */
export const INSTALLATION_TOKEN_GRANT = "urn:service:params:oauth:grant-type:installation-token"
/** `client_assertion_type` of the installation-token grant (RFC 7523). */
export const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/** The token endpoint's path on the identity host. */
export const TOKEN_PATH = "/oauth/token"

const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The schemas the identity host's paths refer to (added to `components.schemas`). */
export const identitySchemas: JsonObject = {
  TokenRequest: {
    type: "object",
    description:
      "A token request, form-encoded (`application/x-www-form-urlencoded`). An Application sends " +
      "`grant_type=client_credentials` and authenticates with HTTP Basic (`client_id:client_secret`, each " +
      "form-url-encoded) or with `client_id` and `client_secret` in the form (never both). An installed connector " +
      `sends \`grant_type=${INSTALLATION_TOKEN_GRANT}\`, \`installation_id\`, \`client_assertion_type=${JWT_BEARER_ASSERTION}\` ` +
      "and `client_assertion`: a JWT it signs ES256 with its app's private key (`iss` = `sub` = the app id, `aud` " +
      "the token endpoint's URL, at most 300 seconds of life, a `jti` used once). `scope` is refused " +
      "(`invalid_scope`): roles and contexts come from the client's registration.",
    required: ["grant_type"],
    properties: {
      grant_type: { type: "string", enum: [CLIENT_CREDENTIALS_GRANT, INSTALLATION_TOKEN_GRANT] },
      client_id: { type: "string", description: "The Application's client_id (client_secret_post), or the app id." },
      client_secret: { type: "string", description: "The Application's secret (client_secret_post)." },
      installation_id: { type: "string", format: "uuid", description: "The installation (installation-token grant)." },
      client_assertion_type: { type: "string", enum: [JWT_BEARER_ASSERTION] },
      client_assertion: { type: "string", description: "The ES256 client assertion (installation-token grant)." }
    },
    additionalProperties: false,
    examples: [{ grant_type: CLIENT_CREDENTIALS_GRANT, client_id: "app_3xK9mQ2v", client_secret: "pls_secret_example" }]
  },
  TokenResponse: {
    type: "object",
    description: "An access token (RFC 9068 JWT, ES256) that lives 600 seconds; send it as `Authorization: Bearer`.",
    required: ["access_token", "token_type", "expires_in"],
    properties: {
      access_token: { type: "string", description: "The JWT; its claims carry the organization, roles and contexts." },
      token_type: { type: "string", enum: ["Bearer"] },
      expires_in: { type: "integer", description: "Seconds the token lives: 600.", minimum: 1 }
    },
    examples: [{ access_token: "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiIuLi4ifQ.c2ln", token_type: "Bearer", expires_in: 600 }]
  },
  TokenError: {
    type: "object",
    description:
      "A refused token request (RFC 6749 5.2): `invalid_request` (400: a malformed form, a repeated parameter, a " +
      "body over the limit), `invalid_client` (401: unknown client, wrong secret or assertion), `invalid_grant` " +
      "(400), `unauthorized_client` (400), `unsupported_grant_type` (400), `invalid_scope` (400: `scope` sent), " +
      "`slow_down` (429: more than 60 requests per client in any 60 seconds; `Retry-After` says when to retry), " +
      "`temporarily_unavailable` (503: the database can't be had now; `Retry-After` says when to retry).",
    required: ["error"],
    properties: {
      error: {
        type: "string",
        enum: ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "slow_down", "temporarily_unavailable", "server_error"]
      },
      error_description: { type: "string", description: "For people; never parse it." }
    },
    examples: [{ error: "invalid_client", error_description: "Client authentication failed." }]
  },
  AuthorizationServerMetadata: {
    type: "object",
    description: "The identity host's metadata (RFC 8414 2).",
    required: ["issuer", "token_endpoint", "jwks_uri", "grant_types_supported", "response_types_supported"],
    properties: {
      issuer: { type: "string", format: "uri", description: "`{auth_url}` exactly, without a trailing slash." },
      token_endpoint: { type: "string", format: "uri" },
      jwks_uri: { type: "string", format: "uri" },
      grant_types_supported: { type: "array", items: { type: "string" } },
      token_endpoint_auth_methods_supported: { type: "array", items: { type: "string" } },
      token_endpoint_auth_signing_alg_values_supported: { type: "array", items: { type: "string" } },
      response_types_supported: { type: "array", items: { type: "string" }, description: "Empty: no authorization endpoint." }
    },
    examples: [{
      issuer: "https://auth.example.com",
      token_endpoint: "https://auth.example.com/oauth/token",
      jwks_uri: "https://auth.example.com/.well-known/jwks.json",
      grant_types_supported: [CLIENT_CREDENTIALS_GRANT, INSTALLATION_TOKEN_GRANT],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES256"],
      response_types_supported: []
    }]
  },
  JsonWebKeySet: {
    type: "object",
    description: "The public keys that sign access tokens (RFC 7517); a token's `kid` names one.",
    required: ["keys"],
    properties: {
      keys: {
        type: "array",
        items: {
          type: "object",
          required: ["kty", "kid"],
          properties: {
            kty: { type: "string", enum: ["EC"] },
            crv: { type: "string", enum: ["P-256"] },
            x: { type: "string" },
            y: { type: "string" },
            kid: { type: "string" },
            alg: { type: "string", enum: ["ES256"] },
            use: { type: "string", enum: ["sig"] }
          }
        }
      }
    },
    examples: [{
      keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", kid: "2026-11-01", alg: "ES256", use: "sig" }]
    }]
  }
}

const json = (name: string, description: string, headers?: JsonObject): JsonObject => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { "application/json": { schema: schema(name) } }
})

const noStore: JsonObject = {
  "Cache-Control": { description: "`no-store`: never cache a token answer.", schema: { type: "string" } }
}

const metadata = (operationId: string, summary: string): JsonObject => ({
  tags: ["identity"],
  operationId,
  summary,
  description:
    "The identity host's authorization server metadata (RFC 8414): the token endpoint, the signing keys' address, " +
    "the grants and client authentication methods. Cached for 300 seconds.",
  security: [],
  responses: { "200": json("AuthorizationServerMetadata", "The metadata.") }
})

/** The identity host's path items, each with `servers` set to `authUrl`. */
export const identityPaths = (authUrl: string): JsonObject => {
  const servers = [{ url: authUrl, description: "Identity host" }]
  return {
    [TOKEN_PATH]: {
      servers,
      post: {
        tags: ["identity"],
        operationId: "identity.token",
        summary: "Get an access token",
        description:
          "Issues an access token for an Application (client_credentials, RFC 6749 4.4) or an installed connector " +
          "(the installation-token grant with an ES256 client assertion, RFC 7523). Errors are RFC 6749's " +
          "`{ error, error_description }`; more than 60 requests per client in any 60 seconds are 429 `slow_down` " +
          "with `Retry-After`. Every answer carries `Cache-Control: no-store`.",
        security: [],
        requestBody: {
          required: true,
          description: "The form; see TokenRequest.",
          content: { "application/x-www-form-urlencoded": { schema: schema("TokenRequest") } }
        },
        responses: {
          "200": json("TokenResponse", "The access token.", noStore),
          "400": json("TokenError", "The request is malformed or names an unsupported grant or a scope.", noStore),
          "401": json("TokenError", "`invalid_client`: the client is unknown or its credentials are wrong.", noStore),
          "429": json("TokenError", "`slow_down`: over 60 token requests for this client in 60 seconds.", {
            ...noStore,
            "Retry-After": { description: "Whole seconds until a request is admitted again.", schema: { type: "integer" } }
          }),
          "503": json(
            "TokenError",
            "`temporarily_unavailable`: the service's database gave no connection in time or can't be reached; nothing " +
              "was issued. Retry after `Retry-After`.",
            {
              ...noStore,
              "Retry-After": { description: "Whole seconds to wait before retrying.", schema: { type: "integer" } }
            }
          )
        }
      }
    },
    "/.well-known/oauth-authorization-server": {
      servers,
      get: metadata("identity.authorizationServerMetadata", "Read the authorization server metadata")
    },
    "/.well-known/openid-configuration": {
      servers,
      get: metadata("identity.openidConfiguration", "Read the metadata at the OpenID discovery path")
    },
    "/.well-known/jwks.json": {
      servers,
      get: {
        tags: ["identity"],
        operationId: "identity.jwks",
        summary: "Read the keys that sign access tokens",
        description: "The public keys (JWK Set) that verify access tokens; cached for 60 seconds.",
        security: [],
        responses: { "200": json("JsonWebKeySet", "The key set.") }
      }
    }
  }
}
