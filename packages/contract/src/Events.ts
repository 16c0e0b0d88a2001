/**
 * Events (issue 22; decisions 9): the catalog of every event type and its payload, the `webhooks` section of the
 * OpenAPI document, and the events feed (`GET /v1/events`, `GET /v1/events/{eventId}`).
 *
 * Every state change of billing, signing, booking and integrations is an event, written in the change's own
 * transaction (the outbox) and published moments after it commits. The same JSON body — the envelope — is served by
 * the feed and delivered to webhooks:
 *
 * ```json
 * { "id": "…", "type": "billing.invoice.approved", "createdAt": "2026-11-27T09:00:00.000Z",
 *   "organizationId": "…", "operationalContextId": "…", "data": { "object": { …the Invoice… } } }
 * ```
 *
 * `data.object` is the resource as the API returns it, rendered when the event was published (moments after the
 * change), not when it is read or delivered: a receiver that needs the current state reads the resource again.
 * Delivery is at-least-once and unordered; receivers de-duplicate by `id` (the `webhook-id` header).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import * as JSONSchema from "effect/JSONSchema"
import { Authentication } from "./Authentication.js"
import { BookingRequest } from "./BookingRecords.js"
import { OperationalContextId, OrganizationId, Uuid } from "./Ids.js"
import type { JsonObject } from "./internal/openApiClean.js"
import { IntegrationConfiguration } from "./Integrations.js"
import { Invoice } from "./Invoice.js"
import { InvoiceProposal } from "./InvoiceProposal.js"
import { InvoiceWithdrawal } from "./InvoiceWithdrawal.js"
import { PageParams } from "./Page.js"
import { NotFound } from "./Problem.js"
import { SigningAttempt } from "./Signing.js"
import { Timestamp } from "./Values.js"

/** An event's id: a UUID, the same in the feed and as the `webhook-id` header of its deliveries. */
export const EventId = Uuid.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type

/**
 * An invoice run as an event's `data.object`: runs are an operator's work in the console, not a resource of this
 * API, so the event names the run and its context.
 */
export class InvoiceRunReference extends Schema.Class<InvoiceRunReference>("InvoiceRunReference")(
  { id: Uuid, operationalContextId: OperationalContextId },
  { description: "An invoice run (an operator's, in the console): its id and operational context." }
) {}

/**
 * An installation of a connector app as an event's `data.object`: installations are managed in the console, not
 * through this API, so the event names the installation and its app.
 */
export class InstallationReference extends Schema.Class<InstallationReference>("InstallationReference")(
  {
    id: Uuid.annotations({ description: "The installation's id (an installation token's `sub`)." }),
    appId: Schema.String.annotations({ description: "The connector app (an installation token's `client_id`)." })
  },
  { description: "An installation of a connector app: its id and its app." }
) {}

interface CatalogEntry {
  /** The schema of `data.object`. */
  readonly object: Schema.Schema.Any
  /** The event's own fields beside `object` in `data` (ids of what the change made). */
  readonly fields: Schema.Struct.Fields
  readonly description: string
}

const entry = <O extends Schema.Schema.Any, F extends Schema.Struct.Fields = Record<never, never>>(
  object: O,
  description: string,
  fields: F = {} as F
) => ({ object, fields, description }) satisfies CatalogEntry

const invoice = (description: string) => entry(Invoice, description)
const proposal = (description: string) => entry(InvoiceProposal, description)
const run = (description: string) => entry(InvoiceRunReference, description)
const attempt = (description: string) => entry(SigningAttempt, description)
const booking = (description: string) => entry(BookingRequest, description)
const configuration = (description: string) => entry(IntegrationConfiguration, description)
const installation = (description: string) => entry(InstallationReference, description)

const PaymentId = Schema.String.annotations({ description: "The caller's id of the payment (report-payment's `paymentId`)." })

/**
 * Every event type with its `data`: the resource (`object`) and the event's own fields. The keys are the event
 * types; the API server checks at compile time that they are exactly the domain's event types.
 */
export const EVENT_CATALOG = {
  "billing.invoice.created": invoice("An invoice was created (by passing a proposal, or by an invoice run)."),
  "billing.invoice.approved": invoice("An invoice became `approved`: it entered the send queue."),
  "billing.invoice.failed": invoice("An approved invoice was reported failed (report-failed)."),
  "billing.invoice.sent": invoice("An invoice was reported sent: it left the send queue and has a balance."),
  "billing.invoice.payment_recorded": entry(Invoice, "A payment was recorded on an invoice.", { paymentId: PaymentId }),
  "billing.invoice.payment_reversed": entry(Invoice, "A recorded payment was taken back.", { paymentId: PaymentId }),
  "billing.invoice.write_off_recorded": entry(Invoice, "A write-off was recorded on an invoice.", {
    writeOffId: Schema.String.annotations({ description: "The caller's id of the write-off." })
  }),
  "billing.invoice.paid": invoice("An invoice was settled as `paid`."),
  "billing.invoice.written_off": invoice("An invoice was settled as `written-off`."),
  "billing.invoice.reopened": invoice("A settled invoice returned to `sent`: a reversal made its balance due again."),
  "billing.invoice.deleted": entry(Invoice, "An operator deleted an invoice (`object` is the invoice as it was).", {
    withdrawn: Schema.Boolean.annotations({
      description: "True when it joined the withdrawal queue (it had been in the send queue)."
    })
  }),
  "billing.invoice.credited": entry(Invoice, "An operator credited an invoice.", {
    creditNoteId: Uuid.annotations({ description: "The credit note that credits it (an Invoice of kind `credit-note`)." })
  }),
  "billing.invoice_withdrawal.discarded": entry(
    InvoiceWithdrawal,
    "A deleted invoice was reported discarded: it left the withdrawal queue."
  ),
  "billing.invoice_run.created": run("An operator created an invoice run."),
  "billing.invoice_run.continued": run("An operator continued an invoice run with more documents."),
  "billing.invoice_run.approved": run("An operator approved an invoice run."),
  "billing.invoice_proposal.created": proposal("An invoice run created a proposal: it awaits verification."),
  "billing.invoice_proposal.passed": entry(InvoiceProposal, "A proposal was passed.", {
    invoiceId: Uuid.annotations({ description: "The invoice it became." })
  }),
  "billing.invoice_proposal.rejected": proposal("A proposal was rejected."),
  "billing.invoice_proposal.cancelled": proposal("An operator cancelled a proposal."),
  "crm.signing_attempt.queued": attempt("An operator prepared a contract for signing: the attempt is in the signing queue."),
  "crm.signing_attempt.started": attempt("The e-signing system reported the document out for signature."),
  "crm.signing_attempt.signed_document_uploaded": entry(
    SigningAttempt,
    "A signed PDF passed its checks and was stored through an upload address.",
    { uploadId: Uuid.annotations({ description: "The upload that stored it." }) }
  ),
  "crm.signing_attempt.signed": attempt("Every party signed."),
  "crm.signing_attempt.declined": attempt("A party declined."),
  "crm.signing_attempt.expired": attempt("The document expired unsigned."),
  "crm.signing_attempt.failed": attempt("The e-signing system could not create the document."),
  "crm.signing_attempt.withdrawal_requested": attempt("An operator asked for the attempt's withdrawal."),
  "crm.signing_attempt.withdrawn": attempt("The e-signing system cancelled the document as asked."),
  "booking.booking_request.created": booking("A booking request was made; it is pending and holds its slot."),
  "booking.booking_request.approved": booking("An operator approved a booking request."),
  "booking.booking_request.declined": booking("An operator declined a booking request; its slot is free again."),
  "booking.booking_request.expired": booking("A pending request's hold expired before an operator decided."),
  "booking.booking_request.cancelled": booking(
    "The website or an operator cancelled a booking request (`lateCancellation` holds any charge); its slot is free again."
  ),
  "booking.booking_request.rescheduled": booking("A booking request was moved to another time; its price may have changed."),
  "integrations.configuration.created": configuration("An operator created an integration configuration (`pending`)."),
  "integrations.configuration.connection_requested": configuration(
    "An operator pressed Connect: a connection reference was issued."
  ),
  "integrations.configuration.connecting": configuration("The connector redeemed a connection reference."),
  "integrations.configuration.ready": configuration("The connector reported the configuration ready."),
  "integrations.configuration.failed": configuration("The connector reported the configuration failed."),
  "integrations.configuration.disconnected": configuration(
    "An operator disconnected the configuration, or its installation was removed."
  ),
  "integrations.installation.created": installation("The connector app was installed into the organization."),
  "integrations.installation.suspended": installation("An operator suspended the installation: new tokens are refused."),
  "integrations.installation.resumed": installation("An operator resumed the installation."),
  "integrations.installation.removed": installation("An operator removed the installation, for good."),
  "integrations.installation.grant_changed": installation("An operator changed the installation's roles or contexts.")
} as const

type Catalog = typeof EVENT_CATALOG

/** Every event type, such as `billing.invoice.approved`. */
export type EventType = keyof Catalog

/** Every event type, in the catalog's order. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as ReadonlyArray<EventType>

/** The envelope's fields of an event of type `T`. */
type EnvelopeFields<T extends EventType> = {
  readonly id: typeof EventId
  readonly type: Schema.Literal<[T]>
  readonly createdAt: typeof Timestamp
  readonly organizationId: typeof OrganizationId
  readonly operationalContextId: Schema.NullOr<typeof OperationalContextId>
  readonly data: DataSchema<Catalog[T]>
}

/** The schema of an event's `data`: `object` and the event's own fields. */
type DataSchema<E> = E extends { readonly object: infer O extends Schema.Schema.Any; readonly fields: infer F extends Schema.Struct.Fields }
  ? Schema.Struct<{ readonly object: O } & F>
  : never

/** The schema of an event of type `T`: its envelope. */
export type EventSchema<T extends EventType> = Schema.Struct<EnvelopeFields<T>>

const envelopeFields = {
  id: EventId.annotations({ description: "The event's id; the `webhook-id` header of its deliveries." }),
  createdAt: Timestamp.annotations({ description: "When the change happened (ISO 8601, UTC, milliseconds)." }),
  organizationId: OrganizationId,
  operationalContextId: Schema.NullOr(OperationalContextId).annotations({
    description: "The operational context of the resource; null for a resource of none (integrations)."
  })
}

/** `billing.invoice_proposal.passed` → `BillingInvoiceProposalPassedEvent`. */
const identifierOf = (type: string): string =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("") + "Event"

const schemaOf = <T extends EventType>(type: T): EventSchema<T> => {
  const { description, fields, object } = EVENT_CATALOG[type] as CatalogEntry
  return Schema.Struct({
    ...envelopeFields,
    type: Schema.Literal(type),
    data: Schema.Struct({ object, ...fields })
  }).annotations({ identifier: identifierOf(type), description }) as unknown as EventSchema<T>
}

/** Each event type's schema (its envelope), keyed by type. */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((type) => [type, schemaOf(type)])) as {
  readonly [T in EventType]: EventSchema<T>
}

/** An event of type `T` as decoded (`createdAt` a `Date`); `Event` without a type is any of them. */
export type Event<T extends EventType = EventType> = { readonly [K in T]: Schema.Schema.Type<EventSchema<K>> }[T]

/** An event of type `T` as its JSON body (what a webhook receives and the feed serves). */
export type EventJson<T extends EventType = EventType> = { readonly [K in T]: Schema.Schema.Encoded<EventSchema<K>> }[T]

/**
 * An event's JSON body as stored and served: the envelope of any type, `data` read as a plain object. What the
 * server renders and the feed answers.
 */
export interface EventEnvelope {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly organizationId: string
  readonly operationalContextId: string | null
  readonly data: { readonly object: unknown } & { readonly [field: string]: unknown }
}

/**
 * An event as the feed answers it: every type's envelope, with `data` read loosely so that a client keeps working
 * when event types are added. Narrow on `type` to the catalog's schemas ({@link EVENT_SCHEMAS}).
 */
export class FeedEvent extends Schema.Class<FeedEvent>("Event")(
  {
    ...envelopeFields,
    type: Schema.String.annotations({
      description: "The dotted event type; the `webhooks` section of this document lists each and its `data`."
    }),
    data: Schema.Struct(
      { object: Schema.Unknown.annotations({ description: "The resource as the API returns it, when published." }) },
      Schema.Record({ key: Schema.String, value: Schema.Unknown })
    )
  },
  { description: "An event: a state change, with the resource as it was moments after the change." }
) {}

/**
 * A page of the feed. Unlike the queues, the feed never ends: `nextCursor` is the position after the last event
 * listed (or the cursor sent, when none was), so a reader keeps it and reads on later; `hasMore` tells whether more
 * events are listed now.
 */
export const EventPage = Schema.Struct({
  items: Schema.Array(FeedEvent),
  nextCursor: Schema.NullOr(Schema.String).annotations({
    description:
      "Pass as `cursor` to read on, now or later: the position after the last event listed, or the cursor sent " +
      "when this page listed none; null only when no event is listed yet and no cursor was sent."
  }),
  hasMore: Schema.Boolean.annotations({
    description: "True when more events are listed now after this page; false when the reader has caught up."
  })
}).annotations({ identifier: "EventPage" })

/** How long the feed keeps an event after it was published. */
export const EVENT_RETENTION_DAYS = 30

/**
 * How long after its publication an event joins the feed's list: a publisher's transaction lasts less than this,
 * so an event another publisher committed later is never listed before one already passed by a cursor.
 */
export const FEED_SETTLE_SECONDS = 5

const typesDescription =
  "Only these event types: a comma-separated list (`billing.invoice.approved,billing.invoice.paid`), each one of " +
  "the catalog's; a type of an area your token cannot read simply lists nothing."

/** The feed's query: `types`, and the `limit` and `cursor` of every list. */
export const EventListParams = Schema.Struct({
  types: Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(4096),
      Schema.filter((value) => value.split(",").every((type) => (EVENT_TYPES as ReadonlyArray<string>).includes(type)), {
        message: () => "must be a comma-separated list of event types"
      }),
      Schema.annotations({ description: typesDescription })
    )
  ),
  ...PageParams.fields
})
export type EventListParams = typeof EventListParams.Type

export const EventPath = Schema.Struct({ eventId: EventId })

const SCOPE =
  "An event is listed only when the token could read its resource through the API: the organization's, of an " +
  "area whose role the token carries (`billing.*` billing, `crm.*` signing, `booking.*` booking, `integrations.*` " +
  "integrations), in one of the token's operational contexts (each with its subtree); an `integrations.*` event " +
  "only to the installation it belongs to."

export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("listEvents", "/v1/events")
      .setUrlParams(EventListParams)
      .addSuccess(EventPage)
      .annotate(OpenApi.Summary, "List events, oldest first")
      .annotate(
        OpenApi.Description,
        "The events the token can read, oldest first (by publication, then id), from the last 30 days, so a " +
          "connector that was down catches up without webhooks. Each is the body its webhooks deliver (the " +
          "`webhooks` section lists every type). " +
          SCOPE +
          " An event is listed once it is " +
          `${FEED_SETTLE_SECONDS} seconds past its publication (moments after its change committed), so a cursor ` +
          "never passes over an event published in the meantime: keep the last `nextCursor` (or the cursor of the " +
          "last page) and read on from it later. `createdAt` is the change's time; events are unordered across " +
          "resources, so apply them by the resource's own state. Any role may call it. 400 `VALIDATION_FAILED` for " +
          "an unknown type in `types`, a bad `limit` or a cursor this list did not give."
      )
  )
  .add(
    HttpApiEndpoint.get("getEvent", "/v1/events/:eventId")
      .setPath(EventPath)
      .addSuccess(FeedEvent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get one event")
      .annotate(
        OpenApi.Description,
        "One event by id, as soon as it is published (the `webhook-id` of a delivery). " +
          SCOPE +
          " 404 when it does not exist, is older than 30 days, or the token cannot read it."
      )
  )
  .middleware(Authentication) {}

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, named by the type, whose request body is the
 * event's envelope; and the schemas they refer to (added to `components.schemas`).
 */
export const eventWebhooks = (): { readonly webhooks: JsonObject; readonly schemas: JsonObject } => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const webhooks: JsonObject = {}
  for (const type of EVENT_TYPES) {
    const schema = JSONSchema.fromAST(EVENT_SCHEMAS[type].ast, {
      definitions,
      definitionPath: "#/components/schemas/",
      target: "openApi3.1"
    }) as unknown as JsonObject
    webhooks[type] = {
      post: {
        operationId: `webhook.${type}`,
        tags: ["events"],
        summary: type,
        description:
          `${EVENT_CATALOG[type].description} Delivered per Standard Webhooks (\`webhook-id\` = the event's id, ` +
          "`webhook-timestamp`, `webhook-signature`), at least once and unordered; de-duplicate by `webhook-id`. " +
          "`data.object` is the resource as rendered when the event was published; read it again for the " +
          "current state.",
        requestBody: { required: true, content: { "application/json": { schema } } },
        responses: { "200": { description: "Any 2xx status: received. Anything else is retried." } }
      }
    }
  }
  return { webhooks, schemas: definitions as unknown as JsonObject }
}
