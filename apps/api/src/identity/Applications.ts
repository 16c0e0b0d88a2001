/**
 * Applications and their client secrets (spec 5.2, decisions 2 and 3): an Application belongs to one
 * organization, has roles and granted operational contexts, and holds at most 2 active secrets. A secret is
 * `service_sk_` + 43 base62 characters (256 random bits), shown once; only its SHA-256 digest is stored.
 */
import * as Db from "@propline/db/Db"
import { formatSecret, SECRET_RANDOM_BYTES } from "@propline/identity/ClientSecret"
import { Data, Effect } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"

/** Spec 5.2 / 8: active secrets per Application. */
export const MAX_ACTIVE_SECRETS = 2

/** Lower-case hex SHA-256 of a secret: what `application_secrets.secret_digest` holds. */
export const secretDigest = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex")

/** APPLICATION_SECRET_LIMIT_REACHED (spec 7.3): the Application already holds 2 active secrets. */
export class SecretLimitReached extends Data.TaggedError("SecretLimitReached")<{ readonly applicationId: string }> {
  readonly code = "APPLICATION_SECRET_LIMIT_REACHED"
}

/** A new client_id: `app_` + 24 lower-case hex characters; unguessability rests on the secret, not the id. */
const newClientId = (): string => `app_${randomBytes(12).toString("hex")}`

export interface NewApplication {
  readonly organizationId: string
  readonly name: string
  readonly roles: ReadonlyArray<"billing" | "signing" | "booking">
  /** Granted operational contexts; each includes its subtree. */
  readonly contextIds: ReadonlyArray<string>
  readonly actor: { readonly type: "operator" | "system"; readonly id: string }
  readonly now: Date
}

/** Creates an active Application with no secret yet. Returns its id and client_id. */
export const createApplication = (input: NewApplication) =>
  Db.transaction(
    Effect.gen(function* () {
      const id = randomUUID()
      const clientId = newClientId()
      yield* Db.query((db) =>
        db
          .insertInto("applications")
          .values({
            id,
            organizationId: input.organizationId,
            clientId,
            name: input.name,
            roles: [...input.roles],
            status: "active",
            disabledAt: null,
            createdAt: input.now,
            updatedAt: input.now
          })
          .execute()
      )
      if (input.contextIds.length > 0) {
        yield* Db.query((db) =>
          db
            .insertInto("applicationContexts")
            .values(input.contextIds.map((operationalContextId) => ({ applicationId: id, operationalContextId })))
            .execute()
        )
      }
      yield* Audit.record({
        organizationId: input.organizationId,
        actorType: input.actor.type,
        actorId: input.actor.id,
        action: "application.created",
        targetType: "application",
        targetId: id,
        requestId: null,
        details: { name: input.name, roles: [...input.roles], contextIds: [...input.contextIds] },
        occurredAt: input.now
      })
      return { id, clientId }
    })
  ).pipe(Effect.orDie)

/**
 * Issues a new secret for an Application, at most {@link MAX_ACTIVE_SECRETS} active at a time; the Application's
 * row is locked so two concurrent requests can't both pass the count. Returns the secret, shown once.
 */
export const issueSecret = (input: {
  readonly applicationId: string
  readonly actor: { readonly type: "operator" | "system"; readonly id: string }
  readonly now: Date
}) =>
  Db.transaction(
    Effect.gen(function* () {
      const application = yield* Db.query((db) =>
        db
          .selectFrom("applications")
          .select(["id", "organizationId"])
          .where("id", "=", input.applicationId)
          .forUpdate()
          .executeTakeFirstOrThrow()
      )
      const active = yield* Db.query((db) =>
        db
          .selectFrom("applicationSecrets")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("applicationId", "=", input.applicationId)
          .where("revokedAt", "is", null)
          .executeTakeFirstOrThrow()
      )
      if (Number(active.count) >= MAX_ACTIVE_SECRETS) {
        return yield* new SecretLimitReached({ applicationId: input.applicationId })
      }
      const secret = formatSecret(randomBytes(SECRET_RANDOM_BYTES))
      const id = randomUUID()
      yield* Db.query((db) =>
        db
          .insertInto("applicationSecrets")
          .values({
            id,
            applicationId: input.applicationId,
            secretDigest: secretDigest(secret),
            lastFour: secret.slice(-4),
            createdAt: input.now,
            revokedAt: null,
            lastUsedAt: null
          })
          .execute()
      )
      yield* Audit.record({
        organizationId: application.organizationId,
        actorType: input.actor.type,
        actorId: input.actor.id,
        action: "application.secret_issued",
        targetType: "application_secret",
        targetId: id,
        requestId: null,
        details: { applicationId: input.applicationId, lastFour: secret.slice(-4) },
        occurredAt: input.now
      })
      return { secretId: id, secret }
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))

/** Revokes a secret: it stops new tokens at once; tokens already issued live out their 600 seconds (spec 5.5). */
export const revokeSecret = (input: {
  readonly secretId: string
  readonly actor: { readonly type: "operator" | "system"; readonly id: string }
  readonly now: Date
}) =>
  Db.transaction(
    Effect.gen(function* () {
      const revoked = yield* Db.query((db) =>
        db
          .updateTable("applicationSecrets")
          .set({ revokedAt: input.now })
          .where("id", "=", input.secretId)
          .where("revokedAt", "is", null)
          .returning(["id", "applicationId"])
          .executeTakeFirst()
      )
      if (revoked === undefined) return false
      const application = yield* Db.query((db) =>
        db
          .selectFrom("applications")
          .select("organizationId")
          .where("id", "=", revoked.applicationId)
          .executeTakeFirstOrThrow()
      )
      yield* Audit.record({
        organizationId: application.organizationId,
        actorType: input.actor.type,
        actorId: input.actor.id,
        action: "application.secret_revoked",
        targetType: "application_secret",
        targetId: input.secretId,
        requestId: null,
        occurredAt: input.now
      })
      return true
    })
  ).pipe(Effect.orDie)
