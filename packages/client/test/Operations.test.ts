/**
 * The Promise API's table of operations (`src/internal/operations.ts`) is the contract's: every group, operation,
 * method and path of `IntegrationApi`, nothing else. When the contract changes, `node scripts/operations.mjs` rewrites
 * the table.
 */
import { IntegrationApi } from "@propline/contract/Api.js"
import { describe, expect, it } from "vitest"
import { OPERATIONS } from "../src/internal/operations.js"
import { Propline } from "../src/Propline.js"

const fromContract = () => {
  const table: Record<string, Record<string, string>> = {}
  for (const [group, { endpoints }] of Object.entries(
    IntegrationApi.groups as Record<string, { readonly endpoints: Record<string, { method: string; path: string }> }>
  )) {
    table[group] = {}
    for (const [name, endpoint] of Object.entries(endpoints)) table[group][name] = `${endpoint.method} ${endpoint.path}`
  }
  return table
}

describe("the operations table", () => {
  it("equals the contract's groups, operations, methods and paths (else run scripts/operations.mjs)", () => {
    expect(OPERATIONS).toEqual(fromContract())
  })

  it("gives the Promise client one function per operation", () => {
    const propline = new Propline({ baseUrl: "http://127.0.0.1:1", accessToken: "t" }) as unknown as Record<
      string,
      Record<string, unknown>
    >
    for (const [group, operations] of Object.entries(fromContract()))
      expect(Object.keys(propline[group] ?? {}).sort()).toEqual(Object.keys(operations).sort())
  })
})
