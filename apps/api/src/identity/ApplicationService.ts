/**
 * The operator's commands on Applications (spec 5.2, 5.5 and 8; decisions 2 and 3), for the admin console, the demo
 * seed and tests: create one, issue and revoke its secrets, disable and enable it, change its roles and contexts.
 * Each is one transaction: lock the Application (404 `RecordNotFound` when unknown), ask the pure rules
 * (`@propline/identity/Application`), persist, and write the audit entry with the operator as actor.
 *
 * A secret is `service_sk_` + 43 base62 characters (256 random bits), returned once and stored only as its SHA-256
 * digest. Revoking a secret or disabling the Application stops new tokens at once (the token endpoint reads the
 * database on every request); tokens already issued keep working until they expire (spec 5.5).
 */
import * as Application from "@propline/identity/Application"
import { formatSecret, SECRET_RANDOM_BYTES } from "@propline/identity/ClientSecret"
import type { GrantRequest } from "@propline/identity/Grant"
import { Effect, Schema } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { ContextService } from "../contexts/ContextService.js"
import * as Audit from "../platform/Audit.js"
import { sha256Hex } from "../platform/Digest.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { ApplicationRepository } from "./ApplicationRepository.js"
import { traced } from "../platform/Spans.js"

/** Lower-case hex SHA-256 of a secret: what `application_secrets.secret_digest` holds. */
export const secretDigest = (secret: string): string => sha256Hex(secret)

/** A new client_id: `app_` + 24 lower-case hex characters; unguessability rests on the secret, not the id. */
const newClientId = (): string => `app_${randomBytes(12).toString("hex")}`

const isUuid = Schema.is(Schema.UUID)

const span = (name: string) => traced(`ApplicationService.${name}`)

export class ApplicationService extends Effect.Service<ApplicationService>()("@propline/api/identity/ApplicationService", {
  effect: Effect.gen(function* () {
    const applications = yield* ApplicationRepository
    const contexts = yield* ContextService

    /** The Application, locked; 404 when unknown (or not a UUID). */
    const lock = (applicationId: string) =>
      Effect.flatMap(
        isUuid(applicationId) ? applications.lock(applicationId) : Effect.succeed(undefined),
        (application) =>
          application === undefined ? Effect.fail(new RecordNotFound({ kind: "application" })) : Effect.succeed(application)
      )

    /** The organization's context tree; 404 when the organization does not exist. */
    const treeOf = (organizationId: string) =>
      Effect.flatMap(isUuid(organizationId) ? contexts.tree(organizationId) : Effect.succeed([]), (tree) =>
        tree.length === 0 ? Effect.fail(new RecordNotFound({ kind: "organization" })) : Effect.succeed(tree)
      )

    const service = {
      /**
       * Creates an active Application in `organizationId` with roles and contexts
       * (`INTEGRATIONS_ROLE_NOT_GRANTABLE`, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`; 404 for an unknown
       * organization). It has no secret yet: {@link ApplicationService} `issueSecret` makes one.
       */
      create: (
        input: GrantRequest & { readonly organizationId: string; readonly name: string },
        actor: Audit.Actor
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const tree = yield* treeOf(input.organizationId)
            const at = yield* Sql.now
            const { record } = yield* Application.createApplication(
              tree,
              { ...input, id: randomUUID(), clientId: newClientId() },
              at
            )
            yield* applications.insert(record)
            yield* Audit.byActor(record.organizationId, actor, {
              action: "identity.application.created",
              targetType: "application",
              targetId: record.id,
              details: { name: record.name, clientId: record.clientId, roles: [...record.roles], contextIds: [...record.contextIds] },
              at
            })
            return record
          })
        ).pipe(span("create")),

      /**
       * Issues a new secret, returned once (`secret`). At most 2 active at a time: a third is
       * `APPLICATION_SECRET_LIMIT_REACHED` (400). The Application's row lock makes concurrent issues take turns.
       */
      issueSecret: (applicationId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* lock(applicationId)
            const active = yield* applications.activeSecrets(application.id)
            const secret = formatSecret(randomBytes(SECRET_RANDOM_BYTES))
            const at = yield* Sql.now
            const { record } = yield* Application.issueSecret(
              active,
              { applicationId: application.id, secretId: randomUUID(), lastFour: secret.slice(-4) },
              at
            )
            yield* applications.insertSecret(record, secretDigest(secret))
            yield* Audit.byActor(application.organizationId, actor, {
              action: "identity.application.secret_issued",
              targetType: "application_secret",
              targetId: record.id,
              details: { applicationId: application.id, lastFour: record.lastFour },
              at
            })
            return { secretId: record.id, secret, record }
          })
        ).pipe(span("issueSecret")),

      /**
       * Revokes one of the Application's active secrets: new token requests with it fail at once; tokens already
       * issued live out their 600 s (spec 5.5). Unknown or already revoked: `APPLICATION_SECRET_NOT_FOUND` (400).
       */
      revokeSecret: (applicationId: string, secretId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* lock(applicationId)
            const active = yield* applications.activeSecrets(application.id)
            const at = yield* Sql.now
            const { record } = yield* Application.revokeSecret(active, { applicationId: application.id, secretId }, at)
            yield* applications.revokeSecret(record)
            yield* Audit.byActor(application.organizationId, actor, {
              action: "identity.application.secret_revoked",
              targetType: "application_secret",
              targetId: record.id,
              details: { applicationId: application.id, lastFour: record.lastFour },
              at
            })
            return record
          })
        ).pipe(span("revokeSecret")),

      /** Disables the Application: its secrets stop getting tokens at once (spec 5.5). Repeating changes nothing. */
      disable: (applicationId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* lock(applicationId)
            const at = yield* Sql.now
            const { changed, record } = Application.disable(application, at)
            if (changed) {
              yield* applications.update(record, false)
              yield* Audit.byActor(record.organizationId, actor, {
                action: "identity.application.disabled",
                targetType: "application",
                targetId: record.id,
                at
              })
            }
            return record
          })
        ).pipe(span("disable")),

      /** Enables a disabled Application again. Repeating changes nothing. */
      enable: (applicationId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* lock(applicationId)
            const at = yield* Sql.now
            const { changed, record } = Application.enable(application, at)
            if (changed) {
              yield* applications.update(record, false)
              yield* Audit.byActor(record.organizationId, actor, {
                action: "identity.application.enabled",
                targetType: "application",
                targetId: record.id,
                at
              })
            }
            return record
          })
        ).pipe(span("enable")),

      /**
       * Replaces the Application's roles and contexts (`INTEGRATIONS_ROLE_NOT_GRANTABLE`,
       * `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`). New tokens carry them; issued tokens keep theirs until they expire.
       */
      changeGrant: (applicationId: string, grant: GrantRequest, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* lock(applicationId)
            const tree = yield* treeOf(application.organizationId)
            const at = yield* Sql.now
            const { record } = yield* Application.changeGrant(application, grant, tree, at)
            yield* applications.update(record, true)
            yield* Audit.byActor(record.organizationId, actor, {
              action: "identity.application.grant_changed",
              targetType: "application",
              targetId: record.id,
              details: { roles: [...record.roles], contextIds: [...record.contextIds] },
              at
            })
            return record
          })
        ).pipe(span("changeGrant"))
    }

    return {
      ...service,

      /**
       * {@link create} and the first {@link issueSecret} in one transaction (the console's "create"): the Application
       * never exists without its first secret. Refusals as theirs.
       */
      createWithSecret: (
        input: GrantRequest & { readonly organizationId: string; readonly name: string },
        actor: Audit.Actor
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const application = yield* service.create(input, actor)
            const issued = yield* service.issueSecret(application.id, actor)
            return { application, issued }
          })
        ).pipe(span("createWithSecret"))
    }
  }),
  dependencies: [ApplicationRepository.Default, ContextService.Default]
}) {}
