/**
 * The OpenAPI 3.1 document of {@link IntegrationApi}, served at `{base_url}/openapi.json`: `servers` set from the
 * deployment's public address, the identity host's token endpoint and documents (their own `servers`, `{auth_url}`),
 * an OAuth 2.0 `clientCredentials` security scheme whose token URL is that endpoint, and what generators need
 * (`internal/openApiPolish.ts`: per-operation error codes, `X-Request-Id`, named request bodies, examples). (The
 * API's Transform annotation already made every 400 the Error record.)
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { IntegrationApi } from "./Api.js"
import { healthPaths } from "./Health.js"
import { identityPaths, identitySchemas, TOKEN_PATH } from "./IdentityHost.js"
import type { JsonObject } from "./internal/openApiClean.js"
import { polish } from "./internal/openApiPolish.js"

/**
 * The document's license (the contract's, MIT) and contact: the deployment's reference page (`{base_url}/docs`);
 * quote a response's `X-Request-Id` when asking for support.
 */
const infoOf = (baseUrl: string): JsonObject => ({
  license: { name: "MIT", url: "https://spdx.org/licenses/MIT.html" },
  contact: { name: "Integration API support (quote the X-Request-Id)", url: `${baseUrl}/docs` }
})

const securitySchemes = (authUrl: string): JsonObject => ({
  oauth2: {
    type: "oauth2",
    description:
      "An Application's client_credentials grant (RFC 6749 4.4) at the identity host's token endpoint; the access " +
      "token (an ES256 JWT, RFC 9068) lives 600 seconds. The roles an operation needs travel in the token. An " +
      "installed connector gets the same kind of token with the installation-token grant (see `identity.token`) and " +
      "sends it as `bearer`.",
    flows: { clientCredentials: { tokenUrl: `${authUrl}${TOKEN_PATH}`, scopes: {} } }
  },
  bearer: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "An access token (JWT signed ES256, RFC 9068) from {auth_url}/oauth/token; it lives 600 seconds."
  }
})

/** `[{ bearer: [] }]` (the HttpApi's) becomes either scheme: the oauth2 flow's token or any bearer token. */
const withSecurity = (paths: JsonObject): JsonObject =>
  Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as JsonObject).map(([key, operation]) => {
          const security = (operation as JsonObject | null)?.["security"]
          return Array.isArray(security) && security.length > 0
            ? [key, { ...(operation as JsonObject), security: [{ oauth2: [] }, { bearer: [] }] }]
            : [key, operation]
        })
      )
    ])
  )

/**
 * The document, with `servers` set to the API host's public address (`baseUrl`) and the identity host's paths and
 * token URL to `authUrl`, and the probes every host serves (`/healthz`, `/readyz`; `Health.ts`).
 */
export const openApiDocument = (baseUrl: string, authUrl: string): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(IntegrationApi) as unknown as JsonObject
  const components = spec["components"] as JsonObject
  const info = spec["info"] as JsonObject
  const whole: JsonObject = {
    ...spec,
    info: { ...info, ...infoOf(baseUrl) },
    servers: [{ url: baseUrl, description: "API host" }],
    tags: [...(spec["tags"] as ReadonlyArray<JsonObject>), { name: "identity" }, { name: "Operations" }],
    paths: { ...withSecurity(spec["paths"] as JsonObject), ...(healthPaths as unknown as JsonObject), ...identityPaths(authUrl) },
    components: {
      ...components,
      schemas: { ...(components["schemas"] as JsonObject), ...identitySchemas },
      securitySchemes: securitySchemes(authUrl)
    }
  }
  return polish(whole) as unknown as OpenApi.OpenAPISpec
}
