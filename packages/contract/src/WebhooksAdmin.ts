/**
 * Webhook endpoints and their delivery log (issue 22, items 2, 3 and 7; Standard Webhooks). An endpoint belongs to
 * the operator's organization and is either the organization's own (`connectorAppId: null`: receives the
 * organization's events it subscribes to, limited to its `contextIds`, each including its subtree, when any are
 * given) or a connector app's one webhook (`connectorAppId` set: the app's publisher registers it, as a GitHub App
 * declares its webhook URL; it receives the events of every installation of the app that the installation's roles
 * and contexts let it read, in any organization). An empty `eventTypes` subscribes to every type.
 *
 * Secrets are `whsec_` + base64 of 32 random bytes, shown once in the answer that issues them. Rotating keeps the
 * previous secret signing beside the new one for 24 hours (`previousSecretExpiresAt`), so a receiver can switch
 * without missing a message. Deliveries are at least once and unordered; receivers de-duplicate by `webhook-id` (the
 * event id). An endpoint failing for 3 days without one success is disabled (`disabledReason: "failing"`, an audit
 * entry `webhooks.endpoint.auto_disabled`); enabling it again resumes delivery of new events (redeliver the missed
 * ones with `redeliverSince`).
 *
 * Refusals: VALIDATION_FAILED (400) with one issue per field — `/url` (not https://…, or http://… where private
 * destinations are not allowed, or naming localhost or a loopback, private, link-local or metadata address),
 * `/eventTypes/<i>` (not a type of the catalog), `/contextIds/<i>` (not the organization's; for an app's webhook,
 * `/contextIds` must be empty), `/connectorAppId` (the app has a webhook already); another organization's endpoint,
 * delivery or app is 404.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { Schema } from "effect"
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

/** `enabled`, or `disabled` by an operator (`disabledReason: "operator"`) or after days of failure (`"failing"`). */
export const WebhookEndpointStatus = Schema.Literal("enabled", "disabled")

export class WebhookEndpointView extends Schema.Class<WebhookEndpointView>("WebhookEndpointView")({
  id: Schema.UUID,
  url: Schema.String,
  description: Schema.String,
  /** The connector app whose webhook this is, or null for the organization's own endpoint. */
  connectorAppId: Schema.NullOr(Schema.String),
  /** The event types it receives; empty: every type. */
  eventTypes: Schema.Array(Schema.String),
  /** The operational contexts (each with its subtree) whose events it receives; empty: all (an app's: none given). */
  contextIds: Schema.Array(Schema.UUID),
  status: WebhookEndpointStatus,
  disabledReason: Schema.NullOr(Schema.Literal("operator", "failing")),
  disabledAt: Schema.NullOr(Schema.Date),
  /** The first failed attempt since the last success, or null: the console's "failing since" notice. */
  failingSince: Schema.NullOr(Schema.Date),
  /** The last four characters of the current secret. */
  secretLastFour: Schema.String,
  /** While a rotated-out secret still signs (24 h after rotation), its end; else null. */
  previousSecretExpiresAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

/** A secret in the one answer that issues it: `whsec_` + base64 of 32 random bytes. */
export class RevealedWebhookSecret extends Schema.Class<RevealedWebhookSecret>("RevealedWebhookSecret")({
  secret: Schema.String,
  lastFour: Schema.String,
  /** The previous secret keeps signing until then (rotation), or null (a new endpoint). */
  previousSecretExpiresAt: Schema.NullOr(Schema.Date)
}) {}

/** 201 of create and rotate: the endpoint and its new secret, shown once. */
export class WebhookEndpointWithSecret extends Schema.Class<WebhookEndpointWithSecret>("WebhookEndpointWithSecret")({
  endpoint: WebhookEndpointView,
  secret: RevealedWebhookSecret
}) {}

const EventTypes = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))).pipe(
  Schema.maxItems(200),
  Schema.filter((types) => new Set(types).size === types.length || "names an event type twice")
)
const ContextIds = Schema.Array(Schema.UUID).pipe(
  Schema.maxItems(100),
  Schema.filter((ids) => new Set(ids).size === ids.length || "names a context twice")
)

/**
 * Create: an http(s) URL (at most 2000 characters), an optional description, the event types (each one of the
 * catalog's, `VALIDATION_FAILED` otherwise; empty: all) and contexts (of the organization; empty: all). With
 * `connectorAppId` (an app the organization published; 404 otherwise) it is that app's one webhook, for which
 * `contextIds` must be empty (the installations' grants decide).
 */
export class CreateWebhookEndpointRequest extends Schema.Class<CreateWebhookEndpointRequest>("CreateWebhookEndpointRequest")(
  Schema.Struct({
    url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)),
    description: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(500)), { default: () => "" }),
    eventTypes: Schema.optionalWith(EventTypes, { default: () => [] }),
    contextIds: Schema.optionalWith(ContextIds, { default: () => [] }),
    connectorAppId: Schema.optional(Schema.String.pipe(Schema.maxLength(64)))
  }).annotations({ parseOptions: { errors: "all" } })
) {}

/** Change the URL, description, event types and contexts (the same rules as create; the owner stays). */
export class UpdateWebhookEndpointRequest extends Schema.Class<UpdateWebhookEndpointRequest>("UpdateWebhookEndpointRequest")(
  Schema.Struct({
    url: CreateWebhookEndpointRequest.fields.url,
    description: CreateWebhookEndpointRequest.fields.description,
    eventTypes: CreateWebhookEndpointRequest.fields.eventTypes,
    contextIds: CreateWebhookEndpointRequest.fields.contextIds
  }).annotations({ parseOptions: { errors: "all" } })
) {}

/**
 * A delivery: one event to one endpoint. `pending` waits for its next attempt (`nextAttemptAt`), `delivered` got a
 * 2xx, `failed` gave up (retries exhausted after 3 days, or the endpoint was disabled or deleted).
 */
export const WebhookDeliveryStatus = Schema.Literal("pending", "delivered", "failed")

export class WebhookDeliveryView extends Schema.Class<WebhookDeliveryView>("WebhookDeliveryView")({
  id: Schema.UUID,
  endpointId: Schema.UUID,
  /** The `webhook-id` header: the event's id (the same on every attempt and redelivery). */
  eventId: Schema.String,
  eventType: Schema.String,
  /** The organization whose event it is (for an app's webhook, the installing organization). */
  organizationId: Schema.UUID,
  status: WebhookDeliveryStatus,
  attemptCount: Schema.Int,
  lastAttemptAt: Schema.NullOr(Schema.Date),
  /** The HTTP status of the last attempt, or null when none answered (timeout, refused, connection error). */
  lastStatusCode: Schema.NullOr(Schema.Int),
  nextAttemptAt: Schema.NullOr(Schema.Date),
  deliveredAt: Schema.NullOr(Schema.Date),
  /** `true` for a delivery an operator asked for (redeliver, test event). */
  manual: Schema.Boolean,
  createdAt: Schema.Date
}) {}

/** One HTTP attempt of a delivery. */
export class WebhookAttemptView extends Schema.Class<WebhookAttemptView>("WebhookAttemptView")({
  /** 1, 2, …: the order of the attempts of this delivery. */
  number: Schema.Int,
  startedAt: Schema.Date,
  /** From the start of the attempt to the end of the (capped) response read or the failure, in milliseconds. */
  latencyMs: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int),
  /** Why no 2xx: `timeout`, `destination_refused`, `redirect`, `connection_error: …`, `status 500`; null on success. */
  error: Schema.NullOr(Schema.String),
  /** The first 1 KB of the response body as text (UTF-8, invalid bytes replaced); "" when none. */
  responseBody: Schema.String
}) {}

export class WebhookDeliveryDetail extends Schema.Class<WebhookDeliveryDetail>("WebhookDeliveryDetail")({
  delivery: WebhookDeliveryView,
  attempts: Schema.Array(WebhookAttemptView),
  /** The JSON body delivered (the event's envelope, as `GET /v1/events/{eventId}` serves it). */
  payload: Schema.Unknown
}) {}

/** Redeliver this endpoint's deliveries created since `since`: the failed ones, or every one with `includeDelivered`. */
export class RedeliverSinceRequest extends Schema.Class<RedeliverSinceRequest>("RedeliverSinceRequest")(
  Schema.Struct({
    since: Schema.Date,
    includeDelivered: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }).annotations({ parseOptions: { errors: "all" } })
) {}

/** How many deliveries a redelivery queued. */
export class RedeliveryCount extends Schema.Class<RedeliveryCount>("RedeliveryCount")({ queued: Schema.Int }) {}

/** The event types an endpoint can subscribe to (the catalog's, sorted), for the console's picker. */
export class WebhookEventTypes extends Schema.Class<WebhookEventTypes>("WebhookEventTypes")({
  items: Schema.Array(Schema.String)
}) {}

export const WebhookEndpointPage = Page(WebhookEndpointView, "WebhookEndpointPage")
export const WebhookDeliveryPage = Page(WebhookDeliveryView, "WebhookDeliveryPage")

const EndpointPath = Schema.Struct({ endpointId: Schema.UUID })
const DeliveryPath = Schema.Struct({ deliveryId: Schema.UUID })

/** The delivery log's filters (each optional; "" is absent): endpoint, event, event type, status. */
const DeliveryFilters = {
  endpointId: Filter(36),
  eventId: Filter(200),
  eventType: Filter(200),
  status: Choice("pending", "delivered", "failed")
}

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.get("eventTypes", "/api/webhook-event-types").addSuccess(WebhookEventTypes))
  .add(
    HttpApiEndpoint.get("list", "/api/webhook-endpoints")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          q: Filter(200),
          status: Choice("enabled", "disabled"),
          owner: Choice("organization", "connector-app")
        })
      )
      .addSuccess(WebhookEndpointPage)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/webhook-endpoints/:endpointId")
      .setPath(EndpointPath)
      .addSuccess(WebhookEndpointView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/api/webhook-endpoints")
      .setPayload(body(CreateWebhookEndpointRequest))
      .addSuccess(WebhookEndpointWithSecret, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("update", "/api/webhook-endpoints/:endpointId")
      .setPath(EndpointPath)
      .setPayload(body(UpdateWebhookEndpointRequest))
      .addSuccess(WebhookEndpointView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/api/webhook-endpoints/:endpointId/rotate-secret")
      .setPath(EndpointPath)
      .addSuccess(WebhookEndpointWithSecret, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("disable", "/api/webhook-endpoints/:endpointId/disable")
      .setPath(EndpointPath)
      .addSuccess(WebhookEndpointView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("enable", "/api/webhook-endpoints/:endpointId/enable")
      .setPath(EndpointPath)
      .addSuccess(WebhookEndpointView)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/webhook-endpoints/:endpointId")
      .setPath(EndpointPath)
      .addSuccess(Schema.Void, { status: 204 })
      .addError(NotFound)
  )
  .add(
    /** Queues a `webhook.test` event to this endpoint alone (even when disabled: to check a fixed receiver). */
    HttpApiEndpoint.post("sendTestEvent", "/api/webhook-endpoints/:endpointId/test")
      .setPath(EndpointPath)
      .addSuccess(WebhookDeliveryView, { status: 202 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("redeliverSince", "/api/webhook-endpoints/:endpointId/redeliver")
      .setPath(EndpointPath)
      .setPayload(body(RedeliverSinceRequest))
      .addSuccess(RedeliveryCount, { status: 202 })
      .addError(NotFound)
  )
  .add(
    /** The delivery log, newest first: per endpoint (`endpointId`), per event (`eventId`), or the organization's. */
    HttpApiEndpoint.get("deliveries", "/api/webhook-deliveries")
      .setUrlParams(Schema.Struct({ ...PageQuery, ...DeliveryFilters }))
      .addSuccess(WebhookDeliveryPage)
  )
  .add(
    HttpApiEndpoint.get("delivery", "/api/webhook-deliveries/:deliveryId")
      .setPath(DeliveryPath)
      .addSuccess(WebhookDeliveryDetail)
      .addError(NotFound)
  )
  .add(
    /** Queues the event again to the same endpoint as a new delivery with the same `webhook-id`. */
    HttpApiEndpoint.post("redeliver", "/api/webhook-deliveries/:deliveryId/redeliver")
      .setPath(DeliveryPath)
      .addSuccess(WebhookDeliveryView, { status: 202 })
      .addError(NotFound)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
