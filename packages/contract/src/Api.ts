/**
 * The Integration API v1 (spec section 4) as one HttpApi: the server implements it, the client, admin and harness
 * derive from it, and the OpenAPI 3.1 document at `/openapi.json` is generated from it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { BillingGroup } from "./Billing.js"
import { BookingGroup } from "./Booking.js"
import { eventWebhooks, EventsGroup } from "./Events.js"
import { IntegrationsGroup } from "./Integrations.js"
import { clean, type JsonObject } from "./internal/openApiClean.js"
import { OperationalContextsGroup } from "./OperationalContexts.js"
import { SigningGroup } from "./Signing.js"
import { signingFilePaths } from "./SigningFiles.js"
import { BadRequest, Forbidden, InternalServerError, PayloadTooLarge, ServiceUnavailable, Unauthorized } from "./Problem.js"

const description = `
ERP systems, e-signing services and booking websites connect to one organization through this API. Every request
carries \`Authorization: Bearer <token>\` from the identity host's \`POST {auth_url}/oauth/token\`: an Application
uses client_credentials (RFC 6749 section 4.4), an installed connector the installation-token grant with a client
assertion it signs ES256 (RFC 7523: \`iss\` = \`sub\` = the app id, \`aud\` the token endpoint, at most 300 s of life, a
\`jti\` that works once). Tokens are RFC 9068 JWTs that live 600 seconds and carry the client's roles and contexts;
more than 60 token requests per client in any 60 seconds are 429 \`slow_down\` with an exact \`Retry-After\`.

Conventions (where the specification says "not shown", these are this service's choices):
- Errors are problem details (RFC 9457), \`application/problem+json\`: \`type\` about:blank, \`title\`, \`status\`,
  \`detail\` (for people, never parse it), \`code\` (match on this) and, with \`VALIDATION_FAILED\`, \`issues\`: one
  entry per failing field, \`path\` a JSON Pointer (RFC 6901) into the body, path parameters or query.
- Any malformed input (a body that is not UTF-8 JSON sent as \`application/json\`, a field of the wrong type or
  length, a path id that is not a UUID, a bad query) is 400 \`VALIDATION_FAILED\`; a body over 64 KiB is 413.
  Lengths count Unicode code points; text must not be blank or hold control characters (C0 other than tab and line
  breaks, DEL, C1) or unpaired surrogates. A body nested more than 32 levels deep is \`VALIDATION_FAILED\`. A refused
  request changes nothing.
- Bodies are as strict as their schemas (\`additionalProperties: false\`): a member an operation does not name is
  \`VALIDATION_FAILED\` with one issue per unknown member at its JSON Pointer, so a misspelt member is never silently
  dropped. Every failing field is reported, once, with a sentence (\`must be one of: SEK, NOK, …\`, \`must be an integer
  from 1 to 100\`, \`is required\`) that never repeats the value sent. A query parameter an operation does not name is
  ignored.
- Dates (\`format: date\`) are YYYY-MM-DD and must exist in the calendar (\`2027-02-29\` and \`2027-04-31\` are
  refused); date-times (\`format: date-time\`) are ISO 8601 with a UTC offset (\`Z\` or \`±HH:MM\`), a date and time
  that exist, and at most millisecond precision (further digits only as zeros). Both lie from 1900-01-01 to
  2999-12-31 (UTC). Nothing is normalised: \`2026-11-31T09:00:00Z\` is refused, never read as 1 December.
- Order of checks: 401 → 403 → 400 \`VALIDATION_FAILED\` → 404 → the business rule (the integration's refusals
  included), so a record the token cannot see is 404 whatever the integration's state.
- 401 for a missing, expired or invalid token; 403 when the token lacks the operation's role (\`billing\`,
  \`signing\`, \`booking\`, \`integrations\`); 404, never 403, for a record of another organization or outside the
  token's contexts.
- One rule for 404s: \`detail\` names the kind of record not found; \`code\` is present exactly where the
  specification (7.3) lists a code for that kind — \`INTEGRATIONS_CONFIGURATION_NOT_FOUND\` for an integration
  configuration — and absent on every other 404 (a signing attempt, an invoice, a proposal, a booking request, a
  resource, an unknown path), since 7.3 lists no code for them.
- The signed-PDF upload and the document download are addresses, not token operations: \`security\` is empty and
  the address's \`expires\` and \`signature\` are the permission.
- Reports that move a record to another state (pass, reject, report-failed, the signing outcomes, an integration
  configuration's ready and failed) answer 201 with
  the record and are refused with 400 and the status code when repeated. Every POST takes a JSON object; an
  operation that needs no fields takes \`{}\` or no body at all, and refuses anything else (\`[]\`, \`"s"\`, \`1\`).
- Integer query parameters (\`limit\`, \`durationMinutes\`) are plain decimal digits: \`0x3c\`, \`6e1\`, \`060\`,
  \`+60\` and \`60.0\` are refused.
- Lists and queues take \`limit\` (decimal digits, 1 to 100, default 50) and an opaque \`cursor\`, and answer
  \`{ "items": [...], "nextCursor": string | null }\`. Queues are oldest first; an item leaves when its outcome
  is reported.
- Every response carries \`X-Request-Id\`; quote it when asking for support.
- Events (decisions 9; the specification shows none): every state change is an event, listed in this document's
  \`webhooks\` section with its body. The body is the same in a webhook delivery and in \`GET /v1/events\`: \`id\`,
  \`type\`, \`createdAt\` (the change's time), \`organizationId\`, \`operationalContextId\` and \`data.object\`, the
  resource as the API returns it, rendered when the event was published, moments after the change committed (read
  the resource again for its current state). Delivery is at-least-once and unordered: de-duplicate by \`id\`. The
  feed keeps events 30 days.
`.trim()

/** The signed-PDF upload and the document download, served beside the HttpApi, added to the document. */
const withSigningFiles = (spec: JsonObject): JsonObject => {
  const files = signingFilePaths()
  const components = spec["components"] as JsonObject
  return {
    ...spec,
    paths: { ...(spec["paths"] as JsonObject), ...files.paths },
    components: { ...components, schemas: { ...files.schemas, ...(components["schemas"] as JsonObject) } }
  }
}

/** The `webhooks` section: every event type and its body (`Events.ts`), with the schemas it refers to. */
const withWebhooks = (spec: JsonObject): JsonObject => {
  const events = eventWebhooks()
  const components = spec["components"] as JsonObject
  return {
    ...spec,
    webhooks: events.webhooks,
    components: { ...components, schemas: { ...events.schemas, ...(components["schemas"] as JsonObject) } }
  }
}

export class IntegrationApi extends HttpApi.make("IntegrationApi")
  .add(OperationalContextsGroup)
  .add(BillingGroup)
  .add(BookingGroup)
  .add(SigningGroup)
  .add(IntegrationsGroup)
  .add(EventsGroup)
  .addError(BadRequest)
  .addError(Unauthorized)
  .addError(Forbidden)
  .addError(PayloadTooLarge)
  .addError(InternalServerError)
  .addError(ServiceUnavailable)
  .annotateContext(
    OpenApi.annotations({
      title: "Integration API",
      version: "1.0.0",
      description,
      transform: (spec) => withWebhooks(withSigningFiles(clean(spec as unknown as JsonObject))) as unknown as typeof spec
    })
  ) {}
