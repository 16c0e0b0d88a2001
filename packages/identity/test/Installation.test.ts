import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ContextNode } from "../src/Grant.js"
import type { InstallationRecord, LiveInstallation } from "../src/Installation.js"
import { changeGrant, install, remove, resume, suspend } from "../src/Installation.js"

const NOW = new Date("2026-11-23T08:00:00.000Z")
const LATER = new Date("2026-11-23T09:00:00.000Z")
const contexts: ReadonlyArray<ContextNode> = [
  { id: "root", parentId: null },
  { id: "se", parentId: "root" },
  { id: "no", parentId: "root" }
]
const command = {
  installationId: "inst-1",
  appId: "acme-erp",
  organizationId: "org-1",
  roles: ["billing", "signing", "booking"],
  contextIds: ["root"]
}

const installed = (): LiveInstallation =>
  Either.getOrThrow(install({ live: undefined, contexts }, command, NOW)).record as LiveInstallation

const eventTags = (transition: { readonly events: ReadonlyArray<{ readonly _tag: string }> }) =>
  transition.events.map((event) => event._tag)

describe("install", () => {
  it("creates an active installation with integrations among its roles, and its event", () => {
    const transition = Either.getOrThrow(install({ live: undefined, contexts }, command, NOW))
    expect(transition.record).toStrictEqual({
      id: "inst-1",
      appId: "acme-erp",
      organizationId: "org-1",
      status: "active",
      roles: ["billing", "signing", "booking", "integrations"],
      contextIds: ["root"],
      createdAt: NOW,
      updatedAt: NOW,
      suspendedAt: null,
      removedAt: null
    })
    expect(transition.events).toStrictEqual([
      { _tag: "integrations.installation.created", installationId: "inst-1", appId: "acme-erp", organizationId: "org-1", at: NOW }
    ])
  })

  it("refuses a second live installation of the app in the organization (INTEGRATIONS_APP_ALREADY_INSTALLED, 409)", () => {
    for (const live of [installed(), suspend(installed(), NOW).record]) {
      const result = install({ live, contexts }, { ...command, installationId: "inst-2" }, LATER)
      if (Either.isRight(result)) throw new Error("expected a refusal")
      expect([result.left.code, result.left.status]).toStrictEqual(["INTEGRATIONS_APP_ALREADY_INSTALLED", 409])
    }
  })

  it("refuses a role that cannot be granted and a context outside the organization, before the conflict", () => {
    const live = installed()
    const role = install({ live, contexts }, { ...command, roles: ["admin"] }, LATER)
    const context = install({ live, contexts }, { ...command, contextIds: ["elsewhere"] }, LATER)
    expect([role, context].map((result) => (Either.isLeft(result) ? result.left.code : "accepted"))).toStrictEqual([
      "INTEGRATIONS_ROLE_NOT_GRANTABLE",
      "INTEGRATIONS_CONTEXT_LEVEL_MISMATCH"
    ])
  })
})

describe("suspend, resume, remove (spec 5.5)", () => {
  it("suspends an active installation", () => {
    const transition = suspend(installed(), LATER)
    expect(transition.record).toMatchObject({ status: "suspended", suspendedAt: LATER, updatedAt: LATER })
    expect(eventTags(transition)).toStrictEqual(["integrations.installation.suspended"])
  })

  it("changes nothing when suspending a suspended one", () => {
    const suspended = suspend(installed(), LATER).record as LiveInstallation
    expect(suspend(suspended, new Date(LATER.getTime() + 1))).toStrictEqual({ record: suspended, events: [] })
  })

  it("resumes a suspended installation", () => {
    const suspended = suspend(installed(), NOW).record as LiveInstallation
    const transition = resume(suspended, LATER)
    expect(transition.record).toMatchObject({ status: "active", suspendedAt: null, updatedAt: LATER })
    expect(eventTags(transition)).toStrictEqual(["integrations.installation.resumed"])
  })

  it("changes nothing when resuming an active one", () => {
    const active = installed()
    expect(resume(active, LATER)).toStrictEqual({ record: active, events: [] })
  })

  it("removes an active or a suspended installation", () => {
    for (const live of [installed(), suspend(installed(), NOW).record as LiveInstallation]) {
      const transition = remove(live, LATER)
      expect(transition.record).toMatchObject({ status: "removed", removedAt: LATER, updatedAt: LATER })
      expect(eventTags(transition)).toStrictEqual(["integrations.installation.removed"])
    }
  })
})

describe("changeGrant", () => {
  it("replaces roles and contexts, keeping integrations", () => {
    const transition = Either.getOrThrow(changeGrant(installed(), { roles: ["booking"], contextIds: ["se", "no"] }, contexts, LATER))
    const record: InstallationRecord = transition.record
    expect([record.roles, record.contextIds, record.updatedAt]).toStrictEqual([["booking", "integrations"], ["se", "no"], LATER])
    expect(eventTags(transition)).toStrictEqual(["integrations.installation.grant_changed"])
  })

  it("refuses a nested grant (INTEGRATIONS_CONTEXT_LEVEL_MISMATCH)", () => {
    const result = changeGrant(installed(), { roles: [], contextIds: ["root", "se"] }, contexts, LATER)
    expect(Either.isLeft(result) && result.left.code).toBe("INTEGRATIONS_CONTEXT_LEVEL_MISMATCH")
  })
})
