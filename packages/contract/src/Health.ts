/**
 * The probes every host serves beside its API (issue 23): `GET /healthz` (the process is alive) and `GET /readyz`
 * (it can serve: the database answers, its schema is current, a signing key is loaded, and it is not draining for
 * a shutdown). Outside `/v1` and outside authentication, on the API host, the identity host and the admin host
 * alike; `Cache-Control: no-store`. They are not part of the published client: a load balancer or an orchestrator
 * reads them, by status.
 */
import type * as OpenApi from "@effect/platform/OpenApi"
import * as OpenApiJsonSchema from "@effect/platform/OpenApiJsonSchema"
import { Schema } from "effect"

/** `GET /healthz`: 200 `{ "status": "ok" }` while the process runs its event loop. */
export const Liveness = Schema.Struct({ status: Schema.Literal("ok") }).annotations({ description: "The process is alive." })

/** One readiness check's outcome: `ok`, or a short reason (never a secret or a connection string). */
export const CheckOutcome = Schema.String.annotations({
  description: "`ok`, or why the check failed (`unreachable`, `timed out`, `2 pending`, …)."
})

/**
 * `GET /readyz`: 200 with `status: "ready"` when every check is `ok`; 503 with `status: "not_ready"` and the failing
 * checks, or `status: "draining"` from the moment the process received SIGTERM (no check is run then).
 *
 * Checks: `database` (one `select 1` answered within 2 s), `migrations` (no migration of this build left unrun),
 * `signingKey` (the active token-signing key is loaded).
 */
export const Readiness = Schema.Struct({
  status: Schema.Literal("ready", "not_ready", "draining"),
  checks: Schema.optional(Schema.Record({ key: Schema.String, value: CheckOutcome }))
}).annotations({ description: "Whether this instance should receive traffic." })
export type Readiness = typeof Readiness.Type

const json = (schema: Schema.Schema.Any, description: string) => ({
  description,
  // Inline schemas (no identifier, so no `$defs` whose `$ref` would point into the document's root).
  content: { "application/json": { schema: OpenApiJsonSchema.make(schema) } }
})

/** The probes as OpenAPI paths, for the API host's document (the other hosts serve the same two). */
export const healthPaths: OpenApi.OpenAPISpec["paths"] = {
  "/healthz": {
    get: {
      tags: ["Operations"],
      operationId: "operations.healthz",
      summary: "Liveness probe",
      description:
        "200 while the process is alive; served by every host (API, identity, admin) without authentication. Not " +
        "access-logged.",
      parameters: [],
      security: [],
      responses: { 200: json(Liveness, "The process is alive.") }
    }
  },
  "/readyz": {
    get: {
      tags: ["Operations"],
      operationId: "operations.readyz",
      summary: "Readiness probe",
      description:
        "200 `ready` when the database answers (within 2 s), every migration of this build has run and the active " +
        "signing key is loaded; 503 `not_ready` naming the failing checks, or 503 `draining` once the process " +
        "received SIGTERM and is finishing its in-flight requests (take it out of the load balancer). Served by every " +
        "host (API, identity, admin) without authentication. Not access-logged.",
      parameters: [],
      security: [],
      responses: {
        200: json(Readiness, "Ready for traffic."),
        503: json(Readiness, "Not ready, or draining for a shutdown.")
      }
    }
  }
}
