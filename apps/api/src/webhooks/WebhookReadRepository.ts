/**
 * The console's webhook pages as a read model (issue 22, item 7): the organization's endpoints (its own and its
 * connector apps' webhooks), the delivery log newest first with its filters, and one delivery with its attempts.
 */
import { Effect, Schema } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { containing, keyed } from "../platform/ConsoleListing.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"

export interface EndpointFilter {
  /** Matches the URL or the description. */
  readonly q: string | undefined
  readonly status: "enabled" | "disabled" | undefined
  readonly owner: "organization" | "connector-app" | undefined
}

export interface DeliveryFilter {
  readonly endpointId: string | undefined
  readonly eventId: string | undefined
  readonly eventType: string | undefined
  readonly status: "pending" | "delivered" | "failed" | undefined
}

const isUuid = Schema.is(Schema.UUID)

/** A filter's id as a UUID; text that is none matches nothing (the nil UUID names no row). */
const uuidOrNone = (text: string): string => (isUuid(text) ? text : "00000000-0000-0000-0000-000000000000")

const endpointColumns = [
  "webhookEndpoints.id",
  "webhookEndpoints.url",
  "webhookEndpoints.description",
  "webhookEndpoints.appId",
  "webhookEndpoints.eventTypes",
  "webhookEndpoints.contextIds",
  "webhookEndpoints.status",
  "webhookEndpoints.disabledReason",
  "webhookEndpoints.disabledAt",
  "webhookEndpoints.failingSince",
  "webhookEndpoints.secretLastFour",
  "webhookEndpoints.previousSecretExpiresAt",
  "webhookEndpoints.createdAt",
  "webhookEndpoints.updatedAt"
] as const

const deliveryColumns = [
  "d.id",
  "d.endpointId",
  "d.eventId",
  "d.eventType",
  "d.organizationId",
  "d.status",
  "d.attemptCount",
  "d.lastAttemptAt",
  "d.lastStatusCode",
  "d.nextAttemptAt",
  "d.deliveredAt",
  "d.manual",
  "d.createdAt"
] as const

export class WebhookReadRepository extends Effect.Service<WebhookReadRepository>()("@propline/api/webhooks/WebhookReadRepository", {
  succeed: spanned("WebhookReadRepository", {
    /** A page of the organization's endpoints, newest first. */
    endpoints: (organizationId: string, filter: EndpointFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("webhookEndpoints")
          .select(endpointColumns)
          .select(CursorPage.sortKey("webhookEndpoints.createdAt").as("cursorAt"))
          .where("webhookEndpoints.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("webhookEndpoints.createdAt", "webhookEndpoints.id", after))
        if (filter.q !== undefined) {
          const pattern = containing(filter.q)
          query = query.where((eb) => eb.or([eb("webhookEndpoints.url", "ilike", pattern), eb("webhookEndpoints.description", "ilike", pattern)]))
        }
        if (filter.status !== undefined) query = query.where("webhookEndpoints.status", "=", filter.status)
        if (filter.owner !== undefined) query = query.where("webhookEndpoints.appId", filter.owner === "organization" ? "is" : "is not", null)
        return query.orderBy("webhookEndpoints.createdAt", "desc").orderBy("webhookEndpoints.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-webhook-endpoints", keyed(rows), limit))),

    /** The organization's endpoint; RecordNotFound when it is another organization's or none. */
    endpoint: (organizationId: string, endpointId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("webhookEndpoints")
          .select(endpointColumns)
          .where("webhookEndpoints.organizationId", "=", organizationId)
          .where("webhookEndpoints.id", "=", endpointId)
          .executeTakeFirst()
      ).pipe(Effect.flatMap((row) => (row === undefined ? Effect.fail(new RecordNotFound({ kind: "webhook endpoint" })) : Effect.succeed(row)))),

    /** A page of the deliveries to the organization's endpoints, newest first. */
    deliveries: (organizationId: string, filter: DeliveryFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("webhookDeliveries as d")
          .innerJoin("webhookEndpoints as e", "e.id", "d.endpointId")
          .select(deliveryColumns)
          .select(CursorPage.sortKey("d.createdAt").as("cursorAt"))
          .where("e.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("d.createdAt", "d.id", after))
        if (filter.endpointId !== undefined) query = query.where("d.endpointId", "=", uuidOrNone(filter.endpointId))
        if (filter.eventId !== undefined) query = query.where("d.eventId", "=", uuidOrNone(filter.eventId))
        if (filter.eventType !== undefined) query = query.where("d.eventType", "=", filter.eventType)
        if (filter.status !== undefined) query = query.where("d.status", "=", filter.status)
        return query.orderBy("d.createdAt", "desc").orderBy("d.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-webhook-deliveries", keyed(rows), limit))),

    /** A delivery to one of the organization's endpoints with its attempts (in order) and body; RecordNotFound otherwise. */
    delivery: (organizationId: string, deliveryId: string) =>
      Effect.gen(function* () {
        const delivery = yield* Sql.query((db) =>
          db
            .selectFrom("webhookDeliveries as d")
            .innerJoin("webhookEndpoints as e", "e.id", "d.endpointId")
            .select(deliveryColumns)
            .select("d.payload")
            .where("e.organizationId", "=", organizationId)
            .where("d.id", "=", deliveryId)
            .executeTakeFirst()
        )
        if (delivery === undefined) return yield* new RecordNotFound({ kind: "webhook delivery" })
        const attempts = yield* Sql.query((db) =>
          db
            .selectFrom("webhookAttempts")
            .select(["number", "startedAt", "latencyMs", "statusCode", "error", "responseBody"])
            .where("deliveryId", "=", deliveryId)
            .orderBy("number")
            .execute()
        )
        return { delivery, attempts }
      })
  })
}) {}
