import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as Lifecycle from "../src/ConfigurationLifecycle.js"
import {
  CONFIGURATION_STATUSES,
  type ConfigurationStatus,
  type IntegrationConfigurationRecord
} from "../src/IntegrationConfiguration.js"
import { REFERENCE_INVALID_DETAIL } from "../src/IntegrationsRefusal.js"
import {
  aConfiguration,
  anInstallation,
  aReference,
  CONTEXTS,
  EARLIER,
  getLeft,
  getRight,
  INSTALLATION_ID,
  NOW,
  OTHER_INSTALLATION_ID,
  TREE
} from "./fixtures.js"

const ready = { externalAccount: { id: "fortnox-4711", name: "Nordhavn AB" }, declaredGates: ["verification"], settings: {} }
const noFacts = { filledContextIds: [] }

/** Every report a configuration can receive, with a command its own rules accept. */
const reports = {
  redeem: (configuration: IntegrationConfigurationRecord) =>
    Lifecycle.redeem({ reference: aReference(), configuration }, { installationId: INSTALLATION_ID }, NOW),
  ready: (configuration: IntegrationConfigurationRecord) => Lifecycle.reportReady(configuration, ready, noFacts, NOW),
  failed: (configuration: IntegrationConfigurationRecord) =>
    Lifecycle.reportFailed(configuration, { reason: "The ERP refused the API key" }, NOW),
  connect: (configuration: IntegrationConfigurationRecord) =>
    Lifecycle.connect(
      configuration,
      { installationStatus: "active", setupUrl: "https://erp.example/setup", reference: "icr_x", digest: "d".repeat(64) },
      NOW
    )
}

/** Decisions 8 as a table: the statuses each report is allowed from, and where it leads. */
const ALLOWED: { readonly [R in keyof typeof reports]: { readonly from: ReadonlyArray<ConfigurationStatus>; readonly to: ConfigurationStatus | "same" } } = {
  redeem: { from: ["pending", "connecting", "ready", "failed"], to: "connecting" },
  ready: { from: ["connecting"], to: "ready" },
  failed: { from: ["connecting"], to: "failed" },
  connect: { from: ["pending", "connecting", "ready", "failed"], to: "same" }
}

describe("the state machine (decisions 8)", () => {
  for (const [name, run] of Object.entries(reports) as Array<[keyof typeof reports, (c: IntegrationConfigurationRecord) => Either.Either<unknown, { readonly code: string }>]>) {
    describe(name, () => {
      it.each(CONFIGURATION_STATUSES)(`from %s`, (status) => {
        const result = run(aConfiguration({ status }))
        const rule = ALLOWED[name]
        if (rule.from.includes(status)) {
          const right = getRight(result) as { readonly configuration?: IntegrationConfigurationRecord }
          if (rule.to !== "same") expect(right.configuration?.status).toBe(rule.to)
        } else {
          const code = getLeft(result).code
          expect(code).toBe(
            name === "redeem" ? "INTEGRATIONS_CONNECTION_REFERENCE_INVALID" : "INTEGRATIONS_CONNECTION_NOT_SUPPORTED"
          )
        }
      })
    })
  }

  it("disconnect leads every status to disconnected, and leaves a disconnected one as it is", () => {
    for (const status of CONFIGURATION_STATUSES) {
      const { configuration, events } = Lifecycle.disconnect(aConfiguration({ status }), NOW)
      expect(configuration.status).toBe("disconnected")
      if (status === "disconnected") {
        expect(events).toEqual([])
        expect(configuration.disconnectedAt).toBeUndefined()
      } else {
        expect(configuration.disconnectedAt).toEqual(NOW)
        expect(events.map((event) => event._tag)).toEqual(["integrations.configuration.disconnected"])
      }
    }
  })
})

describe("create", () => {
  const state = { installation: anInstallation(), contexts: TREE }
  const command = { configurationId: "c1", kind: "billing" as const, operationalContextIds: [CONTEXTS.kungsholmen, CONTEXTS.sverige] }

  it("creates a pending configuration in contexts within the installation's, sorted, with its event", () => {
    const { configuration, events } = getRight(Lifecycle.create(state, command, NOW))
    expect(configuration).toStrictEqual({
      id: "c1",
      organizationId: state.installation.organizationId,
      installationId: state.installation.id,
      appId: "acme-erp",
      kind: "billing",
      status: "pending",
      operationalContextIds: [CONTEXTS.sverige, CONTEXTS.kungsholmen].sort(),
      declaredGates: [],
      createdAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([
      {
        _tag: "integrations.configuration.created",
        configurationId: "c1",
        kind: "billing",
        organizationId: state.installation.organizationId,
        installationId: state.installation.id,
        appId: "acme-erp",
        at: NOW
      }
    ])
  })

  it("refuses a removed installation and one without the kind's role (INTEGRATIONS_CONNECTION_NOT_SUPPORTED)", () => {
    const removed = getLeft(Lifecycle.create({ ...state, installation: anInstallation({ status: "removed" }) }, command, NOW))
    expect(removed).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", status: 400, reason: "installation-not-active" })
    const noRole = getLeft(
      Lifecycle.create({ ...state, installation: anInstallation({ roles: ["signing", "integrations"] }) }, command, NOW)
    )
    expect(noRole).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "role-not-granted" })
  })

  it("configures a suspended installation", () => {
    expect(Either.isRight(Lifecycle.create({ ...state, installation: anInstallation({ status: "suspended" }) }, command, NOW))).toBe(true)
  })

  it.each([
    ["no context", [], [{ path: "/operationalContextIds", message: "must name 1 to 100 operational contexts" }]],
    ["a context outside the installation's", [CONTEXTS.aker], [{ path: "/operationalContextIds/0", message: "is not within the installation's contexts" }]],
    ["the parent of a granted context", [CONTEXTS.sverige, CONTEXTS.root], [{ path: "/operationalContextIds/1", message: "is not within the installation's contexts" }]],
    ["an unknown context", ["00000000-0000-4000-8000-000000000000"], [{ path: "/operationalContextIds/0", message: "is not within the installation's contexts" }]],
    ["a context twice", [CONTEXTS.sverige, CONTEXTS.sverige], [{ path: "/operationalContextIds/1", message: "names a context twice" }]]
  ])("refuses %s with INTEGRATIONS_CONFIGURATION_INVALID and its issues", (_, ids, issues) => {
    const refusal = getLeft(Lifecycle.create(state, { ...command, operationalContextIds: ids }, NOW))
    expect(refusal).toMatchObject({ code: "INTEGRATIONS_CONFIGURATION_INVALID", status: 400 })
    expect(refusal._tag === "ConfigurationInvalid" && refusal.issues).toStrictEqual(issues)
  })

  it("refuses more than 100 contexts", () => {
    const many = Array.from({ length: 101 }, () => CONTEXTS.sverige)
    const refusal = getLeft(Lifecycle.create(state, { ...command, operationalContextIds: many }, NOW))
    expect(refusal._tag === "ConfigurationInvalid" && refusal.issues[0]?.path).toBe("/operationalContextIds")
  })
})

describe("connect", () => {
  const command = { installationStatus: "active" as const, setupUrl: "https://erp.example/setup?lang=sv", reference: "icr_abc", digest: "d".repeat(64) }

  it("issues a reference for 10 minutes and the setup address with it; the configuration does not change", () => {
    const connection = getRight(Lifecycle.connect(aConfiguration(), command, NOW))
    expect(connection.reference).toStrictEqual({
      digest: "d".repeat(64),
      configurationId: aConfiguration().id,
      installationId: INSTALLATION_ID,
      issuedAt: NOW,
      expiresAt: new Date(NOW.getTime() + 600_000)
    })
    const address = new URL(connection.setupAddress)
    expect(address.origin + address.pathname).toBe("https://erp.example/setup")
    expect(Object.fromEntries(address.searchParams)).toStrictEqual({
      lang: "sv",
      connection_reference: "icr_abc",
      installation_id: INSTALLATION_ID
    })
    expect(connection.events.map((event) => event._tag)).toEqual(["integrations.configuration.connection_requested"])
  })

  it.each([
    ["a disconnected configuration", aConfiguration({ status: "disconnected" }), command, "disconnected"],
    ["a carried-over configuration", (() => {
      const { appId: _a, installationId: _i, ...carried } = aConfiguration()
      return carried
    })(), command, "no-installation"],
    ["a suspended installation", aConfiguration(), { ...command, installationStatus: "suspended" as const }, "installation-not-active"],
    ["a removed installation", aConfiguration(), { ...command, installationStatus: "removed" as const }, "installation-not-active"],
    ["an app without a setup URL", aConfiguration(), { ...command, setupUrl: undefined }, "no-setup-url"]
  ])("refuses %s (INTEGRATIONS_CONNECTION_NOT_SUPPORTED)", (_, configuration, given, reason) => {
    expect(getLeft(Lifecycle.connect(configuration, given, NOW))).toMatchObject({
      code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED",
      status: 400,
      reason
    })
  })
})

describe("redeem", () => {
  const caller = { installationId: INSTALLATION_ID }

  it("makes the configuration connecting, clears an earlier failure, and marks the reference redeemed", () => {
    const failed = aConfiguration({ status: "failed", failureReason: "no", failedAt: EARLIER })
    const redeemed = getRight(Lifecycle.redeem({ reference: aReference(), configuration: failed }, caller, NOW))
    expect(redeemed.configuration).toStrictEqual({
      ...aConfiguration(),
      status: "connecting",
      connectedAt: NOW,
      updatedAt: NOW
    })
    expect(redeemed.reference).toStrictEqual({ ...aReference(), redeemedAt: NOW })
    expect(redeemed.events.map((event) => event._tag)).toEqual(["integrations.configuration.connecting"])
  })

  it("keeps what a ready configuration reported until it reports again", () => {
    const wasReady = aConfiguration({ status: "ready", externalAccount: { id: "a", name: "A" }, declaredGates: ["verification"], readyAt: EARLIER })
    const { configuration } = getRight(Lifecycle.redeem({ reference: aReference(), configuration: wasReady }, caller, NOW))
    expect(configuration).toMatchObject({ status: "connecting", externalAccount: { id: "a", name: "A" }, declaredGates: ["verification"] })
  })

  it.each([
    ["unknown", undefined, "unknown"],
    ["issued for another installation", { reference: aReference({ installationId: OTHER_INSTALLATION_ID }), configuration: aConfiguration({ installationId: OTHER_INSTALLATION_ID }) }, "foreign"],
    ["already redeemed", { reference: aReference({ redeemedAt: EARLIER }), configuration: aConfiguration() }, "used"],
    ["voided", { reference: aReference({ voidedAt: EARLIER }), configuration: aConfiguration() }, "void"],
    ["of a disconnected configuration", { reference: aReference(), configuration: aConfiguration({ status: "disconnected" }) }, "void"],
    ["expired at its tenth minute", { reference: aReference({ expiresAt: NOW }), configuration: aConfiguration() }, "expired"]
  ])("refuses a reference %s with one body (INTEGRATIONS_CONNECTION_REFERENCE_INVALID)", (_, found, reason) => {
    const refusal = getLeft(Lifecycle.redeem(found, caller, NOW))
    expect(refusal).toMatchObject({ code: "INTEGRATIONS_CONNECTION_REFERENCE_INVALID", status: 400, reason, detail: REFERENCE_INVALID_DETAIL })
  })

  it("works a millisecond before it expires", () => {
    const found = { reference: aReference({ expiresAt: new Date(NOW.getTime() + 1) }), configuration: aConfiguration() }
    expect(Either.isRight(Lifecycle.redeem(found, caller, NOW))).toBe(true)
  })
})

describe("ready", () => {
  const connecting = aConfiguration({ status: "connecting", connectedAt: EARLIER })

  it("records the external account, the declared gates and the settings", () => {
    const { configuration, events } = getRight(
      Lifecycle.reportReady(connecting, { ...ready, settings: { invoiceSeries: "A" } }, noFacts, NOW)
    )
    expect(configuration).toStrictEqual({
      ...connecting,
      status: "ready",
      externalAccount: { id: "fortnox-4711", name: "Nordhavn AB" },
      declaredGates: ["verification"],
      settings: { invoiceSeries: "A" },
      readyAt: NOW,
      updatedAt: NOW
    })
    expect(events.map((event) => event._tag)).toEqual(["integrations.configuration.ready"])
  })

  it("refuses a repeated report (decisions 4) and a disconnected configuration", () => {
    const again = getLeft(Lifecycle.reportReady(aConfiguration({ status: "ready" }), ready, noFacts, NOW))
    expect(again).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "not-connecting", configurationStatus: "ready" })
    const gone = getLeft(Lifecycle.reportReady(aConfiguration({ status: "disconnected" }), ready, noFacts, NOW))
    expect(gone).toMatchObject({ reason: "disconnected" })
  })

  it.each([
    ["billing", ["verification", "verification"], {}, [{ path: "/declaredGates/1", message: "declares a gate twice" }]],
    ["billing", ["approval"], {}, [{ path: "/declaredGates/0", message: "is not a gate of a billing configuration (verification)" }]],
    ["signing", ["verification"], { signatureMethods: ["bankid-se"] }, [{ path: "/declaredGates/0", message: "is not a gate: a signing configuration declares none" }]],
    ["billing", [], { invoiceSeries: "" }, [{ path: "/settings/invoiceSeries", message: "must be 1 to 20 characters long" }]],
    ["billing", [], { colour: "blue" }, [{ path: "/settings/colour", message: "is unexpected, expected: \"invoiceSeries\" | \"bookkeepingCurrency\"" }]]
  ] as const)("refuses a %s report with gates %j and settings %j (INTEGRATIONS_CONFIGURATION_INVALID)", (kind, gates, settings, issues) => {
    const refusal = getLeft(
      Lifecycle.reportReady(aConfiguration({ kind, status: "connecting" }), { ...ready, declaredGates: gates, settings }, noFacts, NOW)
    )
    expect(refusal).toMatchObject({ code: "INTEGRATIONS_CONFIGURATION_INVALID", status: 400 })
    expect(refusal._tag === "ConfigurationInvalid" && refusal.issues).toStrictEqual(issues)
  })

  it("lists every issue of gates and settings together", () => {
    const refusal = getLeft(
      Lifecycle.reportReady(
        aConfiguration({ kind: "booking", status: "connecting" }),
        { ...ready, declaredGates: ["x"], settings: { brandName: " " } },
        noFacts,
        NOW
      )
    )
    expect(refusal._tag === "ConfigurationInvalid" && refusal.issues.map((issue) => issue.path)).toStrictEqual([
      "/declaredGates/0",
      "/settings/websiteUrl",
      "/settings/brandName"
    ])
  })

  it("refuses when another configuration of the kind is ready in one of its contexts (409)", () => {
    const refusal = getLeft(Lifecycle.reportReady(connecting, ready, { filledContextIds: [CONTEXTS.sverige] }, NOW))
    expect(refusal).toMatchObject({
      code: "INTEGRATIONS_POINT_ALREADY_FILLED",
      status: 409,
      kind: "billing",
      operationalContextId: CONTEXTS.sverige
    })
  })

  it("judges the status before the content, and the content before the point", () => {
    const bad = { ...ready, declaredGates: ["nope"] }
    expect(getLeft(Lifecycle.reportReady(aConfiguration({ status: "failed" }), bad, { filledContextIds: [CONTEXTS.sverige] }, NOW)).code).toBe(
      "INTEGRATIONS_CONNECTION_NOT_SUPPORTED"
    )
    expect(getLeft(Lifecycle.reportReady(connecting, bad, { filledContextIds: [CONTEXTS.sverige] }, NOW)).code).toBe(
      "INTEGRATIONS_CONFIGURATION_INVALID"
    )
  })
})

describe("failed", () => {
  it("records the reason", () => {
    const connecting = aConfiguration({ status: "connecting" })
    const { configuration, events } = getRight(Lifecycle.reportFailed(connecting, { reason: "API key refused" }, NOW))
    expect(configuration).toStrictEqual({ ...connecting, status: "failed", failureReason: "API key refused", failedAt: NOW, updatedAt: NOW })
    expect(events.map((event) => event._tag)).toEqual(["integrations.configuration.failed"])
  })

  it("refuses a repeated report", () => {
    const again = getLeft(Lifecycle.reportFailed(aConfiguration({ status: "failed" }), { reason: "x" }, NOW))
    expect(again).toMatchObject({ code: "INTEGRATIONS_CONNECTION_NOT_SUPPORTED", reason: "not-connecting", configurationStatus: "failed" })
  })
})
