import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ApplicationRecord, SecretRecord } from "../src/Application.js"
import {
  changeGrant,
  createApplication,
  disable,
  enable,
  issueSecret,
  MAX_ACTIVE_SECRETS,
  revokeSecret
} from "../src/Application.js"
import type { ContextNode } from "../src/Grant.js"

const NOW = new Date("2026-11-23T08:00:00.000Z")
const LATER = new Date("2026-11-23T09:00:00.000Z")
const contexts: ReadonlyArray<ContextNode> = [
  { id: "root", parentId: null },
  { id: "se", parentId: "root" }
]

const application = (): ApplicationRecord =>
  Either.getOrThrow(
    createApplication(
      contexts,
      { id: "a-1", organizationId: "org-1", clientId: "app_1", name: "ERP", roles: ["billing"], contextIds: ["root"] },
      NOW
    )
  ).record

const secret = (id: string): SecretRecord => ({ id, applicationId: "a-1", lastFour: "abcd", createdAt: NOW, revokedAt: null })

describe("limits (spec 5.2, 8)", () => {
  it("allow 2 active secrets", () => {
    expect(MAX_ACTIVE_SECRETS).toBe(2)
  })
})

describe("createApplication", () => {
  it("creates an active Application", () => {
    expect(application()).toStrictEqual({
      id: "a-1",
      organizationId: "org-1",
      clientId: "app_1",
      name: "ERP",
      roles: ["billing"],
      contextIds: ["root"],
      status: "active",
      disabledAt: null,
      createdAt: NOW,
      updatedAt: NOW
    })
  })

  it("refuses the integrations role (INTEGRATIONS_ROLE_NOT_GRANTABLE, 400)", () => {
    const result = createApplication(
      contexts,
      { id: "a-2", organizationId: "org-1", clientId: "app_2", name: "x", roles: ["integrations"], contextIds: ["root"] },
      NOW
    )
    expect(Either.isLeft(result) && [result.left.code, result.left.status]).toStrictEqual(["INTEGRATIONS_ROLE_NOT_GRANTABLE", 400])
  })
})

describe("disable and enable (spec 5.5)", () => {
  it("disables an active Application and enables it again", () => {
    const disabled = disable(application(), LATER)
    expect([disabled.changed, disabled.record.status, disabled.record.disabledAt]).toStrictEqual([true, "disabled", LATER])
    const enabled = enable(disabled.record, LATER)
    expect([enabled.changed, enabled.record.status, enabled.record.disabledAt]).toStrictEqual([true, "active", null])
  })

  it("changes nothing when repeated", () => {
    const disabled = disable(application(), NOW).record
    expect(disable(disabled, LATER)).toStrictEqual({ record: disabled, changed: false })
    const active = application()
    expect(enable(active, LATER)).toStrictEqual({ record: active, changed: false })
  })
})

describe("changeGrant", () => {
  it("replaces roles and contexts", () => {
    const { record } = Either.getOrThrow(changeGrant(application(), { roles: ["signing", "billing"], contextIds: ["se"] }, contexts, LATER))
    expect([record.roles, record.contextIds, record.updatedAt]).toStrictEqual([["billing", "signing"], ["se"], LATER])
  })

  it("refuses a context outside the organization (INTEGRATIONS_CONTEXT_LEVEL_MISMATCH)", () => {
    const result = changeGrant(application(), { roles: [], contextIds: ["elsewhere"] }, contexts, LATER)
    expect(Either.isLeft(result) && result.left.code).toBe("INTEGRATIONS_CONTEXT_LEVEL_MISMATCH")
  })
})

describe("issueSecret (spec 5.2: two active secrets)", () => {
  it("records a first and a second secret", () => {
    for (const active of [[], [secret("s-1")]]) {
      expect(issueSecret(active, { applicationId: "a-1", secretId: "s-new", lastFour: "wxyz" }, LATER)).toStrictEqual(
        Either.right({ record: { id: "s-new", applicationId: "a-1", lastFour: "wxyz", createdAt: LATER, revokedAt: null } })
      )
    }
  })

  it("refuses a third (APPLICATION_SECRET_LIMIT_REACHED, 400)", () => {
    const result = issueSecret([secret("s-1"), secret("s-2")], { applicationId: "a-1", secretId: "s-3", lastFour: "wxyz" }, LATER)
    expect(Either.isLeft(result) && [result.left.code, result.left.status, result.left.activeSecrets]).toStrictEqual([
      "APPLICATION_SECRET_LIMIT_REACHED",
      400,
      2
    ])
  })
})

describe("revokeSecret (spec 5.5)", () => {
  it("revokes an active secret", () => {
    expect(revokeSecret([secret("s-1"), secret("s-2")], { applicationId: "a-1", secretId: "s-2" }, LATER)).toStrictEqual(
      Either.right({ record: { ...secret("s-2"), revokedAt: LATER } })
    )
  })

  it("refuses an unknown or already revoked secret, and another Application's (APPLICATION_SECRET_NOT_FOUND, 400)", () => {
    const foreign = { ...secret("s-9"), applicationId: "a-2" }
    for (const secretId of ["s-3", "s-9"]) {
      const result = revokeSecret([secret("s-1"), foreign], { applicationId: "a-1", secretId }, LATER)
      expect(Either.isLeft(result) && [result.left.code, result.left.status]).toStrictEqual(["APPLICATION_SECRET_NOT_FOUND", 400])
    }
  })
})
