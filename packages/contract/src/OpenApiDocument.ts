/**
 * The OpenAPI 3.1 document of {@link IntegrationApi}, served at `{base_url}/openapi.json`, with `servers` set from
 * the deployment's public address. (The API's Transform annotation already made every 400 the Error record.)
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { IntegrationApi } from "./Api.js"
import { healthPaths } from "./Health.js"

/**
 * The document, with `servers` set to the API host's public address (`base_url`), and the probes every host serves
 * (`/healthz`, `/readyz`; `Health.ts`).
 */
export const openApiDocument = (baseUrl: string): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(IntegrationApi)
  return { ...spec, paths: { ...spec.paths, ...healthPaths }, servers: [{ url: baseUrl, description: "API host" }] }
}
