/** Deliveries and their attempts (issue 22, item 3): made by the fan-out, claimed and recorded by the worker. */
import type { WebhookAttemptTable, WebhookDeliveryTable } from "@propline/db/Database"
import { Effect } from "effect"
import { sql } from "kysely"
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

    /**
     * Records a successful attempt `attempt.number` in one statement (no transaction to open): the delivery
     * `delivered` at `at` — only while it is still pending at attempt `number − 1`, so a repeat or a late worker
     * records nothing —, the attempt row, and the end of its endpoint's failing streak. Resolves to whether it
     * recorded. The delivery's row lock orders it against a concurrent record of the same delivery, as `lock` does.
     */
    recordDelivered: (attempt: WebhookAttemptTable, at: Date) =>
      Sql.query((db) =>
        db
          .with("delivered", (db) =>
            db
              .updateTable("webhookDeliveries")
              .set({
                status: "delivered",
                attemptCount: attempt.number,
                lastAttemptAt: attempt.startedAt,
                lastStatusCode: attempt.statusCode,
                nextAttemptAt: null,
                deliveredAt: at
              })
              .where("id", "=", attempt.deliveryId)
              .where("status", "=", "pending")
              .where("attemptCount", "=", attempt.number - 1)
              .returning(["id", "endpointId"])
          )
          .with("recovered", (db) =>
            db
              .updateTable("webhookEndpoints")
              .set({ failingSince: null })
              .where("id", "in", (eb) => eb.selectFrom("delivered").select("delivered.endpointId"))
              .where("failingSince", "is not", null)
              .returning("webhookEndpoints.id")
          )
          .insertInto("webhookAttempts")
          .columns(["deliveryId", "number", "startedAt", "latencyMs", "statusCode", "error", "responseBody"])
          .expression((eb) =>
            eb
              .selectFrom("delivered")
              .select([
                "delivered.id",
                sql<number>`cast(${attempt.number} as integer)`.as("number"),
                sql<Date>`cast(${attempt.startedAt} as timestamptz)`.as("startedAt"),
                sql<number>`cast(${attempt.latencyMs} as integer)`.as("latencyMs"),
                sql<number | null>`cast(${attempt.statusCode} as integer)`.as("statusCode"),
                sql<string | null>`cast(${attempt.error} as text)`.as("error"),
                sql<string>`cast(${attempt.responseBody} as text)`.as("responseBody")
              ])
          )
          .returning("deliveryId")
          .execute()
      ).pipe(Effect.map((rows) => rows.length > 0)),

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
