import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { Role } from "../src/AccessTokenClaims.js"
import { canRead, type EventReader, roleOf, type VisibleEvent, visibleContexts } from "../src/EventVisibility.js"
import type { ContextNode } from "../src/Grant.js"

const ORG = "org-a"
const OTHER_ORG = "org-b"
// root ─┬─ north ── north-1
//       └─ south
const TREE: ReadonlyArray<ContextNode> = [
  { id: "root", parentId: null },
  { id: "north", parentId: "root" },
  { id: "north-1", parentId: "north" },
  { id: "south", parentId: "root" }
]
const CONTEXTS = TREE.map((node) => node.id)
const ROLES: ReadonlyArray<Role> = ["billing", "signing", "booking", "integrations"]
const TYPES = [
  "billing.invoice.approved",
  "billing.invoice_proposal.passed",
  "crm.signing_attempt.signed",
  "booking.booking_request.approved",
  "integrations.configuration.ready",
  "integrations.installation.suspended",
  "tenancy.contract.created",
  "billing"
] as const

const reader = (overrides: Partial<EventReader> = {}): EventReader => ({
  organizationId: ORG,
  roles: ["billing", "signing", "booking"],
  visibleContextIds: visibleContexts(["root"], TREE),
  ...overrides
})

const event = (overrides: Partial<VisibleEvent> = {}): VisibleEvent => ({
  type: "billing.invoice.approved",
  organizationId: ORG,
  operationalContextId: "north-1",
  ...overrides
})

describe("visibleContexts", () => {
  it("is each granted context with every context below it", () => {
    expect([...visibleContexts(["north"], TREE)].sort()).toEqual(["north", "north-1"])
    expect([...visibleContexts(["root"], TREE)].sort()).toEqual([...CONTEXTS].sort())
    expect([...visibleContexts(["south", "north-1"], TREE)].sort()).toEqual(["north-1", "south"])
  })

  it("sees nothing through a context outside the tree", () => {
    expect(visibleContexts(["elsewhere"], TREE).size).toBe(0)
    expect(visibleContexts([], TREE).size).toBe(0)
  })
})

describe("roleOf", () => {
  it("maps each area to its role and an unknown area to none", () => {
    expect(TYPES.map(roleOf)).toEqual(["billing", "billing", "signing", "booking", "integrations", "integrations", undefined, undefined])
  })
})

describe("canRead", () => {
  it("reads an event of its organization, role and contexts", () => {
    expect(canRead(reader(), event())).toBe(true)
    expect(canRead(reader({ visibleContextIds: visibleContexts(["north"], TREE) }), event())).toBe(true)
  })

  it("never reads another organization's event", () => {
    expect(canRead(reader(), event({ organizationId: OTHER_ORG }))).toBe(false)
  })

  it("needs the area's role", () => {
    expect(canRead(reader({ roles: ["signing", "booking"] }), event())).toBe(false)
    expect(canRead(reader({ roles: ["billing"] }), event({ type: "crm.signing_attempt.signed" }))).toBe(false)
    expect(canRead(reader({ roles: ["signing"] }), event({ type: "crm.signing_attempt.signed" }))).toBe(true)
    expect(canRead(reader({ roles: ["billing"] }), event({ type: "booking.booking_request.created" }))).toBe(false)
  })

  it("reads no event of an unknown area, whatever the roles", () => {
    expect(canRead(reader({ roles: ROLES }), event({ type: "tenancy.contract.created" }))).toBe(false)
  })

  it("needs the event's context among the visible ones", () => {
    expect(canRead(reader({ visibleContextIds: visibleContexts(["south"], TREE) }), event())).toBe(false)
    expect(canRead(reader({ visibleContextIds: visibleContexts(["north-1"], TREE) }), event({ operationalContextId: "north" }))).toBe(
      false
    )
  })

  it("reads an integrations event of its own installation only", () => {
    const installation = reader({ roles: ["integrations"], installationId: "inst-1" })
    const ready = event({ type: "integrations.configuration.ready", operationalContextId: null, installationId: "inst-1" })
    expect(canRead(installation, ready)).toBe(true)
    expect(canRead(installation, { ...ready, installationId: "inst-2" })).toBe(false)
    expect(canRead(installation, { ...ready, installationId: null })).toBe(false)
    expect(canRead(reader({ roles: ROLES }), ready)).toBe(false)
  })

  it("holds the four conditions for any reader and event (property)", () => {
    const roles = fc.subarray([...ROLES])
    const grants = fc.subarray(CONTEXTS)
    fc.assert(
      fc.property(
        fc.constantFrom(ORG, OTHER_ORG),
        roles,
        grants,
        fc.option(fc.constantFrom("inst-1", "inst-2"), { nil: undefined }),
        fc.constantFrom(...TYPES),
        fc.constantFrom(ORG, OTHER_ORG),
        fc.option(fc.constantFrom(...CONTEXTS), { nil: null }),
        fc.option(fc.constantFrom("inst-1", "inst-2"), { nil: null }),
        (readerOrg, readerRoles, granted, installationId, type, eventOrg, contextId, eventInstallation) => {
          const who = reader({ organizationId: readerOrg, roles: readerRoles, visibleContextIds: visibleContexts(granted, TREE), installationId })
          const what = event({ type, organizationId: eventOrg, operationalContextId: contextId, installationId: eventInstallation })
          const role = roleOf(type)
          const expected =
            readerOrg === eventOrg &&
            role !== undefined &&
            readerRoles.includes(role) &&
            (contextId === null || granted.some((id) => id === contextId || ancestors(contextId).includes(id))) &&
            (role !== "integrations" || (installationId !== undefined && installationId === eventInstallation))
          expect(canRead(who, what)).toBe(expected)
        }
      )
    )
  })
})

/** The contexts above `id` in {@link TREE}. */
const ancestors = (id: string): Array<string> => {
  const parent = TREE.find((node) => node.id === id)?.parentId ?? null
  return parent === null ? [] : [parent, ...ancestors(parent)]
}
