/**
 * Integrations over HTTP, black box, on PGlite and on PostgreSQL: spec 4.2 "Integrations", 7.3 and decisions 2, 4
 * and 8 — the operator creates a configuration, presses Connect and disconnects; the installed connector lists its
 * configurations, redeems the connection reference and reports ready or failed. Every transition and every
 * `INTEGRATIONS_*` code, roles (403 for an Application), tenancy (404 for another installation's configuration),
 * validation (400), the one body of a refused reference, and races (20 concurrent redeems → one; two `ready` on one
 * point → one). Billing reads the organization's ready billing configuration.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Exit } from "effect"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { InstallationService } from "../../src/identity/InstallationService.js"
import { InstallationServiceLive } from "../../src/integrations/InstallationRemovalLive.js"
import * as Fixtures from "../support/Fixtures.js"
import {
  configuration,
  connect,
  disconnect,
  installationToken,
  installConnector,
  type InstalledConnector,
  operatorOf,
  withOperator
} from "../support/IntegrationFixtures.js"
import { type Answer, call, start, type TestApp, token } from "../support/TestApp.js"

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
const ACCOUNT = { id: "fortnox-4711", name: "Nordhavn Workspaces AB" }

describe.each(TestDatabase.kinds())("integrations over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  /** App A in `org`, every role over the root. */
  let connector: InstalledConnector
  let connectorToken: string
  /** Another app in `org`. */
  let rival: InstalledConnector
  let rivalToken: string
  /** App A installed in `other`. */
  let elsewhere: InstalledConnector
  let elsewhereToken: string
  let applicationToken: string

  const url = (path: string) => `${app.apiUrl}${path}`
  const list = (query = "", tokenValue = connectorToken) => call(url(`/v1/integrations/configurations${query}`), { token: tokenValue })
  const redeem = (reference: unknown, tokenValue = connectorToken) =>
    call(url("/v1/integrations/connection-references/redeem"), { token: tokenValue, body: { connectionReference: reference } })
  const report = (configurationId: string, outcome: "ready" | "failed", body: unknown, tokenValue = connectorToken) =>
    call(url(`/v1/integrations/configurations/${configurationId}/${outcome}`), { token: tokenValue, body })
  const ready = (configurationId: string, body: Record<string, unknown> = {}, tokenValue = connectorToken) =>
    report(configurationId, "ready", { externalAccount: ACCOUNT, ...body }, tokenValue)

  const operatorRun = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => app.run(Effect.exit(effect))
  const refusalOf = (exit: Exit.Exit<unknown, unknown>) => {
    if (!Exit.isFailure(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${String(exit)}`)
    return exit.cause.error as { readonly _tag: string; readonly code?: string; readonly status?: number; readonly issues?: unknown }
  }
  const statusOf = (configurationId: string) =>
    app.run(
      Db.query((db) =>
        db.selectFrom("integrationConfigurations").select(["status", "failureReason"]).where("id", "=", configurationId).executeTakeFirstOrThrow()
      ).pipe(Effect.orDie)
    )
  const counts = () =>
    app.run(
      Db.query(async (db) => {
        const count = async (table: "events" | "auditLog" | "integrationConfigurations") =>
          Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n)
        return { events: await count("events"), auditLog: await count("auditLog"), configurations: await count("integrationConfigurations") }
      }).pipe(Effect.orDie)
    )
  const eventsOf = (configurationId: string) =>
    app.run(
      Db.query((db) =>
        db
          .selectFrom("events")
          .select("type")
          .where(({ eb, ref }) => eb(eb.cast(ref("payload"), "text"), "like", `%${configurationId}%`))
          .orderBy("occurredAt")
          .execute()
      ).pipe(
        Effect.map((rows) => rows.map((row) => row.type)),
        Effect.orDie
      )
    )

  /** A fresh configuration of `kind` for `owner`, with a connection reference issued for it. */
  const connected = async (options: { readonly kind?: "billing" | "signing" | "booking"; readonly contextIds?: ReadonlyArray<string>; readonly owner?: InstalledConnector } = {}) => {
    const owner = options.owner ?? connector
    const created = await app.run(configuration(owner, options.kind ?? "signing", options.contextIds ?? [org.propertyId]))
    const connection = await app.run(connect(owner, created.id))
    return { id: created.id, reference: connection.connectionReference, setupAddress: connection.setupAddress }
  }
  /** A fresh configuration, redeemed: `connecting`. */
  const connecting = async (options: Parameters<typeof connected>[0] = {}) => {
    const made = await connected(options)
    const answer = await redeem(made.reference, options.owner === rival ? rivalToken : connectorToken)
    expect(answer.status).toBe(201)
    return made.id
  }
  const signingSettings = { signatureMethods: ["bankid-se"] }

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn", integration: "none" }))
    other = await app.run(Fixtures.organization({ name: "Fjord", integration: "none" }))
    connector = await app.run(installConnector(org))
    rival = await app.run(installConnector(org, { roles: ["billing", "signing"] }))
    elsewhere = await app.run(installConnector(other, { app: connector }))
    connectorToken = await installationToken(app.authUrl, connector)
    rivalToken = await installationToken(app.authUrl, rival)
    elsewhereToken = await installationToken(app.authUrl, elsewhere)
    const application = await app.run(Fixtures.application(org, { roles: ["billing", "signing", "booking"] }))
    applicationToken = await token(app.authUrl, application.clientId, application.secret)
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  describe("authentication and roles (spec 5, decisions 2)", () => {
    it("401 without a token", async () => {
      expect((await list("", "")).status).toBe(401)
      expect((await call(url("/v1/integrations/connection-references/redeem"), { body: {} })).status).toBe(401)
    })

    it("403 for an Application's token on every operation, before the input is read", async () => {
      const made = await connected()
      const answers = await Promise.all([
        list("", applicationToken),
        list("?limit=0", applicationToken),
        redeem(made.reference, applicationToken),
        ready(made.id, {}, applicationToken),
        report(made.id, "failed", { reason: "x" }, applicationToken),
        report("not-a-uuid", "ready", "{", applicationToken)
      ])
      for (const answer of answers) {
        expect(answer.status).toBe(403)
        expect(answer.body).toMatchObject({ type: "about:blank", title: "Forbidden", status: 403 })
      }
      expect((await statusOf(made.id)).status).toBe("pending")
      expect((await redeem(made.reference)).status).toBe(201)
    })
  })

  describe("the operator: create, Connect, disconnect (decisions 8)", () => {
    it("creates a pending configuration in contexts within the installation's, with its event and audit entry", async () => {
      const before = await counts()
      const created = await app.run(configuration(connector, "booking", [org.propertyId, org.regionId]))
      expect(created).toMatchObject({
        organizationId: org.organizationId,
        installationId: connector.installationId,
        appId: connector.appId,
        kind: "booking",
        status: "pending",
        operationalContextIds: [org.propertyId, org.regionId].sort(),
        declaredGates: []
      })
      const after = await counts()
      expect(after).toEqual({ events: before.events + 1, auditLog: before.auditLog + 1, configurations: before.configurations + 1 })
      expect(await eventsOf(created.id)).toEqual(["integrations.configuration.created"])
    })

    it("refuses contexts outside the installation's with INTEGRATIONS_CONFIGURATION_INVALID and its issues", async () => {
      const regional = await app.run(installConnector(org, { contextIds: [org.regionId] }))
      const before = await counts()
      const exit = await operatorRun(
        withOperator((service) =>
          service.create(operatorOf(org), {
            installationId: regional.installationId,
            kind: "signing",
            operationalContextIds: [org.propertyId, org.otherPropertyId, org.rootId]
          })
        )
      )
      expect(refusalOf(exit)).toMatchObject({
        code: "INTEGRATIONS_CONFIGURATION_INVALID",
        status: 400,
        issues: [
          { path: "/operationalContextIds/1", message: "is not within the installation's contexts" },
          { path: "/operationalContextIds/2", message: "is not within the installation's contexts" }
        ]
      })
      expect(await counts()).toEqual(before)
    })

    it("refuses a kind whose role the installation lacks with INTEGRATIONS_CONNECTION_NOT_SUPPORTED", async () => {
      const exit = await operatorRun(
        withOperator((service) =>
          service.create(operatorOf(org), { installationId: rival.installationId, kind: "booking", operationalContextIds: [org.rootId] })
        )
      )
      expect(refusalOf(exit)).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "role-not-granted" })
    })

    it("answers RecordNotFound for another organization's installation and configuration", async () => {
      const created = await app.run(configuration(elsewhere, "signing", [other.rootId]))
      for (const exit of [
        await operatorRun(
          withOperator((service) =>
            service.create(operatorOf(org), { installationId: elsewhere.installationId, kind: "signing", operationalContextIds: [org.rootId] })
          )
        ),
        await operatorRun(withOperator((service) => service.connect(operatorOf(org), created.id))),
        await operatorRun(withOperator((service) => service.disconnect(operatorOf(org), created.id))),
        await operatorRun(withOperator((service) => service.connect(operatorOf(org), "nope")))
      ]) {
        expect(refusalOf(exit)._tag).toBe("RecordNotFound")
      }
    })

    it("Connect issues a reference (stored as its SHA-256 digest only) and the setup address with it", async () => {
      const created = await app.run(configuration(connector, "signing", [org.propertyId]))
      const connection = await app.run(connect(connector, created.id))
      expect(connection.connectionReference).toMatch(/^icr_[A-Za-z0-9_-]{43}$/)
      const address = new URL(connection.setupAddress)
      expect(`${address.origin}${address.pathname}`).toBe("https://connector.example/setup")
      expect(Object.fromEntries(address.searchParams)).toEqual({
        via: "test",
        connection_reference: connection.connectionReference,
        installation_id: connector.installationId
      })
      expect(connection.expiresAt.getTime() - Date.now()).toBeGreaterThan(590_000)
      expect(connection.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(600_000)
      const stored = await app.run(
        Db.query((db) => db.selectFrom("integrationConnectionReferences").selectAll().where("configurationId", "=", created.id).execute()).pipe(Effect.orDie)
      )
      expect(stored).toHaveLength(1)
      expect(stored[0]?.digest).toBe(createHash("sha256").update(connection.connectionReference).digest("hex"))
      expect(JSON.stringify(stored)).not.toContain(connection.connectionReference.slice(4))
      expect(await eventsOf(created.id)).toEqual(["integrations.configuration.created", "integrations.configuration.connection_requested"])
    })

    it("refuses Connect for a suspended installation and a disconnected configuration (INTEGRATIONS_CONNECTION_NOT_SUPPORTED)", async () => {
      const paused = await app.run(installConnector(org, { roles: ["signing"] }))
      const created = await app.run(configuration(paused, "signing", [org.propertyId]))
      await app.run(
        Effect.flatMap(InstallationService, (service) => service.suspend(paused.installationId, { type: "operator", id: "op" })).pipe(
          Effect.provide(InstallationServiceLive),
          Effect.orDie
        )
      )
      const suspended = await operatorRun(withOperator((service) => service.connect(operatorOf(org), created.id)))
      expect(refusalOf(suspended)).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "installation-not-active" })
      const gone = await app.run(configuration(connector, "signing", [org.propertyId]))
      expect((await app.run(disconnect(connector, gone.id))).status).toBe("disconnected")
      const disconnected = await operatorRun(withOperator((service) => service.connect(operatorOf(org), gone.id)))
      expect(refusalOf(disconnected)).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "disconnected" })
    })

    it("disconnect is final, voids the references, and a second disconnect changes nothing", async () => {
      const made = await connected()
      const disconnected = await app.run(disconnect(connector, made.id))
      expect(disconnected).toMatchObject({ status: "disconnected" })
      const before = await counts()
      expect((await app.run(disconnect(connector, made.id))).status).toBe("disconnected")
      expect(await counts()).toEqual(before)
      const refused = await redeem(made.reference)
      expect(refused.body).toMatchObject({ status: 400, code: "INTEGRATIONS_CONNECTION_REFERENCE_INVALID" })
      expect(await eventsOf(made.id)).toEqual([
        "integrations.configuration.created",
        "integrations.configuration.connection_requested",
        "integrations.configuration.disconnected"
      ])
    })

    it("removing an installation disconnects its configurations", async () => {
      const leaving = await app.run(installConnector(org, { roles: ["booking"] }))
      const created = await app.run(configuration(leaving, "booking", [org.regionId]))
      await app.run(
        Effect.flatMap(InstallationService, (service) => service.remove(leaving.installationId, { type: "operator", id: "op" })).pipe(
          Effect.provide(InstallationServiceLive),
          Effect.orDie
        )
      )
      expect((await statusOf(created.id)).status).toBe("disconnected")
    })
  })

  describe("POST /v1/integrations/connection-references/redeem", () => {
    it("makes the configuration connecting and answers it (201)", async () => {
      const made = await connected({ kind: "booking", contextIds: [org.rootId] })
      const answer = await redeem(made.reference)
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({
        id: made.id,
        organizationId: org.organizationId,
        installationId: connector.installationId,
        appId: connector.appId,
        kind: "booking",
        status: "connecting",
        operationalContextIds: [org.rootId],
        declaredGates: []
      })
      expect(Date.parse(answer.body.connectedAt)).toBeGreaterThan(Date.parse(answer.body.createdAt) - 1)
      expect(await eventsOf(made.id)).toContain("integrations.configuration.connecting")
    })

    it("answers one INTEGRATIONS_CONNECTION_REFERENCE_INVALID, byte for byte, for unknown, malformed, expired, used, voided and foreign references, changing nothing", async () => {
      const used = await connected()
      expect((await redeem(used.reference)).status).toBe(201)
      const expired = await connected()
      await app.run(
        Db.query((db) =>
          db.updateTable("integrationConnectionReferences").set({ expiresAt: new Date(Date.now() - 1000) }).where("configurationId", "=", expired.id).execute()
        ).pipe(Effect.orDie)
      )
      const voided = await connected()
      const newer = await app.run(connect(connector, voided.id))
      expect((await redeem(newer.connectionReference)).status).toBe(201)
      const foreign = await connected()
      const rivals = await connected({ owner: rival })
      const before = await counts()
      const answers: Array<[string, Answer]> = [
        ["unknown", await redeem(`icr_${"A".repeat(43)}`)],
        ["malformed", await redeem("not-a-reference")],
        ["expired", await redeem(expired.reference)],
        ["used", await redeem(used.reference)],
        ["voided by a newer one's redeem", await redeem(voided.reference)],
        ["another app's token", await redeem(foreign.reference, rivalToken)],
        ["the same app's token of another installation", await redeem(foreign.reference, elsewhereToken)],
        ["another app's reference", await redeem(rivals.reference)]
      ]
      const texts = new Set<string>()
      for (const [what, answer] of answers) {
        expect(answer.status, what).toBe(400)
        expect(answer.headers.get("content-type"), what).toContain("application/problem+json")
        expect(answer.body, what).toEqual({
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          code: "INTEGRATIONS_CONNECTION_REFERENCE_INVALID",
          detail: expect.any(String)
        })
        texts.add(JSON.stringify(answer.body))
      }
      expect(texts.size).toBe(1)
      expect(await counts()).toEqual(before)
      for (const id of [expired.id, foreign.id, rivals.id]) expect((await statusOf(id)).status).toBe("pending")
      // A refused foreign attempt did not use the reference up.
      expect((await redeem(foreign.reference)).status).toBe(201)
      expect((await redeem(rivals.reference, rivalToken)).status).toBe(201)
    })

    it("lets exactly one of 20 concurrent redeems of one reference succeed", async () => {
      const made = await connected()
      const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(made.reference)))
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1)
      const refused = answers.filter((answer) => answer.status !== 201)
      expect(refused).toHaveLength(19)
      for (const answer of refused) expect(answer.body.code).toBe("INTEGRATIONS_CONNECTION_REFERENCE_INVALID")
      expect((await eventsOf(made.id)).filter((type) => type === "integrations.configuration.connecting")).toHaveLength(1)
    })

    it("400 VALIDATION_FAILED for a body without a reference", async () => {
      const answer = await call(url("/v1/integrations/connection-references/redeem"), { token: connectorToken, body: {} })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain("/connectionReference")
    })
  })

  describe("GET /v1/integrations/configurations", () => {
    it("lists the installation's own configurations, oldest first, in pages; never another installation's", async () => {
      const own = await app.run(configuration(connector, "signing", [org.regionId]))
      const rivals = await app.run(configuration(rival, "signing", [org.regionId]))
      const seen: Array<{ id: string; installationId: string; createdAt: string }> = []
      let cursor: string | null = null
      do {
        const page: Answer = await list(`?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
        expect(page.status).toBe(200)
        expect(page.body.items.length).toBeLessThanOrEqual(2)
        seen.push(...page.body.items)
        cursor = page.body.nextCursor
      } while (cursor !== null)
      expect(seen.map((item) => item.id)).toContain(own.id)
      expect(seen.map((item) => item.id)).not.toContain(rivals.id)
      expect(new Set(seen.map((item) => item.installationId))).toEqual(new Set([connector.installationId]))
      expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length)
      const times = seen.map((item) => Date.parse(item.createdAt))
      expect([...times].sort((a, b) => a - b)).toEqual(times)
      const rivalsList = await list("?limit=100", rivalToken)
      expect(rivalsList.body.items.map((item: { id: string }) => item.id)).toContain(rivals.id)
      expect(rivalsList.body.items.map((item: { id: string }) => item.id)).not.toContain(own.id)
      expect((await list("?limit=100", elsewhereToken)).body.items.map((item: { installationId: string }) => item.installationId)).not.toContain(
        connector.installationId
      )
    })

    it("400 VALIDATION_FAILED for a bad limit or cursor", async () => {
      for (const query of ["?limit=0", "?limit=101", "?cursor=nope"]) {
        const answer = await list(query)
        expect(answer.status, query).toBe(400)
        expect(answer.body.code, query).toBe("VALIDATION_FAILED")
      }
    })
  })

  describe("POST /v1/integrations/configurations/{configurationId}/ready", () => {
    it("connecting → ready with the external account, gates and settings (201)", async () => {
      const id = await connecting({ kind: "signing", contextIds: [org.otherPropertyId] })
      const answer = await ready(id, { settings: { signatureMethods: ["bankid-se", "email-link"], documentExpiryDays: 30 } })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({
        id,
        status: "ready",
        externalAccount: ACCOUNT,
        declaredGates: [],
        settings: { signatureMethods: ["bankid-se", "email-link"], documentExpiryDays: 30 }
      })
      expect(typeof answer.body.readyAt).toBe("string")
      expect((await list("?limit=100")).body.items.find((item: { id: string }) => item.id === id)).toEqual(answer.body)
      expect(await eventsOf(id)).toContain("integrations.configuration.ready")
      await app.run(disconnect(connector, id))
    })

    it("refuses unknown members, naming each, and leaves the configuration connecting (issue 19)", async () => {
      const id = await connecting({ kind: "signing", contextIds: [org.otherPropertyId] })
      const answer = await report(id, "ready", { externalAccount: { ...ACCOUNT, plan: "pro" }, settings: signingSettings, readyAt: "now" })
      expect([answer.status, answer.body.code]).toEqual([400, "VALIDATION_FAILED"])
      expect(answer.body.issues).toEqual([
        { path: "/readyAt", message: "is not a member of this request; its members are: externalAccount, declaredGates, settings" },
        { path: "/externalAccount/plan", message: "is not a member of this request; its members are: id, name" }
      ])
      expect((await statusOf(id)).status).toBe("connecting")
      // A list of 1,000 gates is named by its bound, never echoed.
      const gates = await ready(id, { declaredGates: Array.from({ length: 1000 }, (_, index) => `gate-${index}`) })
      expect(gates.body.issues).toEqual([{ path: "/declaredGates", message: "must have at most 20 items" }])
      expect((await ready(id, { settings: signingSettings })).status).toBe(201)
      await app.run(disconnect(connector, id))
    })

    it("refuses a repeated report and one on a configuration not connecting (400 INTEGRATIONS_CONNECTION_NOT_SUPPORTED)", async () => {
      const id = await connecting({ kind: "booking", contextIds: [org.otherPropertyId] })
      const settings = { settings: { websiteUrl: "https://book.nordhavn.example" } }
      expect((await ready(id, settings)).status).toBe(201)
      const pending = await connected()
      const before = await counts()
      for (const [what, answer] of [
        ["ready again", await ready(id, settings)],
        ["failed after ready", await report(id, "failed", { reason: "late" })],
        ["ready before a redeem", await ready(pending.id, { settings: signingSettings })]
      ] as const) {
        expect(answer.status, what).toBe(400)
        expect(answer.body.code, what).toBe("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
      }
      expect(await counts()).toEqual(before)
      await app.run(disconnect(connector, id))
      const gone = await ready(id, settings)
      expect(gone.body).toMatchObject({ status: 400, code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED" })
    })

    it.each([
      ["signing settings without signatureMethods", "signing", {}, ["/settings/signatureMethods"]],
      ["an unknown setting", "signing", { settings: { signatureMethods: ["mitid"], colour: "blue" } }, ["/settings/colour"]],
      ["a gate signing does not have", "signing", { declaredGates: ["verification"], settings: { signatureMethods: ["mitid"] } }, ["/declaredGates/0"]],
      ["a billing gate declared twice", "billing", { declaredGates: ["verification", "verification"] }, ["/declaredGates/1"]],
      ["an http website", "booking", { settings: { websiteUrl: "http://book.example" } }, ["/settings/websiteUrl"]],
      ["a website with U+0000 (jsonb can't store it)", "booking", { settings: { websiteUrl: "https://book.example/\u0000" } }, ["/settings/websiteUrl"]],
      ["a setting named with U+0000", "billing", { settings: { "\u0000": "x" } }, ["/settings/\u0000"]]
    ] as const)("refuses %s with 400 INTEGRATIONS_CONFIGURATION_INVALID and its issues, changing nothing", async (_, kind, body, paths) => {
      const id = await connecting({ kind, contextIds: [org.otherPropertyId] })
      const before = await counts()
      const answer = await ready(id, body)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400, code: "INTEGRATIONS_CONFIGURATION_INVALID" })
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toEqual(paths)
      for (const issue of answer.body.issues) expect(typeof issue.message).toBe("string")
      expect(await counts()).toEqual(before)
      expect((await statusOf(id)).status).toBe("connecting")
      await app.run(disconnect(connector, id))
    })

    it("409 INTEGRATIONS_POINT_ALREADY_FILLED when another configuration of the kind is ready in one of its contexts", async () => {
      const first = await connecting({ kind: "signing", contextIds: [org.regionId] })
      const second = await connecting({ kind: "signing", contextIds: [org.propertyId, org.regionId], owner: rival })
      expect((await ready(first, { settings: signingSettings })).status).toBe(201)
      const before = await counts()
      const refused = await ready(second, { settings: signingSettings }, rivalToken)
      expect(refused.status).toBe(409)
      expect(refused.body).toMatchObject({ title: "Conflict", status: 409, code: "INTEGRATIONS_POINT_ALREADY_FILLED" })
      expect(await counts()).toEqual(before)
      // Another kind on the same context is another point; after the operator disconnects the first, it fills.
      const booking = await connecting({ kind: "booking", contextIds: [org.regionId] })
      expect((await ready(booking, { settings: { websiteUrl: "https://book.example" } })).status).toBe(201)
      await app.run(disconnect(connector, first))
      expect((await ready(second, { settings: signingSettings }, rivalToken)).status).toBe(201)
      await app.run(disconnect(rival, second))
      await app.run(disconnect(connector, booking))
    })

    it("lets one of two concurrent ready reports on one point win; the other is 409", async () => {
      for (let round = 0; round < 3; round++) {
        const ids = await Promise.all([
          connecting({ kind: "signing", contextIds: [org.rootId] }),
          connecting({ kind: "signing", contextIds: [org.rootId], owner: rival })
        ])
        const answers = await Promise.all([
          ready(ids[0]!, { settings: signingSettings }),
          ready(ids[1]!, { settings: signingSettings }, rivalToken)
        ])
        expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
        expect(answers.find((answer) => answer.status === 409)?.body.code).toBe("INTEGRATIONS_POINT_ALREADY_FILLED")
        await app.run(disconnect(connector, ids[0]!))
        await app.run(disconnect(rival, ids[1]!))
      }
    })

    it("404 INTEGRATIONS_CONFIGURATION_NOT_FOUND for another installation's configuration and an unknown one", async () => {
      const id = await connecting()
      for (const answer of [await ready(id, { settings: signingSettings }, rivalToken), await ready(id, { settings: signingSettings }, elsewhereToken), await ready(UNKNOWN_ID)]) {
        expect(answer.status).toBe(404)
        expect(answer.body).toMatchObject({ type: "about:blank", title: "Not Found", status: 404, code: "INTEGRATIONS_CONFIGURATION_NOT_FOUND" })
      }
      expect((await statusOf(id)).status).toBe("connecting")
    })

    it.each([
      ["a configuration id that is not a UUID", "nope", { externalAccount: ACCOUNT }, "/configurationId"],
      ["no externalAccount", UNKNOWN_ID, {}, "/externalAccount"],
      ["a blank account name", UNKNOWN_ID, { externalAccount: { id: "1", name: "  " } }, "/externalAccount/name"],
      ["settings that are not an object", UNKNOWN_ID, { externalAccount: ACCOUNT, settings: [1] }, "/settings"],
      ["more than 20 gates", UNKNOWN_ID, { externalAccount: ACCOUNT, declaredGates: Array.from({ length: 21 }, () => "g") }, "/declaredGates"]
    ])("400 VALIDATION_FAILED for %s", async (_, id, body, path) => {
      const answer = await report(id, "ready", body)
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain(path)
    })
  })

  describe("POST /v1/integrations/configurations/{configurationId}/failed", () => {
    it("connecting → failed with the reason (201); a repeated report is 400; a fresh reference sets it up again", async () => {
      const id = await connecting()
      const reason = "😀".repeat(1000)
      const answer = await report(id, "failed", { reason })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ id, status: "failed", failureReason: reason })
      expect(typeof answer.body.failedAt).toBe("string")
      const again = await report(id, "failed", { reason: "again" })
      expect(again.status).toBe(400)
      expect(again.body.code).toBe("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
      const retry = await app.run(connect(connector, id))
      const redeemed = await redeem(retry.connectionReference)
      expect(redeemed.body).toMatchObject({ status: "connecting" })
      expect(redeemed.body.failureReason).toBeUndefined()
      expect((await ready(id, { settings: signingSettings })).status).toBe(201)
      expect(await eventsOf(id)).toEqual([
        "integrations.configuration.created",
        "integrations.configuration.connection_requested",
        "integrations.configuration.connecting",
        "integrations.configuration.failed",
        "integrations.configuration.connection_requested",
        "integrations.configuration.connecting",
        "integrations.configuration.ready"
      ])
      await app.run(disconnect(connector, id))
    })

    it("404 for another installation's configuration; 400 VALIDATION_FAILED for a reason over 1000 characters or blank", async () => {
      const id = await connecting()
      const foreign = await report(id, "failed", { reason: "x" }, rivalToken)
      expect(foreign.status).toBe(404)
      expect(foreign.body.code).toBe("INTEGRATIONS_CONFIGURATION_NOT_FOUND")
      for (const reason of ["x".repeat(1001), "", "   "]) {
        const answer = await report(id, "failed", { reason })
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("VALIDATION_FAILED")
      }
      expect((await statusOf(id)).status).toBe("connecting")
    })
  })

  describe("billing reads the organization's ready billing configuration (decisions 5)", () => {
    it("NOT_CONFIGURED until a billing configuration is ready, GATE_NOT_DECLARED without the gate, then served; again after disconnect", async () => {
      const shop = await app.run(Fixtures.organization({ name: "Kvarnholmen", integration: "none" }))
      const erp = await app.run(installConnector(shop, { roles: ["billing"] }))
      const erpToken = await installationToken(app.authUrl, erp)
      const billingApp = await app.run(Fixtures.application(shop, { roles: ["billing"] }))
      const billingToken = await token(app.authUrl, billingApp.clientId, billingApp.secret)
      const verification = () => call(url("/v1/billing/verification-queue"), { token: billingToken })
      const sendQueue = () => call(url("/v1/billing/send-queue"), { token: billingToken })
      expect((await sendQueue()).body.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")

      const plain = await app.run(configuration(erp, "billing", [shop.rootId]))
      const plainReference = (await app.run(connect(erp, plain.id))).connectionReference
      expect((await redeem(plainReference, erpToken)).status).toBe(201)
      expect((await sendQueue()).body.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
      expect((await ready(plain.id, { settings: { bookkeepingCurrency: "SEK" } }, erpToken)).status).toBe(201)
      expect((await sendQueue()).status).toBe(200)
      expect((await verification()).body.code).toBe("BILLING_INTEGRATION_GATE_NOT_DECLARED")

      // The connector sets itself up again, declaring the gate.
      const again = (await app.run(connect(erp, plain.id))).connectionReference
      expect((await redeem(again, erpToken)).status).toBe(201)
      expect((await sendQueue()).body.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
      expect((await ready(plain.id, { declaredGates: ["verification"] }, erpToken)).status).toBe(201)
      expect((await verification()).status).toBe(200)

      await app.run(disconnect(erp, plain.id))
      expect((await verification()).body.code).toBe("BILLING_INTEGRATION_NOT_CONFIGURED")
    })

    it("does not gate signing and booking by their configurations (the spec has no code for a missing one)", async () => {
      const signingApp = await app.run(Fixtures.application(org, { roles: ["signing", "booking"] }))
      const signingToken = await token(app.authUrl, signingApp.clientId, signingApp.secret)
      expect((await call(url("/v1/crm/signing-queue"), { token: signingToken })).status).toBe(200)
      expect((await call(url("/v1/booking/resources"), { token: signingToken })).status).toBe(200)
    })
  })
})
