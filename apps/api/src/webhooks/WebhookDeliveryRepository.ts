/** Deliveries and their attempts (issue 22, item 3): made by the fan-out, claimed and recorded by the worker. */
import type { WebhookAttemptTable, WebhookDeliveryTable } from "@propline/db/Database"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Sql from "../platform/Sql.js"

export type DeliveryRow = WebhookDeliveryTable

/** What a delivery is of: the endpoint, and the event's organization, id, type and body. */
export type DeliveryOf = Pick<DeliveryRow, "endpointId" | "organizationId" | "eventId" | "eventType" | "payload">

/** A new delivery of `of`, pending its first attempt at `at`; `manual` for an operator's. */
export const pendingDelivery = (of: DeliveryOf, at: Date, manual: boolean): DeliveryRow => ({
  endpointId: of.endpointId,
  organizationId: of.organizationId,
  eventId: of.eventId,
  eventType: of.eventType,
  payload: of.payload,
  id: randomUUID(),
  status: "pending",
  attemptCount: 0,
  lastAttemptAt: null,
  lastStatusCode: null,
  nextAttemptAt: at,
  deliveredAt: null,
  manual,
  createdAt: at
})

export class WebhookDeliveryRepository extends Effect.Service<WebhookDeliveryRepository>()("@propline/api/webhooks/WebhookDeliveryRepository", {
  succeed: {
    /** Inserts deliveries; an (event, endpoint) that has one already is skipped. Resolves to the ids inserted. */
    insert: (rows: ReadonlyArray<DeliveryRow>) =>
      rows.length === 0
        ? Effect.succeed<ReadonlyArray<string>>([])
        : Sql.query((db) =>
            db
              .insertInto("webhookDeliveries")
              .values(rows.map((row) => ({ ...row })))
              .onConflict((conflict) => conflict.columns(["eventId", "endpointId"]).where("manual", "=", false).doNothing())
              .returning("id")
              .execute()
          ).pipe(Effect.map((inserted) => inserted.map((row) => row.id))),

    /** A delivery, locked for the transaction. */
    lock: (deliveryId: string) =>
      Sql.query((db) => db.selectFrom("webhookDeliveries").selectAll().where("id", "=", deliveryId).forUpdate().executeTakeFirst()),

    /** A delivery with its endpoint's URL, status and secrets, unlocked (before an attempt). */
    withEndpoint: (deliveryId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("webhookDeliveries as d")
          .innerJoin("webhookEndpoints as e", "e.id", "d.endpointId")
          .select([
            "d.id",
            "d.eventId",
            "d.payload",
            "d.status",
            "d.attemptCount",
            "d.manual",
            "e.id as endpointId",
            "e.url",
            "e.status as endpointStatus",
            "e.secretEnvelope",
            "e.previousSecretEnvelope",
            "e.previousSecretExpiresAt"
          ])
          .where("d.id", "=", deliveryId)
          .executeTakeFirst()
      ),

    update: (row: DeliveryRow) =>
      Sql.query((db) =>
        db
          .updateTable("webhookDeliveries")
          .set({
            status: row.status,
            attemptCount: row.attemptCount,
            lastAttemptAt: row.lastAttemptAt,
            lastStatusCode: row.lastStatusCode,
            nextAttemptAt: row.nextAttemptAt,
            deliveredAt: row.deliveredAt
          })
          .where("id", "=", row.id)
          .execute()
      ).pipe(Effect.asVoid),

    insertAttempt: (attempt: WebhookAttemptTable) =>
      Sql.query((db) => db.insertInto("webhookAttempts").values(attempt).execute()).pipe(Effect.asVoid),

    /** The endpoint's deliveries made since `since` (the failed ones, or all), oldest first, at most `limit`. */
    since: (endpointId: string, since: Date, includeDelivered: boolean, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("webhookDeliveries")
          .selectAll()
          .where("endpointId", "=", endpointId)
          .where("createdAt", ">=", since)
          .where("manual", "=", false)
        if (!includeDelivered) query = query.where("status", "=", "failed")
        return query.orderBy("createdAt").orderBy("id").limit(limit).execute()
      })
  }
}) {}
