/**
 * The operator's identity commands against a real database (PGlite and PostgreSQL): Applications and their secrets,
 * connector apps and their keys, installations — each refusal with its code and status, a refused command changes
 * nothing, every change is audited (and installation changes are events), and races are settled in PostgreSQL.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Exit, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { newKeyPair, newConnector, withConnectorApps, withInstallations } from "./ConnectorFixtures.js"
import { FROZEN_AT, newApplication, newOrganization, system, testDatabase, withApplications } from "./IdentityTestHost.js"

const codeOf = <A, E>(effect: Effect.Effect<A, E, Db.Db>) =>
  Effect.map(Effect.flip(effect), (error) =>
    typeof error === "object" && error !== null && "code" in error ? error.code : (error as { _tag: string })._tag
  )

const auditActions = (targetId: string) =>
  Db.query((db) =>
    db.selectFrom("auditLog").select(["action", "actorId"]).where("targetId", "=", targetId).orderBy("occurredAt").execute()
  ).pipe(Effect.orDie)

const eventTypes = (installationId: string) =>
  Db.query((db) =>
    db
      .selectFrom("events")
      .select("type")
      .where(({ eb, ref }) => eb(ref("payload", "->>").key("installationId" as never), "=", installationId))
      .orderBy("occurredAt")
      .execute()
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.type))
  )

const start = TestClock.setTime(FROZEN_AT.getTime())

describe.each(TestDatabase.kinds())("operator identity commands on %s", (kind) => {
  layer(testDatabase(kind), { timeout: "60 seconds" })((it) => {
    describe("Applications (spec 5.2, 5.5)", () => {
      it.effect("create refuses the integrations role and a context of another organization, and creates nothing", () =>
        Effect.gen(function* () {
          yield* start
          const mine = yield* newOrganization()
          const other = yield* newOrganization()
          const create = (roles: ReadonlyArray<string>, contextIds: ReadonlyArray<string>) =>
            withApplications((applications) =>
              applications.create({ organizationId: mine.organizationId, name: "ERP", roles, contextIds }, system)
            )
          expect(yield* codeOf(create(["integrations"], [mine.contextId]))).toBe("INTEGRATIONS_ROLE_NOT_GRANTABLE")
          expect(yield* codeOf(create(["billing"], [other.contextId]))).toBe("INTEGRATIONS_CONTEXT_LEVEL_MISMATCH")
          expect(yield* codeOf(create(["billing"], []))).toBe("INTEGRATIONS_CONTEXT_LEVEL_MISMATCH")
          const unknownOrganization = withApplications((applications) =>
            applications.create({ organizationId: randomUUID(), name: "ERP", roles: [], contextIds: [mine.contextId] }, system)
          )
          expect(yield* codeOf(unknownOrganization)).toBe("RecordNotFound")
          const count = yield* Db.query((db) =>
            db.selectFrom("applications").select("id").where("organizationId", "=", mine.organizationId).execute()
          ).pipe(Effect.orDie)
          expect(count).toHaveLength(0)
        })
      )

      it.effect("secrets: shown once, 2 at most, revoke one; unknown or revoked is APPLICATION_SECRET_NOT_FOUND; audited", () =>
        Effect.gen(function* () {
          yield* start
          const app = yield* newApplication()
          const second = yield* withApplications((applications) => applications.issueSecret(app.applicationId, system))
          expect(second.secret).toMatch(/^service_sk_[0-9A-Za-z]{43}$/)
          const stored = yield* Db.query((db) =>
            db.selectFrom("applicationSecrets").selectAll().where("applicationId", "=", app.applicationId).execute()
          ).pipe(Effect.orDie)
          expect(stored.map((row) => row.secretDigest)).not.toContain(second.secret)
          expect(JSON.stringify(stored)).not.toContain(second.secret.slice(11))
          expect(yield* codeOf(withApplications((applications) => applications.issueSecret(app.applicationId, system)))).toBe(
            "APPLICATION_SECRET_LIMIT_REACHED"
          )
          yield* withApplications((applications) => applications.revokeSecret(app.applicationId, app.secretId, system))
          for (const secretId of [app.secretId, randomUUID(), "not-a-uuid"]) {
            expect(
              yield* codeOf(withApplications((applications) => applications.revokeSecret(app.applicationId, secretId, system)))
            ).toBe("APPLICATION_SECRET_NOT_FOUND")
          }
          // Another Application's secret is not this one's.
          const other = yield* newApplication()
          expect(
            yield* codeOf(withApplications((applications) => applications.revokeSecret(app.applicationId, other.secretId, system)))
          ).toBe("APPLICATION_SECRET_NOT_FOUND")
          expect((yield* auditActions(app.secretId)).map((row) => row.action)).toEqual([
            "identity.application.secret_issued",
            "identity.application.secret_revoked"
          ])
        })
      )

      it.effect("three concurrent secret issues on an Application with one: exactly one succeeds", () =>
        Effect.gen(function* () {
          yield* start
          const app = yield* newApplication()
          const results = yield* Effect.all(
            Array.from({ length: 3 }, () =>
              Effect.exit(withApplications((applications) => applications.issueSecret(app.applicationId, system)))
            ),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Exit.isSuccess)).toHaveLength(1)
        })
      )

      it.effect("disable, enable and change the grant are audited; repeating a status change writes nothing", () =>
        Effect.gen(function* () {
          yield* start
          const app = yield* newApplication()
          yield* withApplications((applications) => applications.disable(app.applicationId, system))
          yield* withApplications((applications) => applications.disable(app.applicationId, system))
          yield* withApplications((applications) => applications.enable(app.applicationId, system))
          const changed = yield* withApplications((applications) =>
            applications.changeGrant(app.applicationId, { roles: ["booking"], contextIds: [app.contextId] }, system)
          )
          expect([changed.status, changed.roles, changed.contextIds]).toEqual(["active", ["booking"], [app.contextId]])
          expect((yield* auditActions(app.applicationId)).map((row) => row.action)).toEqual([
            "identity.application.created",
            "identity.application.disabled",
            "identity.application.enabled",
            "identity.application.grant_changed"
          ])
          expect(yield* codeOf(withApplications((applications) => applications.disable(randomUUID(), system)))).toBe(
            "RecordNotFound"
          )
        })
      )
    })

    describe("connector apps (decisions 2)", () => {
      it.effect("register, add a key, retire a key; each refusal with its rule; audited", () =>
        Effect.gen(function* () {
          yield* start
          const key = yield* newKeyPair("k1")
          const appId = `acme-${randomUUID().slice(0, 8)}`
          const registration = { appId, name: "Acme ERP", setupUrl: "https://acme.example/setup", keys: [key.publicJwk] }
          const app = yield* withConnectorApps((apps) => apps.register(registration, system))
          expect(app.keys.map((k) => [k.kid, k.status])).toEqual([["k1", "active"]])
          expect(yield* codeOf(withConnectorApps((apps) => apps.register(registration, system)))).toBe(
            "INTEGRATIONS_APP_ALREADY_EXISTS"
          )
          expect(
            yield* codeOf(withConnectorApps((apps) => apps.register({ ...registration, appId: `${appId}-2`, keys: [] }, system)))
          ).toBe("INTEGRATIONS_APP_INVALID")
          // A point that is not on the curve passes the shape rules, and is refused when imported.
          const offCurve = { ...key.publicJwk, kid: "k-off", y: key.publicJwk.x }
          expect(yield* codeOf(withConnectorApps((apps) => apps.addKey(appId, offCurve, system)))).toBe(
            "INTEGRATIONS_APP_INVALID"
          )
          expect(yield* codeOf(withConnectorApps((apps) => apps.retireKey(appId, "k1", system)))).toBe(
            "INTEGRATIONS_APP_INVALID"
          )
          const successor = yield* newKeyPair("k2")
          yield* withConnectorApps((apps) => apps.addKey(appId, successor.publicJwk, system))
          const retired = yield* withConnectorApps((apps) => apps.retireKey(appId, "k1", system))
          expect(retired.keys.map((k) => [k.kid, k.status])).toEqual([["k1", "retired"], ["k2", "active"]])
          expect(yield* codeOf(withConnectorApps((apps) => apps.addKey(appId, key.publicJwk, system)))).toBe(
            "INTEGRATIONS_APP_INVALID"
          )
          expect(yield* codeOf(withConnectorApps((apps) => apps.addKey("no-such-app", key.publicJwk, system)))).toBe(
            "RecordNotFound"
          )
          expect((yield* auditActions(appId)).map((row) => row.action)).toEqual([
            "identity.connector_app.registered",
            "identity.connector_app.key_added",
            "identity.connector_app.key_retired"
          ])
        })
      )

      it.effect("two concurrent registrations of one app id: exactly one succeeds, the other is INTEGRATIONS_APP_ALREADY_EXISTS", () =>
        Effect.gen(function* () {
          yield* start
          const key = yield* newKeyPair()
          const registration = {
            appId: `race-${randomUUID().slice(0, 8)}`,
            name: "Race",
            setupUrl: "https://race.example/setup",
            keys: [key.publicJwk]
          }
          const results = yield* Effect.all(
            Array.from({ length: 2 }, () => Effect.either(withConnectorApps((apps) => apps.register(registration, system)))),
            { concurrency: "unbounded" }
          )
          const refusals = results.flatMap((result) => (result._tag === "Left" ? [result.left] : []))
          expect(results.length - refusals.length).toBe(1)
          expect(refusals.map((refusal) => refusal.code)).toEqual(["INTEGRATIONS_APP_ALREADY_EXISTS"])
        })
      )
    })

    describe("installations (decisions 2; spec 5.5)", () => {
      it.effect("install, suspend, resume, change the grant, remove: events and audit entries; a removed one is gone", () =>
        Effect.gen(function* () {
          yield* start
          const connector = yield* newConnector({ roles: ["billing"] })
          const id = connector.installationId
          yield* withInstallations((installations) => installations.suspend(id, system))
          yield* withInstallations((installations) => installations.suspend(id, system))
          yield* withInstallations((installations) => installations.resume(id, system))
          const changed = yield* withInstallations((installations) =>
            installations.changeGrant(id, { roles: ["signing"], contextIds: [connector.contextId] }, system)
          )
          expect(changed.roles).toEqual(["signing", "integrations"])
          yield* withInstallations((installations) => installations.remove(id, system))
          expect(yield* eventTypes(id)).toEqual([
            "integrations.installation.created",
            "integrations.installation.suspended",
            "integrations.installation.resumed",
            "integrations.installation.grant_changed",
            "integrations.installation.removed"
          ])
          expect((yield* auditActions(id)).map((row) => row.action)).toEqual([
            "identity.installation.created",
            "identity.installation.suspended",
            "identity.installation.resumed",
            "identity.installation.grant_changed",
            "identity.installation.removed"
          ])
          for (const command of ["suspend", "resume", "remove"] as const) {
            expect(yield* codeOf(withInstallations((installations) => installations[command](id, system)))).toBe(
              "RecordNotFound"
            )
          }
          // Removed, the app may be installed into the organization again.
          const again = yield* withInstallations((installations) =>
            installations.install(
              { appId: connector.appId, organizationId: connector.organizationId, roles: [], contextIds: [connector.contextId] },
              system
            )
          )
          expect(again.id).not.toBe(id)
        })
      )

      it.effect("refusals: already installed (409), a role or context that cannot be granted, an unknown app", () =>
        Effect.gen(function* () {
          yield* start
          const connector = yield* newConnector()
          const install = (input: { appId?: string; roles?: ReadonlyArray<string>; contextIds?: ReadonlyArray<string> }) =>
            withInstallations((installations) =>
              installations.install(
                {
                  appId: input.appId ?? connector.appId,
                  organizationId: connector.organizationId,
                  roles: input.roles ?? [],
                  contextIds: input.contextIds ?? [connector.contextId]
                },
                system
              )
            )
          const refusal = yield* Effect.flip(install({}))
          expect("status" in refusal && [refusal.code, refusal.status]).toEqual(["INTEGRATIONS_APP_ALREADY_INSTALLED", 409])
          expect(yield* codeOf(install({ roles: ["admin"] }))).toBe("INTEGRATIONS_ROLE_NOT_GRANTABLE")
          expect(yield* codeOf(install({ contextIds: [randomUUID()] }))).toBe("INTEGRATIONS_CONTEXT_LEVEL_MISMATCH")
          expect(yield* codeOf(install({ appId: "no-such-app" }))).toBe("RecordNotFound")
        })
      )

      it.effect("two concurrent installs of one app into one organization: exactly one succeeds", () =>
        Effect.gen(function* () {
          yield* start
          const connector = yield* newConnector()
          const organization = yield* newOrganization()
          const results = yield* Effect.all(
            Array.from({ length: 2 }, () =>
              Effect.either(
                withInstallations((installations) =>
                  installations.install(
                    { appId: connector.appId, organizationId: organization.organizationId, roles: [], contextIds: [organization.contextId] },
                    system
                  )
                )
              )
            ),
            { concurrency: "unbounded" }
          )
          const refusals = results.flatMap((result) => (result._tag === "Left" ? [result.left] : []))
          expect(results.length - refusals.length).toBe(1)
          expect(refusals.map((refusal) => ("code" in refusal ? refusal.code : refusal._tag))).toEqual([
            "INTEGRATIONS_APP_ALREADY_INSTALLED"
          ])
        })
      )
    })
  })
})
