import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ContextNode, Grantee, GrantRequest } from "../src/Grant.js"
import { checkGrant, GRANTABLE_ROLES } from "../src/Grant.js"

// root ─┬─ se ─── kungsholmen ─── house-a
//       └─ no ─── aker
const contexts: ReadonlyArray<ContextNode> = [
  { id: "root", parentId: null },
  { id: "se", parentId: "root" },
  { id: "no", parentId: "root" },
  { id: "kungsholmen", parentId: "se" },
  { id: "house-a", parentId: "kungsholmen" },
  { id: "aker", parentId: "no" }
]

const outcome = (grantee: Grantee, request: GrantRequest) => {
  const result = checkGrant(grantee, request, contexts)
  return Either.isRight(result)
    ? result.right
    : { code: result.left.code, status: result.left.status, rule: "rule" in result.left ? result.left.rule : result.left.role }
}

describe("grantable roles (decisions 2)", () => {
  it("are billing, signing, booking for an Application, and integrations too for an installation", () => {
    expect(GRANTABLE_ROLES).toStrictEqual({
      application: ["billing", "signing", "booking"],
      installation: ["billing", "signing", "booking", "integrations"]
    })
  })
})

describe("checkGrant: roles", () => {
  it("keeps an Application's roles in canonical order, once each; no role at all is allowed", () => {
    expect(outcome("application", { roles: ["booking", "billing", "booking"], contextIds: ["root"] })).toStrictEqual({
      roles: ["billing", "booking"],
      contextIds: ["root"]
    })
    expect(outcome("application", { roles: [], contextIds: ["root"] })).toStrictEqual({ roles: [], contextIds: ["root"] })
  })

  it("always gives an installation integrations", () => {
    expect(outcome("installation", { roles: ["signing"], contextIds: ["se"] })).toStrictEqual({
      roles: ["signing", "integrations"],
      contextIds: ["se"]
    })
    expect(outcome("installation", { roles: [], contextIds: ["se"] })).toStrictEqual({ roles: ["integrations"], contextIds: ["se"] })
  })

  const refused: ReadonlyArray<readonly [string, Grantee, ReadonlyArray<string>, string]> = [
    ["integrations for an Application", "application", ["billing", "integrations"], "integrations"],
    ["an unknown role", "installation", ["billing", "admin"], "admin"],
    ["a role in another case", "application", ["Billing"], "Billing"],
    ["an empty role name", "installation", [""], ""]
  ]
  for (const [name, grantee, roles, role] of refused) {
    it(`refuses ${name} (INTEGRATIONS_ROLE_NOT_GRANTABLE, 400)`, () => {
      expect(outcome(grantee, { roles, contextIds: ["root"] })).toStrictEqual({
        code: "INTEGRATIONS_ROLE_NOT_GRANTABLE",
        status: 400,
        rule: role
      })
    })
  }

  it("judges roles before contexts", () => {
    expect(outcome("application", { roles: ["admin"], contextIds: [] })).toMatchObject({ code: "INTEGRATIONS_ROLE_NOT_GRANTABLE" })
  })
})

describe("checkGrant: contexts", () => {
  it("accepts the root, or disjoint parts of the tree", () => {
    expect(outcome("application", { roles: ["billing"], contextIds: ["root"] })).toMatchObject({ contextIds: ["root"] })
    expect(outcome("application", { roles: ["billing"], contextIds: ["house-a", "no"] })).toMatchObject({
      contextIds: ["house-a", "no"]
    })
    expect(outcome("application", { roles: ["billing"], contextIds: ["kungsholmen", "aker"] })).toMatchObject({
      contextIds: ["kungsholmen", "aker"]
    })
  })

  const refused: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["no context", [], "none"],
    ["a context of another organization", ["se", "elsewhere"], "outside_organization"],
    ["a context inside a granted one", ["se", "house-a"], "nested"],
    ["a granted one inside the next (any order)", ["house-a", "root"], "nested"],
    ["the same context twice", ["aker", "aker"], "nested"]
  ]
  for (const [name, contextIds, rule] of refused) {
    it(`refuses ${name} (INTEGRATIONS_CONTEXT_LEVEL_MISMATCH, ${rule})`, () => {
      expect(outcome("installation", { roles: ["billing"], contextIds })).toStrictEqual({
        code: "INTEGRATIONS_CONTEXT_LEVEL_MISMATCH",
        status: 400,
        rule
      })
    })
  }
})
