import { describe, expect, it } from "@effect/vitest"
import { ORGANIZATION_ROLES, receives } from "../src/Subscription.js"

const reader = { organizationId: "org-1", roles: ORGANIZATION_ROLES, visibleContextIds: new Set(["ctx-a"]) }
const event = { type: "billing.invoice.approved", organizationId: "org-1", operationalContextId: "ctx-a" }

describe("Subscription.receives", () => {
  it("an event of a subscribed type (or any, when none are listed) the principal can read", () => {
    expect(receives({ eventTypes: [], reader }, event)).toBe(true)
    expect(receives({ eventTypes: ["billing.invoice.approved"], reader }, event)).toBe(true)
  })

  it("not an event of another type, organization or context, nor an installation's integrations event", () => {
    expect(receives({ eventTypes: ["booking.booking_request.approved"], reader }, event)).toBe(false)
    expect(receives({ eventTypes: [], reader }, { ...event, organizationId: "org-2" })).toBe(false)
    expect(receives({ eventTypes: [], reader }, { ...event, operationalContextId: "ctx-b" })).toBe(false)
    expect(receives({ eventTypes: [], reader }, { ...event, type: "integrations.configuration.ready", installationId: "i-1" })).toBe(false)
  })
})
