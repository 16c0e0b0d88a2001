/**
 * The operator's commands on installations (decisions 2; spec 5.3, 5.5): install a connector app into an
 * organization with roles and contexts, suspend, resume, remove, change the grant. Each is one transaction: lock
 * (404 `RecordNotFound` for an unknown app, organization or installation, or a removed installation), ask the pure
 * rules (`@propline/identity/Installation`), persist, append the events to the outbox and write the audit entry.
 *
 * Suspending or removing an installation stops new tokens at once (the token endpoint reads its status on every
 * request); tokens already issued keep working until they expire (spec 5.5). Removing one also disconnects its
 * integration configurations (decisions 8) through the {@link InstallationRemoval} port integrations provides
 * (`integrations/InstallationRemovalLive.ts`; provide `InstallationServiceLive` from there).
 */
import type { GrantRequest } from "@propline/identity/Grant"
import { AppAlreadyInstalled } from "@propline/identity/IdentityRefusal"
import * as Installation from "@propline/identity/Installation"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { ContextService } from "../contexts/ContextService.js"
import * as Audit from "../platform/Audit.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { ConnectorAppRepository } from "./ConnectorAppRepository.js"
import { InstallationRemoval } from "./InstallationRemoval.js"
import { InstallationRepository } from "./InstallationRepository.js"
import { traced } from "../platform/Spans.js"

const isUuid = Schema.is(Schema.UUID)

const span = (name: string) => traced(`InstallationService.${name}`)

export class InstallationService extends Effect.Service<InstallationService>()("@propline/api/identity/InstallationService", {
  effect: Effect.gen(function* () {
    const installations = yield* InstallationRepository
    const apps = yield* ConnectorAppRepository
    const contexts = yield* ContextService
    const removal = yield* InstallationRemoval

    const lockLive = (installationId: string) =>
      Effect.flatMap(
        isUuid(installationId) ? installations.lockLive(installationId) : Effect.succeed(undefined),
        (installation) =>
          installation === undefined ? Effect.fail(new RecordNotFound({ kind: "installation" })) : Effect.succeed(installation)
      )

    const treeOf = (organizationId: string) =>
      Effect.flatMap(isUuid(organizationId) ? contexts.tree(organizationId) : Effect.succeed([]), (tree) =>
        tree.length === 0 ? Effect.fail(new RecordNotFound({ kind: "organization" })) : Effect.succeed(tree)
      )

    /** Persists a transition of a live installation with its events and audit entry. */
    const apply = (
      transition: Installation.InstallationTransition,
      actor: Audit.Actor,
      action: string,
      at: Date,
      contextsChanged = false
    ) =>
      Effect.gen(function* () {
        if (transition.events.length === 0) return transition.record
        yield* installations.update(transition.record, contextsChanged)
        yield* Outbox.append(transition.events)
        yield* Audit.byActor(transition.record.organizationId, actor, {
          action,
          targetType: "installation",
          targetId: transition.record.id,
          details: { appId: transition.record.appId, status: transition.record.status, roles: [...transition.record.roles], contextIds: [...transition.record.contextIds] },
          at
        })
        return transition.record
      })

    const transition = (
      name: string,
      change: (installation: Installation.LiveInstallation, at: Date) => Installation.InstallationTransition
    ) =>
      (installationId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const installation = yield* lockLive(installationId)
            const at = yield* Sql.now
            return yield* apply(change(installation, at), actor, `identity.installation.${name}`, at)
          })
        ).pipe(span(name))

    return {
      /**
       * Installs `appId` into `organizationId` with roles (`integrations` always added) and contexts; `active` at
       * once. Refusals: `INTEGRATIONS_ROLE_NOT_GRANTABLE`, `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH` (400),
       * `INTEGRATIONS_APP_ALREADY_INSTALLED` (409, also when a concurrent install wins the race); 404 for an
       * unknown app or organization.
       */
      install: (
        input: GrantRequest & { readonly appId: string; readonly organizationId: string },
        actor: Audit.Actor
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            if (!(yield* apps.exists(input.appId))) return yield* new RecordNotFound({ kind: "connector app" })
            const tree = yield* treeOf(input.organizationId)
            const live = yield* installations.liveOf(input.appId, input.organizationId)
            const at = yield* Sql.now
            const { events, record } = yield* Installation.install(
              { live, contexts: tree },
              { ...input, installationId: randomUUID() },
              at
            )
            yield* installations.insert(
              record,
              () =>
                new AppAlreadyInstalled({
                  appId: record.appId,
                  organizationId: record.organizationId,
                  detail: "The app is already installed in this organization; resume or remove that installation instead."
                })
            )
            yield* Outbox.append(events)
            yield* Audit.byActor(record.organizationId, actor, {
              action: "identity.installation.created",
              targetType: "installation",
              targetId: record.id,
              details: { appId: record.appId, roles: [...record.roles], contextIds: [...record.contextIds] },
              at
            })
            return record
          })
        ).pipe(span("install")),

      /** Suspends an active installation: new tokens are refused (`invalid_grant`) until it is resumed. */
      suspend: transition("suspended", Installation.suspend),

      /** Resumes a suspended installation. */
      resume: transition("resumed", Installation.resume),

      /**
       * Removes an installation for good: new tokens are refused (`invalid_grant`); it answers 404 afterwards. Its
       * integration configurations are disconnected in the same transaction ({@link InstallationRemoval}; decisions 8).
       */
      remove: (installationId: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const removed = yield* transition("removed", Installation.remove)(installationId, actor)
            yield* removal.removed(removed.id, actor, removed.updatedAt)
            return removed
          })
        ),

      /**
       * Replaces the installation's roles and contexts (`integrations` kept; `INTEGRATIONS_ROLE_NOT_GRANTABLE`,
       * `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`). New tokens carry them; issued tokens keep theirs until they expire.
       */
      changeGrant: (installationId: string, grant: GrantRequest, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const installation = yield* lockLive(installationId)
            const tree = yield* treeOf(installation.organizationId)
            const at = yield* Sql.now
            const changed = yield* Installation.changeGrant(installation, grant, tree, at)
            return yield* apply(changed, actor, "identity.installation.grant_changed", at, true)
          })
        ).pipe(span("changeGrant"))
    }
  }),
  dependencies: [
    InstallationRepository.Default,
    ConnectorAppRepository.Default,
    ContextService.Default
  ]
}) {}
