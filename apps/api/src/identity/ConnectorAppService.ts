/**
 * The operator's commands on connector apps (decisions 2; spec 5.3): register an app with its ES256 public keys,
 * add a key, retire a key. Each is one transaction with an audit entry (an app belongs to no organization, so the
 * entry has none).
 *
 * Besides the shape rules of `@propline/identity/ConnectorApp`, every key is imported (jose, WebCrypto) before it is
 * stored, so a JWK whose point is not on the P-256 curve is refused as `INTEGRATIONS_APP_INVALID` too: a key the
 * token endpoint could not use is never registered.
 */
import * as ConnectorApp from "@propline/identity/ConnectorApp"
import { AppAlreadyExists, AppInvalid } from "@propline/identity/IdentityRefusal"
import { Effect } from "effect"
import { importJWK } from "jose"
import * as Audit from "../platform/Audit.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { currentRequestId } from "../platform/RequestId.js"
import * as Sql from "../platform/Sql.js"
import { ConnectorAppRepository } from "./ConnectorAppRepository.js"

const span = (name: string) => Effect.withSpan(`ConnectorAppService.${name}`, { captureStackTrace: false })

/** Fails with `AppInvalid` (`key`) unless WebCrypto accepts the key as an ES256 verification key. */
const importable = (keys: ReadonlyArray<ConnectorApp.AppKey>) =>
  Effect.forEach(
    keys,
    (key) =>
      Effect.tryPromise({
        try: () => importJWK({ ...key.publicJwk }, "ES256"),
        catch: () =>
          new AppInvalid({ rule: "key", detail: "A key is not a valid P-256 public key: its point is not on the curve." })
      }),
    { discard: true }
  )

const audit = (actor: Audit.Actor, action: string, appId: string, at: Date, details: Record<string, unknown>) =>
  Effect.flatMap(currentRequestId, (requestId) =>
    Audit.record({
      organizationId: null,
      actorType: actor.type,
      actorId: actor.id,
      action,
      targetType: "connector_app",
      targetId: appId,
      requestId,
      details,
      occurredAt: at
    })
  )

export class ConnectorAppService extends Effect.Service<ConnectorAppService>()("@propline/api/identity/ConnectorAppService", {
  effect: Effect.gen(function* () {
    const apps = yield* ConnectorAppRepository

    const lock = (appId: string) =>
      Effect.flatMap(apps.lock(appId), (app) =>
        app === undefined ? Effect.fail(new RecordNotFound({ kind: "connector app" })) : Effect.succeed(app)
      )

    const register = (command: ConnectorApp.RegisterApp, actor: Audit.Actor, publisher: string | undefined) =>
      Sql.transaction(
        Effect.gen(function* () {
          const taken = ConnectorApp.APP_ID_PATTERN.test(command.appId) ? yield* apps.exists(command.appId) : false
          const at = yield* Sql.now
          const { record } = yield* ConnectorApp.registerApp(taken, command, at)
          yield* importable(record.keys)
          yield* apps.insert(
            record,
            () => new AppAlreadyExists({ appId: record.id, detail: "A connector app with this app id is already registered." })
          )
          if (publisher !== undefined) yield* apps.addPublisher(record.id, publisher, at)
          yield* audit(actor, "identity.connector_app.registered", record.id, at, {
            name: record.name,
            setupUrl: record.setupUrl,
            kids: record.keys.map((key) => key.kid),
            ...(publisher === undefined ? {} : { publishedBy: publisher })
          })
          return record
        })
      )

    return {
      /**
       * Registers an app (`INTEGRATIONS_APP_INVALID` with its rule; `INTEGRATIONS_APP_ALREADY_EXISTS`, 409, when
       * the id is taken, also when another registration of it wins a race).
       */
      register: (command: ConnectorApp.RegisterApp, actor: Audit.Actor) => register(command, actor, undefined).pipe(span("register")),

      /**
       * Registers an app as {@link register} does, published by `organizationId` (an operator registered it in the
       * console): the app, its publisher and one audit entry (`identity.connector_app.registered`, its details
       * naming the publisher) in one transaction, so the app never exists without its publisher.
       */
      registerPublished: (command: ConnectorApp.RegisterApp, organizationId: string, actor: Audit.Actor) =>
        register(command, actor, organizationId).pipe(span("registerPublished")),

      /** Adds an active key (`INTEGRATIONS_APP_INVALID`: `key`, `kid_taken`, `no_keys`; 404 for an unknown app). */
      addKey: (appId: string, jwk: unknown, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const app = yield* lock(appId)
            const at = yield* Sql.now
            const { key, record } = yield* ConnectorApp.addKey(app, { jwk }, at)
            yield* importable([key])
            yield* apps.insertKey(record, key)
            yield* audit(actor, "identity.connector_app.key_added", record.id, at, { kid: key.kid })
            return record
          })
        ).pipe(span("addKey")),

      /**
       * Retires a key: assertions signed with it are refused from now on (`INTEGRATIONS_APP_INVALID`:
       * `kid_unknown`, `last_key`; 404 for an unknown app). Retiring a retired key changes nothing.
       */
      retireKey: (appId: string, kid: string, actor: Audit.Actor) =>
        Sql.transaction(
          Effect.gen(function* () {
            const app = yield* lock(appId)
            const at = yield* Sql.now
            const { changed, record } = yield* ConnectorApp.retireKey(app, { kid }, at)
            const key = record.keys.find((candidate) => candidate.kid === kid)
            if (changed && key !== undefined) {
              yield* apps.updateKey(record, key)
              yield* audit(actor, "identity.connector_app.key_retired", record.id, at, { kid })
            }
            return record
          })
        ).pipe(span("retireKey"))
    }
  }),
  dependencies: [ConnectorAppRepository.Default]
}) {}
