/** The endpoints' rows (issue 22): insert, lock, update, delete, and the subscribers of an organization's events. */
import type { WebhookEndpointTable } from "@propline/db/Database"
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"

export type EndpointRow = WebhookEndpointTable

export class WebhookEndpointRepository extends Effect.Service<WebhookEndpointRepository>()("@propline/api/webhooks/WebhookEndpointRepository", {
  succeed: {
    /** Inserts an endpoint; `onAppTaken()` when another request gave the app its webhook first. */
    insert: <E>(row: EndpointRow, onAppTaken: () => E) =>
      Sql.catchUniqueViolation((db) => db.insertInto("webhookEndpoints").values(row).execute(), "webhook_endpoints_app_key", onAppTaken).pipe(
        Effect.asVoid
      ),

    /** Whether the app has a webhook already. */
    appHasWebhook: (appId: string) =>
      Sql.query((db) => db.selectFrom("webhookEndpoints").select("id").where("appId", "=", appId).executeTakeFirst()).pipe(
        Effect.map((row) => row !== undefined)
      ),

    /** The organization's endpoint, locked for the transaction; undefined when none (or another organization's). */
    lock: (organizationId: string, endpointId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("webhookEndpoints")
          .selectAll()
          .where("id", "=", endpointId)
          .where("organizationId", "=", organizationId)
          .forUpdate()
          .executeTakeFirst()
      ),

    /** An endpoint by id, locked (the delivery worker's; any organization). */
    lockById: (endpointId: string) =>
      Sql.query((db) => db.selectFrom("webhookEndpoints").selectAll().where("id", "=", endpointId).forUpdate().executeTakeFirst()),

    update: (row: EndpointRow) =>
      Sql.query((db) => {
        const { id, organizationId: _organization, appId: _app, createdAt: _created, ...changes } = row
        return db.updateTable("webhookEndpoints").set(changes).where("id", "=", id).execute()
      }).pipe(Effect.asVoid),

    delete: (endpointId: string) =>
      Sql.query((db) => db.deleteFrom("webhookEndpoints").where("id", "=", endpointId).execute()).pipe(Effect.asVoid),

    /** The enabled endpoints of the organization's own (not an app's). */
    enabledOfOrganizations: (organizationIds: ReadonlyArray<string>) =>
      organizationIds.length === 0
        ? Effect.succeed([])
        : Sql.query((db) =>
            db
              .selectFrom("webhookEndpoints")
              .select(["id", "organizationId", "eventTypes", "contextIds"])
              .where("organizationId", "in", organizationIds)
              .where("appId", "is", null)
              .where("status", "=", "enabled")
              .execute()
          ),

    /**
     * Every endpoint's sealed secrets (the current one and a rotation's previous one; organizations' endpoints and
     * connector apps' webhooks alike), by id, each row locked: the re-sealing under a new key-encryption key at
     * start-up. Call inside `Sql.transaction`.
     */
    sealedSecrets: Sql.query((db) =>
      db.selectFrom("webhookEndpoints").select(["id", "secretEnvelope", "previousSecretEnvelope"]).orderBy("id").forUpdate().execute()
    ),

    /**
     * Stores an endpoint's envelopes re-sealed (the same secrets under another key-encryption key): not a change of
     * the endpoint, so `updated_at` and the previous secret's expiry stay.
     */
    setSecretEnvelopes: (id: string, envelopes: { readonly secretEnvelope: string; readonly previousSecretEnvelope: string | null }) =>
      Sql.query((db) => db.updateTable("webhookEndpoints").set(envelopes).where("id", "=", id).execute()).pipe(Effect.asVoid),

    /** The enabled webhooks of connector apps. */
    enabledOfApps: () =>
      Sql.query((db) =>
        db
          .selectFrom("webhookEndpoints")
          .select(["id", "appId", "eventTypes"])
          .where("appId", "is not", null)
          .where("status", "=", "enabled")
          .execute()
      )
  }
}) {}
